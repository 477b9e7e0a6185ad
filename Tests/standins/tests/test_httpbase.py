"""The shared machinery: recording and every kind of fault."""

import http.client
import socket
import threading
import time

import pytest

from standins.httpbase import Response, StandinServer

from .helpers import call

BODY = b"0123456789" * 10


class Echo(StandinServer):
    def __init__(self):
        super().__init__()
        self.calls = 0

    def handle(self, req):
        self.calls += 1
        return Response(200, BODY, [("Content-Type", "text/plain"), ("ETag", '"abc"')])

    def max_request_body(self, path):
        return 1000


@pytest.fixture
def srv():
    with Echo() as s:
        yield s


def test_records_method_path_query_headers_body_time_and_head(srv):
    before = time.time()
    status, headers, body = call(srv.url + "/a/b?x=1&x=2&y=", "POST", b"payload",
                                 {"X-One": "1", "Content-Type": "text/plain"})
    assert (status, body) == (200, BODY)
    # The client can have the answer before the server has marked the
    # request done: wait for that, as tests of encore do.
    [r] = srv.wait_for_requests(1)
    assert (r.method, r.path, r.target) == ("POST", "/a/b", "/a/b?x=1&x=2&y=")
    assert r.query == {"x": ["1", "2"], "y": [""]}
    assert r.header("x-one") == "1" and r.body == b"payload"
    assert before <= r.time <= time.time()
    assert r.head.startswith(b"POST /a/b?x=1&x=2&y= HTTP/1.1\r\n") and r.head.endswith(b"\r\n\r\n")
    assert r.head_size == len(r.head)
    assert r.status == 200 and r.done and r.fault is None
    assert headers["date"].endswith("GMT") and headers["content-length"] == str(len(BODY))


def test_chunked_request_body_is_read(srv):
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
    conn.request("POST", "/c", body=iter([b"ab", b"cde"]), encode_chunked=True,
                  headers={"Transfer-Encoding": "chunked"})
    assert conn.getresponse().status == 200
    assert srv.requests[0].body == b"abcde"


def test_request_over_the_limit_is_refused_with_413_unread(srv):
    status, _, _ = call(srv.url + "/big", "POST", b"x" * 5000)
    assert status == 413 and srv.calls == 0
    assert srv.requests[0].notes["declared_length"] == 5000


def test_status_fault_is_one_shot_and_skips_the_app(srv):
    srv.inject("/p", status=503)
    assert call(srv.url + "/p")[0] == 503
    assert call(srv.url + "/p")[0] == 200
    assert srv.calls == 1
    assert [r.fault for r in srv.requests] == ["status=503", None]


def test_persistent_and_counted_faults(srv):
    f = srv.inject("/p", status=429, times=None)
    assert [call(srv.url + "/p")[0] for _ in range(3)] == [429] * 3
    assert f.hits == 3
    srv.remove_fault(f)
    assert call(srv.url + "/p")[0] == 200
    srv.inject("/p", status=500, times=2)
    assert [call(srv.url + "/p")[0] for _ in range(3)] == [500, 500, 200]


def test_faults_queue_in_order_and_prefix_matching(srv):
    srv.inject("/q/", status=500, prefix=True)
    srv.inject("/q/", status=503, prefix=True)
    assert call(srv.url + "/q/1")[0] == 500
    assert call(srv.url + "/q/2")[0] == 503
    srv.inject("/q", status=400)  # exact: does not match /q/3
    assert call(srv.url + "/q/3")[0] == 200


def test_status_fault_can_let_the_app_run(srv):
    srv.inject("/p", status=500, process=True)
    assert call(srv.url + "/p")[0] == 500
    assert srv.calls == 1


def test_delay(srv):
    srv.inject("/slow", delay=0.3)
    t = time.monotonic()
    assert call(srv.url + "/slow")[0] == 200
    assert time.monotonic() - t >= 0.3


def test_delay_longer_than_client_timeout(srv):
    srv.inject("/slow", delay=2)
    with pytest.raises(socket.timeout):
        call(srv.url + "/slow", timeout=0.2)


@pytest.mark.parametrize("mode", [True, "reset"])
def test_drop_without_answer(srv, mode):
    srv.inject("/d", drop=mode)
    with pytest.raises((http.client.RemoteDisconnected, ConnectionResetError)):
        call(srv.url + "/d")
    r = srv.wait_for_requests(1)[0]
    assert r.status is None and "drop" in r.fault
    assert srv.calls == 0


