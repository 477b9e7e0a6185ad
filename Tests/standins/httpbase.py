"""The HTTP machinery every stand-in shares: a loopback server on a free port
in a background thread, a thread-safe record of every request, and fault
injection. A concrete server only says what to answer (`handle`), as a pure
function of its model and the request; faults are applied around that.

Faults are registered per path (exact, or as a prefix) and are one-shot by
default (`times=1`), n-shot, or persistent (`times=None`). Several faults on
one path are used first-registered first.
"""

import json
import socket
import struct
import threading
import time
import traceback
from dataclasses import dataclass, field
from email.utils import formatdate
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import parse_qs, urlsplit

DEFAULT_MAX_BODY = 10 * 1024 * 1024
GARBAGE = b"\x00\xff\xfe this is not what you asked for \x00\x01\x02"


@dataclass
class Response:
    status: int
    body: bytes = b""
    headers: list = field(default_factory=list)  # [(name, value)], order kept
    delay: float = 0.0  # seconds to wait before answering (cwa-fake jitter)

    @classmethod
    def json(cls, status, obj, headers=(), delay=0.0):
        return cls(status, json.dumps(obj, separators=(",", ":")).encode(),
                   [("Content-Type", "application/json")] + list(headers), delay)

    def header(self, name):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return None


@dataclass
class RecordedRequest:
    method: str
    target: str  # as sent: path plus query
    path: str
    query: dict  # name -> [values]
    headers: list  # [(name, value)] as received, order kept
    body: bytes
    time: float  # arrival, time.time()
    head: bytes  # request line + header lines + blank line, as received
    client: tuple
    status: int = None  # what was answered (None: no answer, e.g. dropped)
    fault: str = None  # which fault was applied, if any
    violations: list = field(default_factory=list)  # client-behaviour rules broken
    decoded: object = None  # what the app made of the body (JSON, protobuf)
    notes: dict = field(default_factory=dict)  # app-specific facts (e.g. rejected rule)
    done: bool = False  # answered, refused or dropped

    @property
    def head_size(self):
        return len(self.head)

    def header(self, name, default=None):
        for k, v in self.headers:
            if k.lower() == name.lower():
                return v
        return default

    def has_header(self, name):
        return any(k.lower() == name.lower() for k, _ in self.headers)

    def json(self):
        return json.loads(self.body)


@dataclass
class Fault:
    path: str
    prefix: bool = False
    times: int = 1  # None = persistent
    status: int = None
    delay: float = 0.0
    drop: object = False  # True: close (FIN) without answering; "reset": RST
    oversized: int = None  # answer 200 with a body of this many bytes, streamed
    malformed: bytes = None  # replace the body
    truncate: int = None  # declare the full length, send this many bytes, close
    tamper: object = False  # True: flip one body byte; or callable(bytes) -> bytes
    omit_headers: tuple = ()
    headers: dict = None  # extra/overriding answer headers
    process: bool = None  # let the app run (change state) first; default: see _runs_app
    hits: int = 0

    def matches(self, path):
        return path.startswith(self.path) if self.prefix else path == self.path

    def describe(self):
        parts = [k for k in ("drop", "oversized", "malformed", "truncate", "tamper")
                 if getattr(self, k) not in (None, False)]
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.delay:
            parts.append(f"delay={self.delay}")
        if self.omit_headers:
            parts.append("omit=" + ",".join(self.omit_headers))
        return " ".join(parts) or "none"

    def _runs_app(self):
        # An injected error status or a dropped request stands for a server
        # that never processed it; the other faults damage a real answer.
        if self.process is not None:
            return self.process
        return self.status is None and not self.drop


