"""encore.crowdnotifier: the authority's side (keys, QR codes, trace keys)
and trace keys matched into a store, once per (visit, key); errors as
exceptions."""
import base64
import hashlib
import sys

import pytest

from encore_testdata import REPO
from test_py_checkins import REAL_QR as REAL_CWA_QR

import encore
from encore import crowdnotifier as cn

sys.path.insert(0, str(REPO / "Tests"))
from standins import jws, keyfiles  # noqa: E402

NOW = 1_795_500_000
HOUR = 3600
BACKEND = keyfiles.SigningKey(key_id="crowdnotifier", key_version="v1")


def signature(body, key=BACKEND, content_hash=None):
    """The Signature header a CrowdNotifier backend sends with `body`."""
    digest = hashlib.sha256(body).digest() if content_hash is None else content_hash
    claims = {"content-hash": base64.b64encode(digest).decode(), "hash-alg": "sha-256", "iss": "test", "iat": NOW, "exp": NOW + 86400}
    return jws.sign(claims, key.private_key)


def match(client, body, **kwargs):
    """The body matched as the backend signed it."""
    return cn.match_trace_keys(client, body, signature=signature(body), **kwargs)


@pytest.fixture
def store(tmp_path):
    with encore.Store.open(str(tmp_path / "s.db"), "pw") as s:
        yield s


@pytest.fixture
def client(store):
    """The store's client with the backend's key, its clock at NOW."""
    with encore.Client(store, crowdnotifier_key=BACKEND.public_pem, clock=NOW) as c:
        yield c


@pytest.mark.parametrize("kind", ["swisscovid", "notifyme"])
def test_a_venue_a_visit_and_its_trace_keys(client, kind):
    secret, public = cn.generate_keys()
    assert cn.public_key(secret) == public and len(secret) == 32
    qr = cn.qr_code(public, "Zunfthaus", "Limmatquai 1", kind=kind)
    assert cn.venue_kind(qr) == kind
    visits = client.checkins
    visits.add(qr, NOW - 3 * HOUR, NOW - HOUR)
    body = cn.trace_keys(secret, qr, NOW - 2 * HOUR, NOW - 2 * HOUR + 600, "Bitte testen", layout=kind)
    assert cn.bundle_tag(client) is None
    s = match(client, body, bundle_tag="1795499940000")
    assert (s.matches, s.new_matches) == (1, 1) and s.pairings >= 1 and s.skipped == 0
    assert cn.bundle_tag(client) == "1795499940000"
    assert match(client, body).new_matches == 0
    # Another venue's keys for the same hour: pairings, no match.
    other_secret, other_public = cn.generate_keys()
    other = cn.trace_keys(other_secret, cn.qr_code(other_public, "Elsewhere"), NOW - 2 * HOUR, NOW - 2 * HOUR + 600)
    assert match(client, other).matches == 0


def test_progress_and_cancelling(client):
    secret, public = cn.generate_keys()
    qr = cn.qr_code(public, "Zunfthaus")
    client.checkins.add(qr, NOW - 3 * HOUR, NOW - HOUR)
    body = cn.trace_keys(secret, qr, NOW - 3 * HOUR, NOW - HOUR, "Bitte testen")
    # Cancelled: neither the match nor the bundle tag is stored.
    with pytest.raises(encore.CancelledError):
        match(client, body, bundle_tag="1795499940000", progress=lambda done, total: False)
    assert cn.bundle_tag(client) is None
    # A callback's exception cancels too, and comes out as itself.
    with pytest.raises(ZeroDivisionError):
        match(client, body, progress=lambda done, total: 1 / 0)
    with pytest.raises(encore.InvalidArgumentError):
        match(client, body, threads=257)
    reports = []
    s = match(client, body, bundle_tag="1795499940000", threads=2, progress=lambda done, total: reports.append((done, total)))
    assert s.new_matches == s.matches > 0 and cn.bundle_tag(client) == "1795499940000"
    # Keys done of those of a day with visits (all here), in order, ending at the total.
    total = reports[-1][1]
    assert total == s.events > 1 and all(t == total for _, t in reports)
    assert [d for d, _ in reports] == sorted(d for d, _ in reports) and reports[-1][0] == total


def test_errors(client):
    secret, public = cn.generate_keys()
    qr = cn.qr_code(public, "Zunfthaus")
    body = cn.trace_keys(secret, qr, NOW - HOUR, NOW)
    # Only what the backend's key signed is matched.
    with pytest.raises(encore.TraceKeysContentHashError):
        cn.match_trace_keys(client, body, signature=signature(body, content_hash=bytes(32)))
    stranger = keyfiles.SigningKey(key_id="x", key_version="v1")
    with pytest.raises(encore.EncoreError, match="signature|JWT"):
        cn.match_trace_keys(client, body, signature=signature(body, key=stranger))
    with pytest.raises(encore.EncoreError):
        cn.match_trace_keys(client, body, signature="not.a.jwt")
    with pytest.raises(TypeError):
        cn.match_trace_keys(client, body)
    assert cn.bundle_tag(client) is None
    with pytest.raises(encore.TraceKeysMalformedError):
        match(client, b"\xff\xff\xff")
    with pytest.raises(encore.CnSecretError):
        cn.public_key(bytes(32))
    with pytest.raises(encore.CnSecretError):
        cn.trace_keys(cn.generate_keys()[0], qr, NOW - HOUR, NOW)
    with pytest.raises(ValueError):
        cn.qr_code(public, "x", kind="cwa")


