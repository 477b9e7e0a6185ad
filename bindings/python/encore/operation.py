"""Network operations: a flow (a push registration, a test result poll)
as a state machine the host drives with its own I/O. The library makes the
requests and applies the answers; the host sends them however it likes:
blocking through a Transport (run), or on an asyncio loop with an async HTTP
client (run_async), on one thread.

    op = push.register_operation(token, "ios")
    status = await op.run_async(httpx_client)
"""
from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import json
import time as _time

from . import _cdata, _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import uint8_pointer
from ._handle import Closeable, Handle
from ._loader import lib
from .store import _take_bytes

FAILURES = {"network": _ffi.ENCORE_ERR_NETWORK, "timeout": _ffi.ENCORE_ERR_TIMEOUT, "tls": _ffi.ENCORE_ERR_TLS,
            "too-large": _ffi.ENCORE_ERR_RESPONSE_TOO_LARGE, "cancelled": _ffi.ENCORE_ERR_CANCELLED}


@dataclasses.dataclass(frozen=True)
class Request:
    """A request to perform; feed its answer with its id."""
    id: int
    method: str
    url: str
    headers: list
    body: bytes


class Operation(Closeable):
    """One network operation. next() says what to do: ("request", Request),
    ("wait", seconds) or ("done", None); feed_answer()/feed_failure() hand
    back what came; result() is the outcome (it raises the operation's
    error when it failed). Drive it from one thread (or one task) at a time.
    """

    def __init__(self, pointer, result, keep=None):
        self._handle = Handle(pointer, lib.encore_operation_free, "Operation")
        self._result = result  # reads the finished operation's result
        self._keep = keep      # what the operation's C strings came from

    def _call(self, name, *args):
        with self._handle.borrow() as op:
            return getattr(lib, name)(op, *args)

    def next(self, now=None):
        step = _cdata.output(_ffi.encore_operation_step)
        self._call("encore_operation_next", _now(now), ctypes.byref(step))
        if step.kind == _ffi.ENCORE_STEP_DONE:
            return "done", None
        if step.kind == _ffi.ENCORE_STEP_WAIT:
            return "wait", step.wait_ms / 1000
        headers = [(step.headers[i].name.decode(), step.headers[i].value.decode()) for i in range(step.header_count)]
        body = ctypes.string_at(step.body, step.body_length) if step.body_length else b""
        return "request", Request(step.request_id, step.method.decode(), step.url.decode(), headers, body)

    def feed_answer(self, request_id, status, headers=(), body=b"", now=None):
        keep = [(n.encode(), v.encode()) for n, v in headers]
        array = (_ffi.encore_http_header * max(len(keep), 1))(*[_ffi.encore_http_header(n, v) for n, v in keep])
        data = bytes(body)
        self._call("encore_operation_feed_answer", request_id, status, array if keep else None, len(keep),
                   uint8_pointer(data) if data else None, len(data), _now(now))

    def feed_failure(self, request_id, failure="network", now=None):
        if failure not in FAILURES:
            raise ValueError(f"failure is one of {sorted(FAILURES)}")
        self._call("encore_operation_feed_failure", request_id, FAILURES[failure], _now(now))

    def json(self):
        """The finished operation's result as JSON (a dict)."""
        b = _ffi.encore_bytes()
        self._call("encore_operation_get_result_json", ctypes.byref(b))
        return json.loads(_take_bytes(b))

    def result(self):
        """The finished operation's result (raises its error when it failed)."""
        self._call("encore_operation_get_status")
        return self._result(self)

    def run(self, transport, now=None):
        """The blocking form, through an encore Transport on this thread."""
        with transport.borrow() as t:
            self._call("encore_operation_run", t, _now(now), None, None)
        return self.result()

    async def run_async(self, session, now=None):
        """Drives the operation on the running asyncio loop with `session`,
        an httpx.AsyncClient or an aiohttp.ClientSession. Time is `now`
        plus what the monotonic clock says has passed."""
        start, began = _now(now), _time.monotonic()
        perform = _httpx if hasattr(session, "build_request") else _aiohttp
        while True:
            clock = start + int(_time.monotonic() - began)
            kind, value = self.next(clock)
            if kind == "done":
                return self.result()
            if kind == "wait":
                await asyncio.sleep(value)
                continue
            try:
                status, headers, body = await perform(session, value)
            except asyncio.TimeoutError:
                self.feed_failure(value.id, "timeout", start + int(_time.monotonic() - began))
                continue
            except _network_errors(session) as e:
                self.feed_failure(value.id, "timeout" if "Timeout" in type(e).__name__ else "network",
                                  start + int(_time.monotonic() - began))
                continue
            self.feed_answer(value.id, status, headers, body, start + int(_time.monotonic() - began))


async def _httpx(session, r):
    answer = await session.request(r.method, r.url, headers=r.headers, content=r.body)
    return answer.status_code, list(answer.headers.items()), answer.content


async def _aiohttp(session, r):
    async with session.request(r.method, r.url, headers=r.headers, data=r.body) as answer:
        return answer.status, list(answer.headers.items()), await answer.read()


def _network_errors(session):
    """The exceptions of the session's library that mean 'no answer'."""
    if hasattr(session, "build_request"):
        import httpx
        return (httpx.TransportError,)
    import aiohttp
    return (aiohttp.ClientError,)


def _now(now):
    return int(_time.time()) if now is None else now
