"""`encore sync`, `encore sync plan`, `encore check` on the cache and
`encore packages list` against the stand-in distribution server and DP-3T
backend: the issue's "done when" (sync + check on the cache = check on the
same files; a second sync fetches nothing; a revoked package is gone and
fetched again), verification before anything is kept, 304s, metered
networks, bundle tags, failures and backoff, and SIGKILL at random points
of a sync (the cache keeps only verified packages; a final sync converges)."""
import datetime as dt
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bindings/python"))
sys.path.insert(0, str(REPO / "Tests"))
import encore  # noqa: E402
from standins import keyfiles  # noqa: E402
from standins.cwa_distribution import CwaDistributionServer, day_path, etag_for, hour_path  # noqa: E402
from standins.dp3t import EXPOSED, Dp3tServer  # noqa: E402
from test_cli_match import CLI, RAW_KEY, run, sightings  # noqa: E402

DAY = 86_400
CONFIG = "/version/v2/app_config_android"
# Real time: the stand-in's Date header and the 14-day retention follow it.
NOW = int(time.time())
TODAY = dt.datetime.fromtimestamp(NOW, dt.timezone.utc).date()
MIDNIGHT = NOW - NOW % DAY
CONTACT = bytes(range(16))


def day(back):
    return (TODAY - dt.timedelta(days=back)).isoformat()


@pytest.fixture
def signer():
    return keyfiles.SigningKey()


@pytest.fixture
def trust(tmp_path, signer):
    pem = tmp_path / "cwa.pem"
    signer.write_public_pem(pem)
    return signer.trust_arg(pem)


@pytest.fixture
def dist(signer):
    with CwaDistributionServer(signer) as server:
        # Four days, the contact's key in the one of two days ago; the hours of today so far.
        for back in range(4, 0, -1):
            keys = [keyfiles.make_key(day=day(back)) for _ in range(20)]
            if back == 2:
                keys.append(keyfiles.make_key(CONTACT, day=day(back), trl=6, report_type=1, dsos=1))
            server.add_day("EUR", day(back), keys)
        for hour in range(dt.datetime.fromtimestamp(NOW, dt.timezone.utc).hour):
            server.add_hour("EUR", day(0), hour, [keyfiles.make_key(day=day(0)) for _ in range(3)])
        yield server


@pytest.fixture
def db(tmp_path):
    """A user who met the contact two days ago and has traced for three days."""
    path = tmp_path / "client.db"
    assert run("store", "init", "--db", path).returncode == 0
    csv = tmp_path / "heard.csv"
    csv.write_text("time,rpi,aem,rssi,prev_scan\n" + "\n".join(sightings(CONTACT, MIDNIGHT - 2 * DAY + 9 * 3600, 5, rssi=-65)) + "\n")
    assert run("sightings", "import", "--db", path, csv).returncode == 0
    with encore.Client.open(str(path), raw_key=bytes.fromhex(RAW_KEY), clock=NOW) as client:
        client.tracing_history.add(NOW - 3 * DAY, True)
    return path


def sync(db, dist, trust, *extra):
    return run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW, *extra)


def sync_json(db, dist, trust, *extra):
    r = sync(db, dist, trust, "--json", *extra)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def cached(db):
    r = run("packages", "list", "--db", db, "--json")
    assert r.returncode == 0, r.stderr
    return {(p["region"], p["identifier"]): p for p in json.loads(r.stdout)}


def served(dist):
    """(identifier, ETag) of everything the server publishes now."""
    out = {}
    for back in range(15):
        d = day(back)
        if dist.package(day_path("EUR", d)) is not None:
            out[d] = dist.etag(day_path("EUR", d))
    if day(0) not in out:
        for h in range(24):
            if dist.package(hour_path("EUR", day(0), h)) is not None:
                out[f"{day(0)}/hour/{h}"] = dist.etag(hour_path("EUR", day(0), h))
    return out


def package_requests(dist):
    return [r for r in dist.requests if r.path.startswith("/version/v1/") and not r.path.endswith(("/date", "/hour"))]


