"""Issue 26 on both storage back-ends: one canonical form per push token
(an APNs token in another case is the same registration), strings read
with their length (NUL and control characters refused), content type and
version checked, 4096-character FCM tokens on PostgreSQL, no push token in
clear in PostgreSQL's files, the migration of a database of the first
schema, files made 0600."""
import os
import stat

import pytest

from pushd_util import Client, Process, apns_token, instance_token, push_registration, unseal, token_digest


@pytest.fixture
def served(backend):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *backend.args)
    yield backend, Client(p.port), p
    p.stop()


@pytest.mark.parametrize("api", ["v3", "v1"])
def test_case_variant_of_an_apns_token_is_the_same_registration(served, api):
    backend, c, _ = served
    holder, stranger = instance_token(), instance_token()
    token = apns_token()
    ok = 200 if api == "v3" else 204

    def register(t, inst, kind="ios"):
        return c.v3(t, kind, inst) if api == "v3" else c.put(t, kind, inst)

    assert register(token, holder)[0] == ok
    before = backend.rows()
    assert list(before.values()) == [(token, "ios")]
    fresh = register(apns_token().upper(), instance_token())      # a token nobody holds, in upper case
    for variant in (token.upper(), token[:10].upper() + token[10:]):
        # The stranger gets what any registration gets, and nothing moves.
        answer = register(variant, stranger)
        assert answer[0] == ok and answer[2] == b"" and answer[0] == fresh[0]
        answer = register(variant, stranger, "ios-sandbox")
        assert answer[0] == ok
    after = backend.rows()
    assert [v for v in after.values() if v[0] == token] == [(token, "ios")]
    assert all(t == t.lower() for t, _ in after.values())          # stored in canonical form
    # The holder with its own token in upper case: still one row, lower case.
    assert register(token.upper(), holder)[0] == ok
    assert [v for v in backend.rows().values() if v[0] == token] == [(token, "ios")]
    # After the holder deletes, no copy of the token is left to be pushed.
    assert (c.v3("", "ios", holder) if api == "v3" else c.delete(holder))[0] == ok
    assert [v for v in backend.rows().values() if v[0].lower() == token] == []


def raw_registration(fields):
    """A PushRegistration built field by field (strings with any bytes)."""
    out = b""
    for number, value in fields:
        if isinstance(value, int):
            out += bytes([number << 3]) + varint(value)
        else:
            out += bytes([number << 3 | 2]) + varint(len(value)) + value
    return out


def varint(n):
    out = b""
    while True:
        b = n & 0x7F
        n >>= 7
        if n:
            out += bytes([b | 0x80])
        else:
            return out + bytes([b])


def test_nul_and_control_characters_are_400(served):
    backend, c, _ = served
    token, inst = apns_token(), instance_token()
    v3 = lambda body: c.request("POST", "/v3/register", body, {"Content-Type": "application/x-protobuf"})
    bodies = [
        raw_registration([(1, 1), (2, token.encode() + b"\x00junk"), (4, inst.encode())]),
        raw_registration([(1, 1), (2, token.encode()), (4, inst.encode()[:40] + b"\x00" + b"x" * 3000)]),
        raw_registration([(1, 1), (2, b"fcm\x01token"), (3, 1), (4, inst.encode())]),
        raw_registration([(1, 1), (2, b"fcm\x7ftoken"), (3, 1), (4, inst.encode())]),
        raw_registration([(1, 1), (2, token.encode()), (4, inst.encode() + b"\n")]),
        raw_registration([(1, 1), (2, b"\x00" + token.encode()), (4, inst.encode())]),
    ]
    for body in bodies:
        status, _, text = v3(body)
        assert status == 400, (body[:80], status, text)
    json_put = lambda raw: c.request("PUT", "/v1/registrations", raw,
                                     {"Content-Type": "application/json", "Authorization": "Bearer " + inst})
    for raw in (b'{"pushToken":"%s\\u0000junk","pushType":"ios"}' % token.encode(),
                b'{"pushToken":"fcm\\u0009x","pushType":"android"}',
                b'{"pushToken":"%s","pushType":"ios\\u0000"}' % token.encode()):
        status, _, text = json_put(raw)
        assert status == 400, (raw, status, text)
    assert b"control character" in v3(bodies[0])[2]
    assert backend.rows() == {}