def test_drop_after_processing(srv):
    srv.inject("/d", drop=True, process=True)
    with pytest.raises(http.client.RemoteDisconnected):
        call(srv.url + "/d")
    assert srv.calls == 1


def test_oversized_body_is_streamed(srv):
    size = 50 * 1024 * 1024
    srv.inject("/o", oversized=size)
    status, headers, body = call(srv.url + "/o", timeout=30)
    assert status == 200 and int(headers["content-length"]) == size == len(body)


def test_client_that_gives_up_on_an_oversized_body(srv):
    srv.inject("/o", oversized=50 * 1024 * 1024)
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
    conn.request("GET", "/o")
    r = conn.getresponse()
    assert len(r.read(1000)) == 1000
    conn.close()
    assert call(srv.url + "/after")[0] == 200


def test_malformed_body_keeps_the_headers(srv):
    srv.inject("/m", malformed=b"{not json")
    status, headers, body = call(srv.url + "/m")
    assert (status, body, headers["etag"]) == (200, b"{not json", '"abc"')
    srv.inject("/m", malformed=True)
    assert call(srv.url + "/m")[2] != BODY


def test_truncated_body(srv):
    srv.inject("/t", truncate=10)
    with pytest.raises(http.client.IncompleteRead) as e:
        call(srv.url + "/t")
    assert e.value.partial == BODY[:10]
    srv.inject("/t", truncate=True)
    with pytest.raises(http.client.IncompleteRead) as e:
        call(srv.url + "/t")
    assert len(e.value.partial) == len(BODY) // 2


def test_tampered_body(srv):
    srv.inject("/x", tamper=True)
    status, _, body = call(srv.url + "/x")
    assert status == 200 and len(body) == len(BODY) and body != BODY
    srv.inject("/x", tamper=lambda b: b[::-1])
    assert call(srv.url + "/x")[2] == BODY[::-1]


def test_omitted_and_overridden_headers(srv):
    srv.inject("/h", omit_headers="ETag")
    _, headers, _ = call(srv.url + "/h")
    assert "etag" not in headers and headers["content-type"] == "text/plain"
    srv.inject("/h", omit_headers=("Date",), headers={"Content-Type": "application/evil"})
    _, headers, _ = call(srv.url + "/h")
    assert "date" not in headers and headers["content-type"] == "application/evil"


def test_date_offset(srv):
    srv.date_offset = 3 * 3600
    _, headers, _ = call(srv.url + "/")
    from email.utils import parsedate_to_datetime
    skew = parsedate_to_datetime(headers["date"]).timestamp() - time.time()
    assert 3 * 3600 - 5 < skew < 3 * 3600 + 5


def test_keep_alive_connection_serves_several_requests(srv):
    conn = http.client.HTTPConnection("127.0.0.1", srv.port, timeout=5)
    for _ in range(3):
        conn.request("GET", "/k")
        assert conn.getresponse().read() == BODY
    assert len({r.client for r in srv.requests}) == 1


def test_wait_for_requests_from_another_thread(srv):
    threading.Timer(0.1, lambda: call(srv.url + "/w")).start()
    assert srv.wait_for_requests(1, timeout=5, path="/w")[0].path == "/w"
    with pytest.raises(TimeoutError):
        srv.wait_for_requests(2, timeout=0.1)


def test_stop_wakes_a_delayed_answer():
    s = Echo().start()
    s.inject("/slow", delay=30)
    errors = []

    def client():
        try:
            call(s.url + "/slow", timeout=10)
        except Exception as e:  # the connection is closed by stop()
            errors.append(e)

    t = threading.Thread(target=client)
    t.start()
    time.sleep(0.2)
    start = time.monotonic()
    s.stop()
    t.join(5)
    assert not t.is_alive() and time.monotonic() - start < 5
    with pytest.raises(RuntimeError):
        s.url


def test_a_bug_in_a_stand_in_is_a_500_and_kept_in_errors():
    class Broken(StandinServer):
        def handle(self, req):
            raise KeyError("oops")

    with Broken() as s:
        assert call(s.url + "/x")[0] == 500
        [(method, path, tb)] = s.errors
        assert (method, path) == ("GET", "/x") and "KeyError" in tb


def test_restart_after_stop(srv):
    srv.stop()
    srv.start()
    srv.inject("/r", delay=0.1)
    t = time.monotonic()
    assert call(srv.url + "/r")[0] == 200 and time.monotonic() - t >= 0.1
