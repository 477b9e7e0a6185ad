"""Tests of `encore sightings list`, `encore keys history` and `encore tracing
status`, on stores the tracing (encore.Tracer through the C ABI) wrote.

They run the built binary: $ENCORE_CLI, or else <repo>/build/bin/encore.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "bindings/python"))
import encore  # noqa: E402
from encore import crypto  # noqa: E402
from encore.tracing import Calibration, ScanReport, ScanWindow, Tracer  # noqa: E402

CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))
KEY = "a1" * 32
MIDNIGHT = 19_000 * 86_400
KEY_VARIABLES = ["ENCORE_DB_KEY", "ENCORE_DB_KEY_HEX", "ENCORE_NEW_DB_KEY", "ENCORE_NEW_DB_KEY_HEX"]


def run(*args: object) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    env["ENCORE_DB_KEY_HEX"] = KEY
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=120, env=env)


def ok(r: subprocess.CompletedProcess[str]) -> str:
    assert r.returncode == 0 and r.stderr == "", (r.stdout, r.stderr)
    return r.stdout


@pytest.fixture
def db(tmp_path: Path) -> Path:
    path = tmp_path / "t.db"
    ok(run("store", "init", "--db", path))
    return path


def traced(db: Path) -> None:
    """Two scans of a tracer with a measured calibration and an adapter, then stopped."""
    with encore.Client.open(db, raw_key=bytes.fromhex(KEY), clock=MIDNIGHT) as client, Tracer(client) as t:
        t.set_calibration(Calibration(tx_power=-18, rssi_correction=6))
        encore.tracing.set_adapter(client, "hci1")
        t.start(MIDNIGHT)
        t.advertisement(MIDNIGHT)
        t.ingest_scan(ScanWindow(MIDNIGHT, MIDNIGHT + 4), [ScanReport(b"\1" * 16, b"\xaa\xbb\xcc\xdd", -70, MIDNIGHT + 1),
                                                           ScanReport(b"\1" * 16, b"\xaa\xbb\xcc\xdd", -64, MIDNIGHT + 2),
                                                           ScanReport(b"\2" * 16, b"\0\0\0\1", -80, MIDNIGHT + 3)])
        t.ingest_scan(ScanWindow(MIDNIGHT + 300, MIDNIGHT + 304), [ScanReport(b"\3" * 16, b"\0\0\0\2", -50, MIDNIGHT + 301)])
        t.stop(MIDNIGHT + 400)


def test_sightings_list(db: Path) -> None:
    assert json.loads(ok(run("sightings", "list", "--db", db, "--json"))) == []
    assert ok(run("sightings", "list", "--db", db)) == ""
    traced(db)
    rows = json.loads(ok(run("sightings", "list", "--db", db, "--json")))
    assert rows == [
        {"time": MIDNIGHT + 1, "rpi": "01" * 16, "aem": "aabbccdd", "rssi": -64 + 6, "typicalRssi": -67 + 6, "prevScan": None},
        {"time": MIDNIGHT + 3, "rpi": "02" * 16, "aem": "00000001", "rssi": -80 + 6, "typicalRssi": -80 + 6, "prevScan": None},
        {"time": MIDNIGHT + 301, "rpi": "03" * 16, "aem": "00000002", "rssi": -50 + 6, "typicalRssi": -50 + 6, "prevScan": MIDNIGHT},
    ]
    since = json.loads(ok(run("sightings", "list", "--db", db, "--since", MIDNIGHT + 3, "--json")))
    assert [r["rpi"] for r in since] == ["02" * 16, "03" * 16]
    text = ok(run("sightings", "list", "--db", db)).splitlines()
    assert len(text) == 3 and "01" * 16 in text[0] and text[2].endswith("prev 2022-01-08T00:00:00Z")
    # The old name of the group still works.
    assert json.loads(ok(run("sightings", "list", "--db", db, "--json"))) == rows
    bad = run("sightings", "list", "--db", db, "--since", "yesterday")
    assert bad.returncode == 2 and bad.stdout == ""


def test_keys_history_is_the_keys_that_were_broadcast(db: Path) -> None:
    assert json.loads(ok(run("keys", "history", "--db", db, "--now", MIDNIGHT, "--json"))) == []
    ad1 = bytes.fromhex(ok(run("keys", "advertise", "--db", db, "--now", MIDNIGHT + 700)).strip())
    ad2 = bytes.fromhex(ok(run("keys", "advertise", "--db", db, "--now", MIDNIGHT + 86_400 + 60)).strip())
    keys = json.loads(ok(run("keys", "history", "--db", db, "--now", MIDNIGHT + 86_400 + 60, "--json")))
    assert [(k["rollingStartIntervalNumber"], k["rollingPeriod"]) for k in keys] == [(MIDNIGHT // 600, 144), (MIDNIGHT // 600 + 144, 144)]
    for k, ad, interval in zip(keys, (ad1, ad2), (MIDNIGHT // 600 + 1, MIDNIGHT // 600 + 144)):
        assert crypto.rpis(crypto.rpik(bytes.fromhex(k["keyData"])), interval, 1)[0] == ad[:16]
    today = json.loads(ok(run("keys", "history", "--db", db, "--now", MIDNIGHT + 86_400 + 60, "--days", 0, "--json")))
    assert today == keys[1:]
    text = ok(run("keys", "history", "--db", db, "--now", MIDNIGHT + 86_400 + 60)).splitlines()
    assert len(text) == 2 and text[0].startswith(keys[0]["keyData"]) and "2022-01-08T00:00:00Z" in text[0]
    assert run("keys", "history", "--db", db, "--days", 9999).returncode == 2


def test_tracing_status(db: Path) -> None:
    st = json.loads(ok(run("tracing", "status", "--db", db, "--now", MIDNIGHT, "--json")))
    assert st["active"] is False and st["since"] is None and st["lastScan"] is None and st["adapter"] is None
    assert st["calibration"]["measured"] == {"txPower": None, "rssiCorrection": None, "confidence": None}
    assert st["calibration"]["confidence"] == 0
    traced(db)
    st = json.loads(ok(run("tracing", "status", "--db", db, "--now", MIDNIGHT + 3_000, "--json")))
    assert st == {"active": False, "since": MIDNIGHT + 400, "lastScan": MIDNIGHT + 304, "rpisLastHour": 3, "rpisLast14Days": 3,
                  "activeSecondsLast14Days": 400, "adapter": "hci1",
                  "calibration": {"txPower": -18, "rssiCorrection": 6, "confidence": 2,
                                  "measured": {"txPower": -18, "rssiCorrection": 6, "confidence": None}},
                  "sightingsToday": 3, "sightingsDroppedToday": 0, "sightingsDroppedLast14Days": 0}
    later = json.loads(ok(run("tracing", "status", "--db", db, "--now", MIDNIGHT + 3_700, "--json")))
    assert later["rpisLastHour"] == 1 and later["rpisLast14Days"] == 3
    text = ok(run("tracing", "status", "--db", db, "--now", MIDNIGHT + 3_000))
    assert "off since 2022-01-08T00:06:40Z" in text and "3 in the last hour" in text and "hci1" in text
    assert "3 today; over the cap, dropped: 0 today, 0 in 14 days" in text
    # The status prints no RPI.
    assert "01" * 16 not in text and "0101" not in json.dumps(st)


def test_a_missing_store_fails(tmp_path: Path) -> None:
    for args in (("sightings", "list"), ("keys", "history"), ("tracing", "status")):
        r = run(*args, "--db", tmp_path / "none.db")
        assert r.returncode == 1 and r.stdout == "" and "no such store" in r.stderr