def test_content_type_and_version(served):
    backend, c, _ = served
    token, inst = apns_token(), instance_token()
    body = push_registration(token, "ios", inst)
    for ctype in ("text/plain", "application/json", None):
        headers = {"Content-Type": ctype} if ctype else {}
        status, _, text = c.request("POST", "/v3/register", body, headers)
        assert status == 415 and b"application/x-protobuf" in text, (ctype, status)
    put = b'{"pushToken":"%s","pushType":"ios"}' % token.encode()
    for ctype in ("text/plain", "application/x-protobuf", None):
        headers = {"Authorization": "Bearer " + inst, **({"Content-Type": ctype} if ctype else {})}
        assert c.request("PUT", "/v1/registrations", put, headers)[0] == 415, ctype
    for version in (0, 2, 99):
        status, _, text = c.request("POST", "/v3/register", push_registration(token, "ios", inst, version=version),
                                    {"Content-Type": "application/x-protobuf"})
        assert status == 400 and b"version" in text, (version, status, text)
    assert backend.rows() == {}
    # Parameters and case of the media type do not matter.
    assert c.request("POST", "/v3/register", body, {"Content-Type": "Application/X-Protobuf; charset=binary"})[0] == 200
    assert c.request("PUT", "/v1/registrations", put.replace(token.encode(), apns_token().encode()),
                     {"Authorization": "Bearer " + instance_token(), "Content-Type": "application/json; charset=utf-8"})[0] == 204
    assert len(backend.rows()) == 2


def test_4096_character_fcm_token_registers_and_deregisters(served):
    backend, c, _ = served
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_:."
    token = "".join(alphabet[(i * 7919) % len(alphabet)] for i in range(4096))
    a, b = instance_token(), instance_token()
    assert c.v3(token, "android", a)[0] == 200
    assert list(backend.rows().values()) == [(token, "android")]
    assert c.put(token, "android", b)[0] == 204                 # a stranger: refused takeover, same answer
    assert list(backend.rows().values()) == [(token, "android")]
    assert c.put(token + "x", "android", instance_token())[0] == 400   # 4097
    # FCM tokens are case-sensitive: another case is another token.
    assert c.put(token.swapcase(), "android", b)[0] == 204
    assert len(backend.rows()) == 2
    assert c.v3("", "android", a)[0] == 200
    assert c.delete(b)[0] == 204
    assert backend.rows() == {}


def scan(directory, needles):
    """The needles found in any file under directory."""
    found = set()
    for root, _, files in os.walk(directory):
        for name in files:
            try:
                with open(os.path.join(root, name), "rb") as f:
                    data = f.read()
            except OSError:
                continue
            found |= {n for n in needles if n in data}
    return found


def test_no_push_token_in_clear_in_postgres_files(pg):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *pg.args)
    tokens = [apns_token() for _ in range(50)] + ["fcm-" + apns_token() * 3 for _ in range(50)]
    try:
        c = Client(p.port)
        for i, t in enumerate(tokens):
            assert c.put(t, "android" if t.startswith("fcm") else "ios", instance_token())[0] == 204
    finally:
        p.stop()
    pg.sql("CHECKPOINT")
    assert len(pg.sql("SELECT id FROM registrations")) == 100
    needles = {t.encode() for t in tokens} | {t[:32].encode() for t in tokens}
    assert scan(pg.cluster.data, needles) == set()
    # The control: a value written in clear is found by the same scan.
    marker = apns_token()
    pg.sql(f"CREATE TABLE control (v TEXT); INSERT INTO control VALUES ('{marker}'); CHECKPOINT")
    assert scan(pg.cluster.data, {marker.encode()}) == {marker.encode()}


