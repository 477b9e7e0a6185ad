"""The registry's endpoints on SQLCipher: SwissCovid's POST /v3/register
and PUT/DELETE /v1/registrations, and every weakness of the real backend
(push.md) as a test."""
import statistics
import time

import pytest

from pushd_util import Client, Process, apns_token, instance_token, push_registration, sqlcipher_rows, wait_for


@pytest.fixture
def serve(sqlcipher_db):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *sqlcipher_db["args"])
    yield p
    p.stop()


def rows(db):
    return sqlcipher_rows(db["path"], db["key"], "SELECT hex(instance_hash), push_token, push_type FROM registrations ORDER BY id")


def tokens(db):
    return {r[1]: r[2] for r in rows(db)}


def test_v3_register_update_deregister(serve, sqlcipher_db):
    c = Client(serve.port)
    inst, t1, t2 = instance_token(), apns_token(), apns_token()
    assert c.v3(t1, "ios", inst)[0] == 200
    assert tokens(sqlcipher_db) == {t1: "ios"}
    # The same instance with a new token: moved, not duplicated.
    status, headers, body = c.v3(t2, "ios-sandbox", inst)
    assert (status, body) == (200, b"")
    assert tokens(sqlcipher_db) == {t2: "ios-sandbox"}
    # An empty token deregisters and inserts nothing.
    assert c.v3("", "ios", inst)[0] == 200
    assert rows(sqlcipher_db) == []


def test_v1_put_and_delete(serve, sqlcipher_db):
    c = Client(serve.port)
    inst, t = instance_token(), apns_token()
    fcm = "fcm-" + "a" * 150
    assert c.put(t, "ios", inst)[0] == 204
    assert c.put(fcm, "android", instance_token())[0] == 204
    assert tokens(sqlcipher_db) == {t: "ios", fcm: "android"}
    assert c.delete(inst)[0] == 204
    assert tokens(sqlcipher_db) == {fcm: "android"}


def test_instance_token_kept_only_as_sha256(serve, sqlcipher_db):
    import hashlib
    c = Client(serve.port)
    inst = instance_token()
    c.put(apns_token(), "ios", inst)
    [(h, _, _)] = rows(sqlcipher_db)
    assert h.lower() == hashlib.sha256(inst.encode()).hexdigest()
    columns = sqlcipher_rows(sqlcipher_db["path"], sqlcipher_db["key"], "PRAGMA table_info(registrations)")
    assert sorted(c[1] for c in columns) == sorted(["id", "instance_hash", "push_token", "push_type", "registered_at",
                                                    "renewed_at", "last_push_at", "last_outcome", "lease_owner", "lease_until"])


@pytest.mark.parametrize("api", ["v3", "v1"])
def test_takeover_attempt_changes_nothing(serve, sqlcipher_db, api):
    c = Client(serve.port)
    victim, attacker, t = instance_token(), instance_token(), apns_token()
    attacker_own = apns_token()
    assert c.put(t, "ios", victim)[0] == 204
    assert c.put(attacker_own, "ios", attacker)[0] == 204
    before = rows(sqlcipher_db)
    # The attacker sends the victim's push token: same success answer, nothing moves.
    answer = c.v3(t, "ios", attacker) if api == "v3" else c.put(t, "ios", attacker)
    assert answer[0] == (200 if api == "v3" else 204) and answer[2] == b""
    assert rows(sqlcipher_db) == before
    # A stranger (a new instance) with the token: also nothing.
    answer = c.v3(t, "ios-sandbox", instance_token()) if api == "v3" else c.put(t, "ios-sandbox", instance_token())
    assert answer[0] in (200, 204)
    assert rows(sqlcipher_db) == before


def test_delete_by_a_stranger_changes_nothing(serve, sqlcipher_db):
    c = Client(serve.port)
    t = apns_token()
    c.put(t, "ios", instance_token())
    before = rows(sqlcipher_db)
    assert c.delete(instance_token())[0] == 204          # v1: same answer as a real deletion
    assert c.v3("", "ios", instance_token())[0] == 200   # v3 deregistration of someone else: nothing to delete
    assert rows(sqlcipher_db) == before


