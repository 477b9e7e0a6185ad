"""The store's tables as features of a client (encore.Client): its
sightings, own keys, cached key files, tracing history and risk results.
Each reaches the library through the client's one C client; times a call
needs come from the client's clock."""
from __future__ import annotations

import builtins
import contextlib
import ctypes
from collections.abc import Callable, Iterable, Iterator
from typing import TYPE_CHECKING, Any

from . import _ffi, errors
from ._cdata import array_of, checked_int, copy_list, sized, take_text, text, uint8_pointer
from ._loader import lib
from .records import CachedKeyFileInfo, Key, OwnKey, RiskResult, Sighting, TracingEvent
from ._cdata import take_bytes as _take_bytes
from .store import INT32_MIN, _blob, _range, _take_list

if TYPE_CHECKING:
    from ._client import CClient
    from .trust import TrustList


class _Table:
    """A feature over the client's store: the copy and count idioms."""

    def __init__(self, client: CClient) -> None:
        self._c = client

    def _count(self, count: Callable[[Any], int]) -> int:
        """The number count(out) writes: a count function of the library, called with its
        other arguments by the caller's lambda (so that a type checker sees them)."""
        n = ctypes.c_uint64()
        count(ctypes.byref(n))
        return n.value


class Sightings(_Table):
    """What the radio heard (encore_sighting_*)."""

    def add(self, sightings: Iterable[Sighting]) -> int:
        """Adds Sighting values in one transaction (all or none); ones
        identical to stored sightings are kept once. Returns how many were new."""
        rows = [o.to_c() for o in sightings]
        array, size = array_of(_ffi.encore_sighting, rows)
        added = ctypes.c_size_t()
        self._c.call(lib.encore_sighting_add, array, size, len(rows), ctypes.byref(added))
        return added.value

    def count(self, start: int | None = None, end: int | None = None) -> int:
        """How many sightings [start, end) holds."""
        return self._count(lambda n: self._c.call(lib.encore_sighting_count, *_range(start, end), n))

    def list(self, start: int | None = None, end: int | None = None) -> Iterator[Sighting]:
        """Yields the Sighting values of [start, end) in time order."""
        first, last = _range(start, end)  # checked now, not at the first row
        return copy_list(lambda *page: self._c.call(lib.encore_sighting_copy, first, last, *page),
                         _ffi.encore_sighting, Sighting.from_c)


class OwnKeys(_Table):
    """The device's own keys (encore_own_key_*)."""

    def put(self, key: OwnKey) -> None:
        """Stores an OwnKey; one with the same key_data is replaced."""
        if not isinstance(key, OwnKey):
            raise TypeError(f"key must be an OwnKey, not {type(key).__name__}")
        c = key.to_c()
        self._c.call(lib.encore_own_key_put, ctypes.byref(c))

    def count(self, since: int | None = None) -> int:
        """How many own keys start at interval `since` or later (None: all)."""
        return self._count(lambda n: self._c.call(lib.encore_own_key_count, self._since(since), n))

    def list(self, since: int | None = None) -> builtins.list[OwnKey]:
        """The own keys starting at interval `since` or later, ordered by
        rolling start, as a list of OwnKey."""
        return list(copy_list(lambda *page: self._c.call(lib.encore_own_key_copy, self._since(since), *page),
                         _ffi.encore_own_key, OwnKey.from_c))

    def latest(self) -> OwnKey | None:
        """The own key with the latest rolling start, or None."""
        key = sized(_ffi.encore_own_key)
        try:
            self._c.call(lib.encore_own_key_get_latest, ctypes.byref(key))
        except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
            return None
        return OwnKey.from_c(key)

    def current(self) -> OwnKey:
        """The device's TEK valid at the client's time, made from the
        CSPRNG and stored when the day has none yet."""
        key = sized(_ffi.encore_own_key)
        self._c.call(lib.encore_own_key_get_current, ctypes.byref(key))
        return OwnKey.from_c(key)

    def history(self, days: int = 14) -> builtins.list[Key]:
        """The own keys of the last `days` UTC days up to the client's time (today's
        included), oldest first, as Key values ready for submission."""
        return list(copy_list(lambda *page: self._c.call(lib.encore_own_key_copy_history, checked_int(days, 32, "days"), *page),
                         _ffi.encore_key, Key.from_c))

    @staticmethod
    def _since(since: int | None) -> int:
        return INT32_MIN if since is None else checked_int(since, 32, "since")


    def advertisement(self, tx_power: int = 0, calibration_confidence: int = 0) -> bytes:
        """The 20 bytes to broadcast at the client's time: RPI ‖ AEM."""
        out = (ctypes.c_uint8 * 20)()
        self._c.call(lib.encore_advertisement_make, checked_int(tx_power, 32, "tx_power"),
                     checked_int(calibration_confidence, 32, "calibration_confidence"), out, 20)
        return bytes(out)


