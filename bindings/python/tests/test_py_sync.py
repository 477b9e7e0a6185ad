"""encore.Sync against the stand-in distribution server through both
transports (libcurl and a Python callback), the planner, the check on the
cache, cancellation through progress, and argument errors."""
import datetime as dt
import json
import sys
import time
from pathlib import Path

import pytest

import encore
from encore.exposure import exposure_check_cached
from encore_testdata import TestClock
from urllib_fetch import fetch, perform

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests"))
from standins import keyfiles  # noqa: E402
from standins.cwa_distribution import CwaDistributionServer  # noqa: E402

NOW = int(time.time())
TODAY = dt.datetime.fromtimestamp(NOW, dt.timezone.utc).date()
RAW_KEY = bytes(range(32))


def day(back):
    return (TODAY - dt.timedelta(days=back)).isoformat()


@pytest.fixture
def setup(tmp_path):
    """The distribution server with two days, its trust list, and a store's
    client of that server on a test clock standing at NOW."""
    signer = keyfiles.SigningKey()
    trust = encore.TrustList()
    trust.add_key(signer.key_id, signer.key_version, signer.public_pem)
    clock = TestClock(NOW)
    with CwaDistributionServer(signer) as dist, \
            encore.Client.open(str(tmp_path / "s.db"), raw_key=RAW_KEY, clock=clock, distribution=dist.url, trust=trust) as client:
        for back in (1, 2):
            dist.add_day("EUR", day(back), [keyfiles.make_key(day=day(back)) for _ in range(5)])
        yield dist, trust, client, clock


def callback_transport():
    """The host's own HTTP stack (urllib here) through the callback transport."""
    return encore.Transport.callback(fetch)


@pytest.mark.parametrize("kind", ["curl", "callback"])
def test_sync_keeps_verified_packages_and_plans_the_next(setup, kind):
    dist, trust, client, clock = setup
    s = client.sync if kind == "curl" else \
        encore.Client(client.store, transport=callback_transport(), clock=clock, distribution=dist.url, trust=trust).sync
    assert s.plan().steps == ("config", "days", "hours", "warnings")
    report = s.run(network="metered")
    assert sorted(f.day for f in report.fetched if f.kind == "day") == [day(2), day(1)]
    assert report.check is not None and report.document["check"]["status"] == report.check.status
    assert set(client.keyfiles.list("EUR")) == {day(1), day(2)}
    clock.set(NOW + 60)
    plan = s.plan(trigger="periodic")
    assert plan.steps == () and plan.next_due_at == NOW + 3600
    clock.set(NOW)
    again = s.run(network="metered")
    assert again.fetched == () and again.check is None
    # The check on the cache, again, from Python: what is new only (nothing:
    # every file's matches are kept), or every file matched again.
    assert client.check().status == report.check.status
    assert json.loads(client.risk_results.last().document)["check"]["kind"] == "incremental"
    assert json.loads(client.risk_results.last().document)["check"]["files"] == 0
    assert client.check(full=True).status == report.check.status
    ran = json.loads(client.risk_results.last().document)["check"]
    assert (ran["kind"], ran["files"], ran["keptFiles"]) == ("full", 2, 0) and ran["keys"] > 0


def test_progress_cancels_and_nothing_is_half_kept(setup):
    dist, trust, client, clock = setup
    s = client.sync
    calls = []

    def progress(done, total):
        calls.append(done)
        return done < 2  # config and the day index, then stop
    with pytest.raises(encore.CancelledError):
        s.run(progress=progress)
    assert calls == [0, 1, 2]
    assert client.keyfiles.list("EUR") == []
    # An exception in the callback cancels too and comes back as itself.
    with pytest.raises(ZeroDivisionError):
        s.run(progress=lambda d, t: 1 / 0)