@pytest.mark.parametrize("departure", [253_402_300_799, 2 ** 63 - 1])
def test_a_departure_far_in_the_future_is_refused_before_its_hours_are_made(client, departure):
    # Its hours are counted, not listed: to 9999 a list took 560 MB, to Int64's end it never finished.
    secret, public = cn.generate_keys()
    qr = cn.qr_code(public, "Zunfthaus")
    visits = client.checkins
    with pytest.raises(encore.CheckinTimesError, match="at most 24 hours"):
        visits.add(qr, NOW - HOUR, departure)
    assert visits.list() == []
    # The venue's side likewise: trace keys for at most 14 days.
    with pytest.raises(encore.InvalidArgumentError, match="at most 14 days"):
        cn.trace_keys(secret, qr, NOW, departure)


@pytest.mark.parametrize("kind", ["swisscovid", "notifyme"])
def test_a_private_visit_keeps_nothing_of_its_venue(client, kind):
    """CheckIns.add(private=True): listed as a private visit, matched as a
    diary visit is, and ended or edited only with its QR code."""
    secret, public = cn.generate_keys()
    qr = cn.qr_code(public, "Zunfthaus", "Limmatquai 1", kind=kind)
    visits = client.checkins
    diary = visits.add(qr, NOW - 3 * HOUR, NOW - HOUR)
    hidden = visits.add(qr, NOW - 3 * HOUR, NOW - HOUR, private=True)
    listed = {c.id: c for c in visits.list()}
    assert not listed[diary].private and listed[diary].description == "Zunfthaus"
    c = listed[hidden]
    assert c.private and c.kind == kind and (c.start, c.end) == (NOW - 3 * HOUR, NOW - HOUR)
    assert (c.description, c.address, c.location_id_hash) == ("", "", bytes(32))
    # Both visits matched by the same key.
    body = cn.trace_keys(secret, qr, NOW - 2 * HOUR, NOW - 2 * HOUR + 600, "Bitte testen", layout=kind)
    assert match(client, body).matches == 2
    # No check-out or edit without the QR code; the visit unchanged.
    with pytest.raises(encore.errors.CLASSES["CheckinQrRequiredError"]):
        visits.end(hidden, NOW - 2 * HOUR)
    with pytest.raises(encore.errors.CLASSES["CheckinQrRequiredError"]):
        visits.edit(hidden, NOW - 4 * HOUR, NOW - HOUR)
    other = cn.qr_code(cn.generate_keys()[1], "Elsewhere", kind="notifyme" if kind == "swisscovid" else "swisscovid")
    with pytest.raises(encore.errors.CLASSES["CheckinQrMismatchError"]):
        visits.end(hidden, NOW - 2 * HOUR, qr_code=other)
    assert {c.id: c for c in visits.list()}[hidden] == c
    visits.end(hidden, NOW - 2 * HOUR, qr_code=qr)
    visits.edit(hidden, NOW - 4 * HOUR, NOW - 2 * HOUR + 60, qr_code=qr)
    assert {c.id: c for c in visits.list()}[hidden].end == NOW - 2 * HOUR + 60
    # A CWA code cannot be private.
    with pytest.raises(encore.errors.CLASSES["InvalidArgumentError"]):
        visits.add(REAL_CWA_QR, NOW - HOUR, private=True)


def test_the_client_wide_default(tmp_path):
    """Client(checkin_private=True): CrowdNotifier check-ins private unless
    add() says otherwise; CWA ones stay diary check-ins."""
    secret, public = cn.generate_keys()
    qr = cn.qr_code(public, "Zunfthaus")
    with encore.Client.open(str(tmp_path / "c.db"), "pw", checkin_private=True, clock=NOW) as client:
        hidden = client.checkins.add(qr, NOW - HOUR)
        shown = client.checkins.add(qr, NOW - HOUR, private=False)
        cwa = client.checkins.add(REAL_CWA_QR, NOW - HOUR)
        listed = {c.id: c.private for c in client.checkins.list()}
        assert listed == {hidden: True, shown: False, cwa: False}


def test_the_c_client_default_and_old_option_structs(store):
    """encore_checkin_add with ENCORE_CHECKIN_MODE_DEFAULT takes the
    client's checkin_mode; a struct_size of before checkin_mode is accepted
    (and its clients keep diary check-ins)."""
    import ctypes
    from encore import _ffi
    from encore._loader import lib
    qr = cn.qr_code(cn.generate_keys()[1], "Zunfthaus").encode()
    o = _ffi.encore_client_options()
    lib.encore_client_options_init(ctypes.byref(o), ctypes.sizeof(o))
    ids = {}
    for name, size, mode in (("private", ctypes.sizeof(o), _ffi.ENCORE_CHECKIN_MODE_PRIVATE),
                             ("old struct", _ffi.encore_client_options.checkin_mode.offset, 0)):
        o.struct_size, o.checkin_mode = size, mode
        client = ctypes.POINTER(_ffi.encore_client)()
        with store._handle.borrow() as s:
            lib.encore_client_new(s, ctypes.byref(o), ctypes.byref(client))
        try:
            out = ctypes.c_int64()
            lib.encore_checkin_add(client, qr, NOW - HOUR, -1, _ffi.ENCORE_CHECKIN_MODE_DEFAULT, ctypes.byref(out))
            ids[name] = out.value
        finally:
            lib.encore_client_free(client)
    listed = {c.id: c.private for c in encore.Client(store, clock=NOW).checkins.list()}
    assert listed == {ids["private"]: True, ids["old struct"]: False}
    o.struct_size, o.checkin_mode = ctypes.sizeof(o), 7
    client = ctypes.POINTER(_ffi.encore_client)()
    with store._handle.borrow() as s, pytest.raises(encore.errors.CLASSES["InvalidArgumentError"]):
        lib.encore_client_new(s, ctypes.byref(o), ctypes.byref(client))
