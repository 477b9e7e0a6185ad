"""The CWA submission stand-in: every validation rule, the TAN, the filters,
fakes and padding, and the hand-over from the verification server."""

import datetime as dt
import time

import pytest

from standins import CwaBackendServer, CwaState, CwaSubmissionServer, CwaVerificationServer, protos
from standins.cwa_state import guid_hash
from standins.keyfiles import daily_keys, make_key, rolling_start

from .helpers import call, post_json

PATH = "/version/v1/diagnosis-keys"
TODAY = dt.datetime.now(dt.timezone.utc).date()


@pytest.fixture
def s():
    with CwaSubmissionServer() as server:
        yield server


def payload(keys=None, pad=True, **fields):
    keys = daily_keys(14, trl=5) if keys is None else keys
    p = protos.SubmissionPayload(keys=keys, **fields)
    if pad:
        p.requestPadding = b"p" * (28 * max(15 - len(keys), 0))
    return p


def submit(server, p, tan=None, fake="0", content_type="application/x-protobuf", raw=None):
    headers = {"cwa-fake": fake, "Content-Type": content_type}
    if tan is not None:
        headers["cwa-authorization"] = tan
    body = raw if raw is not None else p.SerializeToString()
    status, hdrs, _ = call(server.url + PATH, "POST", body, headers)
    return status, hdrs


def rejected(server):
    return server.requests[-1].notes.get("rejected")


def test_happy_path_keeps_keys_and_uses_the_tan(s):
    tan = s.state.add_tan()
    p = payload(visitedCountries=["DE", "FR"], origin="DE", consentToFederation=True)
    p.checkInProtectedReports.add(locationIdHash=b"h" * 32, iv=b"i" * 16,
                                  encryptedCheckInRecord=b"e" * 16, mac=b"m" * 32)
    status, headers = submit(s, p, tan)
    assert status == 200
    assert headers["cwa-saved-checkins"] == "1" and headers["cwa-filtered-checkins"] == "0"
    [sub] = s.submissions
    assert sub.payload == p and sub.tan == tan and len(sub.kept_keys) == 14
    assert sub.padding_length == 28
    assert [k.transmission_risk_level for k in sub.kept_keys] == [5] * 14
    assert s.requests[-1].decoded == p
    s.assert_no_violations()
    assert submit(s, p, tan)[0] == 403  # used up


def test_single_key_with_dsos_only(s):
    tan = s.state.add_tan()
    assert submit(s, payload([make_key(day=TODAY, dsos=-14)]), tan)[0] == 200
    assert s.submissions[0].kept_keys[0].days_since_onset_of_symptoms == -14


def test_old_and_future_keys_are_dropped_silently(s):
    tan = s.state.add_tan()
    keys = [make_key(day=TODAY, trl=1), make_key(day=TODAY - dt.timedelta(days=15), trl=1),
            make_key(day=TODAY + dt.timedelta(days=1), trl=1)]
    assert submit(s, payload(keys), tan)[0] == 200
    sub = s.submissions[0]
    assert [k.rolling_start_interval_number for k in sub.kept_keys] == [rolling_start(TODAY)]
    assert len(sub.dropped_keys) == 2


# --- the validation rules, one test each -------------------------------------

def key(**kw):
    kw.setdefault("day", TODAY)
    kw.setdefault("trl", 5)
    return make_key(**kw)


RULES = {
    "rolling-start-midnight": lambda: payload([key(day=None, rolling_start_interval_number=rolling_start(TODAY) + 6)]),
    "key-count": lambda: payload([]),
    "origin": lambda: payload(origin="FR"),
    "visited-countries": lambda: payload(visitedCountries=["DE", "XX"]),
    "trl-or-dsos-present": lambda: payload([key(trl=None)]),
    "trl-range": lambda: payload([key(trl=9)]),
    "dsos-range": lambda: payload([key(trl=None, dsos=-15)]),
    "checkins": lambda: payload(checkIns=[protos.CheckIn(locationId=b"l", startIntervalNumber=5,
                                                          endIntervalNumber=5, transmissionRiskLevel=3)]),
    "rolling-period": lambda: payload([key(rolling_period=145)]),
    "key-data-length": lambda: payload([key(key_data=b"short")]),
    "submission-type": lambda: payload(submissionType=3),
}


@pytest.mark.parametrize("rule", sorted(RULES))
def test_rule_broken_is_400_and_keeps_the_tan(s, rule):
    tan = s.state.add_tan()
    assert submit(s, RULES[rule](), tan)[0] == 400
    assert rejected(s) == rule
    assert not s.state.tans[tan].redeemed


def test_fifteen_keys_are_too_many(s):
    assert submit(s, payload(daily_keys(15, trl=5)), s.state.add_tan())[0] == 400
    assert rejected(s) == "key-count"


def test_dsos_bounds_and_zero_period_and_trl_zero(s):
    for k, ok in [(key(trl=None, dsos=4000), True), (key(trl=None, dsos=4001), False),
                  (key(rolling_period=0), False), (key(trl=0), False), (key(trl=8), True)]:
        assert (submit(s, payload([k]), s.state.add_tan())[0] == 200) == ok


