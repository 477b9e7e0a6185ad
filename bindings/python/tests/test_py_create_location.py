"""The organizer side and CWA's check-in rules through the Python bindings
(issue 25): create_location() makes a location that parses back, checks in
and matches a warning sealed here with the `cryptography` package; its
printable code decodes back to its URL (pyzbar with Debian's libzbar0); what
the app refuses raises LocationInvalidError naming the field and the rule;
a warning whose start interval is −1 is skipped, not matched; a check-in
ending exactly at the age filter's cut-off midnight is kept, whole."""
import hashlib
import struct
import sys
import zlib

import pytest

from encore_testdata import REPO

import encore
from encore import CheckIns, checkins

sys.path.insert(0, str(REPO / "Tests"))
from standins import protos  # noqa: E402
from test_py_checkins import package, qr, qr_payload, seal, signer, store  # noqa: E402,F401  (fixtures)

DAY = 86_400
NOW = 20_400 * DAY + 20 * 3600


def test_create_a_place_and_an_event():
    place = encore.create_location("Café Müller", "Main Street 1", location_type=4)
    assert place.url.startswith("https://e.coronawarn.app?v=1#")
    loc = place.location
    assert (loc.description, loc.address, loc.location_type, loc.start_timestamp) == ("Café Müller", "Main Street 1", 4, 0)
    assert loc.default_check_in_length_minutes == 120 and loc.automatic_length_seconds == 120 * 60
    assert checkins.parse_qr(place.url) == loc
    assert encore.create_location("Café Müller", "Main Street 1", location_type=4).location.location_id != loc.location_id
    event = encore.create_location("Fest", "Hof 3", start=NOW - 3600, end=NOW + 3600).location
    assert (event.location_type, event.default_check_in_length_minutes, event.end_timestamp) == (2, 15, NOW + 3600)
    assert encore.create_location("x", "y", default_minutes=0).location.default_check_in_length_minutes == 15
    assert encore.create_location("x" * 255, "y").location.description == "x" * 255


@pytest.mark.parametrize("kwargs, words", [
    (dict(description="x" * 256, address="a"), "description has 256 characters"),
    (dict(description="a", address="b\nc"), "address spans several lines"),
    (dict(description="a", address=" "), "address is blank"),
    (dict(description="a", address="b", location_type=0), "location type 0"),
    (dict(description="a", address="b", start=NOW), "needs a start and an end"),
    (dict(description="a", address="b", start=NOW, end=NOW, location_type=9), "is not after its start"),
    (dict(description="a", address="b", default_minutes=1426), "1426 minutes"),
])
def test_what_the_app_refuses(kwargs, words):
    with pytest.raises(encore.LocationInvalidError, match=words):
        encore.create_location(**kwargs)


def test_bad_arguments():
    with pytest.raises(ValueError):
        encore.create_location("a", "b", start=-1)
    with pytest.raises(ValueError):
        encore.create_location("a", "b", location_type=True)
    with pytest.raises(ValueError):
        encore.create_location("a\0", "b")
    with pytest.raises(ValueError):
        checkins.qr_image(encore.create_location("a", "b").url, "gif")
    with pytest.raises(encore.InvalidArgumentError):
        checkins.qr_image(encore.create_location("a", "b").url, "png", 17)
    with pytest.raises(encore.QrNotCwaError):
        checkins.qr_image("https://example.org", "png")


def grey_pixels(png):
    pos, idat, header = 8, b"", None
    while pos < len(png):
        length, kind = struct.unpack(">I4s", png[pos:pos + 8])
        body = png[pos + 8:pos + 8 + length]
        header = body if kind == b"IHDR" else header
        idat += body if kind == b"IDAT" else b""
        pos += 12 + length
    width, height = struct.unpack(">II", header[:8])
    raw = zlib.decompress(idat)
    return width, height, b"".join(raw[y * (width + 1) + 1:(y + 1) * (width + 1)] for y in range(height))