def test_sync_then_check_is_the_check_on_the_same_files(tmp_path, db, dist, trust):
    out = sync_json(db, dist, trust)
    kinds = [f["kind"] for f in out["fetched"]]
    assert kinds.count("config") == 1 and kinds.count("day") == 4
    assert kinds.count("hour") == dt.datetime.fromtimestamp(NOW, dt.timezone.utc).hour
    assert {f["day"] for f in out["fetched"] if f["kind"] == "day"} == {day(b) for b in range(1, 5)}
    assert next(f for f in out["fetched"] if f["day"] == day(2))["keys"] == 21
    assert out["check"] is not None and out["check"]["status"] == "HIGH"
    assert out["nextDueAt"] == NOW + 3600
    assert {k[1]: p["etag"] for k, p in cached(db).items()} == served(dist)

    # The check on the cache is the check on the same files.
    on_cache = run("check", "--db", db, "--now", NOW, "--json")
    assert on_cache.returncode == 0, on_cache.stderr
    files = []
    for ident in sorted(served(dist)):
        path = tmp_path / (ident.replace("/", "_") + ".zip")
        d, _, h = ident.partition("/hour/")
        path.write_bytes(dist.package(hour_path("EUR", d, h) if h else day_path("EUR", d)))
        files.append(path)
    fresh = tmp_path / "fresh.db"
    assert run("store", "init", "--db", fresh).returncode == 0
    csv = tmp_path / "heard.csv"
    assert run("sightings", "import", "--db", fresh, csv).returncode == 0
    with encore.Client.open(str(fresh), raw_key=bytes.fromhex(RAW_KEY), clock=NOW) as client:
        client.tracing_history.add(NOW - 3 * DAY, True)
    on_files = run("check", "--db", fresh, "--trust", trust, "--now", NOW, "--json", *files)
    assert on_files.returncode == 0, on_files.stderr
    a, b = json.loads(on_cache.stdout), json.loads(on_files.stdout)
    assert a["status"] == b["status"] == "HIGH"
    assert a["assessment"] == b["assessment"] and a["windowCount"] == b["windowCount"] == 1
    # The sync's check kept every file's matches: this one matched nothing
    # again; --full matches every file again, as the check on the files does.
    assert a["check"]["kind"] == "incremental" and a["check"]["files"] == a["statistics"]["keys"] == 0
    full = run("check", "--db", db, "--full", "--now", NOW, "--json")
    assert full.returncode == 0, full.stderr
    f = json.loads(full.stdout)
    assert f["assessment"] == b["assessment"] and f["check"]["kind"] == "full"
    assert f["statistics"]["keys"] == b["statistics"]["keys"] == f["check"]["keys"]
    assert f["check"]["files"] == len(files) == b["statistics"]["files"]

    # A second sync fetches nothing: the configuration answers 304, no package is downloaded.
    dist.clear_requests()
    again = sync_json(db, dist, trust)
    assert again["fetched"] == [] and again["check"] is None and again["deleted"] == 0
    assert package_requests(dist) == []
    config_requests = dist.requests_to(CONFIG)
    assert len(config_requests) == 1 and config_requests[0].header("If-None-Match")
    # The day index is not needed: the newest cached day is yesterday.
    assert dist.requests_to(f"/version/v1/diagnosis-keys/country/EUR/date") == []


def test_a_revoked_package_is_deleted_and_fetched_again(db, dist, trust):
    sync_json(db, dist, trust)
    old = dist.etag(day_path("EUR", day(3)))
    dist.revoke_day("EUR", day(3), etag=old)
    new = dist.add_day("EUR", day(3), [keyfiles.make_key(day=day(3)) for _ in range(7)])
    assert new != old
    out = sync_json(db, dist, trust)
    assert out["revoked"] == 1
    refetched = [f for f in out["fetched"] if f["kind"] == "day"]
    assert refetched == [{"kind": "day", "day": day(3), "hour": None, "etag": new, "keys": 7}]
    assert cached(db)[("EUR", day(3))]["etag"] == new
    assert out["check"] is not None
    # Revoking it again (an ETag no longer cached) changes nothing.
    assert sync_json(db, dist, trust)["revoked"] == 0


def test_unlisted_days_go_and_a_day_replaces_its_hours(db, dist, trust):
    sync_json(db, dist, trust)
    dist.remove_day("EUR", day(4))
    # Tomorrow: today's hours are covered by today's day package.
    tomorrow = NOW + DAY
    dist.add_day("EUR", day(0), [keyfiles.make_key(day=day(0))])
    r = run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", tomorrow, "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    ids = {k[1] for k in cached(db)}
    assert day(4) not in ids and day(0) in ids
    assert not any(i.startswith(day(0) + "/") for i in ids)
    assert out["deleted"] >= 1


