"""`encore push decide|register|deregister|status` against the stand-in
registry: the rule of push.md case by case (through the stored state),
both registration APIs, state stored only on success, retries, bad tokens
refused before any request, and the app-instance token in no request but
the registration ones (sync, test result and submission traffic checked)."""
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests"))
from standins.push_registry import REGISTER, REGISTRATIONS, PushRegistryServer  # noqa: E402
from test_cli_checkins import REAL_QR  # noqa: E402
from test_cli_match import run  # noqa: E402

DAY = 86_400
NOW = 20_400 * DAY + 12 * 3600
APNS = "ab" * 32
APNS2 = "cd" * 32


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "client.db"
    assert run("store", "init", "--db", path).returncode == 0
    return path


@pytest.fixture
def registry():
    with PushRegistryServer() as server:
        yield server


def decide(db, event, *extra, now=NOW):
    r = run("push", "decide", "--db", db, "--event", event, "--now", now, "--json", *extra)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)["action"]


def check_in(db):
    r = run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", NOW - 7200, "--end", NOW - 3600, "--now", NOW)
    assert r.returncode == 0, r.stderr


def register(db, registry, token=APNS, *extra, now=NOW):
    return run("push", "register", "--db", db, "--server", registry.url, "--token", token, "--type", "ios", "--now", now, "--json", *extra)


def instance_token(registry):
    return registry.requests_to(REGISTER)[-1].decoded.deviceId


def test_the_rule_through_the_stored_state(db, registry):
    # Nothing stored: nothing to do, whatever happens.
    for event in ("app-start", "checkout", "en-off", "en-on", "token-changed"):
        assert decide(db, event) == ("register" if event == "checkout" else "none")
    check_in(db)
    # EN off (the default), check-ins, not registered: register at app start, on check-out and EN off.
    assert decide(db, "app-start") == "register"
    assert decide(db, "en-off", "--en", "off") == "register"
    # In isolation: not at app start (a check-out still registers, as the table says).
    assert decide(db, "app-start", "--isolated", "yes") == "none"
    assert decide(db, "checkout") == "register"
    assert decide(db, "app-start", "--isolated", "no") == "register"
    # EN on: nothing while not registered.
    assert decide(db, "en-on", "--en", "on") == "none"
    assert decide(db, "checkout") == "none"
    assert decide(db, "en-off", "--en", "off") == "register"

    assert register(db, registry).returncode == 0
    assert decide(db, "checkout") == "none"
    assert decide(db, "en-off") == "none"
    assert decide(db, "token-changed") == "register"
    assert decide(db, "app-start") == "none"
    # The 14-day renewal: due just after 14 days, not at 14 days.
    assert decide(db, "app-start", now=NOW + 14 * DAY) == "none"
    assert decide(db, "app-start", now=NOW + 14 * DAY + 1) == "register"
    # EN on while registered: deregister, at the switch and at app start.
    assert decide(db, "en-on", "--en", "on") == "deregister"
    assert decide(db, "app-start") == "deregister"


