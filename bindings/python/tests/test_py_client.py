"""encore.Client: the store and the servers of one app instance, features as
attributes, each flow blocking and as an operation, against the stand-in
distribution and verification servers; exactly one C client in its life,
its clock, and its calls after the store was closed."""
import asyncio
import datetime as dt
import sys
import time
from pathlib import Path

import httpx
import pytest

import encore
from encore import _loader

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests"))
from standins import keyfiles  # noqa: E402
from standins.cwa_backend import verification_and_submission  # noqa: E402
from standins.cwa_distribution import CwaDistributionServer  # noqa: E402

NOW = int(time.time())
RAW_KEY = bytes(range(32))
GUID = "3D6D08-3567F3F2-4DCF-43A3-8737-4CD1F87D6FDA"
CWA_QR = ("https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURh"
          "OIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA")


def day(back):
    return (dt.datetime.fromtimestamp(NOW, dt.timezone.utc).date() - dt.timedelta(days=back)).isoformat()


@pytest.fixture
def servers():
    signer = keyfiles.SigningKey()
    trust = encore.TrustList()
    trust.add_key(signer.key_id, signer.key_version, signer.public_pem)
    with CwaDistributionServer(signer) as dist, verification_and_submission() as (state, v, s):
        dist.add_day("EUR", day(2), [keyfiles.make_key(day=day(2)) for _ in range(5)])
        yield dist, v, s, state, trust


def test_a_client_syncs_checks_and_registers_a_test(tmp_path, servers):
    dist, v, s, state, trust = servers
    state.set_result_for_guid(GUID, 0)
    with encore.Client.open(str(tmp_path / "c.db"), raw_key=RAW_KEY, distribution=dist.url, trust=trust,
                            verification=v.url, submission=s.url, clock=NOW) as client:
        assert repr(client).endswith("with sync, tests, checkins>")
        report = client.sync.run(network="metered")
        assert [f.day for f in report.fetched if f.kind == "day"] == [day(2)]
        assert client.check().status == report.check.status
        assert client.tests.register(guid=GUID).result == "PENDING"
        store = client.store
    # Closing the client closed the store it opened.
    assert store.closed


def test_one_c_client_for_a_whole_session(tmp_path, servers, monkeypatch):
    """A session of sync, check, test registration and polling, push (the
    rule and the state: the registry needs no request here) and check-ins
    makes exactly one encore_client: the Client's own."""
    dist, v, s, state, trust = servers
    state.set_result_for_guid(GUID, 1)
    made = []
    real = _loader.lib.encore_client_new

    def counting(*args):
        made.append(args)
        return real(*args)

    monkeypatch.setattr(_loader.lib, "encore_client_new", counting)
    with encore.Store.open(str(tmp_path / "c.db"), raw_key=RAW_KEY) as store:
        clock = [NOW]
        with encore.Client(store, distribution=dist.url, trust=trust, verification=v.url, submission=s.url,
                           push="https://push.example", push_api="registry", push_retry_delay_ms=0,
                           clock=lambda: clock[0]) as client:
            client.sync.plan()
            client.sync.run(network="metered")
            client.check()
            client.tests.register(guid=GUID)
            clock[0] += 3600
            client.tests.poll()
            client.tests.status()
            client.push.decide("checkout")
            client.push.set_state(exposure_notifications=False, isolated=True)
            client.push.status
            visit = client.checkins.add(CWA_QR, start=NOW - 7200, end=NOW - 3600)
            assert [c.id for c in client.checkins.list()] == [visit]
            client.checkins.assess()
            client.sightings.count()
            client.own_keys.current()
            client.risk_results.last()
            client.keyfiles.list("EUR")
            client.tracing_history.count()
    assert len(made) == 1


def test_the_clock_is_the_client_s(tmp_path):
    """clock=: a fixed time, a function (read at each call), or the system's."""
    with encore.Store.open(str(tmp_path / "c.db"), raw_key=RAW_KEY) as store:
        with encore.Client(store, clock=NOW) as fixed:
            assert fixed.now() == NOW
            assert fixed.own_keys.current().rolling_start_interval_number == NOW // 600 // 144 * 144
        times = iter([NOW, NOW + 86400])
        with encore.Client(store, clock=lambda: next(times)) as moving:
            assert moving.now() == NOW and moving.now() == NOW + 86400
        with encore.Client(store) as system:
            assert abs(system.now() - int(time.time())) < 60
        with pytest.raises(TypeError):
            encore.Client(store, clock="now")
        with pytest.raises(TypeError):
            encore.Client(store, clock=True)
        with encore.Client(store, clock=lambda: -5) as bad, pytest.raises(encore.InvalidArgumentError, match="-5"):
            bad.now()


def test_a_closed_store_fails_its_clients(tmp_path):
    """Store.close() closes the database: the clients made on it fail every
    call that needs the store with StoreClosedError."""
    store = encore.Store.open(str(tmp_path / "c.db"), raw_key=RAW_KEY)
    client = encore.Client(store, clock=NOW)
    assert client.sightings.count() == 0
    store.close()
    with pytest.raises(encore.StoreClosedError, match="closed"):
        client.sightings.count()
    with pytest.raises(encore.StoreClosedError):
        client.checkins.add(CWA_QR, start=NOW - 60)
    assert client.now() == NOW
    client.close()


def test_the_client_s_flows_as_operations_on_asyncio(tmp_path, servers):
    dist, v, s, state, trust = servers
    state.set_result_for_guid(GUID, 1)
    with encore.Store.open(str(tmp_path / "c.db"), raw_key=RAW_KEY) as store:
        client = encore.Client(store, distribution=dist.url, trust=trust, verification=v.url, submission=s.url, clock=NOW)

        async def main():
            async with httpx.AsyncClient() as session:
                report = await client.sync.operation(network="metered").run_async(session, now=NOW)
                status = await client.tests.register_operation(guid=GUID).run_async(session, now=NOW)
                return report, status

        report, status = asyncio.run(main())
        assert report.check is not None and status.result == "NEGATIVE"
        assert client.keyfiles.list("EUR") == [day(2)]
        client.close()
        # A store the caller gave stays the caller's.
        assert not store.closed


def test_bad_clients(tmp_path):
    with pytest.raises(TypeError):
        encore.Client("c.db")
    with encore.Store.open(str(tmp_path / "c.db"), raw_key=RAW_KEY) as store:
        with pytest.raises(ValueError, match="verification"):
            encore.Client(store, submission="https://submission.example")
        client = encore.Client(store)
        assert repr(client).endswith("with checkins>")
        with pytest.raises(encore.InvalidArgumentError, match="verification"):
            client.tests.poll()
        with pytest.raises(encore.InvalidArgumentError, match="nothing to sync"):
            client.sync.plan()
        with pytest.raises(encore.InvalidArgumentError, match="push registry"):
            client.push.register("ab" * 32)
        client.close()


def test_the_thread_safety_rule_is_the_header_s():
    """One rule for a client's threads, stated the same in encore.h and in
    Client's docstring."""
    def rule(text):
        words = " ".join(line.strip().lstrip("*").strip() for line in text.splitlines()).split()
        start = words.index("safety:") + 1
        return " ".join(words[start:start + 30]).split(".")[0]
    header = (Path(__file__).resolve().parents[3] / "include/encore.h").read_text()
    end = header.index("typedef struct encore_client encore_client")
    block = header[header.rindex("Thread safety:", 0, end):end]
    assert rule(block) == rule(encore.Client.__doc__) == (
        "a client may be used from several threads at once (its store serialises the calls); "
        "an operation it starts is driven from one thread at a time")
