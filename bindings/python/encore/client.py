"""Client: one object for an app's core, the store and the servers it talks
to, with the features as attributes. It is a composition of the feature
classes (Store, Sync, TestResultClient, Push, CheckIns), each also usable on
its own; every network flow is there both blocking (through the client's
transport) and as an Operation for the caller's own I/O.

    with encore.Client.open("client.db", passphrase, distribution=url, trust=trust,
                            verification=vurl, submission=surl) as client:
        report = client.sync.run()                       # or: await client.sync.operation().run_async(session)
        client.tests.register(guid=guid)
        client.checkins.add(qr, start=now)
        print(client.check().status)
"""
from __future__ import annotations

from typing import Any, Self

from ._cdata import Path, Text
from ._client import PushApi
from ._progress import ProgressFn
from .checkins import CheckIns
from .exposure import CheckResult, exposure_check_cached
from .push import Push
from .store import Store
from .sync import Sync
from .testresult import TestResultClient
from .risk import RiskConfig
from .transport import Transport
from .trust import TrustList


class Client:
    """The store and the servers of one app instance. Features:

    - `store`: the Store (own keys, sightings, settings, maintenance);
    - `sync`: a Sync over the distribution server (and DP-3T or CrowdNotifier
      backends) with the trust list (None without any of them);
    - `tests`: a TestResultClient for the verification and submission servers
      (None without a verification server);
    - `push`: a Push registration with the registry (None without one);
    - `checkins`: CheckIns (CWA and CrowdNotifier visits, their risk);
      `checkin_private=True` makes SwissCovid and NotifyMe check-ins private
      unless add() says otherwise (nothing of the venue kept; see CheckIns.add);
    - `check()`: the exposure check on the synced cache.

    Not thread-safe as a whole: drive one client from one thread at a time
    (its parts document their own rules). Closing it closes what it opened.
    """

    def __init__(self, store: Store, *, transport: Transport | None = None, trust: TrustList | None = None,
                 distribution: Text | None = None, country: Text = "EUR", dp3t: Text | None = None,
                 dp3t_key: bytes | None = None, crowdnotifier: Text | None = None, crowdnotifier_key: bytes | None = None,
                 warning_region: Text = "DE", verification: Text | None = None, submission: Text | None = None,
                 push: Text | None = None, push_api: PushApi = "swisscovid", checkin_private: bool = False) -> None:
        if not isinstance(store, Store):
            raise TypeError("store must be an encore.Store")
        self.store = store
        self._owned: list[Store | Transport] = []
        if transport is None:
            transport = Transport.curl()
            self._owned.append(transport)
        self.transport, self.trust = transport, trust
        self.sync: Sync | None = None
        if distribution is not None or dp3t is not None or crowdnotifier is not None:
            self.sync = Sync(store, transport, distribution=distribution, country=country, trust=trust, dp3t=dp3t, dp3t_key=dp3t_key,
                             warning_region=warning_region, crowdnotifier=crowdnotifier, crowdnotifier_key=crowdnotifier_key)
        self.tests: TestResultClient | None = None
        if verification is not None:
            self.tests = TestResultClient(store, transport, verification=verification, submission=submission)
        elif submission is not None:
            raise ValueError("a submission server goes with a verification server")
        self.push = None if push is None else Push(store, transport, server=push, api=push_api)
        self.checkins = CheckIns(store, private=checkin_private)

    @classmethod
    def open(cls, path: Path, passphrase: Text | None = None, *, raw_key: bytes | None = None, **servers: Any) -> Self:
        """Opens (or creates) the store at `path` and makes the client; the
        client closes the store with itself. `servers` are the keyword
        arguments of Client()."""
        store = Store.open(path, passphrase, raw_key=raw_key)
        try:
            client = cls(store, **servers)
        except BaseException:
            store.close()
            raise
        client._owned.append(store)
        return client

    def check(self, config: RiskConfig | None = None, now: int | None = None, threads: int = 0,
              progress: ProgressFn | None = None) -> CheckResult:
        """The exposure check on the synced key file cache (what sync keeps)."""
        return exposure_check_cached(self.store, config=config, now=now, threads=threads, progress=progress)

    def close(self) -> None:
        """Closes what the client opened (its store when made by open(), its transport when made by it)."""
        while self._owned:
            self._owned.pop().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        features = [name for name in ("sync", "tests", "push") if getattr(self, name) is not None]
        return f"<Client {self.store!r} with {', '.join(features + ['checkins'])}>"