def test_empty_token_deletes_without_inserting(serve, sqlcipher_db):
    c = Client(serve.port)
    assert c.v3("", "ios", instance_token())[0] == 200
    assert rows(sqlcipher_db) == []
    # PUT with an empty token is a mistake, not a deregistration.
    status, _, body = c.put("", "ios", instance_token())
    assert status == 400 and b"DELETE" in body
    assert rows(sqlcipher_db) == []


@pytest.mark.parametrize("token,kind", [
    ("ab" * 31, "ios"),                 # 62 hex digits
    ("ab" * 33, "ios"),                 # 66
    ("zz" * 32, "ios"),                 # not hex
    ("x" * 4097, "android"),            # FCM over 4 KB
    ("bad token!", "android"),          # not URL-safe
])
def test_ill_formed_tokens_are_400(serve, sqlcipher_db, token, kind):
    c = Client(serve.port)
    for answer in (c.v3(token, kind, instance_token()), c.put(token, kind, instance_token())):
        assert answer[0] == 400, answer
        assert 0 < len(answer[2]) < 300
    assert rows(sqlcipher_db) == []


def test_ill_formed_instance_tokens(serve, sqlcipher_db):
    c = Client(serve.port)
    assert c.v3(apns_token(), "ios", "short")[0] == 400
    assert c.v3(apns_token(), "ios", "x" * 129)[0] == 400
    assert c.put(apns_token(), "ios", "short")[0] == 401
    assert c.request("PUT", "/v1/registrations", b'{"pushToken":"%s","pushType":"ios"}' % apns_token().encode())[0] == 401
    assert c.request("DELETE", "/v1/registrations", None, {"Authorization": "Basic abc"})[0] == 401
    assert rows(sqlcipher_db) == []


def test_bad_bodies(serve, sqlcipher_db):
    c = Client(serve.port)
    assert c.request("POST", "/v3/register", b"\xff\xff\xff", {"Content-Type": "application/x-protobuf"})[0] == 400
    json = {"Content-Type": "application/json"}
    assert c.request("PUT", "/v1/registrations", b"{not json", {"Authorization": "Bearer " + instance_token(), **json})[0] == 400
    assert c.request("PUT", "/v1/registrations", b'{"pushToken":"%s","pushType":"windows"}' % apns_token().encode(),
                     {"Authorization": "Bearer " + instance_token(), **json})[0] == 400
    assert rows(sqlcipher_db) == []


def test_oversized_body_is_refused_before_parsing(serve, sqlcipher_db):
    c = Client(serve.port)
    big = push_registration("a" * 9000, "android", instance_token())
    assert c.request("POST", "/v3/register", big, {"Content-Type": "application/x-protobuf"})[0] == 413
    assert c.request("PUT", "/v1/registrations", b" " * 9000, {"Authorization": "Bearer " + instance_token()})[0] == 413
    # Chunked (no Content-Length): cut off at the cap as it arrives.
    c2 = Client(serve.port)
    c2.conn = None
    import http.client
    conn = http.client.HTTPConnection("127.0.0.1", serve.port, timeout=10)
    conn.request("POST", "/v3/register", body=iter([b"\x00" * 4096] * 4),
                 headers={"Transfer-Encoding": "chunked", "Content-Type": "application/x-protobuf"}, encode_chunked=True)
    assert conn.getresponse().status == 413
    assert rows(sqlcipher_db) == []


