"""encore.Operation: a flow driven by the host, step by step and on an
asyncio loop with a real async HTTP client (httpx) against the stand-in
verification and submission servers, on one thread: the same requests, in
the same order and sizes, as the blocking call sends; the store written
when the answer is fed; failures and retries as the flow has them."""
import asyncio
import threading

import httpx
import pytest

from test_py_testresult import GUID, NOW, servers, store  # noqa: F401

import encore
from encore_testdata import TestClock

APNS = "ab" * 32


@pytest.fixture
def clock():
    return TestClock(NOW)


def results_client(store, clock, v, s):
    """A client of `store` with the verification and submission servers on
    the test's clock (closed with the test), and its test results."""
    return encore.Client(store, clock=clock, verification=v.url, submission=s.url).tests


def test_push_registration_by_hand(store, clock):
    push = encore.Client(store, clock=clock, push="https://push.example", push_api="registry", push_attempts=2,
                         push_retry_delay_ms=250).push
    with push.register_operation(APNS, "ios") as op:
        kind, request = op.next(NOW)
        assert kind == "request" and (request.method, request.url) == ("PUT", "https://push.example/v1/registrations")
        assert dict(request.headers)["Authorization"].startswith("Bearer ")
        with pytest.raises(encore.OperationStateError):
            op.next(NOW)
        with pytest.raises(encore.OperationStateError):
            op.result()
        op.feed_failure(request.id, "timeout", now=NOW)
        assert op.next(NOW) == ("wait", 0.25)
        kind, again = op.next(NOW + 1)
        assert kind == "request" and again.id != request.id and again.body == request.body
        assert not push.status.registered
        op.feed_answer(again.id, 204, [("Content-Length", "0")], b"", now=NOW + 1)
        assert push.status.registered and push.status.registered_at == NOW + 1
        assert op.next(NOW + 1) == ("done", None)
        assert op.result().registered is True
    with push.deregister_operation() as op:
        _, request = op.next(NOW)
        op.feed_answer(request.id, 403, [], b"no", now=NOW)
        assert op.next(NOW) == ("done", None)
        with pytest.raises(encore.ServerRefusedError):
            op.result()
    assert push.status.registered


def test_feeding_out_of_turn_is_refused(store, clock):
    op = encore.Client(store, clock=clock, push="https://push.example").push.register_operation(APNS)
    _, request = op.next(NOW)
    with pytest.raises(encore.OperationStateError):
        op.feed_answer(request.id + 1, 200)
    with pytest.raises(encore.InvalidArgumentError):
        op.feed_answer(request.id, 99)
    with pytest.raises(ValueError):
        op.feed_failure(request.id, "refused")
    op.close()
    with pytest.raises(ValueError):
        op.next(NOW)


def register(state, tests):
    """A pending test registered at NOW."""
    state.set_result_for_guid(GUID, 0)
    tests.register(guid=GUID)


def test_poll_on_asyncio_with_httpx_matches_the_blocking_poll(servers, store, clock):
    state, v, s = servers
    client = results_client(store, clock, v, s)
    register(state, client)
    state.set_result_for_guid(GUID, 1, sc=NOW)
    clock.set(NOW + 7200)
    v_before, s_before = len(v.requests), len(s.requests)

    loop_threads = set()

    async def main():
        loop_threads.add(threading.get_ident())
        async with httpx.AsyncClient() as session:
            with client.poll_operation() as op:
                return await op.run_async(session, now=NOW + 7200)

    status = asyncio.run(main())
    assert loop_threads == {threading.get_ident()}
    assert status.result == "NEGATIVE" and status.notify and status.sample_collected_at == NOW
    assert status.result_at == NOW + 7200 and status.next_poll_at is None
    async_v = [(q.path, len(q.body)) for q in v.requests[v_before:]]
    async_s = [(q.path, len(q.body)) for q in s.requests[s_before:]]

    # The blocking poll of the same state sends the same requests, in the same sizes.
    v_before, s_before = len(v.requests), len(s.requests)
    clock.set(NOW + 7300)
    again = client.poll()
    assert again.result == "NEGATIVE" and not again.notify
    assert [(q.path, len(q.body)) for q in v.requests[v_before:]] == async_v
    assert [(q.path, len(q.body)) for q in s.requests[s_before:]] == async_s
    assert [p for p, _ in async_v] == ["/version/v1/testresult", "/version/v1/tan"] and len(async_s) == 1
    assert v.violations == [] and s.violations == []


