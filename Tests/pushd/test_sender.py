"""`encore-pushd send` against the APNs stand-in (HTTP/2, TLS with a CA
made here, ES256 provider tokens checked against the .p8's public key)."""
import time

from apns_standin import APNsStandIn
from conftest import KEY_ID, TEAM_ID, TOPIC
from pushd_util import Client, Process, apns_token, instance_token, run, sqlcipher_rows


def registered(db):
    return {r[0]: r[1:] for r in sqlcipher_rows(db["path"], db["key"],
            "SELECT push_token, push_type, coalesce(last_push_at, ''), coalesce(last_outcome, '') FROM registrations")}


def register(db, pairs):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *db["args"])
    try:
        c = Client(p.port)
        for token, kind in pairs:
            assert c.put(token, kind, instance_token())[0] == 204
    finally:
        p.stop()


def test_once_pushes_each_ios_token_once_and_records_it(sqlcipher_db, apns, send_args):
    ios = [apns_token() for _ in range(20)]
    sandbox = [apns_token() for _ in range(5)]
    android = ["fcm:" + apns_token()]
    register(sqlcipher_db, [(t, "ios") for t in ios] + [(t, "ios-sandbox") for t in sandbox] + [(android[0], "android")])
    start = int(time.time())
    code, out, err = run("send", *sqlcipher_db["args"], *send_args, "--once")
    assert code == 0, err
    assert apns.errors == []
    assert apns.protocols == {"h2"}
    assert dict(apns.pushes) == {t: 1 for t in ios + sandbox}
    assert len(apns.jwts) == 1  # one provider token for the whole run
    state = registered(sqlcipher_db)
    for t in ios + sandbox:
        assert state[t][2] == "200" and int(state[t][1]) >= start
    assert state[android[0]] == ["android", "", ""]  # FCM: stored, not sent
    # Again in the same round: nothing is due.
    code, _, err = run("send", *sqlcipher_db["args"], *send_args, "--once")
    assert code == 0, err
    assert sum(apns.pushes.values()) == 25


def test_rejected_tokens_are_deleted_exactly(sqlcipher_db, apns, send_args):
    keep = [apns_token() for _ in range(10)]
    bad, gone, topic, other = apns_token(), apns_token(), apns_token(), apns_token()
    apns.reject = {bad: (400, "BadDeviceToken"), gone: (410, "Unregistered"), topic: (400, "DeviceTokenNotForTopic"),
                   other: (413, "PayloadTooLarge")}
    register(sqlcipher_db, [(t, "ios") for t in keep + [bad, gone, topic, other]])
    code, out, err = run("send", *sqlcipher_db["args"], *send_args, "--once")
    assert code == 0, err
    state = registered(sqlcipher_db)
    assert set(state) == set(keep + [other])
    assert state[other][2] == "413 PayloadTooLarge"  # recorded, kept: not a token rejection
    assert all(state[t][2] == "200" for t in keep)


def test_backs_off_on_429_and_503(sqlcipher_db, apns, send_args):
    tokens = [apns_token() for _ in range(6)]
    register(sqlcipher_db, [(t, "ios") for t in tokens])
    apns.throttle, apns.unavailable = 2, 1
    start = time.time()
    code, out, err = run("send", *sqlcipher_db["args"], *send_args, "--once", "--concurrency", "1")
    assert code == 0, err
    assert time.time() - start >= 1.0  # waited before trying again
    assert dict(apns.pushes) == {t: 1 for t in tokens}
    assert [s for _, _, s, _ in apns.log].count(429) == 2
    assert all(v[2] == "200" for v in registered(sqlcipher_db).values())


def test_sandbox_tokens_go_to_the_sandbox_url(sqlcipher_db, apns, send_args, tls, p8):
    sandbox = APNsStandIn(tls[1], p8[1], KEY_ID, TEAM_ID, TOPIC)
    try:
        prod, dev = apns_token(), apns_token()
        register(sqlcipher_db, [(prod, "ios"), (dev, "ios-sandbox")])
        code, _, err = run("send", *sqlcipher_db["args"], *send_args, "--apns-sandbox", sandbox.base, "--once")
        assert code == 0, err
        assert dict(apns.pushes) == {prod: 1} and dict(sandbox.pushes) == {dev: 1}
    finally:
        sandbox.stop()


def test_expired_registrations_are_not_pushed(sqlcipher_db, apns, send_args):
    t = apns_token()
    register(sqlcipher_db, [(t, "ios")])
    time.sleep(3.2)  # times are whole seconds
    code, _, err = run("send", *sqlcipher_db["args"], *send_args, "--once", "--expire-after", "2s")
    assert code == 0, err
    assert apns.total() == 0 and registered(sqlcipher_db) == {}


def test_untrusted_apns_certificate_sends_nothing(sqlcipher_db, apns, send_args):
    t = apns_token()
    register(sqlcipher_db, [(t, "ios")])
    args = [a for a in send_args]
    i = args.index("--ca-file")
    del args[i:i + 2]  # the system's CAs do not know the test CA
    code, _, err = run("send", *sqlcipher_db["args"], *args, "--once", timeout=120)
    assert code != 0 and "cannot be trusted" in err
    assert apns.total() == 0
    assert registered(sqlcipher_db)[t][1] == ""  # not recorded as pushed


def test_loop_spreads_pushes_over_the_interval(sqlcipher_db, apns, send_args):
    tokens = [apns_token() for _ in range(10)]
    register(sqlcipher_db, [(t, "ios") for t in tokens])
    interval = 10
    while time.time() % interval > 0.5:  # start at the beginning of a round
        time.sleep(0.05)
    round_start = int(time.time()) // interval * interval
    p = Process("send", *sqlcipher_db["args"], *send_args, "--interval", f"{interval}s", wait_listening=False)
    try:
        time.sleep(interval * 1.6)
    finally:
        p.stop()
    first = [t for t, tok, s, _ in apns.log if s == 200 and t < round_start + interval]
    second = [tok for t, tok, s, _ in apns.log if s == 200 and t >= round_start + interval]
    assert len(first) == 10
    assert max(first) - min(first) >= 3.0  # spread, not a burst
    assert len(second) == len(set(second))  # at most once per round