def test_nothing_unverified_is_kept(db, dist, trust, tmp_path):
    # A tampered package: the sync fails (exit 1, one line), keeps what it verified before.
    dist.inject(day_path("EUR", day(2)), tamper=True)
    r = sync(db, dist, trust)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    ids = {k[1] for k in cached(db)}
    assert day(2) not in ids and day(4) in ids and day(3) in ids
    # Nothing after the package that failed is kept, and at most the next
    # one was requested (fetched while the failed one was being verified).
    days = [r.path for r in dist.requests if "/date/" in r.path and "/hour" not in r.path and r.path.rsplit("/", 1)[1][:1].isdigit()]
    failed = days.index(day_path("EUR", day(2)))
    assert days[failed + 1:] in ([], [day_path("EUR", day(1))]), days
    assert day(1) not in ids
    # Signed by a stranger: refused too.
    stranger = keyfiles.SigningKey()
    dist.add_day("EUR", day(2), [keyfiles.make_key(day=day(2))], package=keyfiles.key_file([keyfiles.make_key(day=day(2))], stranger))
    assert sync(db, dist, trust).returncode == 1
    assert day(2) not in {k[1] for k in cached(db)}
    # A package without an ETag is an error as well.
    dist.add_day("EUR", day(2), [keyfiles.make_key(day=day(2))])
    dist.inject(day_path("EUR", day(2)), omit_headers="ETag")
    r = sync(db, dist, trust)
    assert r.returncode == 1 and "ETag" in r.stderr
    # Without faults the next sync converges.
    assert sync(db, dist, trust).returncode == 0
    assert {k[1]: p["etag"] for k, p in cached(db).items()} == served(dist)


def test_a_package_without_an_answer_ends_the_sync_after_the_one_before_is_kept(db, dist, trust):
    # The package before the request that got no answer was verified while
    # it was being fetched: it is kept all the same.
    dist.inject(day_path("EUR", day(2)), drop=True)
    r = sync(db, dist, trust)
    assert r.returncode == 1 and r.stderr.count("\n") == 1, r.stderr
    ids = {k[1] for k in cached(db)}
    assert day(3) in ids and day(2) not in ids and day(1) not in ids
    dist.clear_faults()
    assert sync(db, dist, trust).returncode == 0
    assert {k[1]: p["etag"] for k, p in cached(db).items()} == served(dist)


def test_failures_back_off_and_a_user_sync_goes_anyway(db, dist, trust):
    # The day index (a failing configuration alone does not fail the sync:
    # test_cli_sync_degraded.py).
    dist.inject("/version/v1/diagnosis-keys/country/EUR/date", status=503, times=None)
    r = sync(db, dist, trust, "--trigger", "periodic")
    assert r.returncode == 1 and "503" in r.stderr
    plan = run("sync", "plan", "--db", db, "--distribution", dist.url, "--trigger", "periodic", "--now", NOW + 60, "--json")
    assert plan.returncode == 0, plan.stderr
    p = json.loads(plan.stdout)
    assert p["steps"] == [] and "backing off" in p["reason"]
    assert NOW + 240 <= p["nextDueAt"] <= NOW + 360  # 5 min ± 20 %
    # A second failure doubles the wait.
    assert sync(db, dist, trust, "--trigger", "user").returncode == 1
    p = json.loads(run("sync", "plan", "--db", db, "--distribution", dist.url, "--trigger", "periodic", "--now", NOW, "--json").stdout)
    assert NOW + 480 <= p["nextDueAt"] <= NOW + 720
    dist.clear_faults()
    assert sync(db, dist, trust, "--trigger", "user").returncode == 0
    p = json.loads(run("sync", "plan", "--db", db, "--distribution", dist.url, "--trigger", "periodic", "--now", NOW + 60, "--json").stdout)
    assert p["steps"] == [] and p["nextDueAt"] == NOW + 3600 and p["reason"] == "nothing due"
    p = json.loads(run("sync", "plan", "--db", db, "--distribution", dist.url, "--trigger", "periodic", "--now", NOW + 3600, "--json").stdout)
    assert [s["step"] for s in p["steps"]] == ["config", "hours", "warnings"]


def test_metered_networks_skip_hours_and_no_network_syncs_nothing(db, dist, trust):
    out = sync_json(db, dist, trust, "--network", "metered")
    assert {f["kind"] for f in out["fetched"]} == {"config", "day"}
    assert not [r for r in dist.requests if "/hour" in r.path and "/diagnosis-keys/" in r.path]
    dist.clear_requests()
    out = sync_json(db, dist, trust, "--network", "none")
    assert out["fetched"] == [] and out["nextDueAt"] is None and dist.requests == []


