"""What a daemon's store holds, read as a user would: through the encore
CLI (`--json`) and the library's Python binding."""
from __future__ import annotations

import json
import os
import subprocess
from dataclasses import dataclass
from typing import Any

import encore
from bluez_world import CLI, Daemon
from encore import crypto


@dataclass(frozen=True)
class Heard:
    """One sighting as `encore sightings list --json` gives it."""
    time: int
    rpi: bytes
    aem: bytes
    rssi: int


def open_client(d: Daemon) -> encore.Client:
    return encore.Client.open(str(d.db), d.passphrase)


def encore_cli(d: Daemon, *args: str) -> Any:
    """`encore ARGS --db <the daemon's store> --json`, its output parsed."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")} | {"ENCORE_DB_KEY": d.passphrase}
    r = subprocess.run([str(CLI), *args, "--db", str(d.db), "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def broadcast_rpis(d: Daemon, now: int) -> dict[bytes, bytes]:
    """Every RPI the daemon's own keys (`encore keys history`) give, to the key it comes from."""
    rpis: dict[bytes, bytes] = {}
    for key in encore_cli(d, "keys", "history", "--now", str(now)):
        tek = bytes.fromhex(key["keyData"])
        for rpi in crypto.rpis(crypto.rpik(tek), key["rollingStartIntervalNumber"], key["rollingPeriod"]):
            rpis[rpi] = tek
    return rpis


def sightings(d: Daemon) -> list[Heard]:
    """The daemon's sightings (`encore sightings list`)."""
    return [Heard(time=s["time"], rpi=bytes.fromhex(s["rpi"]), aem=bytes.fromhex(s["aem"]), rssi=s["rssi"])
            for s in encore_cli(d, "sightings", "list")]


def prev_scans(d: Daemon) -> list[int | None]:
    with open_client(d) as c:
        return [o.prev_scan for o in c.sightings.list()]


def history(d: Daemon) -> list[bool]:
    with open_client(d) as c:
        return [e.active for e in c.tracing_history.list()]
