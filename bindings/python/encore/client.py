"""Client: one app instance, its store and the servers it talks to, with
every feature as an attribute. It holds exactly one C client
(encore_client) for its whole life; every feature goes through it, at the
time of the client's clock.

    with encore.Client.open("client.db", passphrase, distribution=url, trust=trust,
                            verification=vurl, submission=surl) as client:
        report = client.sync.run()                       # or: await client.sync.operation().run_async(session)
        client.tests.register(guid=guid)
        client.checkins.add(qr, start=start)
        client.sightings.add(heard)
        print(client.check().status)
"""
from __future__ import annotations

from collections.abc import Callable
from typing import Any, Self, Sequence

from ._cdata import Path, Text
from ._client import CClient, PushApi
from ._progress import ProgressFn
from .checkins import CheckIns
from .exposure import CheckResult, KeySource, MatchResult, exposure_check, exposure_check_cached, match
from .push import Push
from .risk import RiskConfig
from .store import Store
from .sync import Sync
from .tables import KeyFiles, OwnKeys, RiskResults, Sightings, TracingHistory
from .testresult import TestResultClient
from .tracing import Tracer
from .transport import Transport
from .trust import TrustList


class Client:
    """The store and the servers of one app instance. Features:

    - `store`: the Store, for maintenance only (rekey, schema version,
      integrity, purge, settings);
    - `sightings`, `own_keys`, `keyfiles` (the cache of verified key files),
      `tracing_history`, `risk_results`: the store's tables;
    - `sync`: the sync of the distribution server (and DP-3T or
      CrowdNotifier backends) with the trust list;
    - `tests`: test registration and submission with the verification and
      submission servers;
    - `push`: the push rule, state and registration with the registry
      (`push_attempts` and `push_retry_delay_ms` its retries);

    A flow whose server the client lacks raises InvalidArgumentError naming
    it (the rule, the stored state and the check-ins need none).
    - `checkins`: CWA and CrowdNotifier visits and their risk;
      `checkin_private=True` makes SwissCovid and NotifyMe check-ins private
      unless add() says otherwise (nothing of the venue kept; see CheckIns.add);
    - `check()`, `match()`, `exposure_check()`, `tracer()`.

    `clock`: the client's time, read by every feature that needs one: None
    (the system clock), a fixed time in unix seconds, or a function
    returning it.

    Thread safety: a client may be used from several threads at once (its
    store serialises the calls); an operation it starts is driven from one
    thread at a time. Closing it closes what it opened.
    """

    def __init__(self, store: Store, *, transport: Transport | None = None, trust: TrustList | None = None,
                 clock: int | Callable[[], int] | None = None,
                 distribution: Text | None = None, country: Text = "EUR", dp3t: Text | None = None,
                 dp3t_key: bytes | None = None, crowdnotifier: Text | None = None, crowdnotifier_key: bytes | None = None,
                 warning_region: Text = "DE", trace_warnings: bool = True, verification: Text | None = None,
                 submission: Text | None = None, push: Text | None = None, push_api: PushApi = "swisscovid",
                 push_attempts: int = 3, push_retry_delay_ms: int = 1000, checkin_private: bool = False) -> None:
        if not isinstance(store, Store):
            raise TypeError("store must be an encore.Store")
        if trust is not None and not isinstance(trust, TrustList):
            raise TypeError("trust must be a TrustList or None")
        if submission is not None and verification is None:
            raise ValueError("a submission server goes with a verification server")
        self.store = store
        self._owned: list[Store | Transport] = []
        if transport is None:
            transport = Transport.curl()
            self._owned.append(transport)
        self.transport, self.trust = transport, trust
        # The one C client of this Client's whole life.
        self._c = CClient(store, transport=transport, trust=trust, clock=clock, distribution=distribution, country=country,
                          warning_region=warning_region, dp3t=dp3t, dp3t_key=dp3t_key, crowdnotifier=crowdnotifier,
                          crowdnotifier_key=crowdnotifier_key, verification=verification, submission=submission,
                          push=push, push_api=push_api, checkin_private=checkin_private)
        self._servers = {"sync": distribution is not None or dp3t is not None or crowdnotifier is not None,
                         "tests": verification is not None, "push": push is not None}
        self.sync = Sync(self._c, trace_warnings=trace_warnings)
        self.tests = TestResultClient(self._c)
        self.push = Push(self._c, attempts=push_attempts, retry_delay_ms=push_retry_delay_ms)
        self.checkins = CheckIns(self._c, private=checkin_private)
        self.sightings = Sightings(self._c)
        self.own_keys = OwnKeys(self._c)
        self.keyfiles = KeyFiles(self._c)
        self.tracing_history = TracingHistory(self._c)
        self.risk_results = RiskResults(self._c)

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

    def now(self) -> int:
        """The client's time (its clock's, or the system's)."""
        return self._c.now()

    def check(self, config: RiskConfig | None = None, threads: int = 0, progress: ProgressFn | None = None,
              full: bool = False) -> CheckResult:
        """The exposure check on the synced key file cache (what sync keeps):
        only what is new is matched, unless `full`."""
        return exposure_check_cached(self, config=config, threads=threads, progress=progress, full=full)

    def match(self, sources: Sequence[KeySource], **options: Any) -> MatchResult:
        """Matches the sightings against key files; see encore.exposure.match."""
        return match(self, sources, **options)

    def exposure_check(self, sources: Sequence[KeySource], config: RiskConfig | None = None, **options: Any) -> CheckResult:
        """The exposure check on key files; see encore.exposure.exposure_check."""
        return exposure_check(self, sources, config=config, **options)

    def tracer(self, **options: Any) -> Tracer:
        """A tracing driver over the client's store; see encore.tracing.Tracer."""
        return Tracer(self, **options)

    def close(self) -> None:
        """Frees the C client and closes what the client opened (its store
        when made by open(), its transport when made by it)."""
        self._c.close()
        while self._owned:
            self._owned.pop().close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        features = [name for name, given in self._servers.items() if given]
        return f"<Client {self.store!r} with {', '.join(features + ['checkins'])}>"
