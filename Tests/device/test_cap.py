"""The cap on a day's sightings through the service (issue 46):
encored --max-sightings-per-day 10 hears 12 devices in a scan (12 of
BlueZoo's adapters advertise an RPI each, as devices in range would);
new RPIs are kept only up to 90 % of the cap, so the store holds 9
sightings of 9 of them and counts 3 dropped. In a later scan the RPIs
already kept go on to the cap (one more sighting), everything else is
dropped and counted. The store is read with the `encore` tool, as a user
reads the service's store (the service stopped: the store is its alone).
BlueZoo reports every RSSI as 0, so which newcomers are the strongest is
not at stake here (Tests/EncoreClientTests/Tracing/SightingCapTests.swift has
the order)."""
from __future__ import annotations

import json
import os
import subprocess
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from device_world import ACTIONS, ADAPTER, CLI, ENCORED, Device

from bus_peer import Advertiser

CAP, HEARD = 10, 12
KEPT_NEW = CAP - CAP // 10
# The devices in range: one adapter each (BlueZoo shows a device per adapter address).
OTHERS = [f"00:11:22:33:45:{i:02x}" for i in range(1, HEARD + 1)]


def payload(i: int) -> bytes:
    """Device i's service data: its RPI (16 bytes) and AEM (4 bytes)."""
    return bytes([0xA0 + i]) * 16 + bytes([0x40, i, 0, 0])


@pytest.fixture
def crowd(tmp_path: Path) -> Iterator[tuple[Device, list[Advertiser]]]:
    """The device (hci0) and HEARD advertisers (hci1 ... hciHEARD), registered."""
    d = Device(root=tmp_path, adapters=[ADAPTER, *OTHERS])
    advertisers: list[Advertiser] = []
    try:
        d.start_bus()
        d.start_bluez()
        d.start_polkit(ACTIONS)
        for i in range(1, HEARD + 1):
            advertisers.append(Advertiser(d.address, f"hci{i}", payload(i)))
        for a in advertisers:
            assert a.registered.wait(10) and a.error is None, a.error
        yield d, advertisers
    finally:
        for a in advertisers:
            a.close()
        d.close()


def one_scan(device: Device) -> str:
    """encored started (a scan at once: it has no last scan yet), its scan's log line, stopped."""
    before = device.log_count("scan: ")
    device.start("--adapter", "hci0", "--max-sightings-per-day", str(CAP))
    device.wait_log("scan: ", count=before + 1, timeout=30)
    assert device.stop() == 0
    return [line for line in device.log_text().splitlines() if "scan: " in line][before]


def encore(device: Device, *args: str) -> Any:
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")} | {"ENCORE_DB_KEY": "passphrase of the device"}
    r = subprocess.run([str(CLI), *args, "--db", str(device.db), "--json"], capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_cap_holds_under_more_devices_than_it_allows(crowd: tuple[Device, list[Advertiser]]) -> None:
    device, _ = crowd
    advertised = {payload(i)[:16]: payload(i)[16:] for i in range(1, HEARD + 1)}

    line = one_scan(device)
    assert f"{KEPT_NEW} sightings written" in line, line
    status = encore(device, "tracing", "status")
    assert (status["sightingsToday"], status["sightingsDroppedToday"]) == (KEPT_NEW, HEARD - KEPT_NEW), status
    kept = encore(device, "sightings", "list")
    rpis = {bytes.fromhex(s["rpi"]) for s in kept}
    assert len(kept) == KEPT_NEW and len(rpis) == KEPT_NEW and rpis <= advertised.keys(), kept
    assert all(bytes.fromhex(s["aem"]) == advertised[bytes.fromhex(s["rpi"])] for s in kept)

    # The next scan (encored again, its cap counted from the store): the
    # kept RPIs go on up to the cap, one more sighting; 11 dropped.
    line = one_scan(device)
    assert f", {CAP - KEPT_NEW} sightings written" in line, line
    status = encore(device, "tracing", "status")
    assert (status["sightingsToday"], status["sightingsDroppedToday"]) == (CAP, HEARD - KEPT_NEW + HEARD - (CAP - KEPT_NEW)), status
    later = encore(device, "sightings", "list")
    assert len(later) == CAP and {bytes.fromhex(s["rpi"]) for s in later} == rpis, later


@pytest.mark.parametrize("where", ["command line", "config file"])
def test_a_cap_under_ten_is_a_usage_error(tmp_path: Path, where: str) -> None:
    args = ["--db", str(tmp_path / "device.db")]
    if where == "config file":
        config = tmp_path / "encored.conf"
        config.write_text("max-sightings-per-day 9\n")
        args += ["--config", str(config)]
    else:
        args += ["--max-sightings-per-day", "9"]
    env = {**os.environ, "ENCORE_DB_KEY": "passphrase of the device", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"}
    r = subprocess.run([str(ENCORED), *args], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 2 and "--max-sightings-per-day must be 10 to 2147483647, not 9" in r.stderr + r.stdout, (r.returncode, r.stderr)
    assert not (tmp_path / "device.db").exists()
