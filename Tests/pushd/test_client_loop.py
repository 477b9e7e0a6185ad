"""Issue 18's "done when": a client made with `encore push decide` and
`encore push register` registers with encore-pushd (SQLCipher, and
PostgreSQL), receives a silent push from `encore-pushd send` through the
APNs stand-in, and its deregistration removes it; through both
registration APIs."""
import json
import os
import pathlib
import subprocess
import sys

import pytest

from pushd_util import Process, apns_token, run as pushd

ROOT = pathlib.Path(__file__).resolve().parents[2]
ENCORE = os.environ.get("ENCORE_CLI", str(ROOT / "build" / "bin" / "encore"))
sys.path.insert(0, str(ROOT / "Tests" / "cli"))
from test_cli_checkins import REAL_QR  # noqa: E402

NOW = 1_795_500_000


def encore(*args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    env["ENCORE_DB_KEY_HEX"] = "cd" * 32
    r = subprocess.run([ENCORE, *map(str, args)], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, (args[:2], r.stderr)
    return r.stdout


def loop(tmp_path, storage, send_args, apns, api):
    db = tmp_path / "client.db"
    encore("store", "init", "--db", db)
    encore("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", NOW - 7200, "--end", NOW - 3600, "--now", NOW)
    # Check-ins stored and EN off: the rule says register.
    decision = json.loads(encore("push", "decide", "--db", db, "--event", "app-start", "--en", "off", "--now", NOW, "--json"))
    assert decision["action"] == "register", decision
    serve = Process("serve", "--listen", "127.0.0.1:0", *storage)
    try:
        server = f"http://127.0.0.1:{serve.port}"
        token = apns_token()
        status = json.loads(encore("push", "register", "--db", db, "--server", server, "--token", token, "--type", "ios",
                                   "--api", api, "--now", NOW, "--json"))
        assert status["registered"] and status["api"] == api
        code, _, err = pushd("send", *storage, *send_args, "--once")
        assert code == 0, err
        assert apns.pushes[token] == 1 and apns.errors == []
        # The user turns EN on: deregister; the sender pushes it no more.
        decision = json.loads(encore("push", "decide", "--db", db, "--event", "en-on", "--en", "on", "--json"))
        assert decision["action"] == "deregister"
        assert json.loads(encore("push", "deregister", "--db", db, "--json"))["registered"] is False
        apns.reset()
        code, _, err = pushd("send", *storage, *send_args, "--once")
        assert code == 0, err
        assert apns.pushes[token] == 0 and apns.total() == 0
    finally:
        serve.stop()


@pytest.mark.parametrize("api", ["swisscovid", "registry"])
def test_the_loop_on_sqlcipher(tmp_path, sqlcipher_db, send_args, apns, api):
    loop(tmp_path, sqlcipher_db["args"], send_args, apns, api)


def test_the_loop_on_postgresql(tmp_path, pg, send_args, apns):
    loop(tmp_path, pg.args, send_args, apns, "swisscovid")
