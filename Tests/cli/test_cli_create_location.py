"""`encore checkin create-location` (issue 25, the organizer side) and the
check-in rules of the Corona-Warn-App as the CLI shows them: a created
event or place checks in and matches a warning for its location; its
printable QR code decodes back to its URL (PNG read here with zlib and
decoded by zbar through pyzbar; SVG read back to the same modules); what
the app refuses exits 1 naming the field and the rule; the default
check-in length; check-ins shared with a submission, including one the time
rules drop, are marked submitted and never matched."""
import base64
import hashlib
import json
import re
import struct
import sys
import zlib
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
from standins import protos  # noqa: E402
from test_cli_checkins import package, report, signer  # noqa: E402,F401  (signer is a fixture)
from test_cli_testresult import GUID, db, run, servers, urls  # noqa: E402,F401  (db, servers are fixtures)

DAY = 86_400
NOW = 20_400 * DAY + 9 * 3600  # the stand-ins' day, 09:00 UTC


def payload_of(url):
    encoded = url.split("#", 1)[1]
    return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))


def create(*args):
    r = run("checkin", "create-location", *args, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_created_event_checks_in_and_matches_a_warning(tmp_path, db, signer):
    s, trust = signer
    start, end = NOW - 6 * 3600, NOW - 2 * 3600
    out = create("--description", "Sommerfest", "--address", "Hof 3, Berlin", "--start", start, "--end", end, "--type", "9")
    url = out["url"]
    assert url.startswith("https://e.coronawarn.app?v=1#") and "=" not in url.split("#", 1)[1]
    payload = payload_of(url)
    location_id = hashlib.sha256(b"CWA-GUID" + payload).digest()
    assert out["locationId"] == location_id.hex() and out["locationIdHash"] == hashlib.sha256(location_id).hexdigest()
    # The payload as CWA's apps write it, decoded by the protobuf package.
    qr = protos.QRCodePayload()
    qr.ParseFromString(payload)
    assert qr.version == 1 and qr.locationData.version == 1
    assert (qr.locationData.description, qr.locationData.address) == ("Sommerfest", "Hof 3, Berlin")
    assert (qr.locationData.startTimestamp, qr.locationData.endTimestamp) == (start, end)
    assert qr.crowdNotifierData.version == 1 and len(qr.crowdNotifierData.cryptographicSeed) == 16
    assert qr.crowdNotifierData.publicKey.hex().startswith("8302cccc4d79") and len(qr.crowdNotifierData.publicKey) == 96
    vendor = protos.CWALocationData()
    vendor.ParseFromString(qr.vendorData)
    assert (vendor.version, vendor.type, vendor.defaultCheckInLengthInMinutes) == (1, 9, 15)
    assert out["location"]["defaultCheckInLengthInMinutes"] == 15 and out["location"]["locationType"] == 9

    # A guest scans it and stays 04:00-05:00 UTC.
    r = run("checkin", "add", "--db", db, "--qr", url, "--start", NOW - 5 * 3600, "--end", NOW - 4 * 3600, "--now", NOW, "--json")
    assert r.returncode == 0, r.stderr
    added = json.loads(r.stdout)
    assert added["location"]["locationId"] == location_id.hex()
    # A positive visitor's report for the location, 04:00-04:40 UTC, TRL 7.
    twp = package(tmp_path, s, [report(location_id, (NOW - 5 * 3600) // 600, 4, 7)])
    r = run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW, "--json", twp)
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert [(x["checkin"], x["overlapMinutes"]) for x in m["matches"]] == [(added["checkin"]["id"], 40)]
    assert m["totalRiskLevel"] == "HIGH"


def read_png(data):
    """An 8-bit greyscale PNG as encore writes it (filter 0), read with zlib alone."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    pos, chunks = 8, []
    while pos < len(data):
        length, kind = struct.unpack(">I4s", data[pos:pos + 8])
        body = data[pos + 8:pos + 8 + length]
        (crc,) = struct.unpack(">I", data[pos + 8 + length:pos + 12 + length])
        assert zlib.crc32(kind + body) == crc, kind
        chunks.append((kind, body))
        pos += 12 + length
    assert [k for k, _ in chunks][0] == b"IHDR" and chunks[-1] == (b"IEND", b"")
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", chunks[0][1])
    assert (depth, colour, interlace) == (8, 0, 0)
    raw = zlib.decompress(b"".join(b for k, b in chunks if k == b"IDAT"))
    assert len(raw) == height * (width + 1)
    rows = [raw[y * (width + 1):(y + 1) * (width + 1)] for y in range(height)]
    assert all(r[0] == 0 for r in rows)
    return width, height, b"".join(r[1:] for r in rows)


def svg_modules(svg):
    side = int(re.search(r'viewBox="0 0 (\d+) (\d+)"', svg).group(1))
    dark = set()
    for x, y, w in re.findall(r"M(\d+) (\d+)h(\d+)v1h-\d+z", svg):
        for i in range(int(w)):
            dark.add((int(y), int(x) + i))
    return side, dark


def test_the_printable_code_decodes_back_to_the_url(tmp_path):
    pyzbar = pytest.importorskip("pyzbar.pyzbar")
    png, svg = tmp_path / "code.png", tmp_path / "code.svg"
    out = create("--description", "Café Müller", "--address", "Hauptstraße 1", "--type", "4", "--png", png, "--svg", svg)
    width, height, pixels = read_png(png.read_bytes())
    assert width == height
    [found] = pyzbar.decode((pixels, width, height))
    assert found.type == "QRCODE" and found.data.decode() == out["url"]
    # The SVG has the same modules as the PNG (8 pixels a module).
    side, dark = svg_modules(svg.read_text())
    assert side * 8 == width
    png_dark = {(y, x) for y in range(side) for x in range(side) if pixels[(y * 8 + 4) * width + x * 8 + 4] == 0}
    assert dark == png_dark and len(dark) > 100
    # A larger scale decodes too, and the text mode prints the URL and the id.
    big = tmp_path / "big.png"
    r = run("checkin", "create-location", "--description", "x" * 255, "--address", "ä" * 255, "--png", big, "--scale", "3")
    assert r.returncode == 0, r.stderr
    url, id_line = r.stdout.splitlines()
    assert id_line == "location id: " + hashlib.sha256(b"CWA-GUID" + payload_of(url)).hexdigest()
    w, h, p = read_png(big.read_bytes())
    assert pyzbar.decode((p, w, h))[0].data.decode() == url


@pytest.mark.parametrize("args, words", [
    (["--description", "x" * 256, "--address", "a"], "the location's description has 256 characters; the app allows at most 255"),
    (["--description", "a", "--address", "one\ntwo"], "the location's address spans several lines; the app allows a single line"),
    (["--description", " ", "--address", "a"], "the location's description is blank; the app requires one"),
    (["--description", "a", "--address", "a", "--start", NOW], "an event (type 2) needs a start and an end"),
    (["--description", "a", "--address", "a", "--start", NOW, "--end", NOW], "the event's end (%d) is not after its start (%d)" % (NOW, NOW)),
    (["--description", "a", "--address", "a", "--type", "0"], "the location type 0 is not one the app offers"),
    (["--description", "a", "--address", "a", "--type", "4", "--start", NOW, "--end", NOW + 60], "a place (type 4) has no start or end"),
    (["--description", "a", "--address", "a", "--default-minutes", "1426"], "1426 minutes is above the app's longest, 1425"),
])
def test_what_the_app_refuses_exits_1_naming_the_field(tmp_path, args, words):
    png = tmp_path / "no.png"
    r = run("checkin", "create-location", *args, "--png", png, "--json")
    assert r.returncode == 1 and r.stdout == ""
    assert r.stderr.count("\n") == 1 and words in r.stderr, r.stderr
    assert not png.exists()


def qr_of(description="Café", address="Main Street 1", start=0, end=0, minutes=None, seed=bytes(range(16))):
    location = protos.TraceLocation(version=1, description=description, address=address, startTimestamp=start, endTimestamp=end)
    p = protos.QRCodePayload(version=1, locationData=location,
                             crowdNotifierData=protos.CrowdNotifierData(version=1, publicKey=b"k" * 96, cryptographicSeed=seed))
    if minutes is not None:
        p.vendorData = protos.CWALocationData(version=1, type=4, defaultCheckInLengthInMinutes=minutes).SerializeToString()
    return "https://e.coronawarn.app?v=1#" + base64.urlsafe_b64encode(p.SerializeToString()).decode().rstrip("=")


@pytest.mark.parametrize("qr, words", [
    (qr_of(description="d" * 256), "description has 256 characters; the app allows at most 255"),
    (qr_of(address="a" * 256), "address has 256 characters; the app allows at most 255"),
    (qr_of(address=""), "address is empty; the app requires one"),
    (qr_of(description="two\nlines"), "description spans several lines"),
    (qr_of(address="two\r\nlines"), "address spans several lines"),
    (qr_of(start=NOW), "has a startTimestamp (%d) but no endTimestamp" % NOW),
    (qr_of(seed=bytes(32)), "cryptographicSeed has 32 bytes; the app requires exactly 16"),
])
def test_checkin_add_refuses_what_the_app_refuses(db, qr, words):
    r = run("checkin", "add", "--db", db, "--qr", qr, "--start", NOW - 600, "--now", NOW)
    assert r.returncode == 1 and words in r.stderr, r.stderr


@pytest.mark.parametrize("qr, minutes", [
    (qr_of(description="d" * 255, address="a" * 255), 15),    # 255 characters: accepted; no default: 15
    (qr_of(minutes=22), 15), (qr_of(minutes=23), 30),
    (qr_of(start=NOW - 3600, end=NOW - 3600 + 50 * 60), 45),  # an event of 50 minutes
    (qr_of(start=NOW - 3600, end=NOW - 3600 + 2 * DAY), 1425),  # a two-day event
    (qr_of(minutes=0), 15),
])
def test_checkin_add_accepts_and_the_default_length(db, qr, minutes):
    r = run("checkin", "add", "--db", db, "--qr", qr, "--start", NOW - 600, "--now", NOW, "--json")
    assert r.returncode == 0, r.stderr
    c = json.loads(r.stdout)["checkin"]
    assert c["end"] is None and c["autoEnd"] == NOW - 600 + minutes * 60


def test_shared_check_ins_are_all_marked_submitted(tmp_path, servers, db, signer):
    state, v, s = servers
    sign, trust = signer
    long_qr, short_qr = qr_of(description="Long visit"), qr_of(description="Short visit")
    assert run("checkin", "add", "--db", db, "--qr", long_qr, "--start", NOW - 5 * 3600, "--end", NOW - 4 * 3600, "--now", NOW).returncode == 0
    # Five minutes: the time rules drop it before upload.
    assert run("checkin", "add", "--db", db, "--qr", short_qr, "--start", NOW - 3 * 3600, "--end", NOW - 3 * 3600 + 300, "--now", NOW).returncode == 0
    state.set_result_for_guid(GUID, 2, sc=NOW)
    assert run("test", "register", "--db", db, *urls(v, s), "--qr", "https://localhost/?" + GUID, "--now", NOW).returncode == 0
    r = run("submit", "--db", db, *urls(v, s), "--now", NOW + 60, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["checkIns"] == 2
    [real] = [q for q in s.requests if dict((k.lower(), x) for k, x in q.headers)["cwa-fake"] == "0"]
    sent = protos.SubmissionPayload()
    sent.ParseFromString(real.body)
    long_hash = hashlib.sha256(hashlib.sha256(b"CWA-GUID" + payload_of(long_qr)).digest()).digest()
    assert sent.checkInProtectedReports and {x.locationIdHash for x in sent.checkInProtectedReports} == {long_hash}
    listed = json.loads(run("checkin", "list", "--db", db, "--now", NOW + 60, "--json").stdout)
    rows = listed["checkins"] if isinstance(listed, dict) else listed
    assert [c["submitted"] for c in rows] == [True, True]
    # Warnings for either visit are never matched.
    reports = [report(hashlib.sha256(b"CWA-GUID" + payload_of(q)).digest(), (NOW - 5 * 3600) // 600, 18, 8) for q in (long_qr, short_qr)]
    twp = package(tmp_path, sign, reports)
    m = json.loads(run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW + 60, "--json", twp).stdout)
    assert m["matches"] == [] and m["totalRiskLevel"] == "LOW"