def test_bad_arguments(setup):
    """A client's configuration and its clock's time are checked when a sync
    starts; each configuration is a client of its own, on the test's clock."""
    dist, trust, client, clock = setup
    t = encore.Transport.curl()

    def sync_of(now, **servers):
        clock.set(now)
        return encore.Client(client.store, clock=clock, **servers).sync
    with pytest.raises(encore.InvalidArgumentError, match="nothing to sync"):
        sync_of(NOW, transport=t).plan()
    with pytest.raises(encore.InvalidArgumentError, match="capital letters"):
        sync_of(NOW, transport=t, distribution=dist.url, country="x").plan()
    with pytest.raises(encore.InvalidArgumentError, match="public key"):
        sync_of(NOW, transport=t, dp3t=dist.url).plan()
    with pytest.raises(encore.InvalidArgumentError, match="clock"):
        sync_of(-1, transport=t, distribution=dist.url).plan()
    with pytest.raises(ValueError):
        sync_of(NOW, transport=t, distribution=dist.url).plan(trigger="hourly")
    # Clocks from 1970 to 9999: the last second plans, the next is refused, as is Int64's last.
    last = 253_402_300_799
    assert sync_of(last, transport=t, distribution=dist.url).plan().next_due_at == last + 3600
    for now in (last + 1, 2 ** 63 - 1):
        with pytest.raises(encore.InvalidArgumentError, match="1970 and 9999"):
            sync_of(now, transport=t, distribution=dist.url).plan()
    # Without trust nothing verifies: the sync fails and keeps nothing.
    with pytest.raises(encore.EncoreError):
        sync_of(NOW, transport=t, distribution=dist.url).run()
    assert client.keyfiles.list("EUR") == []


def drive(op, now=NOW, answer=perform, computed=None):
    """Drives an operation by hand; returns the URLs it asked for (and
    counts its compute steps in computed[0])."""
    urls = []
    while True:
        kind, value = op.next(now)
        if kind == "done":
            return urls
        if kind == "compute":
            op.compute(now)
            if computed is not None:
                computed[0] += 1
            continue
        assert kind == "request"
        urls.append(value.url)
        outcome = answer(value)
        if outcome is None:
            op.feed_failure(value.id, "network", now)
        else:
            op.feed_answer(value.id, *outcome, now=now)


def test_the_sync_by_hand_is_the_blocking_sync(setup, tmp_path):
    dist, trust, client, clock = setup
    op = client.sync.operation(network="metered")
    computed = [0]
    urls = drive(op, computed=computed)
    assert urls[0].endswith("/version/v2/app_config_android") and urls[1].endswith("/country/EUR/date")
    # Each day package is verified and stored in a compute step of its own,
    # then the check on the new packages is the last one.
    assert computed == [3]
    report = op.result()
    assert sorted(f.day for f in report.fetched if f.kind == "day") == [day(2), day(1)]
    assert report.configuration is not None and report.configuration.used == "fetched" and report.check is not None
    assert set(client.keyfiles.list("EUR")) == {day(1), day(2)}
    # The same as the blocking form on a store in the same state.
    with encore.Store.open(str(tmp_path / "twin.db"), raw_key=RAW_KEY) as twin:
        blocking = encore.Client(twin, clock=clock, distribution=dist.url, trust=trust).sync.run(network="metered")
    assert [f.tag for f in blocking.fetched] == [f.tag for f in report.fetched]
    assert blocking.document["check"] == report.document["check"]
    # Nothing due any more: a periodic sync's operation is done at once.
    clock.set(NOW + 60)
    idle = client.sync.operation(trigger="periodic")
    assert idle.next(NOW + 60) == ("done", None) and idle.result().fetched == ()


