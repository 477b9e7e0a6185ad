"""The one C client (encore_client) of an encore.Client: a store with its
servers, trust list, transport and clock, made once and kept for the
Client's whole life. Every feature reaches the library through it."""
from __future__ import annotations

import ctypes
import weakref
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Concatenate, Literal, ParamSpec, TypeAlias, TypeVar

from . import _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import Text, text
from ._handle import Closeable, Handle
from ._loader import lib

if TYPE_CHECKING:
    from .store import Store
    from .transport import Transport
    from .trust import TrustList

    # What CClient.borrow() yields.
    ClientPointer: TypeAlias = ctypes._Pointer[_ffi.encore_client]

_P = ParamSpec("_P")
_R = TypeVar("_R")

# The registry API a push registration speaks.
PushApi: TypeAlias = Literal["swisscovid", "registry"]
PUSH_APIS: dict[str, int] = {"swisscovid": _ffi.ENCORE_PUSH_API_SWISSCOVID, "registry": _ffi.ENCORE_PUSH_API_REGISTRY}

# A client's clock: None (the system's), a fixed time in unix seconds, or a
# function returning the time now.
Clock: TypeAlias = "int | Callable[[], int] | None"


def _key(key: bytes | None) -> tuple[ctypes._Pointer[ctypes.c_uint8], int, ctypes.Array[ctypes.c_uint8]]:
    """A server key's bytes in memory ctypes keeps alive (NULL when none), and its length."""
    data = b"" if key is None else bytes(key)
    buffer = (ctypes.c_uint8 * max(len(data), 1)).from_buffer_copy(data or b"\0")
    pointer = ctypes.cast(buffer, ctypes.POINTER(ctypes.c_uint8)) if data else ctypes.POINTER(ctypes.c_uint8)()
    return pointer, len(data), buffer


def _url(value: Text | None, name: str) -> bytes | None:
    return None if value is None else text(value, name)


def _clock_function(clock: int | Callable[[], int] | None) -> Callable[[], int] | None:
    """The clock as a function (None: the library reads the system's)."""
    if clock is None:
        return None
    if isinstance(clock, bool):
        raise TypeError("clock is a time (int), a function returning one, or None")
    if isinstance(clock, int):
        fixed = clock
        if not -(1 << 63) <= fixed < 1 << 63:
            raise OverflowError(f"the clock's time must fit in 64 bits, not {fixed}")
        return lambda: fixed
    if callable(clock):
        return clock
    raise TypeError(f"clock is a time (int), a function returning one, or None, not {type(clock).__name__}")


class CClient(Closeable):
    """One encore_client, made in __init__ and freed by close()."""

    _handle: Handle[ClientPointer]

    def __init__(self, store: Store, *, transport: Transport | None = None, trust: TrustList | None = None,
                 clock: int | Callable[[], int] | None = None, distribution: Text | None = None, country: Text | None = None,
                 warning_region: Text | None = None, dp3t: Text | None = None, dp3t_key: bytes | None = None,
                 crowdnotifier: Text | None = None, crowdnotifier_key: bytes | None = None,
                 verification: Text | None = None, submission: Text | None = None, push: Text | None = None,
                 push_api: PushApi = "swisscovid", checkin_private: bool = False) -> None:
        if push_api not in PUSH_APIS:
            raise ValueError(f"push_api is one of {sorted(PUSH_APIS)}")
        o = _ffi.encore_client_options()
        lib.encore_client_options_init(ctypes.byref(o), ctypes.sizeof(o))
        o.push_api = PUSH_APIS[push_api]
        o.checkin_mode = _ffi.ENCORE_CHECKIN_MODE_PRIVATE if checkin_private else _ffi.ENCORE_CHECKIN_MODE_DIARY
        o.distribution_url, o.country = _url(distribution, "distribution"), _url(country, "country")
        o.warning_region, o.dp3t_url = _url(warning_region, "warning_region"), _url(dp3t, "dp3t")
        o.crowdnotifier_url = _url(crowdnotifier, "crowdnotifier")
        o.verification_url, o.submission_url = _url(verification, "verification"), _url(submission, "submission")
        o.push_url = _url(push, "push")
        o.dp3t_public_key, o.dp3t_public_key_length, dp3t_buffer = _key(dp3t_key)
        o.crowdnotifier_public_key, o.crowdnotifier_public_key_length, cn_buffer = _key(crowdnotifier_key)
        read = _clock_function(clock)
        # Kept for the client's life: the library calls it at each flow.
        self._clock: Any = None
        if read is not None:
            self._clock = _ffi.encore_clock_fn(lambda _context: int(read()))
            o.clock = self._clock
        self.store, self.transport, self.trust = store, transport, trust
        pointer = ctypes.POINTER(_ffi.encore_client)()
        with store._handle.borrow() as s:
            if transport is not None:
                with transport.borrow() as t:
                    o.transport = t
                    self._new(s, o, pointer, trust)
            else:
                self._new(s, o, pointer, trust)
        del dp3t_buffer, cn_buffer
        self._handle = Handle(pointer, lib.encore_client_free, "Client")
        # Freed when nothing holds the client any more (the features hold it).
        weakref.finalize(self, self._handle.close)

    @staticmethod
    def _new(store: Any, o: _ffi.encore_client_options, pointer: ClientPointer, trust: TrustList | None) -> None:
        if trust is not None:
            with trust._handle.borrow() as t:
                o.trust = t
                lib.encore_client_new(store, ctypes.byref(o), ctypes.byref(pointer))
        else:
            lib.encore_client_new(store, ctypes.byref(o), ctypes.byref(pointer))

    def call(self, function: Callable[Concatenate[ClientPointer, _P], _R], *args: _P.args, **kwargs: _P.kwargs) -> _R:
        """function(client, *args): `function` is one of the typed library's
        (lib.encore_...), so a type checker checks the other arguments."""
        return self._handle.call(function, *args, **kwargs)

    def now(self) -> int:
        """The client's time: its clock's, or the system's."""
        t = ctypes.c_int64()
        self.call(lib.encore_client_get_time, ctypes.byref(t))
        return t.value

