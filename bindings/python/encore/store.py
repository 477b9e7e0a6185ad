"""Store: the client's encrypted state, one SQLCipher database file."""
from __future__ import annotations

import ctypes
import math
import os
import time as _time
import weakref
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, Literal, Self, TypeAlias, TypeVar, overload

from . import _ffi, errors
from ._cdata import Path, array_of, copy_list, sized, text, uint8_pointer
from ._handle import Closeable, Handle
from ._loader import lib
from .records import (CachedKeyFileInfo, Key, OwnKey, PurgeCounts, RiskResult, Sighting, TracingEvent,
                      checked_int)

if TYPE_CHECKING:
    from .exposure import CheckResult, KeySource, MatchResult
    from .risk import RiskConfig
    from .trust import TrustList

_S = TypeVar("_S", bound=ctypes.Structure)
_R = TypeVar("_R")
_D = TypeVar("_D")
# What a setting holds.
Setting: TypeAlias = int | float | str | bytes

# The retention period of the Exposure Notification system.
DEFAULT_RETENTION = 14 * 24 * 3600
INT64_MIN, INT64_MAX = -(1 << 63), (1 << 63) - 1
INT32_MIN = -(1 << 31)

# ENCORE_SETTING_INTEGER -> "integer", from the header's constants.
_SETTING_PREFIX = "ENCORE_SETTING_"
SETTING_TYPES = {value: name[len(_SETTING_PREFIX):].lower()
                 for name, value in vars(_ffi).items() if name.startswith(_SETTING_PREFIX)}


def _store_key(passphrase: str | bytes | None, raw_key: bytes | None, what: str) -> tuple[_ffi.encore_store_key, bytes]:
    """(encore_store_key, the bytes it points to) for exactly one of the two."""
    if (passphrase is None) == (raw_key is None):
        raise TypeError(f"{what}: give either a passphrase or a raw_key")
    if passphrase is not None:
        data = passphrase.encode("utf-8") if isinstance(passphrase, str) else bytes(passphrase)
        kind = _ffi.ENCORE_KEY_PASSPHRASE
    else:
        assert raw_key is not None  # exactly one of the two, checked above
        data = bytes(raw_key)
        kind = _ffi.ENCORE_KEY_RAW
    key = _ffi.encore_store_key(ctypes.sizeof(_ffi.encore_store_key), kind, uint8_pointer(data), len(data))
    return key, data  # the caller keeps `data` alive while the key is used


def _range(start: int | None, end: int | None) -> tuple[int, int]:
    """[start, end) as C arguments: None is open."""
    return (INT64_MIN if start is None else checked_int(start, 64, "start"),
            INT64_MAX if end is None else checked_int(end, 64, "end"))


def _take_bytes(b: _ffi.encore_bytes) -> bytes:
    """The bytes of a library-owned encore_bytes, which is freed."""
    try:
        return ctypes.string_at(b.data, b.length) if b.data else b""
    finally:
        lib.encore_bytes_free(ctypes.byref(b))


def _take_list(pointer: ctypes._Pointer[_ffi.encore_string_list]) -> list[str]:
    """The strings of a library-owned encore_string_list, which is freed."""
    try:
        count = ctypes.c_size_t()
        lib.encore_string_list_count(pointer, ctypes.byref(count))
        copy = lambda *args: lib.encore_string_list_copy(pointer, *args)  # noqa: E731
        # One call for the whole list (a page more finds its end).
        return list(copy_list(copy, _ffi.encore_bytes, lambda b: _take_bytes(b).decode("utf-8"), max(count.value, 1)))
    finally:
        lib.encore_string_list_free(pointer)


def _blob(value: bytes | bytearray | memoryview, what: str) -> bytes:
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    raise TypeError(f"{what} must be bytes, not {type(value).__name__}")


