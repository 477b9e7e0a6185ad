"""bindings/c/poll_operation.c, the C example of a host driving an
operation with its own HTTP code (libcurl's easy interface), built here
and run against the stand-in verification server: a GUID test registered
by the CLI, then polled by the example, whose requests are the operation's
(the real testresult, then the fake TAN and fake upload every session has)
and whose fed answer is what the store keeps."""
import json
import os
import subprocess
from pathlib import Path

import pytest

from test_cli_testresult import GUID, NOW, RAW_KEY, db, env, fake, run, servers, urls  # noqa: F401

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="module")
def example(tmp_path_factory):
    exe = tmp_path_factory.mktemp("example") / "poll_operation"
    lib = REPO / "build" / "lib"
    subprocess.run(["cc", "-std=c99", "-Wall", "-Wextra", "-Wpedantic", "-Werror", "-D_POSIX_C_SOURCE=200809L",
                    f"-I{REPO / 'include'}", str(REPO / "bindings/c/poll_operation.c"), "-o", str(exe),
                    f"-L{lib}", f"-Wl,-rpath,{lib}", "-lencore", "-lcurl"], check=True)
    return exe


def test_the_example_polls_through_the_operation_api(servers, db, example):
    state, v, s = servers
    state.set_result_for_guid(GUID, 0)
    r = run("test", "register", "--db", db, *urls(v, s), "--qr", "https://localhost/?" + GUID, "--now", NOW, "--json")
    assert r.returncode == 0, r.stderr
    before = len(v.requests)
    state.set_result_for_guid(GUID, 2, sc=NOW)

    out = subprocess.run([str(example), str(db), v.url, s.url, str(NOW + 7200)], capture_output=True, text=True,
                         env=env(), timeout=60)
    assert out.returncode == 0, out.stderr
    assert json.loads(out.stdout) == {"requests": 3, "result": "POSITIVE", "notify": True, "sampleCollectedAt": NOW}
    # On the wire: the real poll, then a fake TAN request; then a fake upload.
    polled = v.requests[before:]
    assert [q.path for q in polled] == ["/version/v1/testresult", "/version/v1/tan"]
    assert [fake(q) for q in polled] == ["0", "1"]
    assert [fake(q) for q in s.requests] == ["1", "1"]  # the registration's fake upload, then the poll's
    assert v.violations == [] and s.violations == []

    status = json.loads(run("test", "status", "--db", db, "--now", NOW + 7200, "--json").stdout)
    assert status["result"] == "POSITIVE" and status["resultAt"] == NOW + 7200


def test_the_example_reports_a_refusal(servers, db, example):
    state, v, s = servers
    out = subprocess.run([str(example), str(db), v.url, s.url, str(NOW)], capture_output=True, text=True, env=env(), timeout=60)
    assert out.returncode == 1 and "ENCORE_ERR_NOT_REGISTERED" in out.stderr
