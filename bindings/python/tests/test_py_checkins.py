"""CWA event check-ins through the Python bindings (issue 16): the spec's
known answers (location id hashes, AES-256-CBC + HMAC reports both ways, the
ten time derivations) through the C API, QR codes that must fail with their
own exception, check-ins kept, edited, closed, purged and deleted in a store,
trace warning packages written here with the `cryptography` package (not
with encore) and signed like key files, hostile reports skipped and counted,
the presence-tracing risk and its share of the exposure check."""
import base64
import datetime
import hashlib
import json
import os
import sys

import pytest

from encore_testdata import REPO

import encore
from encore import CheckInRecord, CheckInRiskConfig, CheckIns, ProtectedReport
from encore import checkins

sys.path.insert(0, str(REPO / "Tests"))
from standins import keyfiles, protos  # noqa: E402
from standins.checkin_reports import open_report, seal  # noqa: E402
from standins.wire import field  # noqa: E402

VECTORS = REPO / "Tests/data/cwa"
DAY = 86_400
NOW = 20_400 * DAY + 20 * 3600            # 2025-11-08 20:00 UTC
MIDNIGHT = NOW - NOW % DAY
REAL_QR = ("https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURh"
           "OIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA")


def b64(text):
    return base64.b64decode(text)


def kat():
    return json.loads((VECTORS / "android-presence-tracing-crypto-kat.json").read_text())


def qr_payload(description="Café Müller", address="Main Street 1", start=0, end=0, seed=bytes(16), length=None, version=1):
    location = field(1, 1) + field(2, description) + field(3, address)
    if start:
        location += field(5, start)
    if end:
        location += field(6, end)
    crowd = field(1, 1) + field(2, b"\x04" + bytes(64)) + field(3, seed)
    vendor = field(1, 1) + field(2, 4) + (field(3, length) if length is not None else b"")
    return field(1, version) + field(2, location) + field(3, crowd) + field(4, vendor)


def qr(payload, padded=False):
    text = base64.urlsafe_b64encode(payload).decode()
    return "https://e.coronawarn.app?v=1#" + (text if padded else text.rstrip("="))


def location_id(payload):
    return hashlib.sha256(b"CWA-GUID" + payload).digest()


def real_payload():
    encoded = REAL_QR.split("#", 1)[1]
    return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))


# ---- CWA's crypto, independently of encore

@pytest.fixture
def signer():
    s = keyfiles.SigningKey()
    with encore.TrustList() as trust:
        trust.add_key(s.key_id, s.key_version, s.public_pem)
        yield s, trust


def package(signer, reports=(), warnings=(), raw=None):
    if raw is None:
        raw = protos.TraceWarningPackage(intervalNumber=NOW // 3600, region="DE", checkInProtectedReports=list(reports),
                                         timeIntervalWarnings=list(warnings)).SerializeToString()
    return keyfiles.signed_package(raw, [signer])


@pytest.fixture
def store(tmp_path):
    with encore.Store.open(tmp_path / "s.db", raw_key=b"\x05" * 32) as s:
        yield s


# ---- known answers ------------------------------------------------------------

def test_location_id_hashes_are_the_known_answers():
    for case in kat()["locationIdHash"]:
        # encrypt_report names the report's location by SHA-256 of the id.
        r = checkins.encrypt_report(bytes.fromhex(case["locationIdHex"]), CheckInRecord(1, 2, 3))
        assert r.location_id_hash.hex() == case["expLocationIdHashHex"]


def test_the_vectors_payloads_have_a_seed_no_scanned_code_may_carry():
    # The vectors' seed is 4 bytes ("1234"); a code must carry 16.
    for case in kat()["locationIdFromQrCodePayload"]:
        payload = b64(case["qrCodePayloadBase64"])
        assert location_id(payload) == b64(case["expLocationIdBase64"])  # the vector itself, in Python
        with pytest.raises(encore.QrInvalidError, match="cryptographicSeed has 4 bytes"):
            checkins.location_from_payload(payload)