def test_bad_arguments_are_usage_errors(db, dist, trust):
    assert run("sync", "--db", db, "--now", NOW).returncode == 2
    assert sync(db, dist, trust, "--country", "eur").returncode == 2
    assert sync(db, dist, trust, "--trigger", "hourly").returncode == 2
    assert run("sync", "--db", db, "--dp3t", dist.url, "--now", NOW).returncode == 2
    # A server that is not there: exit 1, one line naming it.
    r = run("sync", "--db", db, "--distribution", "http://127.0.0.1:9", "--trust", trust, "--now", NOW)
    assert r.returncode == 1 and "127.0.0.1:9" in r.stderr
    # Plain http to another machine is refused before anything is sent.
    r = run("sync", "--db", db, "--distribution", "http://example.com", "--trust", trust, "--now", NOW)
    assert r.returncode == 1 and "https" in r.stderr


def test_dp3t_bundle_tags(db, tmp_path):
    with Dp3tServer() as backend:
        pem = tmp_path / "dp3t.pem"
        backend.jwt_key.write_public_pem(pem)
        backend.add_exposed_key(keyfiles.make_key(CONTACT, day=day(2), trl=6, report_type=1, dsos=1), published_ms=backend.now() - 3 * 3600 * 1000)

        def dsync(*extra):
            r = run("sync", "--db", db, "--dp3t", backend.url, "--dp3t-key", pem, "--now", NOW, "--json", *extra)
            assert r.returncode == 0, r.stderr
            return json.loads(r.stdout)

        out = dsync()
        assert [(f["kind"], f["keys"]) for f in out["fetched"]] == [("dp3t", 1)]
        tag = out["fetched"][0]["etag"]
        assert int(tag) % (2 * 3600 * 1000) == 0
        assert ("DP3T", tag) in cached(db)
        assert backend.requests_to(EXPOSED)[0].query.get("lastKeyBundleTag") is None
        # Next time the stored tag goes with the request; nothing new is 204.
        assert dsync()["fetched"] == []
        assert backend.requests_to(EXPOSED)[-1].query["lastKeyBundleTag"] == [tag]
        # A refused tag (400) is dropped: the sync after it fetches everything again.
        backend.inject(EXPOSED, status=400)
        out = dsync()
        assert any("refused the stored bundle tag" in w for w in out["warnings"])
        dsync()
        assert backend.requests_to(EXPOSED)[-1].query.get("lastKeyBundleTag") is None
        # A body whose JWT does not verify is not kept and the tag does not move.
        before = cached(db)
        backend.add_exposed_key(keyfiles.make_key(day=day(1)))
        backend.now_ms = backend.now() + 2 * 3600 * 1000  # the key's bucket is released
        backend.inject(EXPOSED, tamper=True)
        r = run("sync", "--db", db, "--dp3t", backend.url, "--dp3t-key", pem, "--now", NOW)
        assert r.returncode == 1 and "content-hash" in r.stderr, r.stderr
        assert cached(db) == before
        # Untampered, the same answer is kept with its new tag.
        assert [f["keys"] for f in dsync()["fetched"]] == [1]


def test_sigkill_at_random_points_keeps_only_verified_packages(tmp_path, dist, trust, signer):
    db = tmp_path / "kill.db"
    assert run("store", "init", "--db", db).returncode == 0
    # Slow answers, so that kills land inside the sync.
    dist.inject("/version/", prefix=True, delay=0.03, times=None)
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    env["ENCORE_DB_KEY_HEX"] = RAW_KEY
    trust_list = encore.TrustList()
    trust_list.add_key(signer.key_id, signer.key_version, signer.public_pem)
    rng = random.Random(1)
    for i in range(30):
        # The server's state changes between some runs too: a day
        # republished (the old one revoked, as CWA does) and a day dropped.
        if i % 10 == 5:
            dist.revoke_day("EUR", day(1))
            dist.add_day("EUR", day(1), [keyfiles.make_key(day=day(1)) for _ in range(i)])
        if i == 20:
            dist.remove_day("EUR", day(4))
        p = subprocess.Popen([str(CLI), "sync", "--db", str(db), "--distribution", dist.url, "--trust", trust, "--now", str(NOW)],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, env=env)
        time.sleep(rng.uniform(0.02, 0.6))
        p.send_signal(signal.SIGKILL)
        p.wait()
        # Whatever is cached verifies: a complete package signed by the trusted key.
        with encore.Client.open(str(db), raw_key=bytes.fromhex(RAW_KEY), clock=NOW) as client:
            client.store.check_integrity()
            for ident in client.keyfiles.list("EUR"):
                with encore.KeyFile.open(client.keyfiles.get("EUR", ident), trust=trust_list) as f:
                    assert f.info.signature_status == "verified"
    dist.clear_faults()
    assert run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW).returncode == 0
    assert {k[1]: p["etag"] for k, p in cached(db).items()} == served(dist)
