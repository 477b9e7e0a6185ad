"""`encore sync` for check-ins: CWA's trace warning packages (the hour
index and packages, verified like key files, matched as they arrive,
cached so that they are not fetched again) and CrowdNotifier trace keys
(by bundle tag, the JWT's content hash checked, matched by day), with the
planner's rules for both; and `encore check` on the cache showing the
matches."""
import hashlib
import json
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests"))
from standins import keyfiles, protos  # noqa: E402
from standins.cwa_distribution import CwaDistributionServer, twp_path  # noqa: E402
from standins.dp3t import TRACE_KEYS, Dp3tServer  # noqa: E402
from test_cli_checkins import REAL_QR, location_id, report  # noqa: E402
from test_cli_detect import run  # noqa: E402
from test_cli_sync import cached, signer, trust  # noqa: E402,F401 (fixtures)

HOUR = 3600
NOW = int(time.time()) // 60 * 60
# The visit (5 to 3 hours ago) and its warning stay on one UTC day: a
# check-in across midnight is matched per day (two overlaps, not one).
if NOW % 86400 < 6 * 3600:
    NOW -= NOW % 86400 + 3600
VISIT = (NOW - 5 * HOUR, NOW - 3 * HOUR)


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "client.db"
    assert run("store", "init", "--db", path).returncode == 0
    return path


def distribution(signer):
    """The stand-in with one day of keys (its day index answers 404 without any)."""
    dist = CwaDistributionServer(signer)
    yesterday = time.strftime("%Y-%m-%d", time.gmtime(NOW - 86_400))
    dist.add_day("EUR", yesterday, [keyfiles.make_key(day=yesterday)])
    return dist


def twp_ids(db):
    return sorted(int(i) for (region, i) in cached(db) if region == "TWP-DE")


