"""Test result access and key submission through the Python bindings, against
the stand-in verification and submission servers (Tests/standins): the
happy paths, every result value, padding and fake requests, the servers'
error answers, keys refused before any request, HTTPS with a test CA, and
the TAN kept across a failed upload."""
import base64
import hashlib
import json
import os
import sys
from pathlib import Path

import pytest

from encore_testdata import REPO, TestClock

import encore
from encore import OwnKey, TestResultClient, Transport

sys.path.insert(0, str(REPO / "Tests"))
from standins import protos, tlsca  # noqa: E402
from standins.cwa_state import CwaState, generate_teletan  # noqa: E402
from standins.cwa_backend import verification_and_submission  # noqa: E402
from standins.cwa_submission import CwaSubmissionServer  # noqa: E402
from standins.cwa_verification import CwaVerificationServer  # noqa: E402

DAY = 86_400
NOW = 20_400 * DAY + 9 * 3600          # 2025-11-08 09:00 UTC
GUID = "3D6D08-3567F3F2-4DCF-43A3-8737-4CD1F87D6FDA"
NO_INFO_TRL = [5, 6, 7, 7, 7, 6, 4, 3, 2, 1, 1, 1, 1, 1, 1]


@pytest.fixture
def servers():
    with verification_and_submission() as servers:
        yield servers


@pytest.fixture
def store(tmp_path):
    with encore.Store.open(tmp_path / "s.db", raw_key=b"\x07" * 32) as st, encore.Client(st, clock=NOW) as app:
        # Own keys of the last 16 days, today's included: 14 go.
        for age in range(16):
            day = NOW // DAY - age
            app.own_keys.put(OwnKey(key_data=hashlib.sha256(b"%d" % age).digest()[:16], rolling_start_interval_number=day * 144,
                                  created=day * DAY))
        yield st


def results_of(store, clock=NOW, transport=None, **servers):
    """The test results of a new Client of `store` with `servers`, its clock
    `clock` (a time, or a TestClock the test moves)."""
    return encore.Client(store, clock=clock, transport=transport or Transport.curl(), **servers).tests


def client(store, v, s, clock=NOW, **kw):
    return results_of(store, clock, verification=v.url, submission=s.url, **kw)


def decoded(body):
    p = protos.SubmissionPayload()
    p.ParseFromString(body)
    return p


def paths(server):
    return [(r.path, dict((k.lower(), v) for k, v in r.headers)["cwa-fake"]) for r in server.requests]


def test_guid_register_poll_positive_and_submit_14_enriched_keys(servers, store):
    state, v, s = servers
    state.set_result_for_guid(GUID, 0)
    clock = TestClock(NOW)
    app = encore.Client(store, clock=clock, verification=v.url, submission=s.url)
    c = app.tests
    st = c.register(qr="https://localhost/?" + GUID)
    assert st.registered and st.key_type == "GUID" and st.result == "PENDING" and not st.notify
    assert st.next_poll_at == NOW + 120 * 60
    # Registration: real token, real result, fake submission.
    assert paths(v) == [("/version/v1/registrationToken", "0"), ("/version/v1/testresult", "0")]
    assert paths(s) == [("/version/v1/diagnosis-keys", "1")]

    state.set_result_for_guid(GUID, 2, sc=NOW - 3600)
    clock.now = NOW + 7200
    first = c.poll()
    assert first.result == "POSITIVE" and first.notify and first.next_poll_at is None and first.sample_collected_at == NOW - 3600
    clock.now = NOW + 7300
    assert not c.poll().notify       # told once
    assert not c.status().notify

    clock.now = NOW + 8000
    summary = c.submit()
    assert summary.keys == 14 and summary.check_ins == 0
    [sub] = s.submissions
    payload = sub.payload
    own = sorted(app.own_keys.list(), key=lambda k: k.rolling_start_interval_number)[-14:]
    assert [k.key_data for k in payload.keys] == [k.key_data for k in own]
    today = (NOW + 8000) // DAY
    for k in payload.keys:
        age = today - k.rolling_start_interval_number // 144
        assert k.transmission_risk_level == NO_INFO_TRL[age] and k.days_since_onset_of_symptoms == 4000 - age
        assert k.rolling_start_interval_number % 144 == 0 and k.report_type == 1
    assert payload.origin == "DE" and payload.submissionType == 0 and len(payload.checkInProtectedReports) == 0
    assert s.violations == [] and v.violations == []
    clock.now = NOW + 8000
    status = c.status()
    assert status.submitted and status.submitted_keys == 14 and not status.has_tan
    with pytest.raises(encore.AlreadySubmittedError):
        clock.now = NOW + 9000
        c.submit()


