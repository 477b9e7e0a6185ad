"""encored's tracing against BlueZoo on a private bus: two services, each with
its own store and adapter, trace each other; what B heard is checked
against A's own keys (through the library's Python binding); rotation on
the test clock; the adapter powered off and on, removed and added again;
BlueZ leaving and coming back; SIGTERM. Nothing logged names an RPI or a
Bluetooth address."""
from __future__ import annotations

import subprocess
import time
from pathlib import Path

import pytest
from bluez_world import ENCORED, Daemon, World, wait_for
from conftest import ADAPTER_A, ADAPTER_B
from daemon_store import broadcast_rpis, encore_cli, history, prev_scans, sightings
from encore import crypto

# BlueZoo's RSSI is always 0: with A's TX power 10 dBm (the matching takes
# -60 to 20) and B's RSSI correction -20 dB, B's attenuation is 30 dB.
A_TX_POWER = 10            # dBm in A's advertisement
A_CONFIDENCE = 3
B_RSSI_CORRECTION = -20    # dB B adds to what its adapter reports


def scans_heard(d: Daemon) -> int:
    """Scans whose log line says they wrote a sighting."""
    return sum(1 for line in d.log_text().splitlines() if "scan:" in line and " 0 sightings written" not in line)


def assert_private(*daemons: Daemon, secrets: set[bytes]) -> None:
    """No RPI (or payload), no Bluetooth address, no device path in any log."""
    for d in daemons:
        text = d.log_text()
        lowered = text.lower()
        for secret in secrets:
            assert secret.hex() not in lowered, f"{d.name}'s log holds an RPI or payload"
        for address in (ADAPTER_A, ADAPTER_B):
            assert address.lower() not in lowered and address.replace(":", "_").lower() not in lowered, f"{d.name}'s log holds an address"
        assert "dev_" not in text


def start_pair(world: World) -> tuple[Daemon, Daemon]:
    a = world.daemon("a", "--adapter", "hci0", "--tx-power", str(A_TX_POWER), "--calibration-confidence", str(A_CONFIDENCE))
    b = world.daemon("b", "--adapter", "hci1", f"--rssi-correction={B_RSSI_CORRECTION}")
    for d in (a, b):
        wait_until_heard(d, 1)
    return a, b


def wait_until_heard(d: Daemon, scans: int) -> None:
    wait_for(f"{d.name} to hear the other in {scans} scans", lambda: scans_heard(d) >= scans)


def test_two_daemons_trace_each_other_and_rotate(world: World) -> None:
    a, b = start_pair(world)
    assert world.active_instances("hci0") == 1 and world.active_instances("hci1") == 1

    # 1300 s on (past the longest rotation, 1200 s): A broadcasts a new RPI,
    # and B's next scan, overdue, hears it. (A scan can fall in the moment
    # between A's old advertisement withdrawn and the new one registered:
    # then one more period.)
    for attempt in range(3):
        world.advance_clock(1300 if attempt == 0 else 300)
        wait_until_heard(b, attempt + 2)
        if len({s.rpi for s in sightings(b)}) >= 2:
            break
    assert world.active_instances("hci0") == 1 and world.active_instances("hci1") == 1

    assert a.stop() == 0 and b.stop() == 0
    # Withdrawn on SIGTERM.
    assert world.active_instances("hci0") == 0 and world.active_instances("hci1") == 0

    a_rpis, heard = broadcast_rpis(a, world.now()), sightings(b)
    assert len({s.rpi for s in heard}) >= 2, "B heard no rotation of A's RPI"
    for s in heard:
        assert s.rpi in a_rpis, "B stored an RPI that is not A's"
        tek = a_rpis[s.rpi]
        metadata = crypto.aem(crypto.aemk(tek), s.rpi, s.aem)
        assert metadata == bytes([0x40 | A_CONFIDENCE << 2, A_TX_POWER & 0xFF, 0, 0])
        assert s.rssi == 0 + B_RSSI_CORRECTION
    # One sighting per RPI per scan; the later scans know the one before.
    assert len(heard) == len({(s.rpi, s.time) for s in heard})
    assert any(p is not None for p in prev_scans(b))
    # A's own RPIs are not A's sightings: A heard only B's.
    b_rpis = broadcast_rpis(b, world.now())
    assert sightings(a) and all(s.rpi in b_rpis and s.rpi not in a_rpis for s in sightings(a))

    assert history(a) == [True, False] and history(b) == [True, False]
    status = encore_cli(b, "tracing", "status", "--now", str(world.now()))
    assert status["active"] is False and status["adapter"] == "hci1" and status["rpisLast14Days"] == len({s.rpi for s in heard})
    assert_private(a, b, secrets=set(a_rpis) | set(b_rpis))


