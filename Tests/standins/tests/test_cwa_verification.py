"""The CWA verification stand-in, one test per rule."""

import random
import re
import time

import pytest

from standins import CwaState, CwaVerificationServer
from standins.cwa_state import (TELETAN_ALPHABET, dob_hash, generate_teletan, guid_hash,
                                teletan_check_char, teletan_valid)

from .helpers import call, post_json

GUID = "3D6D08-3567F3F2-4DCF-43A3-8737-4CD1F87D6FDA"
REG, RESULT, TAN = "/version/v1/registrationToken", "/version/v1/testresult", "/version/v1/tan"
UUID_RE = re.compile(r"^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$")


@pytest.fixture
def v():
    with CwaVerificationServer() as server:
        yield server


def register(v, guid=GUID, dob=None, fake="0"):
    body = {"key": guid_hash(guid), "keyType": "GUID"}
    if dob:
        body["keyDob"] = dob_hash(guid, dob)
    return post_json(v.url + REG, body, fake)


def token_of(v, guid=GUID, **kw):
    status, body = register(v, guid, **kw)
    assert status == 201, status
    return body["registrationToken"]


# --- helpers for keys ---------------------------------------------------------

def test_guid_hash_is_lowercase_sha256_hex():
    h = guid_hash(GUID)
    assert re.fullmatch(r"[0-9a-f]{64}", h)


def test_dob_key_shape():
    k = dob_hash(GUID, "01021990")
    assert re.fullmatch(r"^[XxA-Fa-f0-9]([A-Fa-f0-9]{63})$", k) and k[0] == "x"
    import datetime
    assert dob_hash(GUID, datetime.date(1990, 2, 1)) == k


def test_generated_teletans_have_the_check_character():
    rng = random.Random(1)
    for _ in range(200):
        t = generate_teletan(rng)
        assert len(t) == 10 and set(t) <= set(TELETAN_ALPHABET)
        assert teletan_valid(t)
    t = generate_teletan(rng)
    wrong = next(c for c in TELETAN_ALPHABET if c != t[-1])
    assert not teletan_valid(t[:-1] + wrong)
    # the check character never is 0 or 1 (mapped to G and H)
    assert {teletan_check_char(generate_teletan(rng)[:9]) for _ in range(500)} <= set(
        "23456789ABCDEFGH")


# --- happy paths ----------------------------------------------------------

def test_guid_flow_pending_then_positive_then_tan(v):
    token = token_of(v)
    assert UUID_RE.match(token)
    status, body = post_json(v.url + RESULT, {"registrationToken": token})
    assert status == 200 and body["testResult"] == 0 and len(body["responsePadding"]) == 45
    v.state.set_result_for_guid(GUID, 2, sc=1_600_000_000, lab_id="lab-7")
    status, body = post_json(v.url + RESULT, {"registrationToken": token})
    assert (status, body["testResult"], body["sc"], body["labId"]) == (200, 2, 1_600_000_000, "lab-7")
    status, body = post_json(v.url + TAN, {"registrationToken": token})
    assert status == 201 and UUID_RE.match(body["tan"])
    tan = v.state.tans[body["tan"]]
    assert not tan.redeemed and abs(tan.valid_until - time.time() - 14 * 86400) < 60
    v.assert_no_violations()


@pytest.mark.parametrize("result", range(10))
def test_every_result_value_is_reported(v, result):
    token = token_of(v)
    v.state.set_result_for_guid(GUID, result)
    assert post_json(v.url + RESULT, {"registrationToken": token})[1]["testResult"] == result


def test_out_of_range_result_is_passed_through(v):
    token = token_of(v)
    v.state.set_result_for_guid(GUID, 42)
    assert post_json(v.url + RESULT, {"registrationToken": token})[1]["testResult"] == 42


def test_rapid_test_positive_gets_a_tan(v):
    token = token_of(v)
    v.state.set_result_for_guid(GUID, 7)
    assert post_json(v.url + TAN, {"registrationToken": token})[0] == 201


