"""The Exposure Notification key schedule (ENF v1.2): TEK -> RPIK -> RPIs,
TEK -> AEMK -> AEM. Byte-exact with Apple's and Google's frameworks."""
from __future__ import annotations

import ctypes
from typing import Any

from . import errors  # noqa: F401  (errors installs the status checks)
from ._cdata import uint8_pointer
from ._loader import lib


def _derive(function: Any, key: bytes, size: int, *extra: int) -> bytes:
    key = bytes(key)
    out = (ctypes.c_uint8 * size)()
    function(uint8_pointer(key), len(key), *extra, out, size)
    return bytes(out)


def rpik(tek: bytes) -> bytes:
    """RPIK = HKDF-SHA256(TEK, no salt, "EN-RPIK", 16)."""
    return _derive(lib.encore_rpik_derive, tek, 16)


def aemk(tek: bytes) -> bytes:
    """AEMK = HKDF-SHA256(TEK, no salt, "EN-AEMK", 16)."""
    return _derive(lib.encore_aemk_derive, tek, 16)


def rpis(rpik_bytes: bytes, start_interval: int, count: int = 144) -> list[bytes]:
    """The RPIs of intervals start_interval ..< start_interval + count."""
    out = _derive(lib.encore_rpis_derive, rpik_bytes, 16 * count, start_interval, count)
    return [out[i:i + 16] for i in range(0, len(out), 16)]


def aem(aemk_bytes: bytes, rpi: bytes, metadata: bytes) -> bytes:
    """Encrypts (or, given an AEM, decrypts) up to 16 metadata bytes."""
    aemk_bytes, rpi, metadata = bytes(aemk_bytes), bytes(rpi), bytes(metadata)
    out = (ctypes.c_uint8 * max(len(metadata), 1))()
    lib.encore_aem_crypt(uint8_pointer(aemk_bytes), len(aemk_bytes), uint8_pointer(rpi), len(rpi),
                      uint8_pointer(metadata), len(metadata), out, len(metadata))
    return bytes(out)[:len(metadata)]
