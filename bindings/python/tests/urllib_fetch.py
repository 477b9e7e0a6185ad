"""The tests' own HTTP stack for hosts that drive operations or give a
callback transport: one request through urllib, its answer as (status,
headers, body) whatever the status. Imported by the tests and by the
processes they start."""
import urllib.error
import urllib.request


def fetch(method, url, headers, body):
    req = urllib.request.Request(url, data=body or None, method=method, headers=dict(headers))
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return r.status, list(r.headers.items()), r.read()
    except urllib.error.HTTPError as e:
        return e.code, list(e.headers.items()), e.read()


def perform(request):
    """An operation's request (encore.operation.Request) through fetch."""
    return fetch(request.method, request.url, request.headers, request.body)