class KeyFiles(_Table):
    """The cache of verified key files (encore_keyfile_cache_*)."""

    def add(self, region: str | bytes, identifier: str | bytes, content: bytes, trust: TrustList | None = None,
                       etag: str | bytes | None = None) -> int:
        """Keeps a key file (bytes of the zip) the host downloaded itself,
        after the sync's verification against `trust` (a TrustList; None:
        the client's); a day replaces the cached hours of that day. Returns
        its number of keys. Nothing else puts a key file into the cache."""
        from .trust import TrustList
        if trust is not None and not isinstance(trust, TrustList):
            raise TypeError("trust must be a TrustList or None")
        data = _blob(content, "content")
        keys = ctypes.c_uint64()
        with (trust._handle.borrow() if trust is not None else contextlib.nullcontext(None)) as t:
            self._c.call(lib.encore_keyfile_cache_import, text(region, "region"), text(identifier, "identifier"),
                       None if etag is None else text(etag, "etag"), uint8_pointer(data), len(data), t, ctypes.byref(keys))
        return keys.value

    def has(self, region: str | bytes, identifier: str | bytes, etag: str | bytes | None = None) -> bool:
        """Whether the key file is cached (with `etag`: stored with exactly that ETag)."""
        has = ctypes.c_int32()
        self._c.call(lib.encore_keyfile_cache_has, text(region, "region"), text(identifier, "identifier"),
                   None if etag is None else text(etag, "etag"), ctypes.byref(has))
        return has.value == 1

    def get(self, region: str | bytes, identifier: str | bytes) -> bytes:
        """The content of a cached key file, checked against its SHA-256
        (StoreNotDatabaseError when it does not match). NotFoundError when
        it is not cached."""
        content = _ffi.encore_bytes()
        self._c.call(lib.encore_keyfile_cache_get, text(region, "region"), text(identifier, "identifier"),
                   ctypes.byref(content))
        return _take_bytes(content)

    def info(self, region: str | bytes, identifier: str | bytes) -> CachedKeyFileInfo:
        """CachedKeyFileInfo of a cached key file; NotFoundError when it is not cached."""
        c_region, c_identifier = text(region, "region"), text(identifier, "identifier")
        info = sized(_ffi.encore_cached_keyfile_info)
        etag = _ffi.encore_bytes()
        self._c.call(lib.encore_keyfile_cache_get_info, c_region, c_identifier, ctypes.byref(info), ctypes.byref(etag))
        return CachedKeyFileInfo.from_c(info, region=c_region.decode("utf-8"), identifier=c_identifier.decode("utf-8"),
                                        etag=take_text(etag))

    def list(self, region: str | bytes) -> builtins.list[str]:
        """The identifiers of the cached key files of `region`, in byte order."""
        out = ctypes.POINTER(_ffi.encore_string_list)()
        self._c.call(lib.encore_keyfile_cache_list, text(region, "region"), ctypes.byref(out))
        return _take_list(out)

    def remove(self, region: str | bytes, identifier: str | bytes) -> bool:
        """Removes a cached key file; False when it was not cached."""
        removed = ctypes.c_int32()
        self._c.call(lib.encore_keyfile_cache_remove, text(region, "region"), text(identifier, "identifier"),
                   ctypes.byref(removed))
        return removed.value == 1

    def missing(self, region: str | bytes, available: Iterable[str | bytes]) -> builtins.list[str]:
        """Of the identifiers in `available` (what the server lists), those not
        cached for `region`, in the order given and each once."""
        if isinstance(available, (str, bytes)):
            raise TypeError("available must be a list of identifiers, not a single string")
        ids = [text(a, "identifier") for a in available]
        array = (ctypes.c_char_p * len(ids))(*ids)
        out = ctypes.POINTER(_ffi.encore_string_list)()
        self._c.call(lib.encore_keyfile_cache_list_missing, text(region, "region"), array, len(ids), ctypes.byref(out))
        return _take_list(out)


