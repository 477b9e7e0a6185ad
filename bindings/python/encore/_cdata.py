"""Conversions of Python values to C arguments, refusing what C would
silently get wrong (truncated strings, wrapped integers)."""
from __future__ import annotations

import ctypes
import datetime as dt
from collections.abc import Callable, Iterator, Mapping, Sequence
import os
from typing import TypeAlias, TypeVar

from . import _ffi
from ._loader import lib

_S = TypeVar("_S", bound=ctypes.Structure)
_R = TypeVar("_R")
_K = TypeVar("_K")
_V = TypeVar("_V")

# Text the bindings pass to C: str (as UTF-8) or bytes.
Text: TypeAlias = str | bytes
# A file system path, as os.fsencode takes it.
Path: TypeAlias = str | bytes | os.PathLike[str] | os.PathLike[bytes]


def text(value: str | bytes, what: str) -> bytes:
    """A str (as UTF-8) or bytes as a NUL-terminated C string."""
    data = value.encode("utf-8") if isinstance(value, str) else value
    if not isinstance(data, bytes):
        raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")
    if b"\0" in data:
        # C would see only the part before the NUL.
        raise ValueError(f"{what} must not contain NUL characters")
    return data


def decoded(value: bytes | None, what: str) -> str:
    """A string the library gave (UTF-8), where C never gives NULL."""
    if value is None:
        raise ValueError(f"the library gave no {what}")
    return value.decode()


def uint8_pointer(data: bytes) -> ctypes._Pointer[ctypes.c_uint8]:
    """A `const uint8_t *` to the bytes of `data` without copying; the
    returned pointer object keeps `data` alive."""
    # ctypes.cast takes bytes (as c_void_p does), which typeshed does not say.
    return ctypes.cast(data, ctypes.POINTER(ctypes.c_uint8))  # type: ignore[arg-type]


def checked_int(value: int, bits: int, what: str) -> int:
    """`value` checked to be an int that fits a signed C integer of `bits`
    bits (ctypes would wrap it without a word); bool is refused."""
    limit = 1 << (bits - 1)
    if not isinstance(value, int) or isinstance(value, bool) or not -limit <= value < limit:
        raise ValueError(f"{what} must be an int from {-limit} to {limit - 1}, not {value!r}")
    return value


def checked_uint(value: int, bits: int, what: str) -> int:
    """`value` checked to be an int that fits an unsigned C integer of `bits` bits."""
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < 1 << bits:
        raise ValueError(f"{what} must be an int from 0 to {(1 << bits) - 1}, not {value!r}")
    return value


def fixed_bytes(value: bytes | bytearray | memoryview, size: int, what: str) -> bytes:
    """`value` checked to be bytes of exactly `size` (a C array's)."""
    data = bounded_bytes(value, size, what)
    if len(data) != size:
        raise ValueError(f"{what} must be {size} bytes, not {len(data)}")
    return data


def bounded_bytes(value: bytes | bytearray | memoryview, size: int, what: str) -> bytes:
    """`value` checked to be bytes of at most `size` (a C array's)."""
    if not isinstance(value, (bytes, bytearray, memoryview)):
        raise TypeError(f"{what} must be bytes, not {type(value).__name__}")
    data = bytes(value)
    if len(data) > size:
        raise ValueError(f"{what} is {len(data)} bytes; it holds at most {size}")
    return data


def take_bytes(b: _ffi.encore_bytes) -> bytes:
    """The bytes of a library-owned encore_bytes, which is freed."""
    try:
        return ctypes.string_at(b.data, b.length) if b.data else b""
    finally:
        lib.encore_bytes_free(ctypes.byref(b))


def take_text(b: _ffi.encore_bytes) -> str:
    """The UTF-8 text of a library-owned encore_bytes, which is freed."""
    return take_bytes(b).decode("utf-8")


def optional_text(value: bytes | None) -> str | None:
    """A C string the library may leave NULL, copied (it lives only as long as its handle)."""
    return value.decode("utf-8", "replace") if value is not None else None


def iso_date(seconds: int) -> str | None:
    """Unix seconds of a UTC midnight as "YYYY-MM-DD"; None when negative (no day)."""
    return None if seconds < 0 else dt.datetime.fromtimestamp(seconds, dt.timezone.utc).date().isoformat()


def known(names: Mapping[_K, _V], code: _K, what: str) -> _V:
    """The name of a code the bindings must know (a new one needs new bindings)."""
    if code not in names:
        raise ValueError(f"{what}: the library gave code {code!r}, which these bindings do not know")
    return names[code]


def output(struct_type: type[_S]) -> _S:
    """An output struct that may grow, with its struct_size set: the
    library writes only the fields of the size the bindings know."""
    value = struct_type()
    value.struct_size = ctypes.sizeof(struct_type)
    return value


# Every struct of the C API starts with struct_size (encore_bytes and the
# HTTP header pair aside): inputs and outputs alike carry the size the
# bindings know.
sized = output


def array_of(struct_type: type[_S], rows: Sequence[_S]) -> tuple[ctypes.Array[_S], int]:
    """(array, element_size) of an input array of `struct_type` structs,
    each with its struct_size set (a C array needs one slot even when empty)."""
    array = (struct_type * max(len(rows), 1))(*rows)
    for row in array:
        row.struct_size = ctypes.sizeof(struct_type)
    return array, ctypes.sizeof(struct_type)


# Items copied per call of a list's copy function.
CHUNK = 256


def copy_list(copy: Callable[..., object], struct_type: type[_S], convert: Callable[[_S], _R],
              chunk: int = CHUNK) -> Iterator[_R]:
    """Yields convert(item) for every item of a list, read in pages through
    a copy function of the one list idiom: copy(first, out, element_size,
    capacity, copied) with the caller's other arguments already bound."""
    buffer = (struct_type * chunk)()
    copied = ctypes.c_size_t()
    first = 0
    while True:
        copy(first, buffer, ctypes.sizeof(struct_type), chunk, ctypes.byref(copied))
        n = copied.value
        for i in range(n):
            yield convert(buffer[i])
        if n < chunk:
            return
        first += n
