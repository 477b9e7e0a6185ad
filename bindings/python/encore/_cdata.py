"""Conversions of Python values to C arguments, refusing what C would
silently get wrong (truncated strings, wrapped integers)."""
import ctypes


def text(value, what):
    """A str (as UTF-8) or bytes as a NUL-terminated C string."""
    data = value.encode("utf-8") if isinstance(value, str) else value
    if not isinstance(data, bytes):
        raise TypeError(f"{what} must be str or bytes, not {type(value).__name__}")
    if b"\0" in data:
        # C would see only the part before the NUL.
        raise ValueError(f"{what} must not contain NUL characters")
    return data


def uint8_pointer(data):
    """A `const uint8_t *` to the bytes of `data` without copying; the
    returned pointer object keeps `data` alive."""
    return ctypes.cast(data, ctypes.POINTER(ctypes.c_uint8))


def unsigned(value, ctype, what):
    """`value` checked to fit the unsigned ctypes type `ctype` (ctypes would
    wrap negatives and truncate large numbers without a word)."""
    limit = 1 << (8 * ctypes.sizeof(ctype))
    if not isinstance(value, int) or isinstance(value, bool) or not 0 <= value < limit:
        raise ValueError(f"{what} must be an int from 0 to {limit - 1}, not {value!r}")
    return value


def output(struct_type):
    """An output struct that may grow, with its struct_size set: the
    library writes only the fields of the size the bindings know."""
    value = struct_type()
    value.struct_size = ctypes.sizeof(struct_type)
    return value
