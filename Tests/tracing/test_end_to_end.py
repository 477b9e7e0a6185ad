"""End to end: A and B trace each other over BlueZoo; A's keys are then
published (`encore keys history`) in a signed key file, and B's `encore check` finds the exposure,
at the attenuation B's RSSI implies: BlueZoo reports RSSI 0, so
attenuation = A's TX power − (0 + B's RSSI correction)."""
from __future__ import annotations

import json
import os
import subprocess

from bluez_world import CLI, Daemon, World
from daemon_store import encore_cli
from standins import keyfiles
from test_tracing import A_TX_POWER, B_RSSI_CORRECTION, start_pair


def run_cli(d: Daemon, *args: str) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")} | {"ENCORE_DB_KEY": d.passphrase}
    return subprocess.run([str(CLI), *args], capture_output=True, text=True, env=env, timeout=120)


def test_b_finds_a_exposure_in_a_signed_key_file(world: World) -> None:
    a, b = start_pair(world)
    assert a.stop() == 0 and b.stop() == 0
    now = world.now() + 600

    own = encore_cli(a, "keys", "history", "--now", str(now))
    assert own, "A made no key"
    signer = keyfiles.SigningKey()
    pem = signer.write_public_pem(world.root / "signer.pem")
    keys = world.root / "keys.zip"
    # As a positive user's keys are published: TRL 6, a confirmed test, symptoms a day before (infectious).
    published = [keyfiles.make_key(bytes.fromhex(k["keyData"]), k["rollingStartIntervalNumber"], rolling_period=k["rollingPeriod"], trl=6,
                                   report_type=1, dsos=1) for k in own]
    keys.write_bytes(keyfiles.key_file(published, signer, end_timestamp=now - 60))
    trust = signer.trust_arg(pem)

    r = run_cli(b, "check", "--db", str(b.db), "--trust", trust, "--now", str(now), "--json", str(keys))
    assert r.returncode == 0, r.stderr
    check = json.loads(r.stdout)
    assert check["windowCount"] == 1, json.dumps(check["statistics"])
    assert check["statistics"]["matchedKeys"] == 1

    r = run_cli(b, "detect", "--db", str(b.db), "--trust", trust, "--now", str(now), "--json", str(keys))
    assert r.returncode == 0, r.stderr
    windows = json.loads(r.stdout)["exposureWindows"]
    assert len(windows) == 1
    attenuation = A_TX_POWER - (0 + B_RSSI_CORRECTION)
    assert attenuation == 30
    assert {i["minAttenuation"] for i in windows[0]["scanInstances"]} == {attenuation}

    # A heard B, but B's keys are not published: nothing for A.
    r = run_cli(a, "check", "--db", str(a.db), "--trust", trust, "--now", str(now), "--json", str(keys))
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["windowCount"] == 0
