"""Several instances on one PostgreSQL (Debian's postgresql, a cluster of
the test's own on loopback): two serve instances and two senders under a
load of 10 000 registrations, updates and deletions. No lost update; each
due token pushed exactly once per interval; APNs rejections remove
exactly the rejected tokens."""
import random
import threading
import time

import load
from pushd_util import Client, Process, apns_token, instance_token, pg_registrations, run


def pg_rows(pg):
    return pg_registrations(pg)


def test_api_and_takeover_on_postgres(pg):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *pg.args)
    try:
        c = Client(p.port)
        a, b, t = instance_token(), instance_token(), apns_token()
        assert c.v3(t, "ios", a)[0] == 200
        assert c.put(t, "ios", b)[0] == 204           # takeover: same answer, nothing moves
        assert c.delete(b)[0] == 204                  # stranger's delete: nothing
        assert [v[0] for v in pg_rows(pg).values()] == [t]
        assert c.v3("", "ios", a)[0] == 200
        assert pg.sql("SELECT count(*) FROM registrations") == [["0"]]
    finally:
        p.stop()


def test_concurrent_takeover_race_has_one_winner(pg):
    """Many instances register one token at once through two instances: exactly one holds it."""
    servers = [Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *pg.args) for _ in range(2)]
    try:
        token = apns_token()
        barrier = threading.Barrier(16)
        statuses = []

        def go(k):
            c = Client(servers[k % 2].port)
            barrier.wait()
            statuses.append(c.put(token, "ios", instance_token())[0])

        threads = [threading.Thread(target=go, args=(k,)) for k in range(16)]
        for t in threads:
            t.start()
        for t in threads:
            t.join()
        assert statuses == [204] * 16
        assert pg.sql("SELECT count(*) FROM registrations") == [["1"]]
    finally:
        for s in servers:
            s.stop()


def wait_round(interval, need):
    """Waits until at least `need` seconds are left in the current round."""
    while interval - time.time() % interval < need:
        time.sleep(0.2)
    return int(time.time()) // interval


def test_two_serves_two_senders_10000_operations(pg, apns, send_args):
    stable, plan, model = load.build(10_000)
    servers = [Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *pg.args) for _ in range(2)]
    try:
        requests, seconds = load.drive([s.port for s in servers], stable, plan)
    finally:
        for s in servers:
            s.stop()
    assert requests == 10_000
    # No lost update: the database is the model, row for row.
    assert pg_rows(pg) == load.expected_rows(model)

    ios = [t for t, k in model.values() if k != "android"]
    rejected = set(random.Random(3).sample(ios, 60))
    reasons = [(400, "BadDeviceToken"), (410, "Unregistered"), (400, "DeviceTokenNotForTopic")]
    apns.reject = {t: reasons[i % 3] for i, t in enumerate(sorted(rejected))}

    interval = 40
    rounds = []
    for _ in range(2):
        rounds.append(wait_round(interval, 25))
        before = dict(apns.pushes)
        senders = [Process("send", *pg.args, *send_args, "--once", "--interval", f"{interval}s", "--batch-size", "37",
                           "--concurrency", "16", wait_listening=False) for _ in range(2)]
        for s in senders:
            code, out, err = s.wait(120)
            assert code == 0, err
        assert int(time.time()) // interval == rounds[-1], "the round ended during the run: the test machine is too slow"
        this_round = {t: n - before.get(t, 0) for t, n in apns.pushes.items() if n - before.get(t, 0)}
        # Each due token exactly once in this round, across both senders.
        assert this_round == {t: 1 for t in ios if t not in rejected}
        if len(rounds) < 2:
            time.sleep(interval - time.time() % interval + 0.5)  # the next round
    assert apns.errors == []
    # Rejections removed exactly the rejected tokens.
    expected = {h: v for h, v in load.expected_rows(model).items() if v[0] not in rejected}
    assert pg_rows(pg) == expected
    outcomes = pg.sql("SELECT last_outcome, count(*) FROM registrations WHERE push_type <> 'android' GROUP BY 1")
    assert outcomes == [["200", str(len(ios) - len(rejected))]]
    assert pg.sql("SELECT count(*) FROM registrations WHERE lease_owner IS NOT NULL") == [["0"]]


def test_senders_in_loop_mode_share_the_work(pg, apns, send_args):
    """Two looping senders (SIGTERM at the end) and a once sender in one
    round: no token twice."""
    server = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *pg.args)
    tokens = [apns_token() for _ in range(300)]
    try:
        c = Client(server.port)
        for t in tokens:
            assert c.put(t, "ios", instance_token())[0] == 204
    finally:
        server.stop()
    interval = 60
    wait_round(interval, 40)
    loops = [Process("send", *pg.args, *send_args, "--interval", f"{interval}s", "--batch-size", "10", wait_listening=False)
             for _ in range(2)]
    time.sleep(8)
    for p in loops:
        p.stop()
        assert p.proc.returncode == 0, p.stderr()
    during = apns.total()
    code, _, err = run("send", *pg.args, *send_args, "--once", "--interval", f"{interval}s")
    assert code == 0, err
    assert 0 < during < 300  # the loops were pacing, not bursting
    assert dict(apns.pushes) == {t: 1 for t in tokens}
