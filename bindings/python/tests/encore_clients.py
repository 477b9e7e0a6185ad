"""The tests' clients. The store's tables and every feature are a Client's
(encore.Client), whose clock is the only time a feature call has (the
library takes no `now` on them). Most tests make their Client with
`clock=` a fixed time, or a TestClock they move between calls. Helpers:
on(store): the one Client the tests keep for that store, its clock standing
at `now` for the next call (None: the system clock), for the tests that
work on a store's tables; feature(): a Client's feature whose calls take
`now=` and set the clock before each call, kept for the operation and
extremes tests, which step the time of many calls (an operation's own
next/feed/run still take `now`)."""
from __future__ import annotations

import time
from typing import Any

import encore


class TestClock:
    """A clock the test moves: a Client reads it at each call."""
    __test__ = False

    def __init__(self, now: int | None = None) -> None:
        self.now = now

    def __call__(self) -> int:
        return int(time.time()) if self.now is None else self.now


_clients: dict[int, tuple[encore.Store, encore.Client, TestClock]] = {}


def on(store: encore.Store, now: int | None = None) -> encore.Client:
    """The tests' Client of `store` (made once), its clock at `now`."""
    held = _clients.get(id(store))
    if held is None or held[0] is not store:
        clock = TestClock()
        held = (store, encore.Client(store, clock=clock), clock)
        _clients[id(store)] = held
    held[2].now = now
    return held[1]


class AtTime:
    """A feature of a test's Client (client.tests, client.sync, ...) whose
    calls take the tests' `now=`: the Client's clock is set to it before
    the call (the system clock without one). Attributes that are not
    functions (Push.status) are read as they are."""
    __test__ = False

    def __init__(self, client: encore.Client, feature: Any, clock: TestClock) -> None:
        self.client, self._feature, self._clock = client, feature, clock

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._feature, name)
        if not callable(attr):
            return attr

        def at(*args: Any, now: int | None = None, **kwargs: Any) -> Any:
            self._clock.now = now
            return attr(*args, **kwargs)
        return at


def feature(store: encore.Store, name: str, **servers: Any) -> Any:
    """A new Client of `store` with `servers`, and its feature `name` as
    AtTime (its calls take now=)."""
    clock = TestClock()
    made = encore.Client(store, clock=clock, **servers)
    return AtTime(made, made if name == "client" else getattr(made, name), clock)