# Drives a sync by hand in a process of its own (the stand-in server's
# threads are in the test's), counting the process's threads before and
# after every next() and feed: none may start one. A compute step may (it is
# the host's to place): the threads it leaves are in both counts of the
# calls after it. Prints "calls that started a thread, calls, computes".
_THREAD_PROBE = """
import os, sys
import encore
from urllib_fetch import perform
db, url, key_id, version, pem, now = sys.argv[1:7]
def threads():
    return len(os.listdir("/proc/self/task"))
trust = encore.TrustList()
trust.add_key(key_id, version, open(pem, "rb").read())
store = encore.Store.open(db, raw_key=bytes(range(32)))
op = encore.Client(store, distribution=url, trust=trust, clock=int(now)).sync.operation(network="metered")
started, calls, computes = 0, 0, 0
def counted(call, *args, **kwargs):
    global started, calls
    before = threads()
    out = call(*args, **kwargs)
    started += threads() > before
    calls += 1
    return out
while True:
    kind, value = counted(op.next, int(now))
    if kind == "done":
        break
    if kind == "compute":
        computes += 1
        op.compute(int(now))
        continue
    answer = perform(value)
    counted(op.feed_answer, value.id, *answer, now=int(now))
op.result()
print(started, calls, computes)
"""


def test_next_and_feed_start_no_thread(setup, tmp_path):
    import subprocess
    dist, _, _, _ = setup
    signer = dist.signer
    pem = tmp_path / "key.pem"
    pem.write_bytes(signer.public_pem)
    import os
    env = {**os.environ, "PYTHONPATH": f"{Path(encore.__file__).resolve().parents[1]}:{Path(__file__).resolve().parent}"}
    out = subprocess.run([sys.executable, "-c", _THREAD_PROBE, str(tmp_path / "probe.db"), dist.url, signer.key_id,
                          signer.key_version, str(pem), str(NOW)], capture_output=True, text=True, timeout=120, env=env)
    assert out.returncode == 0, out.stderr
    started, calls, computes = map(int, out.stdout.split())
    assert computes == 3 and calls > 10 and started == 0


def test_a_fed_key_file_is_stored_only_after_its_compute_step_verified_it(setup):
    """Feeding a key file's answer verifies and stores nothing (it is kept
    as it came, the feed stays light for the host's loop); the compute step
    that next() announces verifies it and stores it, or, when it does not
    verify, ends the sync without storing it."""
    dist, trust, client, _ = setup
    # day(1) signed by a key with the trusted key's id that is not the trusted key.
    impostor = keyfiles.SigningKey(dist.signer.key_id, dist.signer.key_version)
    start = int(dt.datetime.fromisoformat(day(1)).replace(tzinfo=dt.timezone.utc).timestamp())
    dist.add_day("EUR", day(1), package=keyfiles.key_file([keyfiles.make_key(day=day(1))], impostor, start_timestamp=start,
                                                         end_timestamp=start + 86400, region="EUR"))
    op = client.sync.operation(network="metered")
    seen = []
    while True:
        kind, value = op.next(NOW)
        if kind == "done":
            break
        if kind == "compute":
            op.compute(NOW)
            continue
        op.feed_answer(value.id, *perform(value), now=NOW)
        fed = next((d for d in (day(2), day(1)) if value.url.endswith("/date/" + d)), None)
        if fed is None:
            continue
        seen.append(fed)
        # Fed, not yet verified: nothing stored, the sync not failed, and
        # the compute step comes before any other request.
        assert fed not in client.keyfiles.list("EUR")
        with pytest.raises(encore.OperationStateError):
            op.result()
        assert op.next(NOW) == ("compute", None)
        op.compute(NOW)
        if fed == day(2):
            assert client.keyfiles.list("EUR") == [day(2)]
    assert seen == [day(2), day(1)]
    with pytest.raises(encore.SignatureInvalidError):
        op.result()
    assert client.keyfiles.list("EUR") == [day(2)]


def test_driving_the_sync_out_of_turn_is_refused(setup):
    dist, trust, client, _ = setup
    op = client.sync.operation()
    _, request = op.next(NOW)
    with pytest.raises(encore.OperationStateError):
        op.next(NOW)
    with pytest.raises(encore.OperationStateError):
        op.feed_answer(request.id + 1, 200)
    with pytest.raises(encore.OperationStateError):
        op.result()
    op.feed_failure(request.id, "timeout", NOW)
    with pytest.raises(encore.OperationStateError):
        op.feed_answer(request.id, 200)