def test_teletan_is_positive_by_definition(servers, store):
    state, v, s = servers
    c = client(store, v, s)
    st = c.register(teletan=state.issue_teletan())
    assert st.key_type == "TELETAN" and st.result == "POSITIVE" and not st.notify and st.next_poll_at is None
    # The result request is a fake one: a teleTAN has nothing to poll.
    assert paths(v) == [("/version/v1/registrationToken", "0"), ("/version/v1/testresult", "1")]
    with pytest.raises(encore.InvalidArgumentError):
        c.poll()
    assert c.submit(symptoms="onset-last-7-days").keys == 14
    payload = s.submissions[0].payload
    assert [k.days_since_onset_of_symptoms for k in payload.keys] == [701 - a for a in range(13, -1, -1)]


@pytest.mark.parametrize("code", range(10))
def test_every_result_value(servers, store, code):
    state, v, s = servers
    state.set_result_for_guid(GUID, code)
    if code % 5 == 4:
        # Redeemed at registration: discarded, as the app does.
        with pytest.raises(encore.TestRedeemedError):
            client(store, v, s).register(guid=GUID, rapid=code >= 5)
        assert not client(store, v, s).status().registered
        return
    st = client(store, v, s).register(guid=GUID, rapid=code >= 5)
    assert st.test_type == ("rapid-antigen" if code >= 5 else "pcr")
    assert st.result == ["PENDING", "NEGATIVE", "POSITIVE", "INVALID", "REDEEMED"][code % 5] and st.rapid == (code >= 5)
    assert st.notify == (code % 5 != 0)
    assert (st.next_poll_at is None) == (code % 5 != 0)
    if code % 5 != 2:
        with pytest.raises(encore.NotPositiveError):
            client(store, v, s).submit()


# CWA Android's test code raQrCode3 (TestQrCodes.kt) and one with a hash that does not match.
RA_QR_CODE_3 = ("https://s.coronawarn.app?v=1#eyJ0aW1lc3RhbXAiOjE2MTk2MTgzNTIsInNhbHQiOiJDRjBDNTQ3RkY2RDMwOTlBMkIwNkMxQzRFNEYwOEFGOSIsInRlc3RpZCI6ImY0N2VmODA0LTZmMGMtNDhiMy1hODY5LWUyZjg4NmIxMjU0ZiIsImhhc2giOiI3ZGNlMDhkYjBkNGFiZDVhYzFkMjQ5OGI1NzFhZmIyMjFjYTk0N2M3NWM4NDdkMDU0NjZiNGNmZTlkOTVkYzY2IiwiZm4iOiJKYWNvYiIsImxuIjoiVHlsZXIiLCJkb2IiOiIxOTYzLTAzLTE3In0=")
RA_QR_CODE_3_KEY = "7a5a84cc629c9e77aba15ef6068f976c156ab5d22cfb881ff1fdd17cee1a354d"


def test_a_rapid_antigen_code(servers, store):
    state, v, s = servers
    state.set_result(RA_QR_CODE_3_KEY, 6, sc=NOW - 100)
    st = client(store, v, s).register(qr=RA_QR_CODE_3)
    assert st.test_type == "rapid-antigen" and st.rapid and st.result == "NEGATIVE" and st.tested_at == NOW - 100
    assert not st.outdated and client(store, v, s, clock=NOW - 100 + 48 * 3600 + 1).status().outdated
    client(store, v, s).forget()
    # Another salt: the hash no longer matches.
    prefix, _, text = RA_QR_CODE_3.partition("#")
    payload = json.loads(base64.b64decode(text))
    payload["salt"] = "00"
    with pytest.raises(encore.TestCodeHashError):
        client(store, v, s).register(qr=prefix + "#" + base64.b64encode(json.dumps(payload).encode()).decode())


