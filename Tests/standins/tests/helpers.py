"""Small HTTP client helpers for the stand-ins' self-tests."""

import http.client
import json
from urllib.parse import urlsplit


def call(url, method="GET", body=None, headers=None, timeout=5):
    """(status, {lower-case header: value}, body bytes)."""
    u = urlsplit(url)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=timeout)
    try:
        conn.request(method, u.path + (f"?{u.query}" if u.query else ""), body, headers or {})
        r = conn.getresponse()
        data = r.read()
        return r.status, {k.lower(): v for k, v in r.getheaders()}, data
    finally:
        conn.close()


def padded_json(obj, size=250):
    """JSON padded with requestPadding to exactly `size` bytes, as the apps
    send it."""
    obj = dict(obj, requestPadding="")
    base = len(json.dumps(obj, separators=(",", ":")).encode())
    obj["requestPadding"] = "A" * (size - base)
    data = json.dumps(obj, separators=(",", ":")).encode()
    assert len(data) == size
    return data


def post_json(url, obj, fake="0", padded=True, extra_headers=None):
    body = padded_json(obj) if padded else json.dumps(obj).encode()
    headers = {"Content-Type": "application/json", "cwa-fake": fake}
    headers.update(extra_headers or {})
    status, hdrs, data = call(url, "POST", body, headers)
    return status, (json.loads(data) if data else None)
