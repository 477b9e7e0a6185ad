"""encore-pushd as a service an operator runs (issue 26), on both storage
back-ends: Prometheus metrics on their own listener, /health and /ready,
graceful drain on SIGTERM (serve: no acknowledged registration lost;
send: the current batch finished, no token pushed twice), logs free of
tokens."""
import signal
import threading
import time

import pytest

from pushd_util import Client, Process, apns_token, instance_token, push_registration, run, wait_for


def value(metrics, name, **labels):
    want = "{" + ",".join(f'{k}="{v}"' for k, v in labels.items()) + "}" if labels else ""
    return sum(v for (n, l), v in metrics.items() if n == name and (not labels or l == want))


def test_metrics_move_on_their_own_listener(backend, apns, send_args):
    p = Process("serve", "--listen", "127.0.0.1:0", "--metrics-listen", "127.0.0.1:0", "--rate-limit", "0", *backend.args)
    try:
        assert p.metrics_port and p.metrics_port != p.port
        c = Client(p.port)
        assert c.request("GET", "/metrics")[0] == 404            # not on the registration listener
        before = p.metrics()
        holder, token = instance_token(), apns_token()
        assert c.put(token, "ios", holder)[0] == 204
        assert c.put(apns_token(), "ios", holder)[0] == 204      # update
        assert c.put(apns_token(), "ios", instance_token())[0] == 204
        assert c.put(apns_token(), "ios", instance_token())[0] == 204
        assert c.request("POST", "/v3/register", b"x", {"Content-Type": "text/plain"})[0] == 415
        assert c.request("POST", "/v3/register", push_registration(apns_token(), "ios", instance_token(), version=7),
                         {"Content-Type": "application/x-protobuf"})[0] == 400
        assert c.put("zz", "ios", instance_token())[0] == 400
        after = p.metrics()
        total = lambda m: value(m, "encore_pushd_registrations_total")
        assert total(after) - total(before) == 4
        assert value(after, "encore_pushd_registrations_total", outcome="inserted") >= 3
        assert value(after, "encore_pushd_registrations_total", outcome="updated") >= 1
        assert value(after, "encore_pushd_refusals_total", reason="media_type") == 1
        assert value(after, "encore_pushd_refusals_total", reason="bad_version") == 1
        assert value(after, "encore_pushd_refusals_total", reason="bad_token") == 1
        assert value(after, "encore_pushd_storage_seconds_count", operation="apply") >= 4
    finally:
        p.stop()
    # The sender's: pushes by APNs' answer, pass duration, queue depth.
    gone = apns_token()
    apns.reject = {gone: (410, "Unregistered")}
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *backend.args)
    try:
        Client(p.port).put(gone, "ios", instance_token())
    finally:
        p.stop()
    # Rounds of 5 s: a paced pass ends within its round.
    s = Process("send", *backend.args, *send_args, "--interval", "5s", "--metrics-listen", "127.0.0.1:0", wait_listening=False)
    try:
        assert wait_for(lambda: value(s.metrics(), "encore_pushd_round_duration_seconds_count") >= 1, timeout=30)
        m = s.metrics()
        assert value(m, "encore_pushd_pushes_total", answer="200") >= 3
        assert value(m, "encore_pushd_pushes_total", answer="410 Unregistered") == 1
        assert ("encore_pushd_queue_depth", "") in m
        assert value(m, "encore_pushd_storage_seconds_count", operation="claim") >= 1
    finally:
        s.stop()
    assert s.proc.returncode == 0


def test_health_and_ready(backend):
    p = Process("serve", "--listen", "127.0.0.1:0", *backend.args)
    try:
        c = Client(p.port)
        assert c.request("GET", "/health")[:3:2] == (200, b"ok\n")
        assert c.request("GET", "/ready")[:3:2] == (200, b"ready\n")
        if backend.name == "postgres":
            # The database goes away: still alive, no longer ready.
            db = backend.pg
            db.cluster.sql(f"ALTER DATABASE {db.name} ALLOW_CONNECTIONS false")
            db.cluster.sql(f"SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE datname = '{db.name}'")
            assert wait_for(lambda: c.request("GET", "/ready")[0] == 503, timeout=20)
            assert c.request("GET", "/health")[0] == 200
            db.cluster.sql(f"ALTER DATABASE {db.name} ALLOW_CONNECTIONS true")
            assert wait_for(lambda: c.request("GET", "/ready")[0] == 200, timeout=20)
    finally:
        p.stop()


def test_sigterm_drains_serve_without_losing_an_acknowledged_registration(backend):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *backend.args)
    acknowledged, lock = {}, threading.Lock()
    stop = threading.Event()

    def work():
        c = Client(p.port)
        while not stop.is_set():
            inst, token = instance_token(), apns_token()
            try:
                status = c.put(token, "ios", inst)[0]
            except Exception:
                return  # the server has gone: the request was not acknowledged
            if status == 204:
                with lock:
                    acknowledged[inst] = token

    threads = [threading.Thread(target=work) for _ in range(6)]
    for t in threads:
        t.start()
    assert wait_for(lambda: len(acknowledged) >= 100, timeout=60)
    p.proc.send_signal(signal.SIGTERM)
    code = p.proc.wait(30)
    stop.set()
    for t in threads:
        t.join()
    assert code == 0, p.stderr()
    import hashlib
    stored = backend.rows()
    for inst, token in acknowledged.items():
        assert stored.get(hashlib.sha256(inst.encode()).hexdigest()) == (token, "ios")


def test_sigterm_during_a_send_round_pushes_no_token_twice(backend, apns, send_args):
    tokens = [apns_token() for _ in range(400)]
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *backend.args)
    try:
        c = Client(p.port)
        for t in tokens:
            assert c.put(t, "ios", instance_token())[0] == 204
    finally:
        p.stop()
    before = backend.rows()
    interval = 60
    while interval - time.time() % interval < 45:  # the whole test in one round
        time.sleep(0.5)
    # Paced over the round: a batch of 50 is in hand when SIGTERM comes.
    s = Process("send", *backend.args, *send_args, "--interval", f"{interval}s", "--batch-size", "50", wait_listening=False)
    assert wait_for(lambda: apns.total() >= 5, timeout=30)
    s.proc.send_signal(signal.SIGTERM)
    code, _, err = s.wait(30)
    assert code == 0, err
    during = apns.total()
    assert 5 <= during < 400
    # Nothing is left claimed: the rest is pushed by the next sender at once.
    code, _, err = run("send", *backend.args, *send_args, "--once", "--interval", f"{interval}s")
    assert code == 0, err
    assert dict(apns.pushes) == {t: 1 for t in tokens}
    assert backend.rows() == before                             # no registration lost


def test_logs_hold_no_token(backend, apns, send_args):
    insts, tokens = [instance_token() for _ in range(5)], [apns_token() for _ in range(5)]
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", "--log-level", "trace", *backend.args)
    try:
        c = Client(p.port)
        for i, t in zip(insts, tokens):
            assert c.put(t, "ios", i)[0] == 204
            assert c.v3(t, "ios", instance_token())[0] == 200     # refused takeovers
            c.request("PUT", "/v1/registrations", b"{", {"Authorization": "Bearer " + i, "Content-Type": "application/json"})
    finally:
        p.stop()
    serve_log = p.proc.stderr.read()
    apns.reject = {tokens[0]: (410, "Unregistered")}
    code, out, send_log = run("send", *backend.args, *send_args, "--once", "--log-level", "trace")
    assert code == 0, send_log
    assert "pass done" in send_log
    for secret in insts + tokens + [t.upper() for t in tokens]:
        assert secret not in serve_log + out + send_log
