"""The DP-3T stand-in: bundle-tag rules, signed answers, both trace-key
layouts."""

import base64
import hashlib

import pytest
from cryptography.hazmat.primitives import serialization

from standins import Dp3tServer, jws, keyfiles, protos, verify_signature

from .helpers import call

H = 3600 * 1000
NOW = 1_600_000_000_000 // (2 * H) * (2 * H) + 90 * 60 * 1000  # 1 h 30 into a 2 h bucket
EXPOSED_BUCKET = NOW // (2 * H) * (2 * H)
PROTOBUF = {"Accept": "application/x-protobuf"}


@pytest.fixture
def d():
    with Dp3tServer(now_ms=NOW) as server:
        yield server


def exposed(d, tag=None):
    q = "" if tag is None else f"?lastKeyBundleTag={tag}"
    return call(d.url + "/v2/gaen/exposed" + q)


def trace(d, tag=None, headers=PROTOBUF):
    q = "" if tag is None else f"?lastKeyBundleTag={tag}"
    return call(d.url + "/v3/traceKeys" + q, headers=headers)


def keys_in(body):
    return list(keyfiles.parse_export(keyfiles.read_package(body)[0]).keys)


def test_no_tag_returns_everything_released_with_the_new_tag(d):
    k1, k2 = keyfiles.make_key(trl=1), keyfiles.make_key(trl=2)
    d.add_exposed_key(k1, EXPOSED_BUCKET - 3 * H)
    d.add_exposed_key(k2, EXPOSED_BUCKET - 1)
    d.add_exposed_key(keyfiles.make_key(), EXPOSED_BUCKET + 1)  # current bucket: not yet
    status, headers, body = exposed(d)
    assert status == 200 and headers["content-type"] == "application/zip"
    assert headers["x-key-bundle-tag"] == str(EXPOSED_BUCKET)
    assert keys_in(body) == [k1, k2]
    assert keyfiles.verify_package(body, d.key_signer)


def test_tag_returns_only_what_is_new(d):
    old, new = keyfiles.make_key(), keyfiles.make_key()
    d.add_exposed_key(old, EXPOSED_BUCKET - 3 * H)
    d.add_exposed_key(new, EXPOSED_BUCKET - H)
    status, _, body = exposed(d, EXPOSED_BUCKET - 2 * H)
    assert status == 200 and keys_in(body) == [new]


def test_nothing_new_is_204_with_a_tag(d):
    d.add_exposed_key(keyfiles.make_key(), EXPOSED_BUCKET - 3 * H)
    status, headers, body = exposed(d, EXPOSED_BUCKET)
    assert (status, body) == (204, b"")
    assert headers["x-key-bundle-tag"] == str(EXPOSED_BUCKET)
    verify_signature(body, headers["signature"], d.public_key)


def test_unaligned_tag_is_400(d):
    assert exposed(d, EXPOSED_BUCKET - 1)[0] == 400
    assert exposed(d, "soon")[0] == 400
    assert trace(d, NOW // 60000 * 60000 + 1)[0] == 400


def test_future_tag_is_404(d):
    assert exposed(d, EXPOSED_BUCKET + 2 * H)[0] == 404
    assert trace(d, (NOW // 60000 + 1) * 60000)[0] == 404


def test_signature_jwt_is_es256_over_the_body(d):
    d.add_exposed_key(keyfiles.make_key(), EXPOSED_BUCKET - H)
    status, headers, body = exposed(d)
    pem_key = serialization.load_pem_public_key(d.public_pem)
    claims = verify_signature(body, headers["signature"], pem_key)
    assert claims["content-hash"] == base64.b64encode(hashlib.sha256(body).digest()).decode()
    assert claims["hash-alg"] == "sha-256" and claims["iss"] == "dp3t"
    assert claims["iat"] == NOW // 1000 and claims["exp"] == NOW // 1000 + 14 * 86400
    header = jws.b64url_decode(headers["signature"].split(".")[0])
    assert b'"ES256"' in header
    with pytest.raises(ValueError):
        verify_signature(body + b"x", headers["signature"], d.public_key)
    with pytest.raises(ValueError):
        verify_signature(body, headers["signature"], keyfiles.SigningKey().public_key)


def test_tampered_body_no_longer_matches_the_content_hash(d):
    d.add_exposed_key(keyfiles.make_key(), EXPOSED_BUCKET - H)
    d.inject("/v2/gaen/exposed", tamper=True)
    _, headers, body = exposed(d)
    with pytest.raises(ValueError):
        verify_signature(body, headers["signature"], d.public_key)


def test_missing_signature_fault(d):
    d.inject("/v3/traceKeys", omit_headers="Signature")
    assert "signature" not in trace(d)[1]


def test_trace_keys_swisscovid_layout(d):
    bucket = NOW // 60000 * 60000
    ev = protos.ProblematicEvent(version=4, identity=b"i" * 32, secretKeyForIdentity=b"s" * 48,
                                 day=1_599_955_200, encryptedAssociatedData=b"e", cipherTextNonce=b"n" * 24)
    d.add_trace_key(ev, bucket - 30_000)
    status, headers, body = trace(d)
    assert status == 200 and headers["content-type"] == "application/x-protobuf"
    assert headers["x-key-bundle-tag"] == str(bucket)
    wrapper = protos.ProblematicEventWrapper.FromString(body)
    assert wrapper.version == 3 and list(wrapper.events) == [ev]
    verify_signature(body, headers["signature"], d.public_key)
    status, headers, body = trace(d, bucket)  # nothing new: 200 with an empty wrapper
    assert status == 200 and protos.ProblematicEventWrapper.FromString(body).events == []
    d.assert_no_violations()


def test_trace_keys_notifyme_layout(d):
    ev = protos.ProblematicEventNotifyMe(version=4, identity=b"i" * 32, startTime=1, endTime=2)
    d.add_trace_key(ev, NOW - 120_000)
    body = trace(d)[2]
    assert list(protos.ProblematicEventWrapperNotifyMe.FromString(body).events) == [ev]


def test_trace_keys_without_protobuf_accept_is_a_violation(d):
    trace(d, headers={"Accept": "application/json"})
    assert len(d.violations) == 1


def test_buckets_and_clock_are_configurable():
    clock = [10 * H + 5]
    with Dp3tServer(now_ms=lambda: clock[0], exposure_bucket_ms=H, trace_bucket_ms=1000) as d:
        d.add_exposed_key(keyfiles.make_key(), 9 * H + 1)
        _, headers, _ = exposed(d)
        assert headers["x-key-bundle-tag"] == str(10 * H)
        clock[0] = 11 * H
        status, headers, _ = exposed(d, 10 * H)
        assert (status, headers["x-key-bundle-tag"]) == (204, str(11 * H))
        assert trace(d)[1]["x-key-bundle-tag"] == str(11 * H)
        assert exposed(d, 10 * H + 1000)[0] == 400