@pytest.mark.parametrize("api", ["swisscovid", "registry"])
def test_register_and_deregister(db, registry, api):
    r = register(db, registry, APNS, "--api", api)
    assert r.returncode == 0, r.stderr
    status = json.loads(r.stdout)
    assert status["registered"] and status["registeredAt"] == NOW and status["api"] == api and status["pushType"] == "ios"
    assert APNS not in r.stdout
    assert list(registry.registrations.values()) == [(APNS, "ios")]
    (instance,) = registry.registrations
    assert len(instance) == 64 and int(instance, 16) != 0
    if api == "swisscovid":
        m = registry.requests_to(REGISTER)[-1].decoded
        assert (m.version, m.pushToken, m.pushType, m.deviceId) == (1, APNS, 0, instance)
    else:
        req = registry.requests_to(REGISTRATIONS)[-1]
        assert req.method == "PUT" and req.header("Authorization") == "Bearer " + instance
        assert req.decoded == {"pushToken": APNS, "pushType": "ios"}

    # A new token: the same instance token.
    assert register(db, registry, APNS2, "--api", api).returncode == 0
    assert registry.registrations == {instance: (APNS2, "ios")}

    # Deregister from the server registered with (its API): gone on both sides.
    r = run("push", "deregister", "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["registered"] is False
    assert registry.registrations == {}
    last = registry.requests[-1]
    if api == "swisscovid":
        assert last.decoded.pushToken == "" and last.decoded.deviceId == instance
    else:
        assert last.method == "DELETE" and last.header("Authorization") == "Bearer " + instance and last.body == b""
    registry.assert_no_violations()


def test_state_is_stored_only_on_success_and_retries(db, registry):
    # A refusal (400) is not retried and leaves the user unregistered.
    registry.inject(REGISTER, status=400)
    r = register(db, registry)
    assert r.returncode == 1 and "400" in r.stderr
    assert len(registry.requests_to(REGISTER)) == 1
    assert json.loads(run("push", "status", "--db", db, "--json").stdout)["registered"] is False
    # 503 twice, then success: three attempts, one registration.
    registry.clear_requests()
    registry.inject(REGISTER, status=503, times=2)
    r = run("push", "register", "--db", db, "--server", registry.url, "--token", APNS, "--type", "ios", "--now", NOW)
    assert r.returncode == 0, r.stderr
    assert len(registry.requests_to(REGISTER)) == 3
    # Registered at the time of the yes: the given now plus the two retry
    # delays (1 s, then 2 s) that passed before it.
    registered_at = json.loads(run("push", "status", "--db", db, "--json").stdout)["registeredAt"]
    assert NOW + 3 <= registered_at < NOW + 60
    # Out of attempts: failure, and the earlier registration stays.
    registry.clear_requests()
    registry.inject(REGISTER, status=503, times=None)
    r = run("push", "register", "--db", db, "--server", registry.url, "--token", APNS2, "--type", "ios", "--attempts", "2", "--now", NOW + 60)
    assert r.returncode == 1 and "503" in r.stderr
    assert len(registry.requests_to(REGISTER)) == 2
    assert json.loads(run("push", "status", "--db", db, "--json").stdout)["registeredAt"] == registered_at


def test_bad_input_is_refused_before_any_request(db, registry):
    for token, kind in [("ab" * 31, "ios"), ("zz" * 32, "ios"), ("", "ios"), ("a b", "android"), ("x" * 4097, "android")]:
        r = run("push", "register", "--db", db, "--server", registry.url, "--token", token, "--type", kind)
        assert r.returncode == 2, (token[:10], r.stderr)
    assert run("push", "register", "--db", db, "--server", registry.url, "--token", APNS, "--type", "windows").returncode == 2
    assert run("push", "decide", "--db", db, "--event", "reboot").returncode == 2
    assert run("push", "decide", "--db", db, "--event", "app-start", "--en", "maybe").returncode == 2
    # Deregistering with nothing registered needs a server.
    r = run("push", "deregister", "--db", db)
    assert r.returncode == 1 and "server" in r.stderr
    assert registry.requests == []
    # An FCM token of URL-safe text is fine.
    r = run("push", "register", "--db", db, "--server", registry.url, "--token", "fcm:APA91b-x_y.z", "--type", "android", "--now", NOW)
    assert r.returncode == 0, r.stderr


def test_the_instance_token_goes_in_registration_requests_only(tmp_path, db, registry):
    """Every request other encore components make from this store (sync of
    keys, warnings, trace keys; test result and submission) carries no byte
    of the app-instance token."""
    from standins import keyfiles
    from standins.cwa_distribution import CwaDistributionServer
    from standins.cwa_backend import verification_and_submission

    assert register(db, registry).returncode == 0
    token = instance_token(registry)
    signer = keyfiles.SigningKey()
    pem = tmp_path / "cwa.pem"
    signer.write_public_pem(pem)
    with CwaDistributionServer(signer) as dist, verification_and_submission() as (state, v, s):
        yesterday = __import__("time").strftime("%Y-%m-%d", __import__("time").gmtime(NOW - DAY))
        dist.add_day("EUR", yesterday, [keyfiles.make_key(day=yesterday)])
        dist.add_twp("DE", NOW // 3600 - 1)
        r = run("sync", "--db", db, "--distribution", dist.url, "--trust", signer.trust_arg(pem), "--now", NOW, "--json")
        assert r.returncode == 0, r.stderr
        assert {f["kind"] for f in json.loads(r.stdout)["fetched"]} == {"config", "day", "warnings"}
        urls = ("--verification", v.url, "--submission", s.url)
        assert run("test", "register", "--db", db, *urls, "--teletan", state.issue_teletan()).returncode == 0
        assert run("submit", "--db", db, *urls, "--now", NOW).returncode in (0, 1)
        others = dist.requests + v.requests + s.requests
    assert len(others) >= 4
    needles = [token.encode(), token.upper().encode(), bytes.fromhex(token)]
    for req in others:
        blob = req.head + req.body
        assert not any(n in blob for n in needles), (req.method, req.path)
    # And the registry saw it in every request.
    assert all(token.encode() in (req.head + req.body) for req in registry.requests)
