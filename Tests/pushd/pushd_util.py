"""Running encore-pushd and talking to it as the clients do."""
import hashlib
import hmac
import http.client
import json
import os
import pathlib
import secrets
import select
import subprocess
import time

from standins import protos

ROOT = pathlib.Path(__file__).resolve().parents[2]
PUSHD = os.environ.get("ENCORE_PUSHD", str(ROOT / "server" / ".build" / "debug" / "encore-pushd"))

TYPES = {"ios": 0, "android": 1, "ios-sandbox": 2}


def apns_token():
    return secrets.token_hex(32)


def instance_token():
    return secrets.token_urlsafe(24)  # 32 URL-safe characters, 192 bits


def push_registration(push_token, push_type, device_id, version=1):
    """SwissCovid's PushRegistration, as its apps send it (the stand-ins'
    message classes, written from the spec)."""
    return protos.PushRegistration(version=version, pushToken=push_token, pushType=TYPES[push_type],
                                   deviceId=device_id).SerializeToString()


class Client:
    """One keep-alive connection to a serve instance."""

    def __init__(self, port, host="127.0.0.1"):
        self.host, self.port = host, port
        self.conn = None

    def request(self, method, path, body=None, headers=None):
        for attempt in range(3):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=30)
            try:
                self.conn.request(method, path, body=body, headers=headers or {})
                r = self.conn.getresponse()
                data = r.read()
                return r.status, dict(r.getheaders()), data
            except (ConnectionError, http.client.HTTPException, OSError):
                self.conn.close()
                self.conn = None
                if attempt == 2:
                    raise

    def v3(self, push_token, push_type, instance, **headers):
        return self.request("POST", "/v3/register", push_registration(push_token, push_type, instance),
                            {"Content-Type": "application/x-protobuf", **headers})

    def put(self, push_token, push_type, instance, **headers):
        body = json.dumps({"pushToken": push_token, "pushType": push_type}).encode()
        return self.request("PUT", "/v1/registrations", body,
                            {"Content-Type": "application/json", "Authorization": f"Bearer {instance}", **headers})

    def delete(self, instance, **headers):
        return self.request("DELETE", "/v1/registrations", None, {"Authorization": f"Bearer {instance}", **headers})


class Process:
    """encore-pushd as a child process; serve's port is read from its first line."""

    def __init__(self, *args, env=None, wait_listening=True):
        self.args = [PUSHD, *args]
        self.proc = subprocess.Popen(self.args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                                     env={**os.environ, **(env or {})})
        self.port = None
        self.metrics_port = None
        # serve prints "listening on", and with --metrics-listen (serve or
        # send) "metrics on", in either order.
        want_metrics = "--metrics-listen" in args
        while (wait_listening and self.port is None) or (want_metrics and self.metrics_port is None):
            line = self._readline(60)
            if "listening on" in line:
                self.port = int(line.rsplit(":", 1)[1])
            elif "metrics on" in line:
                self.metrics_port = int(line.rsplit(":", 1)[1])
            else:
                self.stop()
                raise RuntimeError(f"encore-pushd did not start: {line!r} {self.stderr()}")

    def _readline(self, timeout):
        """One line of stdout, read a byte at a time from the pipe: a
        buffered readline could take the next line too, which a later
        select would then wait for in vain."""
        fd, line, end = self.proc.stdout.fileno(), b"", time.time() + timeout
        while not line.endswith(b"\n"):
            ready, _, _ = select.select([fd], [], [], max(0, end - time.time()))
            if not ready:
                break
            byte = os.read(fd, 1)
            if not byte:
                break
            line += byte
        return line.decode()

    def stderr(self):
        try:
            return self.proc.stderr.read() if self.proc.poll() is not None else ""
        except Exception:
            return ""

    def wait(self, timeout=120):
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def metrics(self):
        """{(name, labels): value} of the metrics listener (Prometheus text)."""
        import urllib.request
        text = urllib.request.urlopen(f"http://127.0.0.1:{self.metrics_port}/metrics", timeout=10).read().decode()
        return parse_metrics(text)

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def parse_metrics(text):
    out = {}
    for line in text.splitlines():
        if not line or line.startswith("#"):
            continue
        name_labels, value = line.rsplit(" ", 1)
        if "{" in name_labels:
            name, labels = name_labels.split("{", 1)
            labels = "{" + labels
        else:
            name, labels = name_labels, ""
        out[(name, labels)] = float(value)
    return out


def run(*args, timeout=300, env=None):
    r = subprocess.run([PUSHD, *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
    return r.returncode, r.stdout, r.stderr


def sqlcipher_rows(db, key_hex, query):
    script = f"PRAGMA key = \"x'{key_hex}'\";\nPRAGMA cipher_page_size = 4096;\n.mode list\n.separator \"\\t\"\n{query};\n"
    out = subprocess.run(["sqlcipher", str(db)], input=script, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines() if line and line != "ok"]


def pg_keys(key_hex):
    """The digest and seal keys encore-pushd derives from a raw database key
    (TokenSealer): HMAC-SHA-256 of a label each."""
    master = bytes.fromhex(key_hex)
    return (hmac.new(master, b"encore-pushd push-token digest v1", hashlib.sha256).digest(),
            hmac.new(master, b"encore-pushd push-token seal v1", hashlib.sha256).digest())


def token_digest(key_hex, token):
    return hmac.new(pg_keys(key_hex)[0], token.encode(), hashlib.sha256).digest()


def unseal(key_hex, sealed, digest):
    from cryptography.hazmat.primitives.ciphers.aead import AESGCM
    return AESGCM(pg_keys(key_hex)[1]).decrypt(sealed[:12], sealed[12:], digest).decode()


def pg_registrations(db):
    """{instance hash (hex): (push token, type)} of a PostgreSQL registry,
    the tokens unsealed with the test's key and checked against their digest."""
    out = {}
    for h, d, s, k in db.sql("SELECT instance_hash, encode(token_digest, 'hex'), encode(token_sealed, 'hex'), push_type "
                             "FROM registrations ORDER BY id"):
        digest = bytes.fromhex(d)
        token = unseal(db.key, bytes.fromhex(s), digest)
        assert token_digest(db.key, token) == digest
        out[h] = (token, k)
    return out


def wait_for(predicate, timeout=30, step=0.1):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
