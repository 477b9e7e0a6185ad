"""CrowdNotifier (SwissCovid, NotifyMe): trace keys matched into a store,
and the authority's side (venue keys, QR codes, trace keys) for tests and
operators. Check-ins at CrowdNotifier venues go through CheckIns.add like
CWA's; CheckIns.add(..., private=True) keeps only the visit's ciphertexts
(what the SDKs keep), and its check-out needs the QR code again."""
from __future__ import annotations

import ctypes
from typing import TYPE_CHECKING, Literal, TypeAlias

from . import _cdata, _ffi, _progress, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import Text, text, uint8_pointer
from ._loader import lib
from ._records import (  # re-exported: the public names of the generated records
    TraceKeyMatchSummary as TraceKeyMatchSummary)
from ._cdata import take_bytes as _take_bytes

if TYPE_CHECKING:
    from ._progress import ProgressFn
    from .client import Client

# The two CrowdNotifier apps, whose QR codes and trace keys differ.
Kind: TypeAlias = Literal["swisscovid", "notifyme"]

KINDS = {"swisscovid": _ffi.ENCORE_CROWDNOTIFIER_SWISSCOVID, "notifyme": _ffi.ENCORE_CROWDNOTIFIER_NOTIFYME}


def match_trace_keys(client: Client, body: bytes, *, signature: Text, bundle_tag: Text | None = None,
                     threads: int = 0, progress: ProgressFn | None = None) -> TraceKeyMatchSummary:
    """Matches a body of GET /v3/traceKeys the caller fetched against the
    client's SwissCovid and NotifyMe visits at its time, verified as the
    sync verifies it: `signature` is the answer's Signature header (a JWT
    that must verify with the client's `crowdnotifier_key`, the backend's
    public key: PEM, base64 or DER, and whose content-hash must be the body's). `bundle_tag` is stored after the body.
    The matching runs on `threads` (0: one per core); `progress(done, total)`
    (trace keys of a day with visits, called from those threads one at a
    time) may return False to cancel: CancelledError, and nothing is stored."""
    body = bytes(body)
    s = _cdata.output(_ffi.encore_trace_key_match_summary)
    o = _ffi.encore_trace_key_match_options()
    lib.encore_trace_key_match_options_init(ctypes.byref(o), ctypes.sizeof(o))
    o.threads = threads
    watcher = _progress.attach(o, progress)
    with _progress.reraising(watcher):
        client._c.call(lib.encore_crowdnotifier_match_trace_keys_with_options, uint8_pointer(body), len(body), text(signature, "signature"),
            None if bundle_tag is None else text(bundle_tag, "bundle_tag"), ctypes.byref(o), ctypes.byref(s))
    return TraceKeyMatchSummary.from_c(s)


def bundle_tag(client: Client) -> str | None:
    """The bundle tag stored with the last trace-key body, None before the first."""
    b = _ffi.encore_bytes()
    try:
        client._c.call(lib.encore_crowdnotifier_get_bundle_tag, ctypes.byref(b))
    except errors.CLASSES["NotFoundError"]:
        return None
    return _take_bytes(b).decode()


def venue_kind(qr_code: Text) -> str:
    """"swisscovid" or "notifyme" for a CrowdNotifier QR code (the venue key checked)."""
    kind = ctypes.c_int32()
    lib.encore_crowdnotifier_get_venue_kind(text(qr_code, "qr_code"), ctypes.byref(kind))
    return {v: k for k, v in KINDS.items()}[kind.value]


def generate_keys() -> tuple[bytes, bytes]:
    """A new venue: (master secret, 32 bytes, keep it secret; public key, 96 bytes)."""
    secret, public = (ctypes.c_uint8 * 32)(), (ctypes.c_uint8 * 96)()
    lib.encore_crowdnotifier_keys_generate(secret, 32, public, 96)
    return bytes(secret), bytes(public)


def public_key(secret: bytes) -> bytes:
    """The venue's public key (96 bytes) of its master secret."""
    secret = bytes(secret)
    public = (ctypes.c_uint8 * 96)()
    lib.encore_crowdnotifier_derive_public_key(uint8_pointer(secret), len(secret), public, 96)
    return bytes(public)


def qr_code(public_key: bytes, name: Text, address: Text = "", *, start: int = 0, end: int = 0,
            kind: Kind = "swisscovid") -> str:
    """The venue's QR code text (start = end = 0: a permanent place)."""
    if kind not in KINDS:
        raise ValueError(f"kind is one of {sorted(KINDS)}")
    key = bytes(public_key)
    b = _ffi.encore_bytes()
    lib.encore_crowdnotifier_make_qr_code(KINDS[kind], text(name, "name"), text(address, "address"), start, end,
                                     uint8_pointer(key), len(key), ctypes.byref(b))
    return _take_bytes(b).decode()


def trace_keys(secret: bytes, qr_code: Text, start: int, end: int, message: Text = "", *,
               layout: Kind = "swisscovid") -> bytes:
    """The trace keys (a ProblematicEventWrapper's bytes) of the venue for [start, end]."""
    if layout not in KINDS:
        raise ValueError(f"layout is one of {sorted(KINDS)}")
    secret = bytes(secret)
    b = _ffi.encore_bytes()
    lib.encore_crowdnotifier_make_trace_keys(uint8_pointer(secret), len(secret), text(qr_code, "qr_code"), start, end,
                                        text(message, "message"), KINDS[layout], ctypes.byref(b))
    return _take_bytes(b)