def test_rapid_tests_are_polled_often_at_first(servers, store):
    state, v, s = servers
    state.set_result_for_guid(GUID, 5)
    clock = TestClock(NOW)
    c = client(store, v, s, clock=clock)
    assert c.register(guid=GUID, rapid=True).next_poll_at == NOW + 15 * 60
    clock.now = NOW + 95 * 60
    assert c.poll().next_poll_at == NOW + 95 * 60 + 90 * 60


def test_fake_requests_look_like_real_ones(servers, store):
    state, v, s = servers
    state.set_result_for_guid(GUID, 2)
    clock = TestClock(NOW)
    c = client(store, v, s, clock=clock)
    c.register(guid=GUID)
    clock.now = NOW + 1
    c.poll()
    c.noise()
    clock.now = NOW + 2
    c.submit()
    bodies = {len(r.body) for r in v.requests}
    heads = {r.head_size for r in v.requests}
    assert bodies == {250} and len(heads) == 1, (bodies, heads)
    fakes = [r for r in s.requests if dict((k.lower(), x) for k, x in r.headers)["cwa-fake"] == "1"]
    real = [r for r in s.requests if r not in fakes]
    assert len(real) == 1 and len(fakes) >= 3
    assert {len(r.body) for r in s.requests} == {1000} and len({r.head_size for r in s.requests}) == 1


@pytest.mark.parametrize("status, error", [(400, encore.ServerRefusedError), (403, encore.ServerRefusedError),
                                           (404, encore.ServerRefusedError), (429, encore.ServerUnavailableError),
                                           (500, encore.ServerUnavailableError), (503, encore.ServerUnavailableError),
                                           (302, encore.ProtocolError)])
def test_error_answers_of_the_verification_server(servers, store, status, error):
    state, v, s = servers
    v.inject("/version/v1/registrationToken", status=status)
    with pytest.raises(error) as e:
        client(store, v, s).register(guid=GUID)
    assert str(status) in str(e.value)
    assert not client(store, v, s).status().registered


@pytest.mark.parametrize("body", [b"", b"{", b"[]", b'{"registrationToken": 7}', b'{"registrationToken": "../../etc"}'])
def test_malformed_answers_are_protocol_errors(servers, store, body):
    state, v, s = servers
    v.inject("/version/v1/registrationToken", status=201, malformed=body)
    with pytest.raises(encore.ProtocolError):
        client(store, v, s).register(guid=GUID)


def test_oversized_and_dropped_answers(servers, store):
    state, v, s = servers
    v.inject("/version/v1/registrationToken", oversized=4 << 20)
    with pytest.raises(encore.ResponseTooLargeError):
        results_of(store, transport=Transport.curl(max_response_bytes=1 << 20), verification=v.url, submission=s.url).register(guid=GUID)
    v.inject("/version/v1/registrationToken", drop=True)
    with pytest.raises(encore.NetworkError):
        client(store, v, s).register(guid=GUID)
    v.inject("/version/v1/registrationToken", delay=3)
    with pytest.raises(encore.TimeoutError):
        results_of(store, transport=Transport.curl(timeout_ms=500), verification=v.url, submission=s.url).register(guid=GUID)


@pytest.mark.parametrize("kwargs", [dict(qr="https://localhost/?not-a-guid"), dict(qr="https://evil.example/?" + GUID),
                                    dict(guid=GUID[:-1]), dict(guid=GUID + "0"), dict(teletan="R3ZNUA7L8O"),
                                    dict(teletan="short"), dict(guid=GUID, dob="1990-02-30"), dict(teletan="x", dob="1990-01-01")])
def test_bad_keys_are_refused_before_any_request(servers, store, kwargs):
    state, v, s = servers
    if "teletan" in kwargs and kwargs["teletan"] == "x":
        kwargs["teletan"] = generate_teletan()
    with pytest.raises(encore.TestKeyError):
        client(store, v, s).register(**kwargs)
    assert v.requests == [] and s.requests == []


def test_a_wrong_teletan_check_character_is_refused(servers, store):
    state, v, s = servers
    good = generate_teletan()
    bad = good[:-1] + next(c for c in "23456789ABCDEFGHJKMNPQRSTUVWXYZ" if c != good[-1])
    with pytest.raises(encore.TestKeyError):
        client(store, v, s).register(teletan=bad)
    assert v.requests == []


