"""encore.crowdnotifier: the authority's side (keys, QR codes, trace keys)
and trace keys matched into a store, once per (visit, key); errors as
exceptions."""
import hashlib

import pytest

import encore
from encore import crowdnotifier as cn

NOW = 1_795_500_000
HOUR = 3600


@pytest.fixture
def store(tmp_path):
    with encore.Store.open(str(tmp_path / "s.db"), "pw") as s:
        yield s


@pytest.mark.parametrize("kind", ["swisscovid", "notifyme"])
def test_a_venue_a_visit_and_its_trace_keys(store, kind):
    secret, public = cn.generate_keys()
    assert cn.public_key(secret) == public and len(secret) == 32
    qr = cn.qr_code(public, "Zunfthaus", "Limmatquai 1", kind=kind)
    assert cn.venue_kind(qr) == kind
    visits = encore.CheckIns(store)
    visits.add(qr, NOW - 3 * HOUR, NOW - HOUR, now=NOW)
    body = cn.trace_keys(secret, qr, NOW - 2 * HOUR, NOW - 2 * HOUR + 600, "Bitte testen", layout=kind)
    assert cn.bundle_tag(store) is None
    s = cn.match_trace_keys(store, body, content_hash=hashlib.sha256(body).digest(), bundle_tag="1795499940000", now=NOW)
    assert (s.matches, s.new_matches) == (1, 1) and s.pairings >= 1 and s.skipped == 0
    assert cn.bundle_tag(store) == "1795499940000"
    assert cn.match_trace_keys(store, body, now=NOW).new_matches == 0
    # Another venue's keys for the same hour: pairings, no match.
    other_secret, other_public = cn.generate_keys()
    other = cn.trace_keys(other_secret, cn.qr_code(other_public, "Elsewhere"), NOW - 2 * HOUR, NOW - 2 * HOUR + 600)
    assert cn.match_trace_keys(store, other, now=NOW).matches == 0


def test_errors(store):
    secret, public = cn.generate_keys()
    qr = cn.qr_code(public, "Zunfthaus")
    body = cn.trace_keys(secret, qr, NOW - HOUR, NOW)
    with pytest.raises(encore.TraceKeysContentHashError):
        cn.match_trace_keys(store, body, content_hash=bytes(32), now=NOW)
    with pytest.raises(encore.TraceKeysMalformedError):
        cn.match_trace_keys(store, b"\xff\xff\xff", now=NOW)
    with pytest.raises(encore.CnSecretError):
        cn.public_key(bytes(32))
    with pytest.raises(encore.CnSecretError):
        cn.trace_keys(cn.generate_keys()[0], qr, NOW - HOUR, NOW)
    with pytest.raises(ValueError):
        cn.qr_code(public, "x", kind="cwa")
