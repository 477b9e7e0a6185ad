"""Finds libencore, binds it to the generated declarations and checks that
the library is the version the declarations were generated from."""
from __future__ import annotations

import ctypes
import ctypes.util
import os
import pathlib

from . import _ffi

# The library a wheel carries, next to this file (scripts/build-wheel.py).
_BUNDLED_LIBRARY = pathlib.Path(__file__).resolve().parent / "libencore.so"
# bindings/python/encore/_loader.py -> the repository root is three levels up.
_REPO_LIBRARY = pathlib.Path(__file__).resolve().parents[3] / "build/lib/libencore.so"


def _candidates() -> list[tuple[str, str]]:
    """Library paths to try: the one installed with the package, else the most explicit first."""
    if _BUNDLED_LIBRARY.exists():
        # An installed wheel uses its own library: it is the one this copy of
        # the package was built and tested with.
        return [("package", str(_BUNDLED_LIBRARY))]
    explicit = os.environ.get("ENCORE_LIBRARY")
    if explicit:
        # A library the user named is the only one tried: silently loading a
        # different one would hide the mistake.
        return [("ENCORE_LIBRARY", explicit)]
    found = [("repository build", str(_REPO_LIBRARY))] if _REPO_LIBRARY.exists() else []
    system = ctypes.util.find_library("encore")
    if system:
        found.append(("find_library", system))
    return found


def check_version(runtime_string: str, runtime_number: int, where: str = "libencore") -> None:
    """Raises ImportError unless the runtime version equals the header's macros."""
    expected = _ffi.ENCORE_VERSION_MAJOR * 10000 + _ffi.ENCORE_VERSION_MINOR * 100 + _ffi.ENCORE_VERSION_PATCH
    if runtime_number != expected or runtime_string != _ffi.ENCORE_VERSION_STRING:
        raise ImportError(
            f"{where} is version {runtime_string} ({runtime_number}) but the encore bindings were generated "
            f"from encore.h {_ffi.ENCORE_VERSION_STRING} ({expected}); point ENCORE_LIBRARY at the matching "
            "library or regenerate the bindings (python3 bindings/python/gen_ffi.py)")


def load() -> _ffi.Library:
    """The library, bound to the header's declarations (ImportError when none loads)."""
    candidates = _candidates()
    if not candidates:
        raise ImportError(
            "libencore not found: set ENCORE_LIBRARY to the path of libencore.so, run `make lib` "
            f"(which builds {_REPO_LIBRARY}), or install it where the dynamic loader finds it")
    errors = []
    for source, path in candidates:
        try:
            lib = ctypes.CDLL(path)
        except OSError as e:
            errors.append(f"{source}: {e}")
            continue
        bound = _ffi.bind(lib)
        check_version((bound.encore_version() or b"").decode(), bound.encore_version_number(), path)
        return bound
    raise ImportError("libencore could not be loaded: " + "; ".join(errors))


lib = load()