def test_async_poll_without_a_server_fails_as_the_network_does(store, servers, clock):
    state, v, s = servers
    register(state, results_client(store, clock, v, s))
    client = encore.Client(store, clock=clock, verification="http://127.0.0.1:9", submission=s.url).tests

    async def main():
        async with httpx.AsyncClient() as session:
            with client.poll_operation() as op:
                await op.run_async(session, now=NOW)

    with pytest.raises(encore.NetworkError):
        asyncio.run(main())


def session_requests(v, s, since):
    """(server, path, body size) of the requests since `since` (a pair of counts)."""
    return [("v", q.path, len(q.body)) for q in v.requests[since[0]:]] + [("s", q.path, len(q.body)) for q in s.requests[since[1]:]]


def test_register_and_submit_on_asyncio_send_what_the_blocking_calls_send(servers, store, clock, tmp_path):
    state, v, s = servers
    state.set_result_for_guid(GUID, 2)   # positive
    app = encore.Client(store, clock=clock, verification=v.url, submission=s.url)
    client = app.tests

    async def main():
        async with httpx.AsyncClient() as session:
            with client.register_operation(guid=GUID) as op:
                registered = await op.run_async(session, now=NOW)
            before = (len(v.requests), len(s.requests))
            clock.set(NOW + 60)
            with client.submit_operation(symptoms="none") as op:
                return registered, await op.run_async(session, now=NOW + 60), before

    start = (len(v.requests), len(s.requests))
    registered, summary, before = asyncio.run(main())
    assert registered.result == "POSITIVE" and registered.notify and registered.registered
    assert summary.keys == 14 and summary.submitted_at == NOW + 60
    clock.set(NOW + 61)
    assert client.status().submitted_at == NOW + 60 and not client.status().has_tan
    async_submit = session_requests(v, s, before)
    assert [p for _, p, _ in async_submit] == ["/version/v1/tan", "/version/v1/diagnosis-keys"]
    # The registration's session: token, first poll, and the fake upload.
    register_requests = [(q.path, len(q.body)) for q in v.requests[start[0]:before[0]]] + [(q.path, len(q.body)) for q in s.requests[start[1]:before[1]]]
    assert [p for p, _ in register_requests] == ["/version/v1/registrationToken", "/version/v1/testresult", "/version/v1/diagnosis-keys"]

    # The blocking submission from another (teleTAN, so positive) store: the same requests, in the same sizes.
    twin_clock = TestClock(NOW)
    with encore.Client.open(tmp_path / "twin.db", raw_key=b"\x07" * 32, clock=twin_clock, verification=v.url,
                            submission=s.url) as twin:
        for k in app.own_keys.list():
            twin.own_keys.put(k)
        twin.tests.register(teletan=state.issue_teletan())
        start = (len(v.requests), len(s.requests))
        twin_clock.set(NOW + 60)
        twin.tests.submit(symptoms="none")
        assert session_requests(v, s, start) == async_submit
    assert v.violations == [] and s.violations == []


def test_a_submission_by_hand_keeps_the_tan_when_the_upload_gets_no_answer(servers, store, clock):
    state, v, s = servers
    state.set_result_for_guid(GUID, 2)
    client = results_client(store, clock, v, s)
    client.register(guid=GUID)
    op = client.submit_operation()
    _, tan = op.next(NOW)
    assert tan.url.endswith("/version/v1/tan")
    import urllib.request
    with urllib.request.urlopen(urllib.request.Request(tan.url, data=tan.body, headers=dict(tan.headers), method=tan.method)) as r:
        op.feed_answer(tan.id, r.status, list(r.headers.items()), r.read(), now=NOW)
    # The TAN is kept when its answer is fed, before it is used.
    assert client.status().has_tan
    _, upload = op.next(NOW)
    assert upload.url.endswith("/version/v1/diagnosis-keys")
    op.feed_failure(upload.id, "timeout", NOW)
    assert op.next(NOW) == ("done", None)
    with pytest.raises(encore.TimeoutError):
        op.result()
    assert client.status().has_tan and client.status().submitted_at is None
    # The next submission uses the kept TAN behind a fake TAN request.
    clock.advance(1)
    summary = client.submit()
    assert summary.keys == 14 and len(s.submissions) == 1


def test_noise_as_an_operation(servers, store, clock):
    state, v, s = servers
    op = results_client(store, clock, v, s).noise_operation()
    sizes = []
    while (step := op.next(NOW))[0] == "request":
        sizes.append(len(step[1].body))
        op.feed_failure(step[1].id, "network", NOW)   # fakes: their outcome does not matter
    assert op.result() == {"sent": 3} and len(sizes) == 3