def test_a_configuration_without_answer_degrades_and_a_package_without_answer_fails(setup, tmp_path):
    dist, trust, client, clock = setup
    config_lost = lambda r: None if "app_config" in r.url else perform(r)  # noqa: E731
    op = client.sync.operation(network="metered")
    drive(op, answer=config_lost)
    report = op.result()
    assert report.configuration == encore.SyncConfiguration("built-in", report.configuration.reason, 1)
    assert set(client.keyfiles.list("EUR")) == {day(1), day(2)}

    # A day package without an answer: the sync fails with the network's
    # status; the day verified before it is kept.
    with encore.Client.open(str(tmp_path / "fresh.db"), raw_key=RAW_KEY, clock=clock, distribution=dist.url, trust=trust) as fresh:
        lost = lambda r: None if r.url.endswith("/date/" + day(1)) else perform(r)  # noqa: E731
        op = fresh.sync.operation(network="metered")
        urls = drive(op, answer=lost)
        assert urls[-1].endswith("/date/" + day(1))
        with pytest.raises(encore.NetworkError):
            op.result()
        assert fresh.keyfiles.list("EUR") == [day(2)]


def test_the_budget_counts_from_the_first_step(setup):
    dist, trust, client, _ = setup
    op = client.sync.operation(budget=60)
    _, request = op.next(NOW)
    op.feed_answer(request.id, *perform(request), now=NOW + 61)
    # The host's clock says the budget is spent: the sync stops cleanly,
    # after the check that the new configuration calls for.
    assert op.next(NOW + 61) == ("compute", None)
    op.compute(NOW + 61)
    assert op.next(NOW + 61) == ("done", None)
    report = op.result()
    assert report.stopped_early and client.keyfiles.list("EUR") == []
    assert any("budget" in w for w in report.warnings)


def test_a_request_the_transport_refuses_fails_the_sync_and_counts_for_the_backoff(setup):
    dist, trust, client, clock = setup
    # Plain http is for this machine only: the built-in transport refuses it
    # before sending, outside the sync's machine; the failure still counts.
    s = encore.Client(client.store, clock=clock, distribution="http://192.0.2.1", trust=trust).sync
    with pytest.raises(encore.InvalidArgumentError, match="plain http"):
        s.run()
    clock.set(NOW + 60)
    plan = s.plan(trigger="periodic")
    assert plan.steps == () and NOW + 240 <= plan.next_due_at <= NOW + 360  # backing off: 5 min ± 20 %


def test_a_host_driven_sync_ends_with_its_wal_cut(tmp_path):
    """The host-driven sync writes its key files to the WAL with checkpoints
    paused; its last compute step copies them into the file and cuts the
    WAL (nobody else reads the store), so that closing the store, often on
    a host's event loop, has no large file to free (make bench-sync)."""
    signer = keyfiles.SigningKey()
    trust = encore.TrustList()
    trust.add_key(signer.key_id, signer.key_version, signer.public_pem)
    db = tmp_path / "s.db"
    with CwaDistributionServer(signer) as dist, \
            encore.Client.open(str(db), raw_key=RAW_KEY, clock=NOW, distribution=dist.url, trust=trust) as client:
        for back in (1, 2):
            dist.add_day("EUR", day(back), [keyfiles.make_key(day=day(back)) for _ in range(20_000)])
        op = client.sync.operation(network="metered")
        computed = [0]
        drive(op, computed=computed)
        assert computed == [3] and op.result().check is not None
        packages = sum(len(client.keyfiles.get("EUR", day(back))) for back in (1, 2))
        wal = Path(str(db) + "-wal")
        # What is left: the check's few commits after the cut (before: every
        # page the packages took, more than their bytes).
        assert packages > 500_000 and wal.exists() and wal.stat().st_size < 128 * 1024, (wal.stat().st_size, packages)
