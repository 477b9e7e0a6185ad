"""Bench of encore-pushd (make bench-pushd): registrations/s of one serve
instance on SQLCipher and on PostgreSQL, and tokens pushed/s of one sender
against the APNs stand-in. The client is Python (threads, keep-alive), so
its own ceiling is measured too (GET /health on the same instance): a
registration rate close to it is limited by the client, not the service."""
import os
import pathlib
import secrets
import sys
import tempfile
import threading
import time

HERE = pathlib.Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import pgcluster  # noqa: E402
from apns_standin import APNsStandIn, make_p8  # noqa: E402
from pushd_util import PUSHD, Client, Process, apns_token, instance_token, run  # noqa: E402
from standins import tlsca  # noqa: E402

N = int(os.environ.get("PUSHD_BENCH_N", "5000"))
THREADS = int(os.environ.get("PUSHD_BENCH_THREADS", "8"))


def hammer(port, make_request, n=N, threads=THREADS):
    def work(k):
        c = Client(port)
        for i in range(k, n, threads):
            status = make_request(c, i)
            assert status in (200, 204), status

    start = time.perf_counter()
    ts = [threading.Thread(target=work, args=(k,)) for k in range(threads)]
    for t in ts:
        t.start()
    for t in ts:
        t.join()
    return n / (time.perf_counter() - start)


def registrations(metrics):
    return sum(v for (name, _), v in metrics.items() if name == "encore_pushd_registrations_total")


def bench_storage(label, storage_args, apns, send_args):
    # With its metrics listener on, as a service runs: the counters are
    # read before and after (and can be watched with curl meanwhile).
    serve = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", "--metrics-listen", "127.0.0.1:0", *storage_args)
    try:
        print(f"{label:11s} metrics: curl http://127.0.0.1:{serve.metrics_port}/metrics", flush=True)
        ceiling = hammer(serve.port, lambda c, i: c.request("GET", "/health")[0], n=min(N, 3000))
        tokens = [apns_token() for _ in range(N)]
        before = registrations(serve.metrics())
        rate = hammer(serve.port, lambda c, i: c.put(tokens[i], "ios", instance_token())[0])
        after = registrations(serve.metrics())
        assert after - before == N, (before, after)
    finally:
        serve.stop()
    apns.reset()
    start = time.perf_counter()
    code, _, err = run("send", *storage_args, *send_args, "--once", timeout=600)
    elapsed = time.perf_counter() - start
    assert code == 0, err
    pushed = apns.total()
    assert pushed == N and not apns.errors, (pushed, apns.errors[:3])
    print(f"{label:11s} registrations/s (PUT, new): {rate:8.0f}   (client ceiling, GET /health: {ceiling:.0f}/s; "
          f"encore_pushd_registrations_total {before:.0f} -> {after:.0f})")
    print(f"{label:11s} tokens pushed/s (send --once, {N} tokens, incl. start-up): {pushed / elapsed:8.0f}")


def main():
    print(f"encore-pushd bench: {PUSHD}, {N} registrations, {THREADS} client threads, {os.cpu_count()} CPUs")
    work = pathlib.Path(tempfile.mkdtemp(prefix="pushd-bench-"))
    ca, context = tlsca.make(work)
    p8 = work / "AuthKey_BENCH.p8"
    public = make_p8(p8)
    apns = APNsStandIn(context, public, "BENCHKEY01", "TEAM000001", "org.example.bench")
    send_args = ["--apns", apns.base, "--key", str(p8), "--key-id", "BENCHKEY01", "--team-id", "TEAM000001",
                 "--topic", "org.example.bench", "--ca-file", str(ca)]
    key = work / "db.key"
    key.write_text(secrets.token_hex(32))
    try:
        bench_storage("SQLCipher", ["--db", str(work / "registry.db"), "--key-file", str(key)], apns, send_args)
        try:
            cluster = pgcluster.Cluster()
        except pgcluster.Unavailable as e:
            print(f"PostgreSQL  skipped: {e}")
            return
        try:
            bench_storage("PostgreSQL", ["--postgres", cluster.url, "--key-file", str(key)], apns, send_args)
        finally:
            cluster.stop()
    finally:
        apns.stop()


if __name__ == "__main__":
    main()
