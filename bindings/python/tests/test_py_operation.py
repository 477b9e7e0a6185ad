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

APNS = "ab" * 32


def test_push_registration_by_hand(store):
    push = encore.Push(store, server="https://push.example", api="registry", attempts=2, retry_delay_ms=250)
    with push.register_operation(APNS, "ios", now=NOW) as op:
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
        assert not push.status["registered"]
        op.feed_answer(again.id, 204, [("Content-Length", "0")], b"", now=NOW + 1)
        assert push.status["registered"] and push.status["registeredAt"] == NOW + 1
        assert op.next(NOW + 1) == ("done", None)
        assert op.result()["registered"] is True
    with push.deregister_operation() as op:
        _, request = op.next(NOW)
        op.feed_answer(request.id, 403, [], b"no", now=NOW)
        assert op.next(NOW) == ("done", None)
        with pytest.raises(encore.ServerRefusedError):
            op.result()
    assert push.status["registered"]


def test_feeding_out_of_turn_is_refused(store):
    op = encore.Push(store, server="https://push.example").register_operation(APNS, now=NOW)
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


def register(state, v, s, store):
    state.set_result_for_guid(GUID, 0)
    with encore.Transport.curl() as t:
        encore.TestResultClient(store, t, verification=v.url, submission=s.url).register(guid=GUID, now=NOW)


def test_poll_on_asyncio_with_httpx_matches_the_blocking_poll(servers, store):
    state, v, s = servers
    register(state, v, s, store)
    state.set_result_for_guid(GUID, 1, sc=NOW)
    client = encore.TestResultClient(store, None, verification=v.url, submission=s.url)
    v_before, s_before = len(v.requests), len(s.requests)

    loop_threads = set()

    async def main():
        loop_threads.add(threading.get_ident())
        async with httpx.AsyncClient() as session:
            with client.poll_operation(now=NOW + 7200) as op:
                return await op.run_async(session, now=NOW + 7200)

    status = asyncio.run(main())
    assert loop_threads == {threading.get_ident()}
    assert status.result == "NEGATIVE" and status.notify and status.sample_collected_at == NOW
    assert status.result_at == NOW + 7200 and status.next_poll_at is None
    async_v = [(q.path, len(q.body)) for q in v.requests[v_before:]]
    async_s = [(q.path, len(q.body)) for q in s.requests[s_before:]]

    # The blocking poll of the same state sends the same requests, in the same sizes.
    v_before, s_before = len(v.requests), len(s.requests)
    with encore.Transport.curl() as t:
        again = encore.TestResultClient(store, t, verification=v.url, submission=s.url).poll(now=NOW + 7300)
    assert again.result == "NEGATIVE" and not again.notify
    assert [(q.path, len(q.body)) for q in v.requests[v_before:]] == async_v
    assert [(q.path, len(q.body)) for q in s.requests[s_before:]] == async_s
    assert [p for p, _ in async_v] == ["/version/v1/testresult", "/version/v1/tan"] and len(async_s) == 1
    assert v.violations == [] and s.violations == []


def test_async_poll_without_a_server_fails_as_the_network_does(store, servers):
    state, v, s = servers
    register(state, v, s, store)
    client = encore.TestResultClient(store, None, verification="http://127.0.0.1:9", submission=s.url)

    async def main():
        async with httpx.AsyncClient() as session:
            with client.poll_operation(now=NOW) as op:
                await op.run_async(session, now=NOW)

    with pytest.raises(encore.NetworkError):
        asyncio.run(main())
