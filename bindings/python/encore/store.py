"""Store: the client's encrypted state, one SQLCipher database file. The
store itself keeps maintenance (rekey, schema version, integrity, purge)
and the host's settings; its tables are features of an encore.Client
(client.sightings, client.own_keys, client.keyfiles, ...)."""
from __future__ import annotations

import ctypes
import json
import math
import os
import time as _time
import weakref
from typing import Any, Self, TypeAlias, TypeVar, overload

from . import _ffi, errors
from ._cdata import Path, checked_int, copy_list, sized, take_bytes as _take_bytes, text, uint8_pointer
from ._handle import Closeable, Handle
from ._loader import lib
from .records import PurgeCounts

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
_SETTING_OF: dict[type, int] = {int: _ffi.ENCORE_SETTING_INTEGER, float: _ffi.ENCORE_SETTING_DOUBLE,
                                str: _ffi.ENCORE_SETTING_TEXT, bytes: _ffi.ENCORE_SETTING_BLOB}


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
    closes the database: every Client made on it then raises
    StoreClosedError. Safe to share between threads: the library serialises
    calls. Its tables are reached through a Client (encore.Client(store)).

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
        is not a store StoreNotDatabaseError, a damaged store
        StoreCorruptError, a missing file with create=False and an empty file
        (always) StoreMissingError; the file is not modified then."""
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


    def rekey(self, passphrase: str | bytes | None = None, *, raw_key: bytes | None = None) -> None:
        """Re-encrypts the store under a new passphrase or raw key."""
        key, _keep = _store_key(passphrase, raw_key, "Store.rekey")
        self._handle.call(lib.encore_store_rekey, ctypes.byref(key))

    @property
    def schema_version(self) -> int:
        """The version of the store's database schema."""
        version = ctypes.c_uint32()
        self._handle.call(lib.encore_store_get_schema_version, ctypes.byref(version))
        return version.value

    def check_integrity(self) -> None:
        """Checks the store for damage (every table read row by row, then
        SQLite's integrity check): returns when the store is sound, raises
        StoreCorruptError with what is damaged, in words, otherwise."""
        self._handle.call(lib.encore_store_check_integrity)

    @staticmethod
    def salvage(path: Path, to: Path, passphrase: str | bytes | None = None, *, raw_key: bytes | None = None,
                new_passphrase: str | bytes | None = None, new_raw_key: bytes | None = None) -> dict[str, Any]:
        """Copies every row that can still be read of the (damaged) store at
        `path` into a new store at `to` (which must not exist), under the
        new key when one is given, else the same key; `path` is only read.
        Returns the report: {"complete", "rowsCopied", "tables": [{"name",
        "complete", "copied", "refused", "unreadable": [{"from", "to"}],
        "lostAtMost", "note"}]} (encore_store_salvage)."""
        key, _keep = _store_key(passphrase, raw_key, "Store.salvage")
        if new_passphrase is None and new_raw_key is None:
            new_key, _keep_new = key, _keep
        else:
            new_key, _keep_new = _store_key(new_passphrase, new_raw_key, "Store.salvage (new key)")
        report = _ffi.encore_bytes()
        lib.encore_store_salvage(text(os.fsencode(path), "path"), ctypes.byref(key), text(os.fsencode(to), "to"),
                                 ctypes.byref(new_key), ctypes.byref(report))
        result: dict[str, Any] = json.loads(_take_bytes(report))
        return result

    def purge(self, now: int | None = None, max_age: int = DEFAULT_RETENTION) -> PurgeCounts:
        """Deletes what is older than now - max_age (default 14 days) from
        every table, keeping the settings, the newest risk result and the
        tracing state at the cut-off. Returns PurgeCounts."""
        now = int(_time.time()) if now is None else now
        counts = sized(_ffi.encore_purge_counts)
        self._handle.call(lib.encore_store_purge, checked_int(now, 64, "now"), checked_int(max_age, 64, "max_age"),
                   ctypes.byref(counts))
        return PurgeCounts.from_c(counts)

    # ---- settings ---------------------------------------------------------

    def set_setting(self, name: str | bytes, value: Setting) -> None:
        """Sets a setting, replacing any value under `name`: an int (64-bit),
        a float (not NaN), a str or bytes. bool is refused (it would come back
        as an int)."""
        c_name = text(name, "name")
        v = sized(_ffi.encore_setting_value)
        keep = b""
        if isinstance(value, bool):
            raise TypeError("a bool setting would read back as int: store int(value)")
        if isinstance(value, int):
            v.type, v.integer = _ffi.ENCORE_SETTING_INTEGER, checked_int(value, 64, "value")
        elif isinstance(value, float):
            if math.isnan(value):
                raise ValueError("a setting must not be NaN")
            v.type, v.real = _ffi.ENCORE_SETTING_DOUBLE, value
        elif isinstance(value, str):
            keep = value.encode("utf-8")
            v.type = _ffi.ENCORE_SETTING_TEXT
        elif isinstance(value, (bytes, bytearray, memoryview)):
            keep = bytes(value)
            v.type = _ffi.ENCORE_SETTING_BLOB
        else:
            raise TypeError(f"a setting is int, float, str or bytes, not {type(value).__name__}")
        v.data, v.length = uint8_pointer(keep), len(keep)
        self._handle.call(lib.encore_store_set_setting, c_name, ctypes.byref(v))

    _MISSING = object()

    @overload
    def get_setting(self, name: str | bytes) -> Setting: ...

    @overload
    def get_setting(self, name: str | bytes, default: _D) -> Setting | _D: ...

    def get_setting(self, name: str | bytes, default: object = _MISSING) -> object:
        """The value under `name` as int, float, str or bytes. When there is
        none: `default` if given, else NotFoundError."""
        value = self._setting(name, default is self._MISSING)
        return default if value is None else value

    def _setting(self, name: str | bytes, required: bool) -> Setting | None:
        v = sized(_ffi.encore_setting_value)
        b = _ffi.encore_bytes()
        try:
            self._handle.call(lib.encore_store_get_setting, text(name, "name"), ctypes.byref(v), ctypes.byref(b))
        except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
            if required:
                raise
            return None
        data = _take_bytes(b)
        if v.type == _ffi.ENCORE_SETTING_INTEGER:
            return int(v.integer)
        if v.type == _ffi.ENCORE_SETTING_DOUBLE:
            return float(v.real)
        return data.decode("utf-8") if v.type == _ffi.ENCORE_SETTING_TEXT else data

    def _typed(self, name: str | bytes, kind: type[_R]) -> _R:
        value = self._setting(name, True)
        if not isinstance(value, kind) or isinstance(value, bool):
            stored = SETTING_TYPES.get(_SETTING_OF.get(type(value), 0), type(value).__name__)
            raise errors.BY_STATUS[_ffi.ENCORE_ERR_INVALID_ARGUMENT](_ffi.ENCORE_ERR_INVALID_ARGUMENT, f"setting {name!r} is {stored}, not {kind.__name__}")
        return value

    def get_int(self, name: str | bytes) -> int:
        """The integer setting `name`: InvalidArgumentError (naming the
        stored type) when it has another type, NotFoundError when missing."""
        return self._typed(name, int)

    def get_float(self, name: str | bytes) -> float:
        """The float setting `name` (errors as get_int)."""
        return self._typed(name, float)

    def get_text(self, name: str | bytes) -> str:
        """The text setting `name` (errors as get_int)."""
        return self._typed(name, str)

    def get_bytes(self, name: str | bytes) -> bytes:
        """The bytes setting `name` (errors as get_int)."""
        return self._typed(name, bytes)

    def setting_type(self, name: str | bytes) -> str | None:
        """"integer", "double", "text" or "blob"; None when there is no such setting."""
        v = sized(_ffi.encore_setting_value)
        try:
            self._handle.call(lib.encore_store_get_setting, text(name, "name"), ctypes.byref(v), None)
        except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
            return None
        return SETTING_TYPES.get(v.type, f"unknown ({v.type})")

    def delete_setting(self, name: str | bytes) -> bool:
        """Deletes a setting; False when there was none."""
        deleted = ctypes.c_int32()
        self._handle.call(lib.encore_store_delete_setting, text(name, "name"), ctypes.byref(deleted))
        return deleted.value == 1

    def settings(self) -> list[str]:
        """The names of all settings, in byte order."""
        out = ctypes.POINTER(_ffi.encore_string_list)()
        self._handle.call(lib.encore_store_list_settings, ctypes.byref(out))
        return _take_list(out)


__all__ = ["Store", "DEFAULT_RETENTION", "SETTING_TYPES"]
