"""encore.Client: the store and the servers of one app instance, features as
attributes, each flow blocking and as an operation, against the stand-in
distribution and verification servers."""
import asyncio
import datetime as dt
import sys
import time
from pathlib import Path

import httpx
import pytest

import encore

sys.path.insert(0, str(Path(__file__).resolve().parents[3] / "Tests"))
from standins import keyfiles  # noqa: E402
from standins.cwa_backend import verification_and_submission  # noqa: E402
from standins.cwa_distribution import CwaDistributionServer  # noqa: E402

NOW = int(time.time())
RAW_KEY = bytes(range(32))
GUID = "3D6D08-3567F3F2-4DCF-43A3-8737-4CD1F87D6FDA"


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
                            verification=v.url, submission=s.url) as client:
        assert client.push is None and "sync, tests" in repr(client)
        report = client.sync.run(now=NOW, network="metered")
        assert [f.day for f in report.fetched if f.kind == "day"] == [day(2)]
        assert client.check(now=NOW).status == report.check.status
        assert client.tests.register(guid=GUID, now=NOW).result == "PENDING"
        store = client.store
    # Closing the client closed the store it opened.
    assert store.closed


def test_the_client_s_flows_as_operations_on_asyncio(tmp_path, servers):
    dist, v, s, state, trust = servers
    state.set_result_for_guid(GUID, 1)
    with encore.Store.open(str(tmp_path / "c.db"), raw_key=RAW_KEY) as store:
        client = encore.Client(store, distribution=dist.url, trust=trust, verification=v.url, submission=s.url)

        async def main():
            async with httpx.AsyncClient() as session:
                report = await client.sync.operation(now=NOW, network="metered").run_async(session, now=NOW)
                status = await client.tests.register_operation(guid=GUID, now=NOW).run_async(session, now=NOW)
                return report, status

        report, status = asyncio.run(main())
        assert report.check is not None and status.result == "NEGATIVE"
        client.close()
        # A store the caller gave stays the caller's.
        assert not store.closed and store.keyfiles("EUR") == [day(2)]


def test_bad_clients(tmp_path):
    with pytest.raises(TypeError):
        encore.Client("c.db")
    with encore.Store.open(str(tmp_path / "c.db"), raw_key=RAW_KEY) as store:
        with pytest.raises(ValueError, match="verification"):
            encore.Client(store, submission="https://submission.example")
        client = encore.Client(store)
        assert client.sync is None and client.tests is None and client.checkins is not None
        client.close()
