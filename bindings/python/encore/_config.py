"""A configuration the library holds: CWA's, built into the library, or one
parsed from JSON (a dict, JSON text or bytes). RiskConfig and
CheckInRiskConfig are two of them."""
from __future__ import annotations

import ctypes
import json
import weakref
from collections.abc import Callable, Mapping
from typing import Any, ClassVar, Self

from . import errors  # noqa: F401  (errors installs the status checks)
from ._cdata import uint8_pointer
from ._handle import Closeable, Handle


class ParsedConfig(Closeable):
    """A configuration handle: cwa() for CWA's production parameters, or
    the constructor for JSON; a malformed one raises InvalidArgumentError
    naming the bad field. A subclass names its handle's C type and that
    type's three functions (built-in, from JSON, free)."""

    _c_type: ClassVar[type[ctypes.Structure]]
    # The C functions as the typed library has them; read through the class
    # (cls._c_free), as plain functions: ctypes functions bind no self.
    _c_new_cwa: ClassVar[Callable[..., object]]
    _c_new_json: ClassVar[Callable[..., object]]
    _c_free: ClassVar[Callable[..., object]]

    @classmethod
    def cwa(cls) -> Self:
        """CWA's production parameters, built into the library."""
        self = cls.__new__(cls)
        out = ctypes.POINTER(cls._c_type)()
        cls._c_new_cwa(ctypes.byref(out))
        self._adopt(out)
        return self

    def __init__(self, configuration: Mapping[str, Any] | str | bytes | bytearray) -> None:
        if isinstance(configuration, (bytes, bytearray)):
            data = bytes(configuration)
        elif isinstance(configuration, str):
            data = configuration.encode()
        else:
            data = json.dumps(configuration).encode()
        cls = type(self)
        out = ctypes.POINTER(cls._c_type)()
        cls._c_new_json(uint8_pointer(data), len(data), ctypes.byref(out))
        self._adopt(out)

    def _adopt(self, pointer: Any) -> None:
        self._handle = Handle(pointer, type(self)._c_free, type(self).__name__)
        weakref.finalize(self, self._handle.close)
