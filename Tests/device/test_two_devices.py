"""The spec's end-to-end case: two devices, each a machine of its own (its
system bus, its BlueZoo, its encored, its clock), trace each other: BlueZoo's
adapters hear each other only inside one BlueZoo, so a relay carries each
device's advertisement into the other's BlueZoo (its second adapter stands
for the other device there) for as long as they meet. A registers a test,
it is positive, A submits its keys with consent (polkit's stand-in allows
it); the distribution stand-in publishes them; B's background sync fetches
them by itself, B's RiskLevel turns high with a PropertiesChanged, and B's
user gets exactly one notification. Nothing is asked of B's user."""
from __future__ import annotations

import datetime as dt
import signal
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from device_world import ACTIONS, Device, wait_for
from test_notify import NOTIFY, Session
from test_signals import Monitor

from bus_peer import Advertiser, Peer, error_name

EN_UUID = "0000fd6f-0000-1000-8000-00805f9b34fb"
A_ADDRESS, B_ADDRESS = "00:11:22:33:44:0a", "00:11:22:33:44:0b"
# Each BlueZoo's second adapter: the other device, as this one hears it.
A_STAND_IN, B_STAND_IN = "00:11:22:33:44:1a", "00:11:22:33:44:1b"
# BlueZoo's RSSI is 0: A's TX power 10 dBm and B's correction -20 dB make an attenuation of 30 dB (close).
A_TX_POWER, B_RSSI_CORRECTION = 10, -20


class Relay:
    """What `source` broadcasts (its own adapter, hci0), heard by the
    stand-in adapter (hci1) of its BlueZoo, broadcast again by the stand-in
    adapter of `target`'s BlueZoo: a new payload (a rotation) replaces the
    old one. Runs until close()."""

    def __init__(self, source: Device, source_address: str, target: Device) -> None:
        self.source, self.target = source, target
        self.device_path = "/org/bluez/hci1/dev_" + source_address.replace(":", "_")
        self.advertiser: Advertiser | None = None
        self.payload: bytes | None = None
        self.relayed = 0
        self._stop = threading.Event()
        # Discovery lasts as long as the connection that asked for it (BlueZ's rule).
        self.scanner = Peer(source.address)
        reply = self.scanner.call("org.bluez", "/org/bluez/hci1", "org.bluez.Adapter1", "StartDiscovery")
        assert error_name(reply) is None, reply.body
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    def heard(self) -> bytes | None:
        reply = self.scanner.call("org.bluez", self.device_path, "org.freedesktop.DBus.Properties", "Get", "ss",
                                  ("org.bluez.Device1", "ServiceData"))
        if error_name(reply) is not None:
            return None
        _, data = reply.body[0]
        for uuid, (_, value) in data.items():
            if uuid.lower() in (EN_UUID, "fd6f"):
                return bytes(value)
        return None

    def _run(self) -> None:
        while not self._stop.wait(0.3):
            payload = self.heard()
            if payload is None or payload == self.payload:
                continue
            if self.advertiser is not None:
                self.advertiser.close()
                self.unregister()
            self.advertiser = Advertiser(self.target.address, "hci1", payload)
            self.payload = payload
            self.relayed += 1

    def unregister(self) -> None:
        subprocess.run(["busctl", f"--address={self.target.address}", "call", "org.bluez", "/org/bluez/hci1",
                        "org.bluez.LEAdvertisingManager1", "UnregisterAdvertisement", "o", Advertiser.PATH],
                       capture_output=True, timeout=30)

    def close(self) -> None:
        self._stop.set()
        self._thread.join(10)
        if self.advertiser is not None:
            self.advertiser.close()
        self.scanner.close()


def machine(root: Path, address: str, stand_in: str) -> Device:
    root.mkdir()
    d = Device(root=root, adapters=[address, stand_in])
    d.start_bus()
    d.start_bluez()
    d.start_polkit(ACTIONS)
    return d


@pytest.fixture
def two(tmp_path: Path) -> Iterator[tuple[Device, Device]]:
    a = b = None
    try:
        a = machine(tmp_path / "a", A_ADDRESS, B_STAND_IN)
        b = machine(tmp_path / "b", B_ADDRESS, A_STAND_IN)
        yield a, b
    finally:
        for d in (a, b):
            if d is not None:
                d.close()