class TracingHistory(_Table):
    """When tracing was on (encore_tracing_event_*)."""

    def add(self, time: int, active: bool) -> None:
        """Records that tracing was switched on (active=True) or off at `time`."""
        if not isinstance(active, bool):
            raise TypeError(f"active must be a bool, not {type(active).__name__}")
        self._c.call(lib.encore_tracing_event_add, checked_int(time, 64, "time"), 1 if active else 0)

    def count(self, start: int | None = None, end: int | None = None) -> int:
        """How many tracing events [start, end) holds."""
        return self._count(lambda n: self._c.call(lib.encore_tracing_event_count, *_range(start, end), n))

    def list(self, start: int | None = None, end: int | None = None) -> builtins.list[TracingEvent]:
        """The TracingEvent values of [start, end) in time order, as a list."""
        return list(copy_list(lambda *page: self._c.call(lib.encore_tracing_event_copy, *_range(start, end), *page),
                         _ffi.encore_tracing_event, TracingEvent.from_c))

    def active_seconds(self, start: int, end: int) -> int:
        """Seconds tracing was on within [start, end): the last event before
        `start` gives the state at `start`; an "on" without a later "off"
        counts until `end`."""
        seconds = ctypes.c_int64()
        self._c.call(lib.encore_tracing_get_active_seconds, checked_int(start, 64, "start"), checked_int(end, 64, "end"),
                   ctypes.byref(seconds))
        return seconds.value


class RiskResults(_Table):
    """The stored results of exposure checks (encore_risk_result_*)."""

    def _result(self, get: Callable[[Any, Any], int]) -> RiskResult:
        """The result get(out, document) writes (a lambda calling a get function of the library)."""
        r = sized(_ffi.encore_risk_result)
        doc = _ffi.encore_bytes()
        get(ctypes.byref(r), ctypes.byref(doc))
        return RiskResult.from_c(r, document=take_text(doc))

    def last(self) -> RiskResult | None:
        """The newest RiskResult, or None when there is none."""
        try:
            return self._result(lambda r, doc: self._c.call(lib.encore_risk_result_get_last, r, doc))
        except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
            return None

    def get(self, result_id: int) -> RiskResult:
        """The RiskResult with `result_id`; NotFoundError when there is none."""
        return self._result(lambda r, doc: self._c.call(lib.encore_risk_result_get, checked_int(result_id, 64, "result_id"), r, doc))

    def count(self, start: int | None = None, end: int | None = None) -> int:
        """How many risk results [start, end) holds."""
        return self._count(lambda n: self._c.call(lib.encore_risk_result_count, *_range(start, end), n))

    def list(self, start: int | None = None, end: int | None = None) -> builtins.list[RiskResult]:
        """The RiskResult values of [start, end), oldest first, as a list
        (results purged meanwhile by another thread are left out)."""
        heads = list(copy_list(lambda *page: self._c.call(lib.encore_risk_result_copy, *_range(start, end), *page),
                         _ffi.encore_risk_result, lambda r: r.id))
        out: builtins.list[RiskResult] = []
        for result_id in heads:
            try:
                out.append(self.get(result_id))
            except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
                pass
        return out


__all__ = ["Sightings", "OwnKeys", "KeyFiles", "TracingHistory", "RiskResults"]
