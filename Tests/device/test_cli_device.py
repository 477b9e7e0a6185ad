"""`encore device ...`: the encore tool drives encored over the bus (the
status as text and JSON, every action), and a refusal is one line on
stderr naming the service's error, with exit status 1."""
from __future__ import annotations

import json
import subprocess
from typing import Any

from device_world import ACTIONS, CLI, Device


def encore(device: Device, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in device.env.items() if not k.startswith("ENCORE_DB_KEY")}
    return subprocess.run([str(CLI), "device", *args], capture_output=True, text=True, env=env, timeout=120)


def status(device: Device) -> dict[str, Any]:
    r = encore(device, "status", "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_status_as_text_and_json(device: Device) -> None:
    device.start()
    assert status(device) == {"enabled": True, "state": "active", "riskLevel": "unknown", "lastExposureDay": None, "lastSync": None,
                              "lastCheck": None, "nextSync": None, "testState": "none"}
    text = encore(device, "status")
    assert text.returncode == 0, text.stderr
    assert "tracing:" in text.stdout and "on (active)" in text.stdout and "last sync:" in text.stdout and "never" in text.stdout


def test_actions(device: Device, checkin_qr: str) -> None:
    device.start()
    assert encore(device, "disable").returncode == 0
    assert status(device)["enabled"] is False
    assert encore(device, "enable").returncode == 0
    assert status(device)["state"] == "active"
    r = encore(device, "checkin", checkin_qr)
    assert r.returncode == 0, r.stderr
    check_in = r.stdout.strip()
    assert check_in.isdigit()
    assert encore(device, "checkout", check_in).returncode == 0
    r = encore(device, "sync")   # no server given to the service
    assert r.returncode == 1 and "org.encore.Error.InvalidArgument" in r.stderr and "nothing to sync" in r.stderr
    assert encore(device, "delete-all-data").returncode == 0
    assert encore(device, "checkout", check_in).returncode == 1


def test_refusals_and_errors(device: Device) -> None:
    device.start()
    device.set_allowed([a for a in ACTIONS if a != "org.encore.Exposure.read"])
    r = encore(device, "status")
    assert r.returncode == 1
    assert r.stderr.count("\n") == 1
    assert "org.encore.Error.NotAuthorized" in r.stderr and "ENCORE_ERR_NOT_AUTHORIZED" in r.stderr
    r = encore(device, "register-test", "not a code")
    assert r.returncode == 1 and "org.encore.Error." in r.stderr
    r = encore(device, "submit-keys", "--onset", "2026-11-20", "--no-symptoms")
    assert r.returncode == 2


def test_no_service(device: Device) -> None:
    r = encore(device, "status")
    assert r.returncode == 1
    assert "org.encore.Exposure" in r.stderr or "ServiceUnknown" in r.stderr