def test_answers_identical_whether_or_not_registered(serve, sqlcipher_db):
    c = Client(serve.port)
    held, inst = apns_token(), instance_token()
    c.put(held, "ios", inst)

    def strip(answer):
        status, headers, body = answer
        return status, sorted((k.lower(), v) for k, v in headers.items() if k.lower() != "date"), body

    # Deregistering an instance that exists and one that does not.
    assert strip(c.delete(inst)) == strip(c.delete(instance_token()))
    assert strip(c.v3("", "ios", instance_token())) == strip(c.v3("", "ios", instance_token()))
    # Registering a token someone holds and a fresh one.
    c.put(held, "ios", instance_token())
    assert strip(c.v3(held, "ios", instance_token())) == strip(c.v3(apns_token(), "ios", instance_token()))
    assert strip(c.put(held, "ios", instance_token())) == strip(c.put(apns_token(), "ios", instance_token()))


def test_enumeration_by_timing_within_noise(serve, sqlcipher_db):
    """Whether a push token is registered (by someone else) must not show in
    the time of a registration that names it: a refused takeover writes as
    much as an insert does."""
    c = Client(serve.port)
    held = [apns_token() for _ in range(40)]
    for t in held:
        c.put(t, "ios", instance_token())

    def timed(token):
        start = time.perf_counter()
        assert c.put(token, "ios", instance_token())[0] == 204
        return time.perf_counter() - start

    a, b = [], []
    for i in range(40):  # interleaved, so that drift hits both alike
        a.append(timed(held[i]))
        b.append(timed(apns_token()))
    ma, mb = statistics.median(a), statistics.median(b)
    spread = max(statistics.pstdev(a), statistics.pstdev(b))
    assert abs(ma - mb) <= max(0.5 * max(ma, mb), spread), (ma, mb, spread)


def test_rate_limit_per_source(sqlcipher_db):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "30", "--rate-burst", "5", *sqlcipher_db["args"])
    try:
        c = Client(p.port)
        answers = [c.put(apns_token(), "ios", instance_token()) for _ in range(8)]
        assert [a[0] for a in answers[:5]] == [204] * 5
        assert all(a[0] == 429 for a in answers[5:])
        retry = int(answers[5][1].get("Retry-After") or answers[5][1].get("retry-after"))
        assert 1 <= retry <= 2
        assert len(rows(sqlcipher_db)) == 5
        # One token every 2 s at 30/min.
        time.sleep(2.1)
        assert c.put(apns_token(), "ios", instance_token())[0] == 204
    finally:
        p.stop()


def test_client_ip_header_counts_per_forwarded_source(sqlcipher_db):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "1", "--rate-burst", "1",
                "--client-ip-header", "X-Forwarded-For", *sqlcipher_db["args"])
    try:
        c = Client(p.port)
        assert c.delete(instance_token(), **{"X-Forwarded-For": "10.0.0.1"})[0] == 204
        assert c.delete(instance_token(), **{"X-Forwarded-For": "10.0.0.1"})[0] == 429
        assert c.delete(instance_token(), **{"X-Forwarded-For": "10.0.0.1, 10.0.0.2"})[0] == 204
    finally:
        p.stop()


def test_expiry_sweep(sqlcipher_db):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", "--expire-after", "2s", "--sweep-interval", "1s",
                *sqlcipher_db["args"])
    try:
        c = Client(p.port)
        old, renewed, inst = apns_token(), apns_token(), instance_token()
        c.put(old, "ios", instance_token())
        c.put(renewed, "ios", inst)
        for _ in range(4):  # renewed every second: stays
            time.sleep(1)
            c.put(renewed, "ios", inst)
        assert wait_for(lambda: set(tokens(sqlcipher_db)) == {renewed}, timeout=5)
    finally:
        p.stop()


def test_wrong_key_is_refused(sqlcipher_db, tmp_path):
    p = Process("serve", "--listen", "127.0.0.1:0", *sqlcipher_db["args"])
    p.stop()
    other = tmp_path / "other.key"
    other.write_text("00" * 32)
    q = Process("serve", "--listen", "127.0.0.1:0", "--db", str(sqlcipher_db["path"]), "--key-file", str(other),
                wait_listening=False)
    code, out, err = q.wait(30)
    assert code != 0 and "wrong key" in err