def test_adapter_powered_off_and_on(world: World) -> None:
    a, b = start_pair(world)
    world.set_powered("hci1", False)
    b.wait_log("tracing off: adapter hci1 was powered off")
    wait_for("B's advertisement withdrawn", lambda: world.active_instances("hci1") == 0)
    world.set_powered("hci1", True)
    b.wait_log("tracing on", count=2)
    wait_for("B's advertisement back", lambda: world.active_instances("hci1") == 1)
    heard = scans_heard(b)
    world.advance_clock(300)
    wait_for("B hearing A again", lambda: scans_heard(b) > heard)
    assert a.stop() == 0 and b.stop() == 0
    assert history(b) == [True, False, True, False] and history(a) == [True, False]


def test_adapter_removed_and_added(world: World) -> None:
    a, b = start_pair(world)
    world.busctl("call", "org.bluez", "/org/bluezoo", "org.bluezoo.Manager1", "RemoveAdapter", "y", "1")
    b.wait_log("tracing off: adapter hci1 was removed")
    world.busctl("call", "org.bluez", "/org/bluezoo", "org.bluezoo.Manager1", "AddAdapter", "ys", "1", ADAPTER_B)
    b.wait_log("tracing on", count=2)
    wait_for("B's advertisement on the new adapter", lambda: world.active_instances("hci1") == 1)
    assert a.stop() == 0 and b.stop() == 0
    assert history(b) == [True, False, True, False]


def test_bluez_leaving_and_coming_back(world: World) -> None:
    a, b = start_pair(world)
    world.stop_bluez()
    for d in (a, b):
        d.wait_log("tracing off: BlueZ left the bus")
    world.start_bluez()
    for d in (a, b):
        d.wait_log("tracing on", count=2)
    wait_for("both advertisements registered again", lambda: world.active_instances("hci0") == 1 and world.active_instances("hci1") == 1)
    heard = scans_heard(b)
    world.advance_clock(300)
    wait_for("B hearing A again", lambda: scans_heard(b) > heard)
    assert a.stop() == 0 and b.stop() == 0
    assert history(a) == [True, False, True, False] and history(b) == [True, False, True, False]


def test_sigterm_in_a_scan_writes_what_it_heard(world: World) -> None:
    a = world.daemon("a", "--adapter", "hci0")
    wait_for("A's advertisement", lambda: world.active_instances("hci0") == 1)
    b = world.daemon("b", "--adapter", "hci1")
    # BlueZoo reports at once, the window lasts 4 s: stopped within it.
    wait_for("B's discovery", lambda: "Starting discovery on adapter[1]" in (world.root / "bluezoo.log").read_text())
    time.sleep(1.5)
    assert b.stop() == 0
    assert "scan: 1 reports, 1 sightings written" in b.log_text()
    assert len(sightings(b)) == 1 and history(b) == [True, False]
    wait_for("discovery stopped", lambda: "Stopping discovery on adapter[1]" in (world.root / "bluezoo.log").read_text())
    assert world.active_instances("hci1") == 0
    assert a.stop() == 0