class Store(Closeable):
    """An opened encrypted store. Use Store.open(); close() (or a with block)
    closes it. Safe to share between threads: the library serialises calls.

    Times are unix seconds. Ranges are [start, end); None leaves a side open.
    A failing call raises the EncoreError subclass of its status, e.g.
    NotFoundError, InvalidArgumentError, StoreWrongKeyError."""

    _handle: Handle[ctypes._Pointer[_ffi.encore_store]]

    def __init__(self, pointer: ctypes._Pointer[_ffi.encore_store], path: str | None = None) -> None:
        self._handle = Handle(pointer, lib.encore_store_close, "Store")
        self.path = path
        weakref.finalize(self, self._handle.close)

    @classmethod
    def open(cls, path: Path, passphrase: str | bytes | None = None, *, raw_key: bytes | None = None, create: bool = True,
             busy_timeout_ms: int | None = None) -> Self:
        """Opens (or, with create, creates) the store at `path` with a
        passphrase (str or bytes; the key is derived, slowly on purpose) or
        a 32-byte raw_key. A wrong key raises StoreWrongKeyError, a file that
        is not a store StoreNotDatabaseError, a missing file with
        create=False StoreMissingError; the file is not modified then."""
        key, _keep = _store_key(passphrase, raw_key, "Store.open")
        options = _ffi.encore_store_options()
        lib.encore_store_options_init(ctypes.byref(options), ctypes.sizeof(options))
        options.create = 1 if create else 0
        if busy_timeout_ms is not None:
            options.busy_timeout_ms = checked_int(busy_timeout_ms, 32, "busy_timeout_ms")
        out = ctypes.POINTER(_ffi.encore_store)()
        fs_path = text(os.fsencode(path), "path")
        lib.encore_store_open(fs_path, ctypes.byref(key), ctypes.byref(options), ctypes.byref(out))
        return cls(out, os.fsdecode(fs_path))

    # ---- the store as a whole ---------------------------------------------

    def __repr__(self) -> str:
        return f"<Store {self.path!r}{' closed' if self.closed else ''}>"

    def _call(self, name: str, *args: Any) -> int:
        """Calls the library function `name` with the store pointer first."""
        with self._handle.borrow() as store:
            status: int = getattr(lib, name)(store, *args)
            return status

    def rekey(self, passphrase: str | bytes | None = None, *, raw_key: bytes | None = None) -> None:
        """Re-encrypts the store under a new passphrase or raw key."""
        key, _keep = _store_key(passphrase, raw_key, "Store.rekey")
        self._call("encore_store_rekey", ctypes.byref(key))

    @property
    def schema_version(self) -> int:
        """The version of the store's database schema."""
        version = ctypes.c_uint32()
        self._call("encore_store_get_schema_version", ctypes.byref(version))
        return version.value

    def check_integrity(self) -> None:
        """Runs SQLite's integrity check: returns when the store is sound,
        raises StoreNotDatabaseError with the findings otherwise."""
        self._call("encore_store_check_integrity")

    def purge(self, now: int | None = None, max_age: int = DEFAULT_RETENTION) -> PurgeCounts:
        """Deletes what is older than now - max_age (default 14 days) from
        every table, keeping the settings, the newest risk result and the
        tracing state at the cut-off. Returns PurgeCounts."""
        now = int(_time.time()) if now is None else now
        counts = sized(_ffi.encore_purge_counts)
        self._call("encore_store_purge", checked_int(now, 64, "now"), checked_int(max_age, 64, "max_age"),
                   ctypes.byref(counts))
        return PurgeCounts.from_c(counts)

    def _copy(self, name: str, ctype: type[_S], convert: Callable[[_S], _R], *args: int) -> Iterator[_R]:
        """Yields rows of a copy function (..., first, out, element_size, capacity, copied)."""
        return copy_list(lambda *page: self._call(name, *args, *page), ctype, convert)

    def _count(self, name: str, *args: int) -> int:
        count = ctypes.c_uint64()
        self._call(name, *args, ctypes.byref(count))
        return count.value

    # ---- sightings ---------------------------------------------------------

    def add_sightings(self, sightings: Iterable[Sighting]) -> int:
        """Adds Sighting values in one transaction (all or none); ones
        identical to stored sightings are kept once. Returns how many were new."""
        rows = [o.to_c() for o in sightings]
        array, size = array_of(_ffi.encore_sighting, rows)
        added = ctypes.c_size_t()
        self._call("encore_store_add_sightings", array, size, len(rows), ctypes.byref(added))
        return added.value

    def count_sightings(self, start: int | None = None, end: int | None = None) -> int:
        """How many sightings [start, end) holds."""
        return self._count("encore_store_count_sightings", *_range(start, end))

    def sightings(self, start: int | None = None, end: int | None = None) -> Iterator[Sighting]:
        """Yields the Sighting values of [start, end) in time order."""
        return self._copy("encore_store_copy_sightings", _ffi.encore_sighting, Sighting.from_c,
                          *_range(start, end))

    # ---- own keys -----------------------------------------------------------

    def put_own_key(self, key: OwnKey) -> None:
        """Stores an OwnKey; one with the same key_data is replaced."""
        if not isinstance(key, OwnKey):
            raise TypeError(f"key must be an OwnKey, not {type(key).__name__}")
        c = key.to_c()
        self._call("encore_store_put_own_key", ctypes.byref(c))

    def count_own_keys(self, since: int | None = None) -> int:
        """How many own keys start at interval `since` or later (None: all)."""
        return self._count("encore_store_count_own_keys", self._since(since))

    def own_keys(self, since: int | None = None) -> list[OwnKey]:
        """The own keys starting at interval `since` or later, ordered by
        rolling start, as a list of OwnKey."""
        return list(self._copy("encore_store_copy_own_keys", _ffi.encore_own_key, OwnKey.from_c, self._since(since)))

    def latest_own_key(self) -> OwnKey | None:
        """The own key with the latest rolling start, or None."""
        key = sized(_ffi.encore_own_key)
        try:
            self._call("encore_store_get_latest_own_key", ctypes.byref(key))
        except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
            return None
        return OwnKey.from_c(key)

    def current_own_key(self, now: int | None = None) -> OwnKey:
        """The device's TEK valid at `now` (default: now), made from the
        CSPRNG and stored when the day has none yet."""
        key = sized(_ffi.encore_own_key)
        self._call("encore_store_get_current_own_key", checked_int(int(_time.time()) if now is None else now, 64, "now"), ctypes.byref(key))
        return OwnKey.from_c(key)

    def own_key_history(self, now: int | None = None, days: int = 14) -> list[Key]:
        """The own keys of the last `days` UTC days up to `now` (today's
        included), oldest first, as Key values ready for submission."""
        now = int(_time.time()) if now is None else now
        return list(self._copy("encore_store_copy_own_key_history", _ffi.encore_key, Key.from_c,
                               checked_int(now, 64, "now"), checked_int(days, 32, "days")))

    def advertisement(self, now: int | None = None, tx_power: int = 0, calibration_confidence: int = 0) -> bytes:
        """The 20 bytes to broadcast at `now`: RPI ‖ AEM."""
        out = (ctypes.c_uint8 * 20)()
        self._call("encore_advertisement_make", checked_int(int(_time.time()) if now is None else now, 64, "now"),
                   checked_int(tx_power, 32, "tx_power"), checked_int(calibration_confidence, 32, "calibration_confidence"), out, 20)
        return bytes(out)

    # ---- exposure matching and the check (encore.exposure) ---------------

    def match(self, sources: Sequence[KeySource], now: int | None = None, **options: Any) -> MatchResult:
        """Matches the stored sightings against key files; see encore.exposure.match."""
        from . import exposure
        return exposure.match(self, sources, now=now, **options)

    def exposure_check(self, sources: Sequence[KeySource], config: RiskConfig | None = None, now: int | None = None,
                       **options: Any) -> CheckResult:
        """The exposure check; see encore.exposure.exposure_check."""
        from . import exposure
        return exposure.exposure_check(self, sources, config=config, now=now, **options)

    @staticmethod
    def _since(since: int | None) -> int:
        return INT32_MIN if since is None else checked_int(since, 32, "since")

    # ---- cache of key files ------------------------------------------------

    def import_keyfile(self, region: str | bytes, identifier: str | bytes, content: bytes, trust: TrustList,
                       etag: str | bytes | None = None, now: int | None = None) -> int:
        """Keeps a key file (bytes of the zip) the host downloaded itself,
        after the sync's verification against `trust` (a TrustList); a day
        replaces the cached hours of that day. Returns its number of keys.
        Nothing else puts a key file into the cache."""
        data = _blob(content, "content")
        now = int(_time.time()) if now is None else checked_int(now, 64, "now")
        keys = ctypes.c_uint64()
        with trust._handle.borrow() as t:
            self._call("encore_store_import_keyfile", text(region, "region"), text(identifier, "identifier"),
                       None if etag is None else text(etag, "etag"), uint8_pointer(data), len(data), t, now, ctypes.byref(keys))
        return keys.value

    def has_keyfile(self, region: str | bytes, identifier: str | bytes, etag: str | bytes | None = None) -> bool:
        """Whether the key file is cached (with `etag`: stored with exactly that ETag)."""
        has = ctypes.c_int32()
        self._call("encore_store_has_keyfile", text(region, "region"), text(identifier, "identifier"),
                   None if etag is None else text(etag, "etag"), ctypes.byref(has))
        return has.value == 1

    def get_keyfile(self, region: str | bytes, identifier: str | bytes) -> bytes:
        """The content of a cached key file, checked against its SHA-256
        (StoreNotDatabaseError when it does not match). NotFoundError when
        it is not cached."""
        content = _ffi.encore_bytes()
        self._call("encore_store_get_keyfile", text(region, "region"), text(identifier, "identifier"),
                   ctypes.byref(content))
        return _take_bytes(content)

    def keyfile_info(self, region: str | bytes, identifier: str | bytes) -> CachedKeyFileInfo:
        """CachedKeyFileInfo of a cached key file; NotFoundError when it is not cached."""
        c_region, c_identifier = text(region, "region"), text(identifier, "identifier")
        info = sized(_ffi.encore_cached_keyfile_info)
        etag = _ffi.encore_bytes()
        self._call("encore_store_get_keyfile_info", c_region, c_identifier, ctypes.byref(info), ctypes.byref(etag))
        etag_text = _take_bytes(etag).decode("utf-8")
        return CachedKeyFileInfo(region=c_region.decode("utf-8"), identifier=c_identifier.decode("utf-8"),
                           etag=etag_text if info.has_etag else None, sha256=bytes(info.sha256),
                           size=info.size, downloaded=info.downloaded)

    def keyfiles(self, region: str | bytes) -> list[str]:
        """The identifiers of the cached key files of `region`, in byte order."""
        out = ctypes.POINTER(_ffi.encore_string_list)()
        self._call("encore_store_list_keyfiles", text(region, "region"), ctypes.byref(out))
        return _take_list(out)

    def remove_keyfile(self, region: str | bytes, identifier: str | bytes) -> bool:
        """Removes a cached key file; False when it was not cached."""
        removed = ctypes.c_int32()
        self._call("encore_store_remove_keyfile", text(region, "region"), text(identifier, "identifier"),
                   ctypes.byref(removed))
        return removed.value == 1

    def missing_keyfiles(self, region: str | bytes, available: Iterable[str | bytes]) -> list[str]:
        """Of the identifiers in `available` (what the server lists), those not
        cached for `region`, in the order given and each once."""
        if isinstance(available, (str, bytes)):
            raise TypeError("available must be a list of identifiers, not a single string")
        ids = [text(a, "identifier") for a in available]
        array = (ctypes.c_char_p * len(ids))(*ids)
        out = ctypes.POINTER(_ffi.encore_string_list)()
        self._call("encore_store_list_missing_keyfiles", text(region, "region"), array, len(ids), ctypes.byref(out))
        return _take_list(out)

    # ---- tracing history --------------------------------------------------

    def add_tracing_event(self, time: int, active: bool) -> None:
        """Records that tracing was switched on (active=True) or off at `time`."""
        if not isinstance(active, bool):
            raise TypeError(f"active must be a bool, not {type(active).__name__}")
        self._call("encore_store_add_tracing_event", checked_int(time, 64, "time"), 1 if active else 0)

    def count_tracing_events(self, start: int | None = None, end: int | None = None) -> int:
        """How many tracing events [start, end) holds."""
        return self._count("encore_store_count_tracing_events", *_range(start, end))

    def tracing_events(self, start: int | None = None, end: int | None = None) -> list[TracingEvent]:
        """The TracingEvent values of [start, end) in time order, as a list."""
        return list(self._copy("encore_store_copy_tracing_events", _ffi.encore_tracing_event, TracingEvent.from_c,
                               *_range(start, end)))

    def active_tracing_seconds(self, start: int, end: int) -> int:
        """Seconds tracing was on within [start, end): the last event before
        `start` gives the state at `start`; an "on" without a later "off"
        counts until `end`."""
        seconds = ctypes.c_int64()
        self._call("encore_store_get_active_tracing_seconds", checked_int(start, 64, "start"), checked_int(end, 64, "end"),
                   ctypes.byref(seconds))
        return seconds.value

    # ---- risk results -----------------------------------------------------

    def _result(self, name: str, *args: int) -> RiskResult:
        r = sized(_ffi.encore_risk_result)
        doc = _ffi.encore_bytes()
        self._call(name, *args, ctypes.byref(r), ctypes.byref(doc))
        return RiskResult(id=r.id, time=r.time, level=r.level, document=_take_bytes(doc).decode("utf-8"))

    def last_risk_result(self) -> RiskResult | None:
        """The newest RiskResult, or None when there is none."""
        try:
            return self._result("encore_store_get_last_risk_result")
        except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
            return None

    def risk_result(self, result_id: int) -> RiskResult:
        """The RiskResult with `result_id`; NotFoundError when there is none."""
        return self._result("encore_store_get_risk_result", checked_int(result_id, 64, "result_id"))

    def count_risk_results(self, start: int | None = None, end: int | None = None) -> int:
        """How many risk results [start, end) holds."""
        return self._count("encore_store_count_risk_results", *_range(start, end))

    def risk_results(self, start: int | None = None, end: int | None = None) -> list[RiskResult]:
        """The RiskResult values of [start, end), oldest first, as a list
        (results purged meanwhile by another thread are left out)."""
        heads = list(self._copy("encore_store_copy_risk_results", _ffi.encore_risk_result, lambda r: r.id,
                                *_range(start, end)))
        out: list[RiskResult] = []
        for result_id in heads:
            try:
                out.append(self.risk_result(result_id))
            except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
                pass
        return out

    # ---- settings ---------------------------------------------------------

    def set_setting(self, name: str | bytes, value: Setting) -> None:
        """Sets a setting, replacing any value under `name`: an int (64-bit),
        a float (not NaN), a str or bytes. bool is refused (it would come back
        as an int)."""
        c_name = text(name, "name")
        if isinstance(value, bool):
            raise TypeError("a bool setting would read back as int: store int(value)")
        if isinstance(value, int):
            self._call("encore_store_set_setting_int64", c_name, checked_int(value, 64, "value"))
        elif isinstance(value, float):
            if math.isnan(value):
                raise ValueError("a setting must not be NaN")
            self._call("encore_store_set_setting_double", c_name, value)
        elif isinstance(value, str):
            self._call("encore_store_set_setting_text", c_name, text(value, "value"))
        elif isinstance(value, (bytes, bytearray, memoryview)):
            data = bytes(value)
            self._call("encore_store_set_setting_blob", c_name, uint8_pointer(data), len(data))
        else:
            raise TypeError(f"a setting is int, float, str or bytes, not {type(value).__name__}")

    _MISSING = object()

    @overload
    def get_setting(self, name: str | bytes) -> Setting: ...

    @overload
    def get_setting(self, name: str | bytes, default: _D) -> Setting | _D: ...

    def get_setting(self, name: str | bytes, default: object = _MISSING) -> object:
        """The value under `name` as int, float, str or bytes. When there is
        none: `default` if given, else NotFoundError."""
        getters: dict[str, Callable[[str | bytes], Setting]] = {"integer": self.get_int, "double": self.get_float,
                                                                "text": self.get_text, "blob": self.get_bytes}
        for attempt in range(3):  # another thread may change the type between the two calls
            kind = self.setting_type(name)
            if kind is None:
                break
            try:
                return getters[kind](name)
            except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
                break
            except errors.BY_STATUS[_ffi.ENCORE_ERR_INVALID_ARGUMENT]:
                if attempt == 2:
                    raise
        if default is self._MISSING:
            # The library's NotFoundError, with its message (the last failure on this thread).
            raise errors.error_for(_ffi.ENCORE_ERR_NOT_FOUND)
        return default

    def get_int(self, name: str | bytes) -> int:
        """The integer setting `name`: InvalidArgumentError (naming the
        stored type) when it has another type, NotFoundError when missing."""
        value = ctypes.c_int64()
        self._call("encore_store_get_setting_int64", text(name, "name"), ctypes.byref(value))
        return value.value

    def get_float(self, name: str | bytes) -> float:
        """The float setting `name` (errors as get_int)."""
        value = ctypes.c_double()
        self._call("encore_store_get_setting_double", text(name, "name"), ctypes.byref(value))
        return value.value

    def get_text(self, name: str | bytes) -> str:
        """The text setting `name` (errors as get_int)."""
        value = _ffi.encore_bytes()
        self._call("encore_store_get_setting_text", text(name, "name"), ctypes.byref(value))
        return _take_bytes(value).decode("utf-8")

    def get_bytes(self, name: str | bytes) -> bytes:
        """The bytes setting `name` (errors as get_int)."""
        value = _ffi.encore_bytes()
        self._call("encore_store_get_setting_blob", text(name, "name"), ctypes.byref(value))
        return _take_bytes(value)

    def setting_type(self, name: str | bytes) -> str | None:
        """"integer", "double", "text" or "blob"; None when there is no such setting."""
        kind = ctypes.c_int32()
        try:
            self._call("encore_store_get_setting_type", text(name, "name"), ctypes.byref(kind))
        except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
            return None
        return SETTING_TYPES.get(kind.value, f"unknown ({kind.value})")

    def delete_setting(self, name: str | bytes) -> bool:
        """Deletes a setting; False when there was none."""
        deleted = ctypes.c_int32()
        self._call("encore_store_delete_setting", text(name, "name"), ctypes.byref(deleted))
        return deleted.value == 1

    def settings(self) -> list[str]:
        """The names of all settings, in byte order."""
        out = ctypes.POINTER(_ffi.encore_string_list)()
        self._call("encore_store_list_settings", ctypes.byref(out))
        return _take_list(out)


__all__ = ["Store", "DEFAULT_RETENTION", "SETTING_TYPES"]
