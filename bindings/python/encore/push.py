"""Silent-push registration of a client: the rule of
push.md on the stored state, the app-instance token (made once, kept in the
encrypted store), registering and deregistering."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Literal, TypeAlias

from . import _cdata, _client, _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import Text, take_text, text
from ._loader import lib
from ._records import (  # re-exported: the public names of the generated records
    PushDecision as PushDecision, PushStatus as PushStatus)
from .operation import Operation
from ._client import PushApi

if TYPE_CHECKING:
    from ._client import CClient

# What happened (decide), and the kind of device token (register).
Event: TypeAlias = Literal["app-start", "checkout", "en-on", "en-off", "token-changed"]
PushType: TypeAlias = Literal["ios", "android", "ios-sandbox"]

EVENTS = {"app-start": _ffi.ENCORE_PUSH_EVENT_APP_START, "checkout": _ffi.ENCORE_PUSH_EVENT_CHECKOUT,
          "en-on": _ffi.ENCORE_PUSH_EVENT_EN_ON, "en-off": _ffi.ENCORE_PUSH_EVENT_EN_OFF,
          "token-changed": _ffi.ENCORE_PUSH_EVENT_TOKEN_CHANGED}
TYPES = {"ios": _ffi.ENCORE_PUSH_TYPE_IOS, "android": _ffi.ENCORE_PUSH_TYPE_ANDROID, "ios-sandbox": _ffi.ENCORE_PUSH_TYPE_IOS_SANDBOX}
APIS = _client.PUSH_APIS


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
        self._c.call(lib.encore_push_set_state, value(exposure_notifications), value(isolated))

    def decide(self, event: Event) -> PushDecision:
        """What the rule of push.md says to do after `event`, on the stored state."""
        if event not in EVENTS:
            raise ValueError(f"event is one of {sorted(EVENTS)}")
        d = _cdata.output(_ffi.encore_push_decision)
        reason = _ffi.encore_bytes()
        self._c.call(lib.encore_push_decide, EVENTS[event], ctypes.byref(d), ctypes.byref(reason))
        return PushDecision.from_c(d, reason=take_text(reason))

    def register(self, push_token: Text, push_type: PushType = "ios") -> None:
        """Registers (or renews, or after a new token) through the client's
        transport; stored on success only."""
        if push_type not in TYPES:
            raise ValueError(f"push_type is one of {sorted(TYPES)}")
        self._c.call(lib.encore_push_register_run, text(push_token, "push_token"), TYPES[push_type], ctypes.byref(self._options))

    def register_operation(self, push_token: Text, push_type: PushType = "ios") -> Operation[PushStatus]:
        """The registration as an Operation the caller drives (run_async
        with an async HTTP client, or by hand); its result is the status."""
        if push_type not in TYPES:
            raise ValueError(f"push_type is one of {sorted(TYPES)}")
        token = text(push_token, "push_token")
        out = ctypes.POINTER(_ffi.encore_operation)()
        self._c.call(lib.encore_push_register_start, token, TYPES[push_type], ctypes.byref(self._options), ctypes.byref(out))
        return Operation(out, lambda _: self.status, keep=(self._c, token))

    def deregister_operation(self) -> Operation[PushStatus]:
        """The deregistration as an Operation the caller drives."""
        out = ctypes.POINTER(_ffi.encore_operation)()
        self._c.call(lib.encore_push_deregister_start, ctypes.byref(self._options), ctypes.byref(out))
        return Operation(out, lambda _: self.status, keep=self._c)

    def deregister(self) -> None:
        """Deregisters from the server registered with, or when nothing is
        stored from the client's push server."""
        self._c.call(lib.encore_push_deregister_run, ctypes.byref(self._options))

    @property
    def status(self) -> PushStatus:
        """The stored registration state."""
        s = _cdata.output(_ffi.encore_push_status)
        self._c.call(lib.encore_push_get_status, ctypes.byref(s))
        return PushStatus.from_c(s)
