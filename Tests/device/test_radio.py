"""State follows the radio: encored traces on BlueZoo's adapter (hci0) and
says so in State, with a PropertiesChanged at each change: bluetooth-off
when the adapter is powered off, no-adapter when it is removed (or the
one --adapter names is not there), cannot-advertise while its
advertisement cannot be registered, active again when it is usable,
disabled while the user turned tracing off. The tracing history (in the
service's one store) records each stop and start."""
from __future__ import annotations

import os
import subprocess

from device_world import ADAPTER, CLI, Device, wait_for
from test_signals import Monitor

from bus_peer import Advertiser


def state_changes(monitor: Monitor) -> list[str]:
    return [changed["State"] for changed, _ in monitor.signals() if "State" in changed]


def wait_state(device: Device, state: str) -> None:
    wait_for(f"State {state}", lambda: device.get("State") == state)


def test_state_follows_the_adapter(device: Device) -> None:
    device.start()
    device.wait_log("tracing on (adapter hci0)")
    wait_for("the advertisement", lambda: device.active_instances("hci0") == 1)
    assert device.get("State") == "active"
    monitor = Monitor(device)
    try:
        device.set_powered("hci0", False)
        wait_state(device, "bluetooth-off")
        device.wait_log("tracing off: adapter hci0 was powered off")
        device.set_powered("hci0", True)
        wait_state(device, "active")
        device.wait_log("tracing on (adapter hci0)", count=2)
        wait_for("the advertisement again", lambda: device.active_instances("hci0") == 1)
        device.remove_adapter(0)
        wait_state(device, "no-adapter")
        device.wait_log("tracing off: adapter hci0 was removed")
        device.add_adapter(0, ADAPTER)
        wait_state(device, "active")
        wait_for("the signals", lambda: state_changes(monitor)[-1:] == ["active"] or None)
    finally:
        monitor.close()
    # Each change signalled once, in order (BlueZoo adds an adapter powered
    # off and then powers it: bluetooth-off may come between).
    changes = state_changes(monitor)
    assert changes[:3] == ["bluetooth-off", "active", "no-adapter"] and changes[3:] in (["active"], ["bluetooth-off", "active"]), changes
    assert device.stop() == 0
    assert "tracing off: encored stopped" in device.log_text()


def test_disabled_by_the_user_whatever_the_radio(device: Device) -> None:
    device.start()
    device.wait_log("tracing on (adapter hci0)")
    device.call("SetEnabled", "false")
    wait_state(device, "disabled")
    device.wait_log("tracing off: turned off (Enabled false)")
    wait_for("the advertisement withdrawn", lambda: device.active_instances("hci0") == 0)
    # The radio's changes do not show while tracing is off by the user's wish...
    device.set_powered("hci0", False)
    device.set_powered("hci0", True)
    assert device.get("State") == "disabled"
    # ...and show again when it is on: off at once when the adapter is.
    device.set_powered("hci0", False)
    device.call("SetEnabled", "true")
    wait_state(device, "bluetooth-off")
    device.set_powered("hci0", True)
    wait_state(device, "active")
    device.wait_log("tracing on (adapter hci0)", count=2)
    assert device.stop() == 0


def test_no_adapter_of_the_name_asked_for(device: Device) -> None:
    device.start("--adapter", "hci1")
    wait_state(device, "no-adapter")
    assert device.active_instances("hci0") == 0
    device.add_adapter(1, "00:11:22:33:44:78")
    wait_state(device, "active")
    device.wait_log("tracing on (adapter hci1)")
    assert device.stop() == 0


def test_no_bluez_is_no_adapter(device: Device) -> None:
    device.stop_bluez()
    device.start()
    wait_state(device, "no-adapter")
    device.wait_log("waiting for BlueZ")
    device.start_bluez()
    wait_state(device, "active")
    assert device.stop() == 0


def test_tracing_writes_the_service_store(device: Device) -> None:
    """Tracing's adapter and history are in the service's one store, the
    new one after DeleteAllData too."""
    device.start()
    device.wait_log("tracing on (adapter hci0)")
    device.call("DeleteAllData", timeout=60)
    device.wait_log("tracing: on the new store")
    device.wait_log("tracing on (adapter hci0)", count=2)
    wait_for("the advertisement on the new store's RPI", lambda: device.active_instances("hci0") == 1)
    assert device.stop() == 0
    env = {**os.environ, "ENCORE_DB_KEY": "passphrase of the device"}
    r = subprocess.run([str(CLI), "tracing", "status", "--db", str(device.db), "--json"], capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert '"adapter":"hci0"' in r.stdout.replace(" ", "") and sorted(p.name for p in device.root.glob("*.db")) == ["device.db"]


def test_cannot_advertise_while_the_adapter_has_no_free_instance(device: Device) -> None:
    """Every advertising instance of the adapter taken by other clients
    (BlueZoo has 15): RegisterAdvertisement fails, State is cannot-advertise;
    once one is free the service's retry registers, and State is active."""
    supported = int(device.busctl("get-property", "org.bluez", "/org/bluez/hci0", "org.bluez.LEAdvertisingManager1",
                                  "SupportedInstances").split()[1])
    others = [Advertiser(device.address, "hci0", bytes(20)) for _ in range(supported)]
    try:
        for o in others:
            assert o.registered.wait(10) and o.error is None, o.error
        device.start()
        wait_state(device, "cannot-advertise")
        device.wait_log("RegisterAdvertisement failed (org.bluez.Error.NotPermitted)")
        device.wait_log("tracing on (adapter hci0)")   # scanning goes on
    finally:
        others[0].close()
    wait_state(device, "active")
    wait_for("the service's advertisement", lambda: device.active_instances("hci0") == supported)
    for o in others[1:]:
        o.close()
    assert device.stop() == 0
