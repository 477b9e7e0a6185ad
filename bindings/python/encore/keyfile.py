"""KeyFile: an opened, checked Exposure Notification key file."""
from __future__ import annotations

import contextlib
import ctypes
import os
import weakref
from collections.abc import Iterator
from typing import Any, Literal, Self, TypeAlias

from . import _cdata, _ffi, _progress, errors  # noqa: F401  (errors installs the status checks)
from ._progress import ProgressFn
from ._cdata import Path, checked_uint, text, uint8_pointer
from ._handle import Closeable, Handle
from ._loader import lib
from .records import Key, KeyFileInfo
from .trust import TrustList

# Keys copied per encore_keyfile_copy_keys call: big enough that the call
# overhead does not matter, small enough to stay a few kilobytes.
CHUNK = 256

# KeyFile.open(verify=...): True requires a trusted signature, False skips
# the check, "report" checks and reports it in info.signature_status.
Verify: TypeAlias = bool | Literal["report"]
_VERIFY_MODES: dict[Verify, int] = {True: _ffi.ENCORE_VERIFY_REQUIRE, False: _ffi.ENCORE_VERIFY_SKIP,
                                    "report": _ffi.ENCORE_VERIFY_REPORT}


def _options(trust_pointer: ctypes._Pointer[_ffi.encore_trust], verify: Verify, max_member_size: int | None,
             max_total_size: int | None, max_ratio: int | None) -> _ffi.encore_keyfile_options:
    options = _ffi.encore_keyfile_options()
    lib.encore_keyfile_options_init(ctypes.byref(options), ctypes.sizeof(options))
    if verify not in _VERIFY_MODES:
        raise ValueError(f"verify must be True, False or 'report', not {verify!r}")
    options.verify = _VERIFY_MODES[verify]
    options.trust = trust_pointer
    if max_member_size is not None:
        options.max_member_size = checked_uint(max_member_size, 64, "max_member_size")
    if max_total_size is not None:
        options.max_total_size = checked_uint(max_total_size, 64, "max_total_size")
    if max_ratio is not None:
        options.max_ratio = checked_uint(max_ratio, 32, "max_ratio")
    return options


def _open(source: Path | bytearray | memoryview,
          options: _ffi.encore_keyfile_options) -> ctypes._Pointer[_ffi.encore_keyfile]:
    """Calls the open function that fits `source`; returns the new handle pointer."""
    out = ctypes.POINTER(_ffi.encore_keyfile)()
    if isinstance(source, (bytes, bytearray, memoryview)):
        data = bytes(source)
        lib.encore_keyfile_open_bytes(uint8_pointer(data), len(data), ctypes.byref(options), ctypes.byref(out))
    elif isinstance(source, (str, os.PathLike)):
        path = text(os.fsencode(source), "path")
        lib.encore_keyfile_open_path(path, ctypes.byref(options), ctypes.byref(out))
    else:
        raise TypeError(f"open() needs a path or bytes, not {type(source).__name__}")
    return out


class KeyFile(Closeable):
    """An opened key file. Use KeyFile.open(); close() (or a with block) frees it.
    Immutable once open, so its methods may be called from several threads."""

    _handle: Handle[ctypes._Pointer[_ffi.encore_keyfile]]

    def __init__(self, pointer: ctypes._Pointer[_ffi.encore_keyfile]) -> None:
        self._handle = Handle(pointer, lib.encore_keyfile_free, "KeyFile")
        weakref.finalize(self, self._handle.close)
        info = _cdata.output(_ffi.encore_keyfile_info)
        with self._handle.borrow() as file:
            lib.encore_keyfile_get_info(file, ctypes.byref(info))
        self._info = KeyFileInfo.from_c(info)

    @classmethod
    def open(cls, source: Path | bytearray | memoryview, trust: TrustList | None = None, verify: Verify = True,
             max_member_size: int | None = None, max_total_size: int | None = None, max_ratio: int | None = None,
             progress: ProgressFn | None = None) -> Self:
        """Opens a key file from a path or from bytes. With verify (the default)
        the file must carry a signature by a key of `trust` (a TrustList);
        verify="report" checks it and reports it in info.signature_status
        without failing; verify=False skips the check.
        `progress(done, total)` may return False, or raise, to cancel."""
        if trust is not None and not isinstance(trust, TrustList):
            raise TypeError(f"trust must be a TrustList or None, not {type(trust).__name__}")
        # Borrowed so that another thread's trust.close() cannot free it mid-call.
        no_trust = contextlib.nullcontext(ctypes.POINTER(_ffi.encore_trust)())
        with (trust._handle.borrow() if trust is not None else no_trust) as trust_pointer:
            options = _options(trust_pointer, verify, max_member_size, max_total_size, max_ratio)
            watcher = _progress.attach(options, progress)
            with _progress.reraising(watcher):
                pointer = _open(source, options)
        if watcher is not None and watcher.error is not None:
            # The callback raised but the library finished anyway: the caller
            # must still see the exception, and the handle must not leak.
            lib.encore_keyfile_free(pointer)
            watcher.reraise()
        return cls(pointer)

    @property
    def info(self) -> KeyFileInfo:
        """The file's KeyFileInfo."""
        if self._handle.closed:
            raise ValueError("KeyFile is closed")
        return self._info

    def keys(self, revised: bool = False) -> Iterator[Key]:
        """Yields the valid keys (or revised keys) as Key values, copying them
        out of the library CHUNK at a time."""
        which = _ffi.ENCORE_REVISED_KEYS if revised else _ffi.ENCORE_KEYS

        def copy(*page: Any) -> None:
            with self._handle.borrow() as file:
                lib.encore_keyfile_copy_keys(file, which, *page)
        yield from _cdata.copy_list(copy, _ffi.encore_key, Key.from_c, CHUNK)

    def __repr__(self) -> str:
        if self.closed:
            return "<KeyFile closed>"
        i = self._info
        return f"<KeyFile region={i.region!r} keys={i.key_count} signature={i.signature_status}>"