def test_teletan_flow(v):
    teletan = v.state.issue_teletan()
    status, body = post_json(v.url + REG, {"key": teletan, "keyType": "TELETAN"})
    assert status == 201
    token = body["registrationToken"]
    assert post_json(v.url + RESULT, {"registrationToken": token})[1]["testResult"] == 2
    assert post_json(v.url + TAN, {"registrationToken": token})[0] == 201


def test_unissued_teletan_accepted_only_when_allowed(v):
    teletan = generate_teletan()
    assert post_json(v.url + REG, {"key": teletan, "keyType": "TELETAN"})[0] == 400
    v.state.accept_any_valid_teletan = True
    assert post_json(v.url + REG, {"key": teletan, "keyType": "TELETAN"})[0] == 201


def test_date_of_birth_key_matching_and_mismatching(v):
    token = token_of(v, dob="01021990")
    v.state.set_result_for_guid(GUID, 1, dob="01021990")
    assert post_json(v.url + RESULT, {"registrationToken": token})[1]["testResult"] == 1
    v.state.set_result_for_guid(GUID, 2)  # the lab's dob record still says 1
    assert post_json(v.url + RESULT, {"registrationToken": token})[0] == 403


# --- refusals, one per rule -------------------------------------------------

def test_second_registration_of_a_guid_is_400(v):
    token_of(v)
    assert register(v)[0] == 400
    assert v.requests[-1].notes["rejected"] == "already-registered"


def test_registration_with_an_already_used_dob_key_is_400(v):
    token_of(v, "OTHER-GUID", dob=None)
    body = {"key": guid_hash(GUID), "keyType": "GUID", "keyDob": dob_hash(GUID, "01011990")}
    assert post_json(v.url + REG, body)[0] == 201
    body = {"key": guid_hash("THIRD"), "keyType": "GUID", "keyDob": dob_hash(GUID, "01011990")}
    assert post_json(v.url + REG, body)[0] == 400


@pytest.mark.parametrize("key", ["abc", "g" * 64, "a" * 63, "a" * 65])
def test_bad_guid_hash_is_400(v, key):
    assert post_json(v.url + REG, {"key": key, "keyType": "GUID"})[0] == 400
    assert v.requests[-1].notes["rejected"] == "guid-hash"


def test_uppercase_guid_hash_is_accepted(v):
    assert post_json(v.url + REG, {"key": guid_hash(GUID).upper(), "keyType": "GUID"})[0] == 201


@pytest.mark.parametrize("teletan", ["ABC", "ABCDEFGHJ0", "abcdefghjk", "ABCDEFGHJKL"])
def test_bad_teletan_shape_is_400(v, teletan):
    assert post_json(v.url + REG, {"key": teletan, "keyType": "TELETAN"})[0] == 400


def test_teletan_used_twice_is_400(v):
    teletan = v.state.issue_teletan()
    assert post_json(v.url + REG, {"key": teletan, "keyType": "TELETAN"})[0] == 201
    assert post_json(v.url + REG, {"key": teletan, "keyType": "TELETAN"})[0] == 400


def test_expired_teletan_is_400(v):
    now = [1_000_000.0]
    v.state.clock = lambda: now[0]
    teletan = v.state.issue_teletan()
    now[0] += 3601
    assert post_json(v.url + REG, {"key": teletan, "keyType": "TELETAN"})[0] == 400


@pytest.mark.parametrize("body", [{"key": "x"}, {"keyType": "GUID"}, {"key": GUID, "keyType": "QR"}])
def test_missing_key_or_key_type_is_400(v, body):
    assert post_json(v.url + REG, body)[0] == 400


def test_bad_dob_key_is_400(v):
    body = {"key": guid_hash(GUID), "keyType": "GUID", "keyDob": "y" + "a" * 63}
    assert post_json(v.url + REG, body)[0] == 400


def test_malformed_json_is_400(v):
    status, _, _ = call(v.url + REG, "POST", b"{nope", {"Content-Type": "application/json",
                                                         "cwa-fake": "0"})
    assert status == 400