def test_date_of_birth_key(servers, store):
    state, v, s = servers
    state.set_result_for_guid(GUID, 1, dob="15031990")
    st = client(store, v, s).register(guid=GUID, dob="1990-03-15")
    assert st.result == "NEGATIVE"
    sent = v.requests[0].decoded
    expected = "x" + hashlib.sha256((GUID + "15031990").encode()).hexdigest()[1:]
    assert sent["keyDob"] == expected and sent["key"] == hashlib.sha256(GUID.encode()).hexdigest()


def refused_upload(servers, store, status, error, clock=NOW):
    """A client whose teleTAN test is registered and whose first upload the
    submission server answered with `status` (raising `error`)."""
    state, v, s = servers
    c = client(store, v, s, clock=clock)
    c.register(teletan=state.issue_teletan())
    s.inject("/version/v1/diagnosis-keys", status=status)
    with pytest.raises(error):
        c.submit()
    return c


def test_a_failed_upload_keeps_the_tan_for_the_retry(servers, store):
    state, v, s = servers
    clock = TestClock(NOW)
    c = refused_upload(servers, store, 503, encore.ServerUnavailableError, clock)
    assert c.status().has_tan
    real_tans = [r for r in v.requests if r.path == "/version/v1/tan" and dict((k.lower(), x) for k, x in r.headers)["cwa-fake"] == "0"]
    assert len(real_tans) == 1
    v.clear_requests()
    clock.now = NOW + 60
    assert c.submit().keys == 14
    # The retry sent a fake TAN request, not a second real one.
    assert paths(v) == [("/version/v1/tan", "1")]


def test_a_refused_tan_is_dropped(servers, store):
    c = refused_upload(servers, store, 403, encore.TanRefusedError)
    assert not c.status().has_tan


def test_https_with_a_test_ca(tmp_path, store):
    ca, context = tlsca.make(tmp_path)
    state = CwaState()
    state.set_result_for_guid(GUID, 1)
    v, s = CwaVerificationServer(state), CwaSubmissionServer(state, padded_size=1000)
    v.tls_context = s.tls_context = context
    with v, s:
        assert v.url.startswith("https://")
        # Without the CA the certificate is not trusted: nothing is sent in clear.
        with pytest.raises(encore.TlsError):
            results_of(store, transport=Transport.curl(), verification=v.url, submission=s.url).register(guid=GUID)
        trusted = results_of(store, transport=Transport.curl(ca_file=ca), verification=v.url, submission=s.url)
        assert trusted.register(guid=GUID).result == "NEGATIVE"


def test_plain_http_goes_to_this_machine_only(store):
    for url in ["http://example.org", "http://127.0.0.1.example.org", "ftp://127.0.0.1", "file:///etc/passwd"]:
        with pytest.raises(encore.InvalidArgumentError):
            results_of(store, transport=Transport.curl(), verification=url).register(guid=GUID)


def test_a_host_transport_runs_the_same_protocol(store):
    """The callback transport: a tiny in-test server that answers like CWA's."""
    seen = []

    def perform(method, url, headers, body):
        seen.append((method, url, dict(headers)))
        if url.endswith("/registrationToken"):
            return 201, [("Content-Type", "application/json")], b'{"registrationToken": "2f1d2c44-39a6-4b51-9d0c-9a0b1d8e0c55"}'
        if url.endswith("/testresult"):
            return 200, [], b'{"testResult": 2, "sc": 1700000000}'
        return 200, [], b""

    c = results_of(store, transport=Transport.callback(perform), verification="https://v.example", submission="https://s.example")
    st = c.register(guid=GUID)
    assert st.result == "POSITIVE" and st.notify
    assert [u for _, u, _ in seen] == ["https://v.example/version/v1/registrationToken", "https://v.example/version/v1/testresult",
                                       "https://s.example/version/v1/diagnosis-keys"]

    def failing(method, url, headers, body):
        raise OSError("no network")
    with pytest.raises(encore.NetworkError):
        results_of(store, transport=Transport.callback(failing), verification="https://v.example").poll()
