"""encore.Sync against the stand-in distribution server through both
transports (libcurl and a Python callback), the planner, the check on the
cache, cancellation through progress, and argument errors."""
import datetime as dt
import sys
import time
from pathlib import Path

import pytest

import encore
from encore.exposure import exposure_check_cached

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
    signer = keyfiles.SigningKey()
    trust = encore.TrustList()
    trust.add_key(signer.key_id, signer.key_version, signer.public_pem)
    with CwaDistributionServer(signer) as dist, encore.Store.open(str(tmp_path / "s.db"), raw_key=RAW_KEY) as store:
        for back in (1, 2):
            dist.add_day("EUR", day(back), [keyfiles.make_key(day=day(back)) for _ in range(5)])
        yield dist, trust, store


def callback_transport():
    """The host's own HTTP stack (urllib here) through the callback transport."""
    import urllib.error
    import urllib.request

    def perform(method, url, headers, body):
        req = urllib.request.Request(url, data=body or None, method=method, headers=dict(headers))
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                return r.status, list(r.headers.items()), r.read()
        except urllib.error.HTTPError as e:
            return e.code, list(e.headers.items()), e.read()
    return encore.Transport.callback(perform)


@pytest.mark.parametrize("kind", ["curl", "callback"])
def test_sync_keeps_verified_packages_and_plans_the_next(setup, kind):
    dist, trust, store = setup
    transport = encore.Transport.curl() if kind == "curl" else callback_transport()
    s = encore.Sync(store, transport, distribution=dist.url, trust=trust)
    assert s.plan(now=NOW).steps == ("config", "days", "hours", "warnings")
    report = s.run(now=NOW, network="metered")
    assert sorted(f["day"] for f in report.fetched if f["kind"] == "day") == [day(2), day(1)]
    assert report.check is not None and report.document["check"]["status"] == report.check.status
    assert set(store.keyfiles("EUR")) == {day(1), day(2)}
    plan = s.plan(trigger="periodic", now=NOW + 60)
    assert plan.steps == () and plan.next_due_at == NOW + 3600
    again = s.run(now=NOW, network="metered")
    assert again.fetched == [] and again.check is None
    # The check on the cache, again, from Python.
    assert exposure_check_cached(store, now=NOW).status == report.check.status


def test_progress_cancels_and_nothing_is_half_kept(setup):
    dist, trust, store = setup
    s = encore.Sync(store, encore.Transport.curl(), distribution=dist.url, trust=trust)
    calls = []

    def progress(done, total):
        calls.append(done)
        return done < 2  # config and the day index, then stop
    with pytest.raises(encore.CancelledError):
        s.run(now=NOW, progress=progress)
    assert calls == [0, 1, 2]
    assert store.keyfiles("EUR") == []
    # An exception in the callback cancels too and comes back as itself.
    with pytest.raises(ZeroDivisionError):
        s.run(now=NOW, progress=lambda d, t: 1 / 0)


def test_bad_arguments(setup):
    dist, trust, store = setup
    t = encore.Transport.curl()
    with pytest.raises(encore.InvalidArgumentError, match="nothing to sync"):
        encore.Sync(store, t).plan(now=NOW)
    with pytest.raises(encore.InvalidArgumentError, match="capital letters"):
        encore.Sync(store, t, distribution=dist.url, country="x").plan(now=NOW)
    with pytest.raises(encore.InvalidArgumentError, match="public key"):
        encore.Sync(store, t, dp3t=dist.url).plan(now=NOW)
    with pytest.raises(encore.InvalidArgumentError, match="now"):
        encore.Sync(store, t, distribution=dist.url).plan(now=-1)
    with pytest.raises(ValueError):
        encore.Sync(store, t, distribution=dist.url).plan(trigger="hourly")
    # Without trust nothing verifies: the sync fails and keeps nothing.
    with pytest.raises(encore.EncoreError):
        encore.Sync(store, t, distribution=dist.url).run(now=NOW)
    assert store.keyfiles("EUR") == []
