"""Silent-push registration over a store and a transport: the rule of
push.md on the stored state, the app-instance token (made once, kept in the
encrypted store), registering and deregistering."""
from __future__ import annotations

import ctypes
import dataclasses
import contextlib
import time as _time
from typing import TYPE_CHECKING, Literal, TypeAlias

from . import _cdata, _client, _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import Text, text
from ._client import PushApi
from ._loader import lib
from .operation import Operation
from .store import _take_bytes

if TYPE_CHECKING:
    from .store import Store
    from ._client import ClientPointer
    from .transport import Transport

# What happened (decide), and the kind of device token (register).
Event: TypeAlias = Literal["app-start", "checkout", "en-on", "en-off", "token-changed"]
PushType: TypeAlias = Literal["ios", "android", "ios-sandbox"]

EVENTS = {"app-start": _ffi.ENCORE_PUSH_EVENT_APP_START, "checkout": _ffi.ENCORE_PUSH_EVENT_CHECKOUT,
          "en-on": _ffi.ENCORE_PUSH_EVENT_EN_ON, "en-off": _ffi.ENCORE_PUSH_EVENT_EN_OFF,
          "token-changed": _ffi.ENCORE_PUSH_EVENT_TOKEN_CHANGED}
ACTIONS = {_ffi.ENCORE_PUSH_NONE: "none", _ffi.ENCORE_PUSH_REGISTER: "register", _ffi.ENCORE_PUSH_DEREGISTER: "deregister"}
TYPES = {"ios": _ffi.ENCORE_PUSH_TYPE_IOS, "android": _ffi.ENCORE_PUSH_TYPE_ANDROID, "ios-sandbox": _ffi.ENCORE_PUSH_TYPE_IOS_SANDBOX}
APIS = _client.PUSH_APIS
_API_NAMES: dict[int, PushApi] = {_ffi.ENCORE_PUSH_API_SWISSCOVID: "swisscovid", _ffi.ENCORE_PUSH_API_REGISTRY: "registry"}
_TYPE_NAMES: dict[int, PushType] = {_ffi.ENCORE_PUSH_TYPE_IOS: "ios", _ffi.ENCORE_PUSH_TYPE_ANDROID: "android",
                                    _ffi.ENCORE_PUSH_TYPE_IOS_SANDBOX: "ios-sandbox"}


@dataclasses.dataclass(frozen=True)
class PushDecision:
    """What the rule says to do after an event, and why."""
    action: str   # "register", "deregister" or "none"
    reason: str


@dataclasses.dataclass(frozen=True)
class PushStatus:
    """What push registration knows (the tokens are not in it)."""
    registered: bool            # a registration is stored (the server said yes)
    registered_at: int | None   # unix seconds of the last registration
    server: str | None          # the registry registered with
    api: PushApi | None
    push_type: PushType | None  # of the stored push token
    has_push_token: bool
    exposure_notifications: bool  # Exposure Notifications are on (the last tracing event)
    check_ins: bool             # the user has check-ins
    isolated: bool


class Push:
    """A store's push registration.

        push = Push(store, Transport.curl(), server=url)
        if push.decide("checkout").action == "register":
            push.register(token, "ios")
    """

    def __init__(self, store: Store, transport: Transport | None = None, *, server: Text | None = None,
                 api: PushApi = "swisscovid", attempts: int = 3, retry_delay_ms: int = 1000) -> None:
        if api not in APIS:
            raise ValueError(f"api is one of {sorted(APIS)}")
        self.store, self.transport = store, transport
        self._server = None if server is None else text(server, "server")
        self._api = api
        self._options = _ffi.encore_push_options()
        lib.encore_push_options_init(ctypes.byref(self._options), ctypes.sizeof(self._options))
        self._options.attempts, self._options.retry_delay_ms = attempts, retry_delay_ms

    def _client(self, now: int | None = None,
                transport: Transport | None = None) -> contextlib.AbstractContextManager[ClientPointer]:
        """The C client of this store and registry at `now`."""
        return _client.client(self.store, transport=transport, now=now, push=self._server, push_api=self._api)

    def set_state(self, *, exposure_notifications: bool | None = None, isolated: bool | None = None,
                  now: int | None = None) -> None:
        """Stores the state the rule decides on (None: left as it is)."""
        def value(v: bool | None) -> int:
            return _ffi.ENCORE_PUSH_KEEP if v is None else (1 if v else 0)
        self.store._call("encore_push_set_state", value(exposure_notifications), value(isolated), _now(now))

    def decide(self, event: Event, *, now: int | None = None) -> PushDecision:
        """What the rule of push.md says to do after `event`, on the stored state."""
        if event not in EVENTS:
            raise ValueError(f"event is one of {sorted(EVENTS)}")
        d = _cdata.output(_ffi.encore_push_decision)
        reason = _ffi.encore_bytes()
        self.store._call("encore_push_decide", EVENTS[event], _now(now), ctypes.byref(d), ctypes.byref(reason))
        return PushDecision(ACTIONS[d.action], _take_bytes(reason).decode())

    def register(self, push_token: Text, push_type: PushType = "ios", *, now: int | None = None) -> None:
        """Registers (or renews, or after a new token); stored on success only."""
        if push_type not in TYPES:
            raise ValueError(f"push_type is one of {sorted(TYPES)}")
        token = text(push_token, "push_token")
        with self._client(now, self._transport()) as c:
            lib.encore_push_register_run(c, token, TYPES[push_type], ctypes.byref(self._options))

    def register_operation(self, push_token: Text, push_type: PushType = "ios", *,
                           now: int | None = None) -> Operation[PushStatus]:
        """The registration as an Operation the caller drives (run_async
        with an async HTTP client, or by hand); its result is the status."""
        if push_type not in TYPES:
            raise ValueError(f"push_type is one of {sorted(TYPES)}")
        token = text(push_token, "push_token")
        out = ctypes.POINTER(_ffi.encore_operation)()
        with self._client(now) as c:
            lib.encore_push_register_start(c, token, TYPES[push_type], ctypes.byref(self._options), ctypes.byref(out))
        return Operation(out, lambda _: self.status, keep=(self.store, token))

    def deregister_operation(self) -> Operation[PushStatus]:
        """The deregistration as an Operation the caller drives."""
        out = ctypes.POINTER(_ffi.encore_operation)()
        with self._client() as c:
            lib.encore_push_deregister_start(c, ctypes.byref(self._options), ctypes.byref(out))
        return Operation(out, lambda _: self.status, keep=self.store)

    def deregister(self) -> None:
        """Deregisters from the server registered with, or when nothing is
        stored from `server`."""
        with self._client(None, self._transport()) as c:
            lib.encore_push_deregister_run(c, ctypes.byref(self._options))

    @property
    def status(self) -> PushStatus:
        """The stored registration state."""
        s = _cdata.output(_ffi.encore_push_status)
        with self._client() as c:
            lib.encore_push_get_status(c, ctypes.byref(s))
        server = _take_bytes(s.server).decode("utf-8")
        return PushStatus(bool(s.registered), s.registered_at if s.has_registered_at else None, server or None,
                          _API_NAMES.get(s.api), _TYPE_NAMES.get(s.push_type), bool(s.has_push_token),
                          bool(s.exposure_notifications), bool(s.check_ins), bool(s.isolated))

    def _transport(self) -> Transport:
        if self.transport is None:
            raise ValueError("this Push has no transport")
        return self.transport


def _now(now: int | None) -> int:
    return int(_time.time()) if now is None else now
