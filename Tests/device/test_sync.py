"""The background sync on the library's planner, against the CWA
distribution stand-in (signed packages): the first sync at the start,
nothing more while nothing is due, one sync after the clock jumped two
days (not one per missed hour), SyncNow, and the properties it moves."""
from __future__ import annotations

import datetime as dt
import time
from collections.abc import Iterator

import pytest

from device_world import Device, wait_for

DAY = 86_400
NOW = int(time.time())
TODAY = dt.datetime.fromtimestamp(NOW, dt.timezone.utc).date()


def day(back: int) -> str:
    return (TODAY - dt.timedelta(days=back)).isoformat()


@pytest.fixture
def dist(signer):  # type: ignore[no-untyped-def]
    from standins import keyfiles
    from standins.cwa_distribution import CwaDistributionServer
    with CwaDistributionServer(signer) as server:
        for back in range(3, 0, -1):
            server.add_day("EUR", day(back), [keyfiles.make_key(day=day(back)) for _ in range(10)])
        yield server


@pytest.fixture
def syncing(device: Device, dist, trust_arg: str) -> Iterator[Device]:  # type: ignore[no-untyped-def]
    device.start("--distribution", dist.url, "--trust", trust_arg, "--no-warnings")
    device.wait_log("sync (periodic): done")
    yield device


def day_index_requests(dist) -> int:  # type: ignore[no-untyped-def]
    return len(dist.requests_to("/version/v1/diagnosis-keys/country/EUR/date"))


def test_first_sync_at_start_then_nothing_until_due(syncing: Device, dist) -> None:  # type: ignore[no-untyped-def]
    props = syncing.get_all()
    assert props["LastSync"] >= NOW - 60
    # The planner's next periodic sync: an hour after this one.
    assert props["LastSync"] + 3000 <= props["NextSync"] <= props["LastSync"] + 3700
    # The new keys were checked: a result is kept (too little tracing: unknown).
    assert props["LastCheck"] > 0
    assert props["RiskLevel"] == "unknown"
    time.sleep(2)
    assert syncing.log_count("sync (periodic): started") == 1


def test_a_clock_two_days_ahead_gives_one_sync(syncing: Device, dist) -> None:  # type: ignore[no-untyped-def]
    before = syncing.get("LastSync")
    syncing.advance_clock(2 * DAY)
    syncing.wait_log("sync (periodic): done", count=2)
    wait_for("LastSync to move", lambda: syncing.get("LastSync") >= before + 2 * DAY)
    # Two seconds more (ten turns of the loop on a test clock): still one catch-up sync.
    time.sleep(2)
    assert syncing.log_count("sync (periodic): started") == 2
    assert syncing.get("NextSync") > syncing.now()


def test_sync_now_returns_when_the_sync_is_done(syncing: Device, dist) -> None:  # type: ignore[no-untyped-def]
    from standins import keyfiles
    dist.add_day("EUR", day(0), [keyfiles.make_key(day=day(0)) for _ in range(5)])
    syncing.advance_clock(10)
    assert syncing.call("SyncNow", timeout=120) == "()"
    assert syncing.log_count("sync (user): done") == 1
    assert syncing.get("LastSync") >= syncing.now() - 30


def test_sync_failures_back_off(device: Device, trust_arg: str) -> None:
    # Nothing listens there: each sync fails, and the planner backs off (5 min, then 10, ...).
    device.start("--distribution", "http://127.0.0.1:9", "--trust", trust_arg, "--no-warnings")
    device.wait_log("sync (periodic): failed")
    next_sync = wait_for("NextSync", lambda: device.get("NextSync") or None)
    assert next_sync >= device.now() + 200
    time.sleep(2)
    assert device.log_count("sync (periodic): started") == 1
    device.advance_clock(400)
    device.wait_log("sync (periodic): failed", count=2)


def test_the_check_runs_before_the_risk_would_turn_outdated(syncing: Device, dist) -> None:  # type: ignore[no-untyped-def]
    first_check = syncing.get("LastCheck")
    assert syncing.get("RiskLevel") == "unknown"
    # Two days and an hour on, the newest keys are over 48 hours old and no sync brings newer ones:
    # the service checks by itself, and the risk says so.
    syncing.advance_clock(49 * 3600)
    syncing.wait_log("exposure check: done")
    wait_for("an outdated risk", lambda: syncing.get("RiskLevel") == "outdated")
    assert syncing.get("LastCheck") >= first_check + 49 * 3600
    assert syncing.log_count("exposure check: started") == 1