def test_warning_packages_are_synced_matched_and_kept(db, signer, trust):
    r = run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", VISIT[0], "--end", VISIT[1], "--now", NOW)
    assert r.returncode == 0, r.stderr
    loc = location_id(REAL_QR)
    hour = NOW // HOUR
    with distribution(signer) as dist:
        # Announced: the last 4 hours; the visitor's warning (TRL 7, 60 min) two hours ago, the rest empty.
        dist.add_twp("DE", hour - 2, reports=[report(loc, (VISIT[0] + HOUR) // 600, 6, 7),
                                              report(hashlib.sha256(b"elsewhere").digest(), VISIT[0] // 600, 6, 7)])
        dist.set_twp_index("DE", hour - 4, hour - 1)

        def sync(*extra, code=0):
            r = run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW, "--json", *extra)
            assert r.returncode == code, r.stderr
            return json.loads(r.stdout) if code == 0 else r

        out = sync()
        warnings = [f for f in out["fetched"] if f["kind"] == "warnings"]
        assert sorted(f["interval"] for f in warnings) == list(range(hour - 4, hour))
        assert [(f["keys"], f["matches"]) for f in warnings if f["interval"] == hour - 2] == [(2, 1)]
        assert out["checkInMatches"] == 1
        assert twp_ids(db) == list(range(hour - 4, hour))
        # The check ran on the cache: the check-in's HIGH day, without any key.
        assert out["check"]["status"] == "HIGH"
        check = json.loads(run("check", "--db", db, "--now", NOW, "--json").stdout)
        assert check["status"] == "HIGH"
        assert [m["overlapMinutes"] for m in check["checkIns"]["matches"]] == [60]

        # Again: only the index is fetched.
        dist.clear_requests()
        out = sync()
        assert [f["kind"] for f in out["fetched"] if f["kind"] == "warnings"] == []
        assert [r.path for r in dist.requests if "/twp/" in r.path] == [twp_path("DE", hour - 4).rsplit("/", 1)[0]]

        # A new hour, tampered on the way: nothing kept, the sync fails, the next one gets it.
        dist.add_twp("DE", hour, reports=[report(loc, (VISIT[0] + HOUR) // 600, 6, 7)])
        dist.set_twp_index("DE", hour - 3, hour)
        dist.inject(twp_path("DE", hour), tamper=True)
        r = sync(code=1)
        assert "signature" in r.stderr or "zip" in r.stderr.lower() or "CRC" in r.stderr, r.stderr
        assert hour not in twp_ids(db)
        # Hours no longer announced are dropped.
        assert hour - 4 not in twp_ids(db)
        out = sync()
        assert [f["interval"] for f in out["fetched"] if f["kind"] == "warnings"] == [hour]
        # The same visit warned again from another package: a new warning, the check-in's match stays one.
        assert twp_ids(db) == list(range(hour - 3, hour + 1))

        # A package signed by a stranger is never kept.
        stranger = keyfiles.SigningKey()
        dist.add_twp("DE", hour + 1, keyfiles.trace_warning_package(
            protos.TraceWarningPackage(intervalNumber=hour + 1, region="DE"), stranger))
        dist.set_twp_index("DE", hour - 3, hour + 1)
        r = run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW + HOUR)
        assert r.returncode == 1 and hour + 1 not in twp_ids(db)
        # --no-warnings: not fetched at all.
        dist.clear_requests()
        sync("--no-warnings")
        assert not [r for r in dist.requests if "/twp/" in r.path]


def test_a_hostile_warning_index_is_refused_or_bounded(db, signer, trust):
    with distribution(signer) as dist:
        dist.set_twp_index("DE", 0, NOW // HOUR + 10_000)  # everything since 1970, and the future
        dist.inject(twp_path("DE", 0).rsplit("/", 1)[0], status=200, malformed=b'{"oldest": 5, "latest": 1}')
        r = run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW)
        assert r.returncode == 1 and "oldest" in r.stderr
        # Bounded by the retention and by now: 14 days of empty hours at most.
        r = run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW, "--json")
        assert r.returncode == 0, r.stderr
        ids = twp_ids(db)
        assert ids[0] >= NOW // HOUR - 14 * 24 and ids[-1] == NOW // HOUR and len(ids) <= 14 * 24 + 1


def crowdnotifier_visit(tmp_path, db):
    msk = tmp_path / "venue.msk"
    r = run("crowdnotifier", "venue", "--name", "Zunfthaus", "--address", "Limmatquai 1", "--out-secret", msk)
    assert r.returncode == 0, r.stderr
    qr = r.stdout.strip()
    r = run("checkin", "add", "--db", db, "--qr", qr, "--start", VISIT[0], "--end", VISIT[1], "--now", NOW)
    assert r.returncode == 0, r.stderr
    return qr, msk


def test_trace_keys_are_synced_by_bundle_tag_and_matched(tmp_path, db):
    qr, msk = crowdnotifier_visit(tmp_path, db)
    with Dp3tServer() as backend:
        pem = tmp_path / "cn.pem"
        backend.jwt_key.write_public_pem(pem)
        args = ("--crowdnotifier", backend.url, "--crowdnotifier-key", pem)

        def plan(now=NOW):
            r = run("sync", "plan", "--db", db, *args, "--trigger", "periodic", "--now", now, "--json")
            assert r.returncode == 0, r.stderr
            return json.loads(r.stdout)

        def sync(*extra, now=NOW):
            r = run("sync", "--db", db, *args, "--now", now, "--json", *extra)
            assert r.returncode == 0, r.stderr
            return json.loads(r.stdout)

        assert [s["step"] for s in plan()["steps"]] == ["traceKeys"]
        keys = tmp_path / "keys.pb"
        # 20 minutes inside one hour of the visit (a window across an hour
        # boundary is two trace keys, and two matches).
        start = (VISIT[0] // HOUR + 1) * HOUR
        r = run("crowdnotifier", "trace", "--secret", msk, "--qr", qr, "--start", start, "--end", start + 1200,
                "--message", "Bitte testen", "--out", keys)
        assert r.returncode == 0, r.stderr
        for event in protos.ProblematicEventWrapper.FromString(keys.read_bytes()).events:
            backend.add_trace_key(event, published_ms=backend.now() - 120_000)
        out = sync()
        (f,) = out["fetched"]
        assert f["kind"] == "traceKeys" and f["matches"] == 1 and int(f["etag"]) % 60_000 == 0
        assert out["checkInMatches"] == 1 and out["check"]["status"] == "HIGH"
        assert backend.requests_to(TRACE_KEYS)[0].query.get("lastKeyBundleTag") is None
        backend.assert_no_violations()
        check = json.loads(run("check", "--db", db, "--now", NOW, "--json").stdout)
        assert check["status"] == "HIGH"
        # Not due again for 2 h (periodic); then with the stored tag, and the same keys match no more.
        assert plan()["steps"] == [] and plan()["nextDueAt"] == NOW + 2 * HOUR
        out = sync(now=NOW + 2 * HOUR)
        assert backend.requests_to(TRACE_KEYS)[-1].query["lastKeyBundleTag"] == [f["etag"]]
        assert out["checkInMatches"] == 0
        # A tampered body: refused, the tag stays.
        backend.inject(TRACE_KEYS, tamper=True)
        r = run("sync", "--db", db, *args, "--now", NOW + 3 * HOUR)
        assert r.returncode == 1 and "content-hash" in r.stderr, r.stderr
        sync(now=NOW + 3 * HOUR)
        assert backend.requests_to(TRACE_KEYS)[-1].query["lastKeyBundleTag"] == [f["etag"]]
        # In isolation, or without CrowdNotifier visits, no trace keys are fetched.
        assert run("push", "decide", "--db", db, "--event", "app-start", "--isolated", "yes").returncode == 0
        p = plan(now=NOW + 10 * HOUR)
        assert p["steps"] == [] and "isolation" in p["reason"]


def test_no_trace_keys_without_crowdnotifier_visits(tmp_path, db):
    with Dp3tServer() as backend:
        pem = tmp_path / "cn.pem"
        backend.jwt_key.write_public_pem(pem)
        r = run("sync", "--db", db, "--crowdnotifier", backend.url, "--crowdnotifier-key", pem, "--now", NOW, "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["fetched"] == [] and backend.requests == []
        assert run("sync", "--db", db, "--crowdnotifier", backend.url, "--now", NOW).returncode == 2


def test_a_revoked_warning_package_takes_its_warnings_along(db, signer, trust):
    assert run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", VISIT[0], "--end", VISIT[1], "--now", NOW).returncode == 0
    loc = location_id(REAL_QR)
    hour = NOW // HOUR
    with distribution(signer) as dist:
        old = dist.add_twp("DE", hour - 2, reports=[report(loc, (VISIT[0] + HOUR) // 600, 6, 7)])
        r = run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW, "--json")
        assert r.returncode == 0, r.stderr
        assert json.loads(r.stdout)["check"]["status"] == "HIGH"
        # The package is revoked (by hour and ETag) and replaced by one without the warning.
        day, at = time.strftime("%Y-%m-%d", time.gmtime((hour - 2) * HOUR)), time.gmtime((hour - 2) * HOUR).tm_hour
        dist.revoke_hour("DE", day, at, etag=old)
        new = dist.add_twp("DE", hour - 2, reports=[report(hashlib.sha256(b"elsewhere").digest(), VISIT[0] // 600, 6, 7)])
        assert new != old
        r = run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW, "--json")
        assert r.returncode == 0, r.stderr
        out = json.loads(r.stdout)
        assert out["revoked"] == 1
        assert [(f["interval"], f["etag"]) for f in out["fetched"] if f["kind"] == "warnings"] == [(hour - 2, new)]
        check = json.loads(run("check", "--db", db, "--now", NOW, "--json").stdout)
        # No warning is left: not HIGH (UNKNOWN: this user never traced with EN).
        assert check["status"] != "HIGH" and check["checkIns"]["matches"] == []