def test_migration_of_a_first_schema_database(pg):
    """A database of the first schema (tokens in clear, case copies made
    before canonical forms) is migrated on start: tokens sealed, the
    oldest holder of a token kept, no clear token left in the data files."""
    pg.sql("""CREATE TABLE registrations (
        id BIGSERIAL PRIMARY KEY,
        instance_hash TEXT NOT NULL UNIQUE CHECK (length(instance_hash) = 64),
        push_token TEXT NOT NULL UNIQUE CHECK (length(push_token) BETWEEN 1 AND 4096),
        push_type TEXT NOT NULL CHECK (push_type IN ('ios', 'ios-sandbox', 'android')),
        registered_at BIGINT NOT NULL, renewed_at BIGINT NOT NULL, last_push_at BIGINT, last_outcome TEXT,
        lease_owner TEXT, lease_until BIGINT);
        CREATE INDEX registrations_renewed ON registrations (renewed_at)""")
    import time as _t
    now = int(_t.time())
    a, b, fcm = apns_token(), apns_token(), "fcm:" + apns_token()
    hashes = [os.urandom(32).hex() for _ in range(4)]
    rows = [(hashes[0], a, "ios"), (hashes[1], a.upper(), "ios"), (hashes[2], b.upper(), "ios-sandbox"), (hashes[3], fcm, "android")]
    for h, t, k in rows:
        pg.sql(f"INSERT INTO registrations (instance_hash, push_token, push_type, registered_at, renewed_at) "
               f"VALUES ('{h}', '{t}', '{k}', {now}, {now})")
    pg.sql("CHECKPOINT")
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *pg.args)
    try:
        from pushd_util import pg_registrations
        assert pg_registrations(pg) == {hashes[0]: (a, "ios"), hashes[2]: (b, "ios-sandbox"), hashes[3]: (fcm, "android")}
        columns = {r[0] for r in pg.sql("SELECT column_name FROM information_schema.columns WHERE table_name = 'registrations'")}
        assert "push_token" not in columns and {"token_digest", "token_sealed"} <= columns
        # The migrated rows work as any: a case copy is refused, the holder deletes.
        c = Client(p.port)
        assert c.put(b, "ios", instance_token())[0] == 204
        assert len(pg_registrations(pg)) == 3
    finally:
        p.stop()
    pg.sql("CHECKPOINT")
    base = os.path.join(pg.cluster.data, "base")
    assert scan(base, {a.encode(), a.upper().encode(), b.upper().encode(), fcm.encode()}) == set()


def test_wrong_key_on_postgres_is_refused(pg, tmp_path):
    p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *pg.args)
    try:
        assert Client(p.port).put(apns_token(), "ios", instance_token())[0] == 204
    finally:
        p.stop()
    other = tmp_path / "other.key"
    other.write_text("11" * 32)
    args = pg.args[:2] + ["--key-file", str(other)]
    q = Process("serve", "--listen", "127.0.0.1:0", *args, wait_listening=False)
    code, _, err = q.wait(30)
    assert code != 0 and "another key" in err


def test_registry_files_are_0600(sqlcipher_db):
    old = os.umask(0o022)
    try:
        p = Process("serve", "--listen", "127.0.0.1:0", "--rate-limit", "0", *sqlcipher_db["args"])
        try:
            assert Client(p.port).put(apns_token(), "ios", instance_token())[0] == 204
            made = [f for f in os.listdir(sqlcipher_db["path"].parent) if f.startswith("registry.db")]
            assert "registry.db" in made
            for f in made:
                mode = stat.S_IMODE(os.stat(sqlcipher_db["path"].parent / f).st_mode)
                assert mode == 0o600, (f, oct(mode))
        finally:
            p.stop()
    finally:
        os.umask(old)
    # A file made world-readable by an older version is made 0600 on start.
    os.chmod(sqlcipher_db["path"], 0o644)
    p = Process("serve", "--listen", "127.0.0.1:0", *sqlcipher_db["args"])
    p.stop()
    assert stat.S_IMODE(os.stat(sqlcipher_db["path"]).st_mode) == 0o600
