"""Silent-push registration of a client: the rule of
push.md on the stored state, the app-instance token (made once, kept in the
encrypted store), registering and deregistering."""
from __future__ import annotations

import ctypes
import dataclasses
from typing import TYPE_CHECKING, Literal, TypeAlias

from . import _cdata, _client, _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import Text, text
from ._loader import lib
from .operation import Operation
from ._client import PushApi
from .store import _take_bytes

if TYPE_CHECKING:
    from ._client import CClient

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
    """The push registration of a client (encore.Client's `push`) with its
    registry (the client's push server and API), at the client's time.

        if client.push.decide("checkout").action == "register":
            client.push.register(token, "ios")
    """

    def __init__(self, client: CClient, *, attempts: int = 3, retry_delay_ms: int = 1000) -> None:
        self._c = client
        self._options = _ffi.encore_push_options()
        lib.encore_push_options_init(ctypes.byref(self._options), ctypes.sizeof(self._options))
        self._options.attempts, self._options.retry_delay_ms = attempts, retry_delay_ms

    def set_state(self, *, exposure_notifications: bool | None = None, isolated: bool | None = None) -> None:
        """Stores the state the rule decides on (None: left as it is)."""
        def value(v: bool | None) -> int:
            return _ffi.ENCORE_PUSH_KEEP if v is None else (1 if v else 0)
        self._c.call("encore_push_set_state", value(exposure_notifications), value(isolated))

    def decide(self, event: Event) -> PushDecision:
        """What the rule of push.md says to do after `event`, on the stored state."""
        if event not in EVENTS:
            raise ValueError(f"event is one of {sorted(EVENTS)}")
        d = _cdata.output(_ffi.encore_push_decision)
        reason = _ffi.encore_bytes()
        self._c.call("encore_push_decide", EVENTS[event], ctypes.byref(d), ctypes.byref(reason))
        return PushDecision(ACTIONS[d.action], _take_bytes(reason).decode())

    def register(self, push_token: Text, push_type: PushType = "ios") -> None:
        """Registers (or renews, or after a new token) through the client's
        transport; stored on success only."""
        if push_type not in TYPES:
            raise ValueError(f"push_type is one of {sorted(TYPES)}")
        self._c.call("encore_push_register_run", text(push_token, "push_token"), TYPES[push_type], ctypes.byref(self._options))

    def register_operation(self, push_token: Text, push_type: PushType = "ios") -> Operation[PushStatus]:
        """The registration as an Operation the caller drives (run_async
        with an async HTTP client, or by hand); its result is the status."""
        if push_type not in TYPES:
            raise ValueError(f"push_type is one of {sorted(TYPES)}")
        token = text(push_token, "push_token")
        out = ctypes.POINTER(_ffi.encore_operation)()
        self._c.call("encore_push_register_start", token, TYPES[push_type], ctypes.byref(self._options), ctypes.byref(out))
        return Operation(out, lambda _: self.status, keep=(self._c, token))

    def deregister_operation(self) -> Operation[PushStatus]:
        """The deregistration as an Operation the caller drives."""
        out = ctypes.POINTER(_ffi.encore_operation)()
        self._c.call("encore_push_deregister_start", ctypes.byref(self._options), ctypes.byref(out))
        return Operation(out, lambda _: self.status, keep=self._c)

    def deregister(self) -> None:
        """Deregisters from the server registered with, or when nothing is
        stored from the client's push server."""
        self._c.call("encore_push_deregister_run", ctypes.byref(self._options))

    @property
    def status(self) -> PushStatus:
        """The stored registration state."""
        s = _cdata.output(_ffi.encore_push_status)
        self._c.call("encore_push_get_status", ctypes.byref(s))
        server = _take_bytes(s.server).decode("utf-8")
        return PushStatus(bool(s.registered), s.registered_at if s.has_registered_at else None, server or None,
                          _API_NAMES.get(s.api), _TYPE_NAMES.get(s.push_type), bool(s.has_push_token),
                          bool(s.exposure_notifications), bool(s.check_ins), bool(s.isolated))