def test_a_crashed_run_is_closed_while_bluez_is_away(world: World) -> None:
    """A daemon killed (no "off" recorded) and started again while BlueZ is
    gone: the old run ends at its last scan, not when BlueZ comes back."""
    a = world.daemon("a", "--adapter", "hci0")
    a.wait_log("scan:")
    a.kill()
    assert history(a) == [True]
    world.stop_bluez()
    a.start()
    a.wait_log("waiting for BlueZ")
    wait_for("the old run closed", lambda: history(a) == [True, False])
    assert a.stop() == 0
    assert history(a) == [True, False]


def test_started_before_bluez_and_stopped_without_it(world: World) -> None:
    world.stop_bluez()
    a = world.daemon("a", "--adapter", "hci0")
    a.wait_log("waiting for BlueZ")
    world.start_bluez()
    a.wait_log("tracing on")
    wait_for("A's advertisement", lambda: world.active_instances("hci0") == 1)
    world.stop_bluez()
    a.wait_log("tracing off: BlueZ left the bus")
    assert a.stop() == 0
    assert history(a) == [True, False]


def test_store_key_from_a_systemd_credential(world: World) -> None:
    credentials = world.root / "credentials"
    credentials.mkdir()
    (credentials / "encore-db-key").write_text("passphrase of a\n")   # the trailing newline is not part of it
    a = world.daemon("a", "--adapter", "hci0", env={"CREDENTIALS_DIRECTORY": str(credentials)}, key_in_environment=False)
    a.wait_log("tracing on")
    assert "key from " + str(credentials / "encore-db-key") in a.log_text()
    assert a.stop() == 0
    assert history(a) == [True, False]   # the store opens with the passphrase without the newline


def test_in_a_private_network_namespace(world: World) -> None:
    """The packaged unit's PrivateNetwork=yes: the bus is a socket file, which
    the daemon still reaches without a network of its own."""
    if subprocess.run(["unshare", "-n", "true"], capture_output=True).returncode != 0:
        pytest.skip("unshare -n is not permitted here")
    a = world.daemon("a", "--adapter", "hci0", command_prefix=["unshare", "-n"])
    b = world.daemon("b", "--adapter", "hci1")
    wait_until_heard(b, 1)
    wait_until_heard(a, 1)
    assert a.stop() == 0 and b.stop() == 0


def test_usage_errors(tmp_path: Path) -> None:
    env = {"PATH": "/usr/bin:/bin", "ENCORE_DB_KEY": "k", "DBUS_SYSTEM_BUS_ADDRESS": "unix:path=/nonexistent"}
    for args, message in ((["--adapter", "bluetooth0"], "hciN"), (["--calibration-confidence", "4"], "0, 1, 2 or 3")):
        r = subprocess.run([str(ENCORED), "--db", str(tmp_path / "x.db"), *args], capture_output=True, text=True, env=env, timeout=30)
        assert r.returncode == 2, r
        assert message in r.stderr
    r = subprocess.run([str(ENCORED), "--db", str(tmp_path / "x.db")], capture_output=True, text=True, env={"PATH": "/usr/bin:/bin"}, timeout=30)
    assert r.returncode == 2 and "no store key" in r.stderr
    # No bus: a clear error and a failure status, not a hang.
    r = subprocess.run([str(ENCORED), "--db", str(tmp_path / "x.db")], capture_output=True, text=True, env=env, timeout=30)
    assert r.returncode == 1 and "D-Bus system bus" in r.stderr


def test_libencore_needs_no_libsystemd() -> None:
    """sd-bus is the daemon's alone: the library links nothing of it."""
    library = ENCORED.parents[1] / "lib" / "libencore.so"
    dynamic = subprocess.run(["readelf", "-d", "-W", str(library)], capture_output=True, text=True, check=True).stdout
    assert "NEEDED" in dynamic and "libsystemd" not in dynamic
    symbols = subprocess.run(["nm", "-D", str(library)], capture_output=True, text=True, check=True).stdout
    assert "encore_" in symbols and "sd_bus" not in symbols
    daemon = subprocess.run(["readelf", "-d", "-W", str(ENCORED)], capture_output=True, text=True, check=True).stdout
    assert "libsystemd.so" in daemon
