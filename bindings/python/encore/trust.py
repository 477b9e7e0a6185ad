"""TrustList: the public keys a key file's signature may be verified with."""
from __future__ import annotations

import ctypes
import weakref

from . import _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import text, uint8_pointer
from ._handle import Closeable, Handle
from ._loader import lib


class TrustList(Closeable):
    """A list of trusted ECDSA P-256 public keys, named by (key_id, key_version)
    as signatures name them. Safe to share between threads."""

    _handle: Handle[ctypes._Pointer[_ffi.encore_trust]]

    def __init__(self) -> None:
        out = ctypes.POINTER(_ffi.encore_trust)()
        lib.encore_trust_new(ctypes.byref(out))
        self._handle = Handle(out, lib.encore_trust_free, "TrustList")
        # Frees the list when it is garbage collected without close().
        weakref.finalize(self, self._handle.close)

    def add_key(self, key_id: str | bytes, key_version: str | bytes, key: str | bytes) -> None:
        """Trusts `key`, a SubjectPublicKeyInfo as PEM or base64 text (str or
        bytes) or DER bytes. Raises KeyFormatError for unusable key material."""
        material = key.encode("utf-8") if isinstance(key, str) else bytes(key)
        c_key_id, c_key_version = text(key_id, "key_id"), text(key_version, "key_version")
        with self._handle.borrow() as trust:
            lib.encore_trust_add_key(trust, c_key_id, c_key_version, uint8_pointer(material), len(material))

    def __len__(self) -> int:
        count = ctypes.c_size_t()
        with self._handle.borrow() as trust:
            lib.encore_trust_count(trust, ctypes.byref(count))
        return count.value

    def __repr__(self) -> str:
        return "<TrustList closed>" if self.closed else f"<TrustList of {len(self)} keys>"