def test_empty_origin_is_accepted(s):
    assert submit(s, payload(origin=""), s.state.add_tan())[0] == 200


def test_host_warning_type_is_accepted(s):
    assert submit(s, payload(submissionType=2), s.state.add_tan())[0] == 200


# --- TAN, headers, size -------------------------------------------------------

def test_unknown_tan_is_403(s):
    assert submit(s, payload(), "8b5a5c66-3a2f-4b2a-9a7e-3b0c1c1e2d4f")[0] == 403
    assert rejected(s) == "tan"


def test_expired_tan_is_403(s):
    now = [time.time()]
    s.state.clock = lambda: now[0]
    tan = s.state.add_tan()
    now[0] += 14 * 86400 + 1
    assert submit(s, payload(), tan)[0] == 403


def test_missing_authorization_is_400(s):
    assert submit(s, payload())[0] == 400
    assert rejected(s) == "cwa-authorization-missing"


def test_undecodable_body_is_400(s):
    assert submit(s, None, s.state.add_tan(), raw=b"\xff\xff\xff")[0] == 400
    assert rejected(s) == "decode"


def test_wrong_content_type_is_415(s):
    assert submit(s, payload(), s.state.add_tan(), content_type="application/json")[0] == 415
    assert any("Content-Type" in v for _, _, v in s.violations)


def test_missing_fake_header_is_400_and_a_violation(s):
    status, _, _ = call(s.url + PATH, "POST", payload().SerializeToString(),
                        {"Content-Type": "application/x-protobuf"})
    assert status == 400 and ("POST", PATH, "no cwa-fake header") in s.violations


def test_body_over_100_kb_is_413(s):
    status, _ = submit(s, None, s.state.add_tan(), raw=b"\0" * (100 * 1024 + 1))
    assert status == 413


def test_get_is_405(s):
    assert call(s.url + PATH)[0] == 405


# --- fakes and padding ------------------------------------------------------

def test_fake_submission_is_200_and_changes_nothing(s):
    tan = s.state.add_tan()
    s.state.fake_delay = (0.05, 0.05)
    t = time.monotonic()
    assert submit(s, payload([key(trl=99)]), tan, fake="1")[0] == 200
    assert time.monotonic() - t >= 0.05
    assert s.submissions == [] and not s.state.tans[tan].redeemed


def test_wrong_padding_is_recorded_not_refused(s):
    p = payload(daily_keys(3, trl=5), pad=False)
    p.requestPadding = b"x" * 10
    assert submit(s, p, s.state.add_tan())[0] == 200
    [(_, _, v)] = s.violations
    assert "requestPadding is 10 bytes for 3 keys, expected 336" in v


def test_padding_is_checked_on_fake_requests_too(s):
    submit(s, payload(daily_keys(5, trl=5)), s.state.add_tan())
    submit(s, payload(daily_keys(14, trl=5)), fake="1")
    s.assert_no_violations()
    submit(s, payload(daily_keys(14, trl=5), pad=False), fake="1")
    assert len(s.violations) == 1


# --- end to end with the verification server ------------------------------------

def test_tan_from_verification_is_accepted_by_submission():
    state = CwaState()
    with CwaVerificationServer(state) as v, CwaSubmissionServer(state) as sub:
        guid = "AAAAAA-11111111-2222-3333-4444-555555555555"
        state.set_result_for_guid(guid, 2)
        token = post_json(v.url + "/version/v1/registrationToken",
                          {"key": guid_hash(guid), "keyType": "GUID"})[1]["registrationToken"]
        tan = post_json(v.url + "/version/v1/tan", {"registrationToken": token})[1]["tan"]
        assert submit(sub, payload(), tan)[0] == 200
        assert state.tans[tan].redeemed
        assert submit(sub, payload(), tan)[0] == 403


def test_combined_server_serves_both():
    with CwaBackendServer() as b:
        guid = "BBBBBB-11111111-2222-3333-4444-555555555555"
        b.state.set_result_for_guid(guid, 7)
        token = post_json(b.url + "/version/v1/registrationToken",
                          {"key": guid_hash(guid), "keyType": "GUID"})[1]["registrationToken"]
        tan = post_json(b.url + "/version/v1/tan", {"registrationToken": token})[1]["tan"]
        assert submit(b, payload(), tan)[0] == 200
        assert len(b.submissions) == 1
        assert call(b.url + "/version/v1/nothing")[0] == 404
        b.assert_no_violations()


def test_fault_on_submission_keeps_the_tan(s):
    tan = s.state.add_tan()
    s.inject(PATH, status=503)
    assert submit(s, payload(), tan)[0] == 503
    assert submit(s, payload(), tan)[0] == 200


def test_answer_lost_after_processing_uses_the_tan(s):
    import http.client
    tan = s.state.add_tan()
    s.inject(PATH, drop=True, process=True)
    with pytest.raises(http.client.RemoteDisconnected):
        submit(s, payload(), tan)
    assert s.state.tans[tan].redeemed