def test_wrong_content_type_is_415_and_a_violation(v):
    status, _, _ = call(v.url + REG, "POST", b"{}", {"Content-Type": "text/plain", "cwa-fake": "0"})
    assert status == 415
    assert any("Content-Type" in x for _, _, x in v.violations)


def test_get_is_405(v):
    assert call(v.url + REG)[0] == 405


def test_oversized_request_is_413(v):
    status, _, _ = call(v.url + REG, "POST", b"x" * 10001, {"Content-Type": "application/json"})
    assert status == 413


@pytest.mark.parametrize("path", [RESULT, TAN])
def test_unknown_token_is_400(v, path):
    assert post_json(v.url + path, {"registrationToken": "8b5a5c66-3a2f-4b2a-9a7e-3b0c1c1e2d4f"})[0] == 400


@pytest.mark.parametrize("path", [RESULT, TAN])
def test_malformed_token_is_400(v, path):
    assert post_json(v.url + path, {"registrationToken": "not-a-uuid"})[0] == 400


def test_second_tan_for_a_token_is_400(v):
    token = token_of(v)
    v.state.set_result_for_guid(GUID, 2)
    assert post_json(v.url + TAN, {"registrationToken": token})[0] == 201
    assert post_json(v.url + TAN, {"registrationToken": token})[0] == 400
    assert v.requests[-1].notes["rejected"] == "tancountermax"


@pytest.mark.parametrize("result", [0, 1, 3, 4, 5, 6, 8, 9])
def test_no_tan_unless_positive(v, result):
    token = token_of(v)
    v.state.set_result_for_guid(GUID, result)
    assert post_json(v.url + TAN, {"registrationToken": token})[0] == 400


# --- plausible deniability ------------------------------------------------

def test_fake_requests_change_nothing_and_say_positive(v):
    v.state.fake_delay = (0.05, 0.1)
    t = time.monotonic()
    status, body = register(v, fake="1")
    assert status == 201 and UUID_RE.match(body["registrationToken"])
    assert time.monotonic() - t >= 0.05
    assert v.state.sessions == {}
    status, body = post_json(v.url + RESULT, {"registrationToken": body["registrationToken"]}, "1")
    assert status == 200 and body["testResult"] == 2
    status, body = post_json(v.url + TAN, {"registrationToken": "8b5a5c66-3a2f-4b2a-9a7e-3b0c1c1e2d4f"}, "1")
    assert status == 201 and len(body["responsePadding"]) == 15
    assert v.state.tans == {}
    assert register(v)[0] == 201  # the fake did not register the GUID


def test_unpadded_body_and_missing_fake_header_are_violations(v):
    post_json(v.url + REG, {"key": guid_hash(GUID), "keyType": "GUID"}, padded=False)
    call(v.url + RESULT, "POST", b"{}", {"Content-Type": "application/json"})
    rules = [x for _, _, x in v.violations]
    assert any("not padded to 250" in x for x in rules)
    assert "no cwa-fake header" in rules


def test_head_sizes_let_tests_compare_real_and_fake_requests(v):
    token = token_of(v)
    # header padding evens out the path lengths (tan is 7 characters
    # shorter than testresult): same head length for real and fake
    post_json(v.url + TAN, {"registrationToken": token}, "1",
              extra_headers={"cwa-header-padding": "x" * 9})
    post_json(v.url + RESULT, {"registrationToken": token}, "0",
              extra_headers={"cwa-header-padding": "x" * 2})
    sizes = v.head_sizes()
    assert sizes[TAN] == sizes[RESULT]
    # unpadded: different
    post_json(v.url + TAN, {"registrationToken": token}, "1")
    assert len(v.head_sizes(TAN)[TAN]) == 2


def test_shared_state_across_two_servers():
    state = CwaState()
    with CwaVerificationServer(state) as a, CwaVerificationServer(state) as b:
        status, _ = post_json(a.url + REG, {"key": guid_hash(GUID), "keyType": "GUID"})
        assert status == 201
        assert post_json(b.url + REG, {"key": guid_hash(GUID), "keyType": "GUID"})[0] == 400