class _CountingReader:
    """Wraps the socket reader so the request head can be kept byte-exact
    (tests compare the head sizes of real and fake requests)."""

    def __init__(self, raw):
        self.raw = raw
        self.head = bytearray()

    def readline(self, limit=-1):
        line = self.raw.readline(limit)
        self.head += line
        return line

    def read(self, n=-1):
        return self.raw.read(n)

    def __getattr__(self, name):
        return getattr(self.raw, name)


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "standin"

    def setup(self):
        super().setup()
        self.rfile = _CountingReader(self.rfile)
        self.server.standin._track(self.connection, True)

    def finish(self):
        try:
            super().finish()
        finally:
            self.server.standin._track(self.connection, False)

    def handle_one_request(self):
        self.rfile.head = bytearray()
        super().handle_one_request()

    def log_message(self, *args):  # keep test output clean
        pass

    def _any(self):
        self.server.standin._serve(self)

    do_GET = do_POST = do_PUT = do_DELETE = do_HEAD = do_PATCH = do_OPTIONS = _any


class StandinServer:
    """Base class. Subclasses implement `handle(req) -> Response` and may
    override `max_request_body(path)`."""

    def __init__(self, host="127.0.0.1", port=0):
        self._addr = (host, port)
        self._httpd = None
        self._thread = None
        self._lock = threading.RLock()
        self._requests = []
        self._faults = []
        self._conns = set()
        self._stopping = threading.Event()
        self._arrived = threading.Condition(self._lock)
        self.date_offset = 0.0  # seconds added to the Date header (clock skew)
        self.tls_context = None  # an ssl.SSLContext set before start(): serve HTTPS
        self.errors = []  # (method, path, traceback) of exceptions in handle()

    # --- life cycle ---------------------------------------------------------
    def start(self):
        if self._httpd is None:
            self._stopping.clear()
            self._httpd = ThreadingHTTPServer(self._addr, _Handler)
            self._httpd.daemon_threads = True
            self._httpd.standin = self
            if self.tls_context is not None:
                self._httpd.socket = self.tls_context.wrap_socket(self._httpd.socket, server_side=True)
            self._thread = threading.Thread(target=self._httpd.serve_forever,
                                            kwargs={"poll_interval": 0.05}, daemon=True,
                                            name=type(self).__name__)
            self._thread.start()
        return self

    def stop(self):
        if self._httpd is None:
            return
        self._stopping.set()
        self._httpd.shutdown()
        self._httpd.server_close()
        with self._lock:
            conns = list(self._conns)
        for c in conns:  # wake clients still waiting on a slow or streamed answer
            try:
                c.shutdown(socket.SHUT_RDWR)
            except OSError:
                pass
        self._thread.join(5)
        self._httpd = None

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    @property
    def port(self):
        if self._httpd is None:
            raise RuntimeError("server not started")
        return self._httpd.server_address[1]

    @property
    def url(self):
        return f"{'https' if self.tls_context else 'http'}://127.0.0.1:{self.port}"

    # --- recorded requests ----------------------------------------------------
    @property
    def requests(self):
        with self._lock:
            return list(self._requests)

    def requests_to(self, path, prefix=False):
        return [r for r in self.requests if (r.path.startswith(path) if prefix else r.path == path)]

    def clear_requests(self):
        with self._lock:
            self._requests.clear()

    def wait_for_requests(self, count, timeout=5.0, path=None):
        """Block until `count` requests (to `path`, if given) were answered
        or dropped; returns them."""
        deadline = time.monotonic() + timeout
        with self._arrived:
            while True:
                done = [r for r in self._requests if r.done]
                if path is not None:
                    done = [r for r in done if r.path == path]
                if len(done) >= count:
                    return done
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"{len(done)} of {count} requests arrived")
                self._arrived.wait(left)

    def head_sizes(self, path=None):
        """{path: sorted distinct request-head sizes}. With CWA's header
        padding done right, real and fake requests have one head size."""
        out = {}
        for r in self.requests:
            if path is None or r.path == path:
                out.setdefault(r.path, set()).add(r.head_size)
        return {p: sorted(s) for p, s in out.items()}

    @property
    def violations(self):
        return [(r.method, r.path, v) for r in self.requests for v in r.violations]

    def assert_no_violations(self):
        v = self.violations
        assert not v, f"client broke protocol rules: {v}"

    # --- faults -----------------------------------------------------------
    def inject(self, path, *, status=None, delay=0.0, drop=False, oversized=None,
               malformed=None, truncate=None, tamper=False, omit_headers=(), headers=None,
               times=1, prefix=False, process=None):
        """Register a fault for `path` (or every path starting with it when
        `prefix`). `times=None` keeps it for good. Returns the Fault (its
        `hits` counts uses)."""
        if malformed is True:
            malformed = GARBAGE
        if isinstance(omit_headers, str):
            omit_headers = (omit_headers,)
        f = Fault(path=path, prefix=prefix, times=times, status=status, delay=delay, drop=drop,
                  oversized=oversized, malformed=malformed, truncate=truncate, tamper=tamper,
                  omit_headers=tuple(omit_headers), headers=headers, process=process)
        with self._lock:
            self._faults.append(f)
        return f

    def remove_fault(self, fault):
        with self._lock:
            if fault in self._faults:
                self._faults.remove(fault)

    def clear_faults(self):
        with self._lock:
            self._faults.clear()

    def _take_fault(self, path):
        with self._lock:
            for f in self._faults:
                if f.matches(path):
                    f.hits += 1
                    if f.times is not None and f.hits >= f.times:
                        self._faults.remove(f)
                    return f
        return None

    # --- for subclasses -----------------------------------------------------
    def handle(self, req):
        return Response(404)

    def max_request_body(self, path):
        return DEFAULT_MAX_BODY

    def http_date(self):
        return formatdate(time.time() + self.date_offset, usegmt=True)

    def sleep(self, seconds):
        """Sleep that ends early when the server stops."""
        if seconds > 0:
            self._stopping.wait(seconds)

    # --- internals ----------------------------------------------------------
    def _track(self, conn, add):
        with self._lock:
            (self._conns.add if add else self._conns.discard)(conn)

    def _serve(self, h):
        split = urlsplit(h.path)
        req = RecordedRequest(
            method=h.command, target=h.path, path=split.path,
            query=parse_qs(split.query, keep_blank_values=True),
            headers=list(h.headers.items()), body=b"", time=time.time(),
            head=bytes(h.rfile.head), client=h.client_address)
        with self._lock:
            self._requests.append(req)
        try:
            self._serve_recorded(h, req)
        finally:
            with self._arrived:
                req.done = True
                self._arrived.notify_all()

    def _serve_recorded(self, h, req):
        limit = self.max_request_body(req.path)
        length = h.headers.get("Content-Length")
        if length is not None and int(length) > limit:
            # Refuse before reading, as a real front end does; the rest of
            # the upload is not read, so the connection cannot be reused.
            req.notes["declared_length"] = int(length)
            h.close_connection = True
            self._write(h, req, Response(413), None)
            return
        req.body = self._read_body(h, limit)
        if req.body is None:
            req.body = b""
            h.close_connection = True
            self._write(h, req, Response(413), None)
            return

        fault = self._take_fault(req.path)
        if fault:
            req.fault = fault.describe()
            self.sleep(fault.delay)
        if fault and fault.drop:
            if fault._runs_app():
                self._handle_safely(req)
            self._drop(h, reset=fault.drop == "reset")
            return
        if fault is None or fault._runs_app():
            resp = self._handle_safely(req)
        else:
            resp = Response(fault.status)
        if fault and fault.status is not None:
            resp = Response(fault.status, b"", [], resp.delay if fault._runs_app() else 0.0)
        self.sleep(resp.delay)
        self._write(h, req, resp, fault)

    def _handle_safely(self, req):
        # A bug in a stand-in must show up as a 500 and in `errors`, not as
        # a dropped connection that looks like an injected fault.
        try:
            return self.handle(req)
        except Exception:
            req.notes["exception"] = traceback.format_exc()
            with self._lock:
                self.errors.append((req.method, req.path, req.notes["exception"]))
            return Response(500)

    def _read_body(self, h, limit):
        if h.headers.get("Transfer-Encoding", "").lower() == "chunked":
            out = bytearray()
            while True:
                size = int(h.rfile.readline().split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    while h.rfile.readline() not in (b"\r\n", b"\n", b""):
                        pass
                    return bytes(out)
                out += h.rfile.read(size)
                h.rfile.readline()
                if len(out) > limit:
                    return None
        length = int(h.headers.get("Content-Length") or 0)
        return h.rfile.read(length) if length else b""

    def _drop(self, h, reset=False):
        h.close_connection = True
        try:
            if reset:
                h.connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
                h.connection.close()
            else:
                h.connection.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _write(self, h, req, resp, fault):
        body = resp.body
        headers = [(k, v) for k, v in resp.headers if k.lower() not in ("content-length", "date")]
        if not any(k.lower() == "date" for k, _ in resp.headers):
            headers.append(("Date", self.http_date()))
        else:
            headers.append(("Date", resp.header("Date")))
        status = resp.status
        if fault:
            if fault.malformed is not None:
                body = fault.malformed
            if fault.tamper:
                body = fault.tamper(body) if callable(fault.tamper) else _flip(body)
            if fault.headers:
                names = {k.lower() for k in fault.headers}
                headers = [(k, v) for k, v in headers if k.lower() not in names]
                headers += list(fault.headers.items())
            if fault.oversized is not None:
                status = 200
            omit = {n.lower() for n in fault.omit_headers}
            headers = [(k, v) for k, v in headers if k.lower() not in omit]
        declared = len(body)
        if fault and fault.oversized is not None:
            declared = fault.oversized
        elif fault and fault.truncate is not None and not body:
            declared = 1024  # nothing to cut: claim more than will come
        if h.headers.get("Connection", "").lower() == "close":
            h.close_connection = True
        try:
            h.wfile.write(f"HTTP/1.1 {status} {_reason(status)}\r\n".encode())
            for k, v in headers:
                h.wfile.write(f"{k}: {v}\r\n".encode("latin-1"))
            if status not in (204, 304) or declared:
                h.wfile.write(f"Content-Length: {declared}\r\n".encode())
            if h.close_connection:
                h.wfile.write(b"Connection: close\r\n")
            h.wfile.write(b"\r\n")
            req.status = status
            if req.method == "HEAD":
                pass
            elif fault and fault.oversized is not None:
                self._stream(h, fault.oversized, body)
            elif fault and fault.truncate is not None:
                cut = len(body) // 2 if fault.truncate is True else min(fault.truncate, len(body))
                h.wfile.write(body[:cut])
                h.wfile.flush()
                self._drop(h)
            else:
                h.wfile.write(body)
            h.wfile.flush()
        except (BrokenPipeError, ConnectionResetError, OSError):
            h.close_connection = True

    def _stream(self, h, total, seed):
        chunk = (seed or b"\0") * (65536 // max(len(seed), 1) + 1)
        chunk = chunk[:65536]
        sent = 0
        while sent < total and not self._stopping.is_set():
            piece = chunk[: min(len(chunk), total - sent)]
            h.wfile.write(piece)
            sent += len(piece)


def _flip(body):
    if not body:
        return b"\x00"
    i = len(body) // 2
    return body[:i] + bytes([body[i] ^ 0x01]) + body[i + 1:]


_REASONS = {
    200: "OK", 201: "Created", 204: "No Content", 304: "Not Modified", 400: "Bad Request",
    401: "Unauthorized", 403: "Forbidden", 404: "Not Found", 405: "Method Not Allowed",
    406: "Not Acceptable", 413: "Payload Too Large", 415: "Unsupported Media Type",
    429: "Too Many Requests", 500: "Internal Server Error", 502: "Bad Gateway",
    503: "Service Unavailable", 504: "Gateway Timeout",
}


def _reason(status):
    return _REASONS.get(status, "Status")


class AppServer(StandinServer):
    """A server made of apps (objects with `owns(path)`, `handle(req)` and
    `max_request_body(path)`), so that two backends can share one port."""

    def __init__(self, apps, host="127.0.0.1", port=0):
        super().__init__(host, port)
        self.apps = list(apps)

    def _app(self, path):
        return next((a for a in self.apps if a.owns(path)), None)

    def handle(self, req):
        app = self._app(req.path)
        return app.handle(req) if app else Response(404)

    def max_request_body(self, path):
        app = self._app(path)
        return app.max_request_body(path) if app else DEFAULT_MAX_BODY
