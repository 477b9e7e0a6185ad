"""The C client (encore_client) a flow runs on: a store with its servers,
trust list and transport, and a clock standing at the call's `now` (the
system clock when None). The feature classes keep their settings and make
one for each call, so one Python object may be used from several threads."""
from __future__ import annotations

import contextlib
import ctypes
from collections.abc import Iterator
from typing import TYPE_CHECKING, Literal, TypeAlias

from . import _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import Text, text
from ._loader import lib

if TYPE_CHECKING:
    from .store import Store
    from .transport import Transport
    from .trust import TrustList

    # What client() yields, and the feature classes' _client() methods return.
    ClientPointer: TypeAlias = ctypes._Pointer[_ffi.encore_client]

# The registry API a push registration speaks.
PushApi: TypeAlias = Literal["swisscovid", "registry"]
PUSH_APIS: dict[str, int] = {"swisscovid": _ffi.ENCORE_PUSH_API_SWISSCOVID, "registry": _ffi.ENCORE_PUSH_API_REGISTRY}


def _key(key: bytes | None) -> tuple[ctypes._Pointer[ctypes.c_uint8], int, ctypes.Array[ctypes.c_uint8]]:
    """A server key's bytes in memory ctypes keeps alive (NULL when none), and its length."""
    data = b"" if key is None else bytes(key)
    buffer = (ctypes.c_uint8 * max(len(data), 1)).from_buffer_copy(data or b"\0")
    pointer = ctypes.cast(buffer, ctypes.POINTER(ctypes.c_uint8)) if data else ctypes.POINTER(ctypes.c_uint8)()
    return pointer, len(data), buffer


def _url(value: Text | None, name: str) -> bytes | None:
    return None if value is None else text(value, name)


@contextlib.contextmanager
def client(store: Store, *, transport: Transport | None = None, trust: TrustList | None = None, now: int | None = None,
           distribution: Text | None = None, country: Text | None = None, warning_region: Text | None = None,
           dp3t: Text | None = None, dp3t_key: bytes | None = None, crowdnotifier: Text | None = None,
           crowdnotifier_key: bytes | None = None, verification: Text | None = None, submission: Text | None = None,
           push: Text | None = None, push_api: PushApi = "swisscovid") -> Iterator[ClientPointer]:
    """The encore_client pointer, valid until the block ends."""
    if push_api not in PUSH_APIS:
        raise ValueError(f"push_api is one of {sorted(PUSH_APIS)}")
    o = _ffi.encore_client_options()
    lib.encore_client_options_init(ctypes.byref(o), ctypes.sizeof(o))
    o.push_api = PUSH_APIS[push_api]
    o.distribution_url, o.country = _url(distribution, "distribution"), _url(country, "country")
    o.warning_region, o.dp3t_url = _url(warning_region, "warning_region"), _url(dp3t, "dp3t")
    o.crowdnotifier_url = _url(crowdnotifier, "crowdnotifier")
    o.verification_url, o.submission_url = _url(verification, "verification"), _url(submission, "submission")
    o.push_url = _url(push, "push")
    o.dp3t_public_key, o.dp3t_public_key_length, dp3t_buffer = _key(dp3t_key)
    o.crowdnotifier_public_key, o.crowdnotifier_public_key_length, cn_buffer = _key(crowdnotifier_key)
    clock = None
    if now is not None:
        fixed = int(now)
        if not -(1 << 63) <= fixed < 1 << 63:
            raise OverflowError(f"now must fit in 64 bits, not {fixed}")
        clock = _ffi.encore_clock_fn(lambda _context: fixed)
        o.clock = clock
    pointer = ctypes.POINTER(_ffi.encore_client)()
    with contextlib.ExitStack() as stack:
        s = stack.enter_context(store._handle.borrow())
        if transport is not None:
            o.transport = stack.enter_context(transport.borrow())
        if trust is not None:
            o.trust = stack.enter_context(trust._handle.borrow())
        lib.encore_client_new(s, ctypes.byref(o), ctypes.byref(pointer))
        try:
            yield pointer
        finally:
            lib.encore_client_free(pointer)
    del dp3t_buffer, cn_buffer, clock
