"""Running encore-pushd and talking to it as the clients do."""
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
        if wait_listening:
            line = self._readline(60)
            if "listening on" not in line:
                self.stop()
                raise RuntimeError(f"encore-pushd did not start: {line!r} {self.stderr()}")
            self.port = int(line.rsplit(":", 1)[1])

    def _readline(self, timeout):
        ready, _, _ = select.select([self.proc.stdout], [], [], timeout)
        return self.proc.stdout.readline() if ready else ""

    def stderr(self):
        try:
            return self.proc.stderr.read() if self.proc.poll() is not None else ""
        except Exception:
            return ""

    def wait(self, timeout=120):
        out, err = self.proc.communicate(timeout=timeout)
        return self.proc.returncode, out, err

    def stop(self):
        if self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait()


def run(*args, timeout=300, env=None):
    r = subprocess.run([PUSHD, *args], capture_output=True, text=True, timeout=timeout, env={**os.environ, **(env or {})})
    return r.returncode, r.stdout, r.stderr


def sqlcipher_rows(db, key_hex, query):
    script = f"PRAGMA key = \"x'{key_hex}'\";\nPRAGMA cipher_page_size = 4096;\n.mode list\n.separator \"\\t\"\n{query};\n"
    out = subprocess.run(["sqlcipher", str(db)], input=script, capture_output=True, text=True, check=True).stdout
    return [line.split("\t") for line in out.splitlines() if line and line != "ok"]


def wait_for(predicate, timeout=30, step=0.1):
    end = time.time() + timeout
    while time.time() < end:
        if predicate():
            return True
        time.sleep(step)
    return predicate()