def test_a_real_qr_code():
    loc = checkins.parse_qr(REAL_QR)
    payload = real_payload()
    assert loc.description == "Agway Inc." and loc.address == "1594 Deffe Avenue"
    assert loc.location_type == 4 and loc.default_check_in_length_minutes == 28
    assert loc.automatic_length_seconds == 30 * 60  # 28 rounded to the nearest 15 minutes
    assert loc.payload_length == len(payload)
    assert loc.location_id == location_id(payload)
    assert loc.location_id_hash == hashlib.sha256(loc.location_id).digest()
    assert checkins.parse_qr(qr(payload, padded=True)) == loc
    assert checkins.location_from_payload(payload) == loc


def test_reports_encrypt_to_the_known_answers():
    for case in kat()["encrypt"]:
        start = case["checkInStartEpochMinutes"] // 10
        record = CheckInRecord(start, case["checkInEndEpochMinutes"] // 10 - start, case["transmissionRiskLevel"])
        r = checkins.encrypt_report(b64(case["locationIdBase64"]), record, iv=b64(case["ivBase64"]))
        assert r.encrypted_record == b64(case["expEncryptedCheckInRecordBase64"])
        assert r.mac == b64(case["expMacBase64"])
        assert checkins.decrypt_report(b64(case["locationIdBase64"]), r) == record


def test_reports_decrypt_to_the_known_answers_and_any_flipped_bit_fails_the_mac():
    for case in kat()["decrypt"]:
        lid = b64(case["locationIdBase64"])
        report = ProtectedReport(hashlib.sha256(lid).digest(), b64(case["ivBase64"]), b64(case["encryptedCheckInRecordBase64"]),
                                 b64(case["macBase64"]))
        assert checkins.decrypt_report(lid, report) == CheckInRecord(
            case["expStartIntervalNumber"], case["expPeriod"], case["expTransmissionRiskLevel"])
        for name in ("iv", "encrypted_record", "mac"):
            value = bytearray(getattr(report, name))
            value[-1] ^= 1
            bad = ProtectedReport(**{**report.__dict__, name: bytes(value)})
            with pytest.raises(encore.ReportMacError):
                checkins.decrypt_report(lid, bad)
        with pytest.raises(encore.ReportMacError):
            checkins.decrypt_report(bytes(32), report)  # another location's key


def test_reports_of_wrong_lengths_or_padding_are_invalid():
    lid = os.urandom(32)
    good = seal(lid, 1000, 3, 5)
    as_report = ProtectedReport(good.locationIdHash, good.iv, good.encryptedCheckInRecord, good.mac)
    # Not whole AES blocks, and nothing at all.
    for sealed in (good.encryptedCheckInRecord[:15], b""):
        with pytest.raises(encore.ReportInvalidError):
            checkins.decrypt_report(lid, ProtectedReport(good.locationIdHash, good.iv, sealed, good.mac))
    # A right MAC over a block whose padding is wrong (the sender encrypted garbage).
    unpadded = seal(lid, 0, 0, 0, plain=b"\x08\x01" + b"\x00" * 14, pad=False)
    with pytest.raises(encore.ReportInvalidError, match="padding"):
        checkins.decrypt_report(lid, ProtectedReport(unpadded.locationIdHash, unpadded.iv, unpadded.encryptedCheckInRecord, unpadded.mac))
    # Padded right, but the plaintext is no CheckInRecord.
    junk = seal(lid, 0, 0, 0, plain=b"\xff\xff\xff")
    with pytest.raises(encore.ReportInvalidError):
        checkins.decrypt_report(lid, ProtectedReport(junk.locationIdHash, junk.iv, junk.encryptedCheckInRecord, junk.mac))
    # Lengths C cannot hold are refused before the call.
    with pytest.raises(ValueError):
        checkins.decrypt_report(lid, ProtectedReport(as_report.location_id_hash, as_report.iv, bytes(48), as_report.mac))
    with pytest.raises(ValueError):
        checkins.decrypt_report(lid[:31], as_report)
    with pytest.raises(ValueError):
        checkins.encrypt_report(lid, CheckInRecord(1, 1, 1), iv=bytes(15))
    with pytest.raises(ValueError):
        checkins.encrypt_report(lid, CheckInRecord(-1, 1, 1))


def test_the_ten_time_derivations():
    vectors = json.loads((VECTORS / "ios-checkin-timeinterval-derivation.json").read_text())
    cases = vectors["testCases"]
    assert len(cases) == 10

    def t(text):
        return int(datetime.datetime.fromisoformat(text).timestamp())

    for case in cases:
        got = checkins.derive_times(t(case["startDate"]), t(case["endDate"]))
        expected = None if case["expStartDate"] is None else (t(case["expStartDate"]), t(case["expEndDate"]))
        assert got == expected, case["description"]


# ---- QR codes that cannot be used -------------------------------------------------

def test_bad_qr_codes_raise_their_own_errors():
    good = qr_payload()
    encoded = qr(good).split("#", 1)[1]
    cases = [
        ("https://example.com?v=1#" + encoded, encore.QrNotCwaError),
        ("https://e.coronawarn.app#" + encoded, encore.QrNotCwaError),
        ("https://e.coronawarn.app?v=2#" + encoded, encore.QrVersionError),
        ("https://e.coronawarn.app?v=1#@@@@", encore.QrEncodingError),
        ("https://e.coronawarn.app?v=1#", encore.QrMalformedError),
        ("https://e.coronawarn.app?v=1#AAAA", encore.QrMalformedError),
        (qr(b"\xff" * 40), encore.QrMalformedError),
        (qr(qr_payload(version=2)), encore.QrVersionError),
        (qr(qr_payload(description="x" * 256)), encore.QrInvalidError),
        (qr(qr_payload(address="y" * 256)), encore.QrInvalidError),
        (qr(qr_payload(address="")), encore.QrInvalidError),
        (qr(qr_payload(address="two\nlines")), encore.QrInvalidError),
        (qr(qr_payload(start=NOW)), encore.QrInvalidError),
        (qr(qr_payload(description="")), encore.QrInvalidError),
        (qr(qr_payload(start=NOW, end=NOW - 1)), encore.QrInvalidError),
        (qr(qr_payload(seed=bytes(8))), encore.QrInvalidError),
        ("https://e.coronawarn.app?v=1#" + "A" * 5000, encore.QrTooLargeError),
    ]
    for text, error in cases:
        with pytest.raises(error):
            checkins.parse_qr(text)
    # 255 characters (not bytes) are allowed.
    assert checkins.parse_qr(qr(qr_payload(description="ü" * 255))).description == "ü" * 255
    with pytest.raises(ValueError):
        checkins.parse_qr(REAL_QR + "\0")
    with pytest.raises(TypeError):
        checkins.parse_qr(42)


def test_a_hostile_qr_code_leaves_the_store_alone(store):
    c = encore.Client(store, clock=NOW).checkins
    for text in ("https://e.coronawarn.app?v=1#@@", qr(qr_payload(description="x" * 256))):
        with pytest.raises(encore.EncoreError) as e:
            c.add(text, NOW - 3600)
        assert e.value.status_name.startswith("ENCORE_ERR_QR_")
    assert c.list() == []


# ---- check-ins in the store ---------------------------------------------------------

def test_add_list_end_edit_delete(store):
    c = encore.Client(store, clock=NOW).checkins
    closed = c.add(REAL_QR, NOW - 3 * 3600, NOW - 2 * 3600)
    opened = c.add(qr(qr_payload(length=90)), NOW - 1800)
    listed = c.list()
    assert [x.id for x in listed] == [closed, opened]
    a, b = listed
    assert (a.start, a.end, a.description, a.address) == (NOW - 3 * 3600, NOW - 2 * 3600, "Agway Inc.", "1594 Deffe Avenue")
    assert a.location_id_hash == checkins.parse_qr(REAL_QR).location_id_hash and not a.submitted
    assert a.kind == "cwa" and a.created == NOW  # the check-in's app and when it was stored
    # Open: it closes by itself after the location's 90 minutes.
    assert b.end is None and b.auto_end == NOW - 1800 + 90 * 60 and b.description == "Café Müller"

    c.end(opened, NOW - 600)
    assert c.list()[1].end == NOW - 600
    c.edit(opened, NOW - 7200, NOW - 3600)
    assert (c.list()[1].start, c.list()[1].end) == (NOW - 7200, NOW - 3600)
    c.edit(opened, NOW - 900)          # checked in again
    assert c.list()[1].end is None

    with pytest.raises(encore.CheckinTimesError):
        c.end(closed, NOW - 4 * 3600)  # before its start
    with pytest.raises(encore.CheckinTimesError, match="out of range"):
        c.edit(opened, 2 ** 63 - 1)    # its automatic end would be past Int64's (this trapped)
    with pytest.raises(encore.CheckinTimesError):
        c.add(REAL_QR, NOW, NOW - 1)
    with pytest.raises(encore.NotFoundError):
        c.end(999, NOW)
    assert c.delete(closed) is True and c.delete(closed) is False
    assert [x.id for x in c.list()] == [opened]
    with pytest.raises(ValueError):
        c.add(REAL_QR, 1 << 63)


def test_open_check_ins_close_and_old_ones_are_purged(store):
    c = encore.Client(store, clock=NOW).checkins
    open_id = c.add(REAL_QR, NOW - 3600)
    # 30 minutes (the code's default length, 28, rounded to 15-minute steps) later it is closed.
    [x] = c.list()
    assert x.end == NOW - 3600 + 30 * 60
    old = c.add(REAL_QR, NOW - 12 * DAY, NOW - 12 * DAY + 3600)
    assert old != open_id
    assert [x.id for x in c.list()] == [open_id]  # over 10 days: deleted


def test_the_store_keeps_no_check_in_in_clear(tmp_path):
    path = tmp_path / "clear.db"
    with encore.Store.open(path, raw_key=b"\x09" * 32) as s:
        encore.Client(s, clock=NOW).checkins.add(REAL_QR, NOW - 3600, NOW)
        assert encore.Client(s, clock=NOW).checkins.list()[0].description == "Agway Inc."
    raw = path.read_bytes()
    assert b"Agway" not in raw and b"Deffe" not in raw and location_id(real_payload()) not in raw


# ---- warnings and their risk ------------------------------------------------------

def test_a_warning_package_matches_and_is_assessed(store, signer):
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    visit = c.add(REAL_QR, NOW - 8 * 3600, NOW - 6 * 3600)           # 12:00-14:00
    elsewhere = c.add(qr(qr_payload()), NOW - 8 * 3600, NOW - 6 * 3600)
    loc = location_id(real_payload())
    twp = package(s, [seal(loc, (NOW - 7 * 3600) // 600, 12, 7),               # 13:00-15:00, TRL 7
                      seal(os.urandom(32), (NOW - 7 * 3600) // 600, 12, 8)])   # another place
    summary = c.match_package(twp, trust=trust)
    assert (summary.signature_status, summary.reports, summary.matches, summary.added, summary.skipped) == ("verified", 2, 1, 1, 0)
    assert summary.interval_number == NOW // 3600
    assert c.match_package(twp, trust=trust).added == 0    # once, however often

    risk = c.assess()
    [m] = risk.matches
    assert (m.check_in, m.overlap_seconds, m.overlap_minutes, m.transmission_risk_level) == (visit, 3600, 60, 7)
    assert m.date == MIDNIGHT and m.normalized_time == pytest.approx(84.0)
    assert m.location_id_hash == hashlib.sha256(loc).digest()
    assert [(d.date, d.risk_level) for d in risk.days] == [(MIDNIGHT, "HIGH")] and risk.total_risk_level == "HIGH"
    assert risk.json["totalRiskLevel"] == "HIGH" and risk.json["matches"][0]["overlapMinutes"] == 60
    assert elsewhere not in [x.check_in for x in risk.matches]

    # Parameters of one's own: a HIGH needs 100 → LOW; a mapping that leaves 84 out → FAILED.
    mapping = [{"normalizedTimeRange": {"min": 0, "minExclusive": True, "max": 100, "maxExclusive": True}, "riskLevel": 1},
               {"normalizedTimeRange": {"min": 100, "max": 999999}, "riskLevel": 2}]
    trv = [{"transmissionRiskLevel": t, "transmissionRiskValue": v} for t, v in zip(range(1, 9), (0, 0, .6, .8, 1, 1.2, 1.4, 1.6))]
    lenient = CheckInRiskConfig({"transmissionRiskValueMapping": trv, "normalizedTimePerCheckInToRiskLevelMapping": mapping,
                                 "normalizedTimePerDayToRiskLevelMapping": mapping})
    assert c.assess(lenient).total_risk_level == "LOW"
    gap = [{"normalizedTimeRange": {"min": 100, "max": 999999}, "riskLevel": 2}]
    failing = CheckInRiskConfig(json.dumps({"transmissionRiskValueMapping": trv, "normalizedTimePerCheckInToRiskLevelMapping": gap,
                                            "normalizedTimePerDayToRiskLevelMapping": gap}))
    assert c.assess(failing).total_risk_level == "FAILED"
    assert c.assess(CheckInRiskConfig.cwa()) == risk
    with pytest.raises(encore.InvalidArgumentError, match="transmissionRiskValue"):
        CheckInRiskConfig({"transmissionRiskValueMapping": [{"transmissionRiskLevel": 1, "transmissionRiskValue": -1}],
                           "normalizedTimePerCheckInToRiskLevelMapping": mapping, "normalizedTimePerDayToRiskLevelMapping": mapping})
    with pytest.raises(encore.EncoreError):
        CheckInRiskConfig(b"{")

    # Deleting the check-in deletes its warnings.
    assert c.delete(visit)
    assert c.assess().matches == () and c.assess().total_risk_level == "LOW"


def test_plain_warnings_and_the_overlap_boundaries(store, signer):
    """The deprecated unencrypted warnings, and the overlap rule at its edges:
    a warning that ends when the visit starts does not match."""
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    start = MIDNIGHT + 12 * 3600
    visit = c.add(REAL_QR, start, start + 3600)
    h = hashlib.sha256(location_id(real_payload())).digest()
    w = [protos.TraceTimeIntervalWarning(locationIdHash=h, startIntervalNumber=start // 600 - 3, period=3, transmissionRiskLevel=8),  # ends at start
         protos.TraceTimeIntervalWarning(locationIdHash=h, startIntervalNumber=start // 600 + 6, period=2, transmissionRiskLevel=8),  # starts at the end
         protos.TraceTimeIntervalWarning(locationIdHash=h, startIntervalNumber=start // 600 + 5, period=1, transmissionRiskLevel=5)]  # the last 10 min
    summary = c.match_package(package(s, warnings=w), trust=trust)
    assert (summary.warnings, summary.matches, summary.skipped) == (3, 3, 0)
    risk = c.assess()
    assert [(m.check_in, m.overlap_minutes, m.transmission_risk_level) for m in risk.matches] == [(visit, 10, 5)]
    assert risk.days[0].normalized_time == pytest.approx(10.0) and risk.total_risk_level == "HIGH"


def test_hostile_reports_are_skipped_and_counted(store, signer):
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    c.add(REAL_QR, NOW - 8 * 3600, NOW - 6 * 3600)
    loc = location_id(real_payload())
    start = (NOW - 7 * 3600) // 600
    good = seal(loc, start, 12, 7)
    bad_mac = seal(loc, start, 12, 7)
    bad_mac.mac = bytes(32)
    truncated = seal(loc, start, 12, 7)
    truncated.encryptedCheckInRecord = truncated.encryptedCheckInRecord[:8]
    short_iv = seal(loc, start, 12, 7)
    short_iv.iv = short_iv.iv[:12]
    short_hash = seal(loc, start, 12, 7)
    short_hash.locationIdHash = short_hash.locationIdHash[:31]
    bad_padding = seal(loc, 0, 0, 0, plain=b"\x08\x01" + b"\x00" * 14, pad=False)
    zero_period = seal(loc, start, 0, 7)
    trl_nine = seal(loc, start, 12, 9)
    summary = c.match_package(package(s, [good, bad_mac, truncated, short_iv, short_hash, bad_padding, zero_period, trl_nine]),
                              trust=trust)
    assert (summary.reports, summary.matches, summary.skipped) == (8, 1, 7)
    assert len(c.assess().matches) == 1


def test_reports_are_read_as_protobuf_reads_them(store, signer):
    """Reports of unusual shapes decide as protobuf does: unknown fields are
    skipped, a length may be a longer varint, a field given twice counts
    last, a wrong wire type makes the report unusable."""
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    c.add(REAL_QR, NOW - 8 * 3600, NOW - 6 * 3600)
    loc = location_id(real_payload())
    start = (NOW - 7 * 3600) // 600

    def parts():
        r = seal(loc, start, 12, 7)
        return r.locationIdHash, r.iv, r.encryptedCheckInRecord, r.mac

    def body(h, iv, sealed, mac):
        return field(1, h) + field(2, iv) + field(3, sealed) + field(4, mac)

    h, iv, sealed, mac = parts()
    plain = body(h, iv, sealed, mac)
    h, iv, sealed, mac = parts()
    unknown = body(h, iv, sealed, mac) + field(5, 99) + field(6, b"extra")
    h, iv, sealed, mac = parts()
    long_length = b"\x0a\xa0\x00" + h + field(2, iv) + field(3, sealed) + field(4, mac)   # 32 as a two-byte varint
    h, iv, sealed, mac = parts()
    last_wins = field(1, os.urandom(32)) + body(h, iv, sealed, mac)
    h, iv, sealed, mac = parts()
    last_loses = body(h, iv, sealed, mac) + field(1, os.urandom(32))
    h, iv, sealed, mac = parts()
    wrong_type = field(1, 7) + field(2, iv) + field(3, sealed) + field(4, mac)
    reports = [plain, unknown, long_length, last_wins, last_loses, wrong_type]
    raw = field(1, NOW // 3600) + field(2, "DE") + b"".join(field(4, r) for r in reports)
    summary = c.match_package(package(s, raw=raw), trust=trust)
    assert (summary.reports, summary.matches, summary.skipped) == (6, 4, 1)


def test_many_reports_for_one_location(store, signer):
    """10 000 reports for the user's location, half of them forged: the good
    ones are matched, the forged ones counted, nothing fails."""
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    c.add(REAL_QR, NOW - 8 * 3600, NOW - 6 * 3600)
    loc = location_id(real_payload())
    reports = []
    for i in range(10_000):
        r = seal(loc, (NOW - 8 * 3600) // 600 + i % 12, 1, 3)
        if i % 2:
            r.mac = hashlib.sha256(r.mac).digest()
        reports.append(r)
    summary = c.match_package(package(s, reports), trust=trust)
    assert (summary.reports, summary.matches, summary.skipped) == (10_000, 5_000, 5_000)
    risk = c.assess()
    assert len(risk.matches) == 5_000 and risk.total_risk_level == "HIGH"


def test_packages_that_cannot_be_used_raise(store, signer):
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    c.add(REAL_QR, NOW - 3600, NOW)
    stranger = keyfiles.SigningKey(key_id="999")
    with pytest.raises(encore.SignatureUntrustedError):
        c.match_package(package(stranger), trust=trust)
    impostor = keyfiles.SigningKey()  # the trusted key's name, another key
    with pytest.raises(encore.SignatureInvalidError):
        c.match_package(package(impostor), trust=trust)
    with pytest.raises(encore.SignatureMissingError):
        c.match_package(keyfiles.signed_package(b"", [s], omit_sig=True), trust=trust)
    with pytest.raises(encore.WarningMalformedError):
        c.match_package(package(s, raw=b"\xff\xff\xff"), trust=trust)
    with pytest.raises(encore.EncoreError):
        c.match_package(b"PK\x03\x04 not a zip", trust=trust)
    # Never unverified (not even on request); the empty package (Content-Length 0) is no warning at all.
    with pytest.raises(TypeError):
        c.match_package(package(stranger), verify=False)
    empty = c.match_package(b"", trust=trust)
    assert (empty.reports, empty.warnings, empty.matches) == (0, 0, 0)
    with pytest.raises(TypeError):
        c.match_package(42, trust=trust)
    with pytest.raises(TypeError):
        c.match_package(b"", trust="not a trust list")


def test_a_package_from_a_path(store, signer, tmp_path):
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    c.add(REAL_QR, NOW - 8 * 3600, NOW - 6 * 3600)
    path = tmp_path / "twp.zip"
    path.write_bytes(package(s, [seal(location_id(real_payload()), (NOW - 7 * 3600) // 600, 12, 7)]))
    assert c.match_package(path, trust=trust).matches == 1
    assert c.match_package(str(path), trust=trust).added == 0


# ---- the exposure check combines the check-ins' risk ------------------------------

def test_the_exposure_check_is_high_by_a_check_in_alone(store, signer):
    s, trust = signer
    client = encore.Client(store, clock=NOW)
    c = client.checkins
    c.add(REAL_QR, NOW - 8 * 3600, NOW - 6 * 3600)
    keys = keyfiles.key_file([keyfiles.make_key(day="2025-11-07")], s, end_timestamp=NOW - 3600)
    before = client.exposure_check([keys], trust=trust)
    assert before.status != "HIGH" and before.check_ins.total_risk_level == "LOW" and before.check_ins.matches == ()
    c.match_package(package(s, [seal(location_id(real_payload()), (NOW - 7 * 3600) // 600, 12, 7)]), trust=trust)
    after = client.exposure_check([keys], trust=trust)
    assert after.window_count == 0 and after.assessment.total_risk_level == "LOW"
    assert after.status == "HIGH" and after.check_ins.total_risk_level == "HIGH"
    assert [(m.overlap_minutes, m.date) for m in after.check_ins.matches] == [(60, MIDNIGHT)]


# ---- what a submission sends ---------------------------------------------------------

def test_reports_for_submission_decrypt_to_the_derived_times(store):
    c = encore.Client(store, clock=NOW).checkins
    visit = c.add(REAL_QR, MIDNIGHT + 12 * 3600 + 180, MIDNIGHT + 13 * 3600 + 120)
    short = c.add(qr(qr_payload()), MIDNIGHT + 15 * 3600, MIDNIGHT + 15 * 3600 + 300)  # 5 min: dropped
    # Over midnight: two parts.
    night = c.add(qr(qr_payload(description="Bar")), MIDNIGHT - 3600, MIDNIGHT + 3600)
    reports = c.reports()
    by_checkin = {}
    for r in reports:
        by_checkin.setdefault(r.checkin, []).append(r)
    assert short not in by_checkin and set(by_checkin) == {visit, night}
    assert len(by_checkin[night]) == 2

    lid = location_id(real_payload())
    [r] = by_checkin[visit]
    report = r.report
    assert isinstance(report, ProtectedReport) and len(report.encrypted_record) == 16
    record = checkins.decrypt_report(lid, report)
    derived = checkins.derive_times(MIDNIGHT + 12 * 3600 + 180, MIDNIGHT + 13 * 3600 + 120)
    assert record.start_interval_number * 600 == derived[0]
    assert (record.start_interval_number + record.period) * 600 == derived[1]
    assert record.transmission_risk_level == r.transmission_risk_level
    assert (record.start_interval_number, record.period) == (r.start_interval_number, r.period) and r.start == derived[0]
    # And independently of encore: CWA's server-side decryption.
    assert open_report(lid, report.iv, report.encrypted_record, report.mac) == protos.CheckInRecord(
        startIntervalNumber=record.start_interval_number, period=record.period,
        transmissionRiskLevel=record.transmission_risk_level)

    with pytest.raises(ValueError):
        c.reports(symptoms="maybe")
    assert c.reports(onset=MIDNIGHT - 2 * DAY)
