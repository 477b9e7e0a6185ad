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
from .checkins import CheckIns
from .exposure import exposure_check_cached
from .push import Push
from .store import Store
from .sync import Sync
from .testresult import TestResultClient
from .transport import Transport


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

    def __init__(self, store, *, transport=None, trust=None, distribution=None, country="EUR", dp3t=None, dp3t_key=None,
                 crowdnotifier=None, crowdnotifier_key=None, warning_region="DE", verification=None, submission=None,
                 push=None, push_api="swisscovid", checkin_private: bool = False):
        if not isinstance(store, Store):
            raise TypeError("store must be an encore.Store")
        self.store = store
        self._owned = []
        if transport is None:
            transport = Transport.curl()
            self._owned.append(transport)
        self.transport, self.trust = transport, trust
        self.sync = None
        if distribution is not None or dp3t is not None or crowdnotifier is not None:
            self.sync = Sync(store, transport, distribution=distribution, country=country, trust=trust, dp3t=dp3t, dp3t_key=dp3t_key,
                             warning_region=warning_region, crowdnotifier=crowdnotifier, crowdnotifier_key=crowdnotifier_key)
        self.tests = None
        if verification is not None:
            self.tests = TestResultClient(store, transport, verification=verification, submission=submission)
        elif submission is not None:
            raise ValueError("a submission server goes with a verification server")
        self.push = None if push is None else Push(store, transport, server=push, api=push_api)
        self.checkins = CheckIns(store, private=checkin_private)

    @classmethod
    def open(cls, path, passphrase=None, *, raw_key=None, **servers):
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

    def check(self, config=None, now=None, threads=0, progress=None):
        """The exposure check on the synced key package cache (what sync keeps)."""
        return exposure_check_cached(self.store, config=config, now=now, threads=threads, progress=progress)

    def close(self):
        """Closes what the client opened (its store when made by open(), its transport when made by it)."""
        while self._owned:
            self._owned.pop().close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def __repr__(self):
        features = [name for name in ("sync", "tests", "push") if getattr(self, name) is not None]
        return f"<Client {self.store!r} with {', '.join(features + ['checkins'])}>"
