"""PropertiesChanged: every change is signalled, and the health
properties (RiskLevel, LastExposureDay, TestState) only as invalidated
names, never with their values (every peer on the bus may receive a
signal; a client reads them with Get, which polkit guards). And the
service's settings from a --config file."""
from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from typing import Any

import pytest

from device_world import IFACE, PATH, Device, wait_for

HEALTH = {"RiskLevel", "LastExposureDay", "TestState"}


class Monitor:
    """busctl monitor of the service's PropertiesChanged signals."""

    def __init__(self, device: Device):
        self.out = device.root / "monitor.json"
        self.file = open(self.out, "wb")
        self.process = subprocess.Popen(["busctl", f"--address={device.address}", "monitor", "--json=short",
                                         f"--match=type='signal',interface='org.freedesktop.DBus.Properties',path='{PATH}'"],
                                        stdout=self.file, stderr=subprocess.DEVNULL)
        time.sleep(0.5)

    def signals(self) -> list[tuple[dict[str, Any], list[str]]]:
        out = []
        for line in self.out.read_text().splitlines():
            m = json.loads(line)
            if m.get("member") != "PropertiesChanged" or m.get("payload", {}).get("data", [None])[0] != IFACE:
                continue
            _, changed, invalidated = m["payload"]["data"]
            out.append(({k: v["data"] for k, v in changed.items()}, invalidated))
        return out

    def close(self) -> None:
        self.process.terminate()
        self.process.wait(10)
        self.file.close()


@pytest.fixture
def cwa() -> Iterator[Any]:
    from standins.cwa_backend import verification_and_submission
    with verification_and_submission() as servers:
        yield servers


def test_health_properties_are_signalled_without_their_values(device: Device, cwa: Any) -> None:
    state, v, s = cwa
    device.start("--verification", v.url, "--submission", s.url)
    monitor = Monitor(device)
    try:
        device.call("SetEnabled", "false")
        device.call("RegisterTest", f"'{state.issue_teletan()}'")
        wait_for("a positive test", lambda: device.get("TestState") == "positive")
        wait_for("the signals", lambda: any("TestState" in inv for _, inv in monitor.signals()) or None)
    finally:
        monitor.close()
    signals = monitor.signals()
    assert ({"Enabled": False, "State": "disabled"}, []) in signals
    for changed, invalidated in signals:
        assert not HEALTH & set(changed), f"a health property's value was broadcast: {changed}"
    assert any("TestState" in invalidated for _, invalidated in signals)


def test_options_from_a_config_file(device: Device, cwa: Any, trust_arg: str) -> None:
    state, v, s = cwa
    config = device.root / "encored.conf"
    config.write_text(f"# the device's servers\nverification {v.url}\n\nsubmission {s.url}\nno-warnings\n")
    device.start("--config", str(config))
    assert device.call("RegisterTest", f"'{state.issue_teletan()}'") == "()"
    assert "trace warnings off" in device.log_text()
    device.stop()
    config.write_text("--verification http://127.0.0.1:1\n")
    device.start("--config", str(config), wait=False)
    assert device.service is not None and device.service.wait(20) == 2
    assert "without dashes" in device.log_text()