def scans_heard(d: Device) -> int:
    return sum(1 for line in d.log_text().splitlines() if "scan:" in line and " 0 sightings written" not in line)


def test_two_devices_meet_a_tests_positive_b_is_told(two: tuple[Device, Device], signer: Any, trust_arg: str, tmp_path: Path) -> None:
    from standins.cwa_backend import verification_and_submission
    from standins.cwa_distribution import CwaDistributionServer
    a, b = two
    session = Session(root=tmp_path)
    session.start()
    agent = None
    relays: list[Relay] = []
    try:
        with verification_and_submission() as (state, v, s), CwaDistributionServer(signer) as dist:
            a.start("--adapter", "hci0", "--tx-power", str(A_TX_POWER), "--verification", v.url, "--submission", s.url)
            b.start("--adapter", "hci0", f"--rssi-correction={B_RSSI_CORRECTION}", "--distribution", dist.url, "--trust", trust_arg,
                    "--no-warnings")
            with open(b.root / "notify.log", "ab") as log:
                agent = subprocess.Popen([str(NOTIFY)], stdout=log, stderr=log, env={**b.env, "DBUS_SESSION_BUS_ADDRESS": session.address})
            for d in (a, b):
                d.wait_log("tracing on (adapter hci0)")
                wait_for("its advertisement", lambda d=d: d.active_instances("hci0") == 1)
            relays = [Relay(a, A_ADDRESS, b), Relay(b, B_ADDRESS, a)]
            wait_for("both advertisements relayed", lambda: all(r.relayed for r in relays))
            met = b.now()
            # They meet for half an hour: a scan every 5 minutes on both.
            for _ in range(6):
                heard = scans_heard(b)
                for d in (a, b):
                    d.advance_clock(300)
                wait_for("B's next scan that heard A", lambda: scans_heard(b) > heard, timeout=30)
            assert scans_heard(a) >= 1, "A never heard B"
            for r in relays:
                r.close()
            relays = []
            # The next day A tests positive and submits its keys (yesterday's among them).
            for d in (a, b):
                d.advance_clock(86_400)
            a.call("RegisterTest", f"'{state.issue_teletan()}'", timeout=60)
            assert a.get("TestState") == "positive"
            # With consent (polkit's stand-in allows it), symptoms since the day they met.
            onset = day_of(met // 600)
            assert a.call("SubmitKeys", f"{{'onset': <'{onset}'>}}", timeout=120) == "()"
            with state.lock:
                [upload] = [u for u in state.submissions if u.kept_keys]
            # The distribution publishes the past days' keys as a CWA server does for ENF v2: a
            # confirmed test, the infectiousness in days_since_onset_of_symptoms (the library's CWA
            # map: 1 standard, 2 high), here from the TRL the app sent (2 from TRL 5 up, else 1:
            # this test's mapping, not CWA's table).
            keys = list(upload.kept_keys)
            for k in keys:
                k.report_type = 1
                k.days_since_onset_of_symptoms = 2 if k.transmission_risk_level >= 5 else 1
            today = day_of(b.now() // 600)
            for published in sorted({day_of(k.rolling_start_interval_number) for k in keys} - {today}):
                dist.add_day("EUR", published, [k for k in keys if day_of(k.rolling_start_interval_number) == published])
            # B's background sync (hourly) finds them by itself.
            monitor = Monitor(b)
            try:
                b.advance_clock(3600)
                wait_for("B's risk high", lambda: b.get("RiskLevel") == "high", timeout=60)
                wait_for("the signal", lambda: any("RiskLevel" in inv for _, inv in monitor.signals()) or None)
            finally:
                monitor.close()
            [n] = wait_for("B's notification", lambda: session.notifications() or None, timeout=30)
            assert n["summary"] == "Increased risk"
            time.sleep(1)
            assert len(session.notifications()) == 1
            assert "sync (user)" not in b.log_text() and "sync (periodic): done" in b.log_text()
    finally:
        for r in relays:
            r.close()
        if agent is not None:
            agent.send_signal(signal.SIGTERM)
            agent.wait(10)
        session.stop()


def day_of(rolling_start: int) -> str:
    return dt.datetime.fromtimestamp(rolling_start * 600, dt.timezone.utc).date().isoformat()
