"""Network operations: a flow (a push registration, a test result poll)
as a state machine the host drives with its own I/O. The library makes the
requests and applies the answers; the host sends them however it likes:
blocking through a Transport (run), or on an asyncio loop with an async HTTP
client (run_async). next() and the feeds do one answer's work at most and
start no thread; heavy work (verifying and storing a sync's key file,
matching, the exposure check) is a separate ("compute", None) step, which run_async runs in the loop's executor so that
the loop never waits on it.

    op = push.register_operation(token, "ios")
    status = await op.run_async(httpx_client)
"""
from __future__ import annotations

import asyncio
import ctypes
import dataclasses
import json
import time as _time
from collections.abc import Callable, Iterable
from typing import Any, Generic, Literal, TypeAlias, TypeVar

from . import _cdata, _ffi, _progress, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import decoded, uint8_pointer
from ._handle import Closeable, Handle
from ._loader import lib
from ._cdata import take_bytes as _take_bytes
from .transport import Transport

_T = TypeVar("_T")
# What failed when no answer came (feed_failure).
Failure: TypeAlias = Literal["network", "timeout", "tls", "too-large", "cancelled"]
# next(): ("request", Request), ("wait", seconds), ("compute", None) or ("done", None).
Step: TypeAlias = tuple[str, "Request | float | None"]
FAILURES: dict[str, int] = {"network": _ffi.ENCORE_ERR_NETWORK, "timeout": _ffi.ENCORE_ERR_TIMEOUT,
                            "tls": _ffi.ENCORE_ERR_TLS, "too-large": _ffi.ENCORE_ERR_RESPONSE_TOO_LARGE,
                            "cancelled": _ffi.ENCORE_ERR_CANCELLED}


@dataclasses.dataclass(frozen=True)
class Request:
    """A request to perform; feed its answer with its id."""
    id: int
    method: str
    url: str
    headers: list[tuple[str, str]]
    body: bytes


class Operation(Closeable, Generic[_T]):
    """One network operation. next() says what to do: ("request", Request),
    ("wait", seconds), ("compute", None) (call compute(), on any thread) or
    ("done", None); feed_answer()/feed_failure() hand back what came;
    result() is the outcome (it raises the operation's error when it
    failed). Drive it from one thread (or one task) at a time.
    """

    _handle: Handle[ctypes._Pointer[_ffi.encore_operation]]

    def __init__(self, pointer: ctypes._Pointer[_ffi.encore_operation], result: Callable[[Operation[_T]], _T],
                 keep: object = None) -> None:
        self._handle = Handle(pointer, lib.encore_operation_free, "Operation")
        self._result = result  # reads the finished operation's result
        self._keep = keep      # what the operation's C strings came from

    def next(self, now: int | None = None) -> Step:
        """What to do now: ("request", Request), ("wait", seconds), ("compute", None) or ("done", None)."""
        step = _cdata.output(_ffi.encore_operation_step)
        self._handle.call(lib.encore_operation_next, _now(now), ctypes.byref(step))
        if step.kind == _ffi.ENCORE_STEP_DONE:
            return "done", None
        if step.kind == _ffi.ENCORE_STEP_WAIT:
            return "wait", step.wait_ms / 1000
        if step.kind == _ffi.ENCORE_STEP_COMPUTE:
            return "compute", None
        headers = [(decoded(step.headers[i].name, "header name"), decoded(step.headers[i].value, "header value"))
                   for i in range(step.header_count)]
        body = ctypes.string_at(step.body, step.body_length) if step.body_length else b""
        return "request", Request(step.request_id, decoded(step.method, "method"), decoded(step.url, "URL"), headers, body)

    def feed_answer(self, request_id: int, status: int, headers: Iterable[tuple[str, str]] = (), body: bytes = b"",
                    now: int | None = None) -> None:
        """Hands back the answer (HTTP status, headers, body) to a request."""
        keep = [(n.encode(), v.encode()) for n, v in headers]
        array = (_ffi.encore_http_header * max(len(keep), 1))(*[_ffi.encore_http_header(n, v) for n, v in keep])
        data = bytes(body)
        self._handle.call(lib.encore_operation_feed_answer, request_id, status, array if keep else None, len(keep),
                   uint8_pointer(data) if data else None, len(data), _now(now))

    def feed_failure(self, request_id: int, failure: Failure = "network", now: int | None = None) -> None:
        """Tells the operation that a request got no answer, and why."""
        if failure not in FAILURES:
            raise ValueError(f"failure is one of {sorted(FAILURES)}")
        self._handle.call(lib.encore_operation_feed_failure, request_id, FAILURES[failure], _now(now))

    def compute(self, now: int | None = None, progress: _progress.ProgressFn | None = None) -> None:
        """Runs the heavy work a ("compute", None) step announced, on this
        thread (any thread: the GIL is released while it runs). `progress`,
        a callable (done, total) -> bool, may cancel it by returning False
        (the operation then ends as cancelled); an exception it raises
        cancels it too and comes back out of this call."""
        watcher = _progress.Progress(progress) if progress is not None else None
        self._handle.call(lib.encore_operation_compute, _now(now), watcher.c_callback if watcher else _ffi.encore_progress_fn(), None)
        if watcher is not None:
            watcher.reraise()  # the cancellation it caused ended the operation

    def json(self) -> dict[str, Any]:
        """The finished operation's result as JSON (a dict)."""
        b = _ffi.encore_bytes()
        self._handle.call(lib.encore_operation_get_result_json, ctypes.byref(b))
        document: dict[str, Any] = json.loads(_take_bytes(b))
        return document

    def result(self) -> _T:
        """The finished operation's result (raises its error when it failed)."""
        self._handle.call(lib.encore_operation_get_status)
        return self._result(self)

    def run(self, transport: Transport, now: int | None = None) -> _T:
        """The blocking form, through an encore Transport on this thread."""
        with transport.borrow() as t:
            self._handle.call(lib.encore_operation_run, t, _now(now), _ffi.encore_progress_fn(), None)
        return self.result()

    async def run_async(self, session: Any, now: int | None = None) -> _T:
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
                assert isinstance(value, float)
                await asyncio.sleep(value)
                continue
            if kind == "compute":
                await asyncio.get_running_loop().run_in_executor(None, self.compute, clock)
                continue
            assert isinstance(value, Request)
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


async def _httpx(session: Any, r: Request) -> tuple[int, list[tuple[str, str]], bytes]:
    answer = await session.request(r.method, r.url, headers=r.headers, content=r.body)
    return answer.status_code, list(answer.headers.items()), answer.content


async def _aiohttp(session: Any, r: Request) -> tuple[int, list[tuple[str, str]], bytes]:
    async with session.request(r.method, r.url, headers=r.headers, data=r.body) as answer:
        return answer.status, list(answer.headers.items()), await answer.read()


def _network_errors(session: Any) -> tuple[type[BaseException], ...]:
    """The exceptions of the session's library that mean 'no answer'."""
    if hasattr(session, "build_request"):
        import httpx
        return (httpx.TransportError,)
    import aiohttp
    return (aiohttp.ClientError,)


def _now(now: int | None) -> int:
    return int(_time.time()) if now is None else now