def test_the_printable_code_decodes_back():
    pyzbar = pytest.importorskip("pyzbar.pyzbar")
    created = encore.create_location("Café Müller", "Hauptstraße 1", location_type=4)
    # zbar itself needs 2 pixels a module or more.
    for scale in (2, 3, 8):
        w, h, pixels = grey_pixels(created.png(scale))
        assert w == h and w % scale == 0
        [found] = pyzbar.decode((pixels, w, h))
        assert found.data.decode() == created.url
    assert created.svg().startswith("<?xml") and "<path d=\"M" in created.svg()
    # At scale 1 each module is one pixel: the same modules as at 8.
    w1, _, one = grey_pixels(created.png(1))
    w8, _, eight = grey_pixels(created.png(8))
    assert w8 == 8 * w1 and all(one[y * w1 + x] == eight[(8 * y + 4) * w8 + 8 * x + 4] for y in range(w1) for x in range(w1))


def test_a_created_location_checks_in_and_matches(store, signer):
    s, trust = signer
    created = encore.create_location("Sommerfest", "Hof 3", start=NOW - 6 * 3600, end=NOW - 2 * 3600, location_type=9)
    c = encore.Client(store, clock=NOW).checkins
    visit = c.add(created.url, NOW - 5 * 3600, NOW - 4 * 3600)
    loc = created.location.location_id
    assert hashlib.sha256(b"CWA-GUID" + checkins_payload(created.url)).digest() == loc
    summary = c.match_package(package(s, [seal(loc, (NOW - 5 * 3600) // 600, 3, 8)]), trust=trust)
    assert (summary.matches, summary.added, summary.skipped) == (1, 1, 0)
    [m] = c.assess().matches
    assert (m.check_in, m.overlap_minutes, m.transmission_risk_level) == (visit, 30, 8)


def checkins_payload(url):
    import base64
    encoded = url.split("#", 1)[1]
    return base64.urlsafe_b64decode(encoded + "=" * (-len(encoded) % 4))


def test_a_start_of_minus_one_is_invalid_not_a_match(store, signer):
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    payload = qr_payload()
    c.add(qr(payload), NOW - 3 * DAY, NOW)
    loc = hashlib.sha256(b"CWA-GUID" + payload).digest()
    minus_one = seal(loc, 0, 0, 0, plain=protos.CheckInRecord(startIntervalNumber=0xFFFFFFFF, period=3,
                                                             transmissionRiskLevel=6).SerializeToString())
    int32_min = seal(loc, 0, 0, 0, plain=protos.CheckInRecord(startIntervalNumber=0x80000000, period=3,
                                                             transmissionRiskLevel=6).SerializeToString())
    plain = protos.TraceTimeIntervalWarning(locationIdHash=hashlib.sha256(loc).digest(), startIntervalNumber=0xFFFFFFFF,
                                            period=2, transmissionRiskLevel=4)
    summary = c.match_package(package(s, [minus_one, int32_min], [plain]), trust=trust)
    assert (summary.matches, summary.added, summary.skipped) == (0, 0, 3)


def test_a_check_in_ending_at_the_cut_off_midnight_is_kept(store, signer):
    s, trust = signer
    c = encore.Client(store, clock=NOW).checkins
    cutoff = NOW - NOW % DAY - 10 * DAY
    payload = qr_payload()
    kept = c.add(qr(payload), cutoff - 3600, cutoff)
    dropped = c.add(qr(qr_payload(description="Elsewhere")), cutoff - 3601, cutoff - 1)
    loc = hashlib.sha256(b"CWA-GUID" + payload).digest()
    other = hashlib.sha256(b"CWA-GUID" + qr_payload(description="Elsewhere")).digest()
    c.match_package(package(s, [seal(loc, (cutoff - 3600) // 600, 6, 8), seal(other, (cutoff - 3600) // 600, 6, 8)]),
                    trust=trust)
    assert [x.id for x in c.list()] == [kept]  # the other one is purged at the same cut-off
    [m] = c.assess().matches
    assert (m.check_in, m.date, m.overlap_minutes) == (kept, cutoff - DAY, 60)
    assert dropped != kept
