"""Transports: what performs encore's requests to servers. The built-in one
(libcurl, TLS verification always on, redirects refused, answers capped), or
a Python callable (an app's own HTTP stack, or a test's)."""
from __future__ import annotations

import contextlib
import ctypes
import os
from collections.abc import Callable, Iterable
from typing import Self

from . import _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import decoded, text, uint8_pointer
from ._handle import Closeable, Handle
from ._loader import lib


# perform(method, url, headers, body) -> (status, headers, body): one HTTP
# exchange of a callback transport (Transport.callback).
PerformFn = Callable[[str, str, list[tuple[str, str]], bytes],
                     tuple[int, Iterable[tuple[str | bytes, str | bytes]], bytes]]


def _options(connect_timeout_ms: int | None, timeout_ms: int | None, max_response_bytes: int | None,
             ca_file: str | os.PathLike[str] | None,
             ca_dir: str | os.PathLike[str] | None) -> tuple[_ffi.encore_transport_options, list[bytes]]:
    """encore_transport_options, and the bytes its strings point to."""
    o = _ffi.encore_transport_options()
    lib.encore_transport_options_init(ctypes.byref(o), ctypes.sizeof(o))
    if connect_timeout_ms is not None:
        o.connect_timeout_ms = connect_timeout_ms
    if timeout_ms is not None:
        o.timeout_ms = timeout_ms
    if max_response_bytes is not None:
        o.max_response_bytes = max_response_bytes
    keep = []
    if ca_file is not None:
        keep.append(text(str(ca_file), "ca_file"))
        o.ca_file = keep[-1]
    if ca_dir is not None:
        keep.append(text(str(ca_dir), "ca_dir"))
        o.ca_dir = keep[-1]
    return o, keep


class Transport(Closeable):
    """A transport handle. Make one with Transport.curl() or
    Transport.callback(); close() (or a with block) releases it."""

    _handle: Handle[ctypes._Pointer[_ffi.encore_transport]]

    def __init__(self, pointer: ctypes._Pointer[_ffi.encore_transport], keep: object = None) -> None:
        self._handle = Handle(pointer, lib.encore_transport_free, "Transport")
        self._keep = keep  # the callback trampoline lives as long as the handle

    @classmethod
    def curl(cls, *, ca_file: str | os.PathLike[str] | None = None, ca_dir: str | os.PathLike[str] | None = None,
             timeout_ms: int | None = None, connect_timeout_ms: int | None = None,
             max_response_bytes: int | None = None) -> Self:
        """The built-in HTTPS transport; ca_file/ca_dir add trusted CAs."""
        o, _keep = _options(connect_timeout_ms, timeout_ms, max_response_bytes, ca_file, ca_dir)
        out = ctypes.POINTER(_ffi.encore_transport)()
        lib.encore_transport_new_curl(ctypes.byref(o), ctypes.byref(out))
        return cls(out)

    @classmethod
    def callback(cls, perform: PerformFn, *, timeout_ms: int | None = None, connect_timeout_ms: int | None = None,
                 max_response_bytes: int | None = None) -> Self:
        """A transport that calls perform(method, url, headers, body) for each
        request, headers a list of (name, value); it returns (status, headers,
        body), or raises (any exception) when no answer came."""
        if not callable(perform):
            raise TypeError("perform must be callable")
        o, _keep = _options(connect_timeout_ms, timeout_ms, max_response_bytes, None, None)

        def trampoline(context: int | None, request: ctypes._Pointer[_ffi.encore_http_request],
                       response: ctypes._Pointer[_ffi.encore_http_response]) -> int:
            r = request.contents
            try:
                headers = [(decoded(r.headers[i].name, "header name"), decoded(r.headers[i].value, "header value"))
                           for i in range(r.header_count)]
                body = ctypes.string_at(r.body, r.body_length) if r.body_length else b""
                status, answer_headers, answer_body = perform(decoded(r.method, "method"), decoded(r.url, "URL"),
                                                              headers, body)
                lib.encore_http_response_set_status(response, status)
                for name, value in answer_headers:
                    lib.encore_http_response_add_header(response, text(name, "name"), text(value, "value"))
                data = bytes(answer_body)
                if data:
                    lib.encore_http_response_append_body(response, uint8_pointer(data), len(data))
                return 0
            except BaseException:  # no answer: encore reports a network failure
                return 1

        c_fn = _ffi.encore_http_fn(trampoline)
        out = ctypes.POINTER(_ffi.encore_transport)()
        lib.encore_transport_new_callback(c_fn, None, ctypes.byref(o), ctypes.byref(out))
        return cls(out, keep=c_fn)

    def borrow(self) -> contextlib.AbstractContextManager[ctypes._Pointer[_ffi.encore_transport]]:
        """The transport pointer, not freed until the block ends."""
        return self._handle.borrow()
