"""encored over its D-Bus API on a private system bus: the interface it
exports is the one committed in docs/, every call and every read goes
through polkit (its stand-in allows or denies each action id), the
errors carry the library's status names, and the service answers from
its own loop while a sync waits on the network."""
from __future__ import annotations

import json
import subprocess
import threading
import time
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from device_world import ACTIONS, IFACE, NAME, PATH, REPO, BusError, Device

DOCS_XML = REPO / "docs" / "org.encore.Exposure1.xml"


def interface_element(xml_text: str) -> ET.Element:
    for node in ET.fromstring(xml_text).iter("interface"):
        if node.get("name") == IFACE:
            return node
    raise AssertionError(f"{IFACE} is not in the XML")


def canonical(e: ET.Element) -> tuple:
    """Element, attributes and children, order-free among siblings (D-Bus does not order them)."""
    return (e.tag, tuple(sorted(e.attrib.items())), tuple(sorted(canonical(c) for c in e)))


def test_exports_exactly_the_committed_interface(device: Device) -> None:
    device.start()
    xml = device.busctl("introspect", "--xml-interface", NAME, PATH)
    assert canonical(interface_element(xml)) == canonical(interface_element(DOCS_XML.read_text()))


def test_properties_of_a_new_store(device: Device) -> None:
    device.start()
    props = device.get_all()
    assert props == {"Enabled": True, "State": "active", "RiskLevel": "unknown", "LastExposureDay": "", "LastSync": 0, "LastCheck": 0,
                     "NextSync": 0, "TestState": "none"}
    assert device.get("RiskLevel") == "unknown"
    assert device.db.exists()


def test_set_enabled_is_kept_across_a_restart(device: Device) -> None:
    device.start()
    assert device.call("SetEnabled", "false") == "()"
    assert device.get("Enabled") is False
    assert device.get("State") == "disabled"
    assert device.stop() == 0
    device.start()
    assert device.get("Enabled") is False


def test_polkit_says_no_to_reads(device: Device) -> None:
    device.start()
    device.set_allowed([a for a in ACTIONS if a != "org.encore.Exposure.read"])
    with pytest.raises(BusError) as e:
        device.call("Get", f"'{IFACE}'", "'RiskLevel'", interface="org.freedesktop.DBus.Properties")
    assert e.value.name == "org.encore.Error.NotAuthorized"
    assert "org.encore.Exposure.read" in e.value.message
    with pytest.raises(BusError) as e:
        device.call("GetAll", f"'{IFACE}'", interface="org.freedesktop.DBus.Properties")
    assert e.value.name == "org.encore.Error.NotAuthorized"
    # What it guards is the read alone: managing is still allowed.
    assert device.call("SetEnabled", "true") == "()"


def test_polkit_says_no_to_delete_all_data(device: Device, checkin_qr: str) -> None:
    device.start()
    checked_in = device.call("CheckIn", f"'{checkin_qr}'")
    device.set_allowed([a for a in ACTIONS if a != "org.encore.Exposure.delete-data"])
    with pytest.raises(BusError) as e:
        device.call("DeleteAllData")
    assert e.value.name == "org.encore.Error.NotAuthorized"
    assert "ENCORE_ERR_NOT_AUTHORIZED" in e.value.message
    # Nothing was deleted: the check-in is still there to check out.
    check_in_id = checked_in.strip("(),' ")
    assert device.call("CheckOut", f"'{check_in_id}'") == "()"


def test_delete_all_data_when_allowed(device: Device, checkin_qr: str) -> None:
    device.start()
    check_in_id = device.call("CheckIn", f"'{checkin_qr}'").strip("(),' ")
    assert device.call("DeleteAllData") == "()"
    with pytest.raises(BusError) as e:
        device.call("CheckOut", f"'{check_in_id}'")
    assert e.value.name.startswith("org.encore.Error.")
    assert device.get("RiskLevel") == "unknown"
    assert device.get("LastExposureDay") == ""
    # The new store is the service's: it goes on working on it.
    assert device.call("CheckIn", f"'{checkin_qr}'").startswith("('")


def test_check_in_and_out(device: Device, checkin_qr: str) -> None:
    device.start()
    first = device.call("CheckIn", f"'{checkin_qr}'").strip("(),' ")
    assert first.isdigit()
    assert device.call("CheckOut", f"'{first}'") == "()"
    with pytest.raises(BusError) as e:
        device.call("CheckIn", "'https://e.coronawarn.app?v=1#not-a-code'")
    assert e.value.name.startswith("org.encore.Error.")
    assert "ENCORE_ERR_" in e.value.message
    with pytest.raises(BusError) as e:
        device.call("CheckOut", "'not-a-number'")
    assert e.value.name == "org.encore.Error.InvalidArgument"
    device.set_allowed([a for a in ACTIONS if a != "org.encore.Exposure.manage"])
    with pytest.raises(BusError) as e:
        device.call("CheckIn", f"'{checkin_qr}'")
    assert e.value.name == "org.encore.Error.NotAuthorized"


def test_wrong_symptoms_are_refused_before_anything(device: Device) -> None:
    device.start()
    with pytest.raises(BusError) as e:
        device.call("SubmitKeys", "{'fever': <true>}")
    assert e.value.name == "org.encore.Error.InvalidArgument"
    with pytest.raises(BusError) as e:
        device.call("SubmitKeys", "{'onset': <'yesterday'>}")
    assert e.value.name == "org.encore.Error.InvalidArgument"


def test_a_second_service_on_the_bus_fails(device: Device) -> None:
    device.start()
    (device.root / "other").mkdir()
    other = Device(root=device.root / "other")
    other.address = device.address
    other.start(wait=False)
    assert other.service is not None
    assert other.service.wait(20) == 1
    assert "owned by another process" in other.log_text()


def test_stops_on_sigterm(device: Device) -> None:
    device.start()
    assert device.stop() == 0
    assert not device.has_name(NAME)


class SlowServer:
    """An HTTP server that answers every request after `delay` seconds (with 503): a sync that waits on the network."""

    def __init__(self, delay: float):
        import http.server

        outer = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_GET(self) -> None:  # noqa: N802
                outer.requests += 1
                time.sleep(delay)
                self.send_response(503)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: object) -> None:
                pass

        self.requests = 0
        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_port}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()


def test_reads_answer_quickly_while_a_sync_waits_on_the_network(device: Device, tmp_path: Path, trust_arg: str) -> None:
    slow = SlowServer(delay=3)
    try:
        device.start("--distribution", slow.url, "--trust", trust_arg, "--no-warnings")
        result: dict[str, object] = {}

        def sync_now() -> None:
            try:
                result["answer"] = device.call("SyncNow")
            except BusError as e:
                result["error"] = e

        t = threading.Thread(target=sync_now)
        t.start()
        device.wait_log("sync (user): started")
        longest = 0.0
        for _ in range(10):
            start = time.monotonic()
            assert device.get_all()["Enabled"] is True
            longest = max(longest, time.monotonic() - start)
        assert slow.requests >= 1
        t.join(60)
        # busctl itself takes a few ms to start; the service's share is the rest.
        assert longest < 0.5, f"a GetAll took {longest:.3f} s while the sync waited on the network"
        # The server's 503 fails the sync; SyncNow says so, with the library's status.
        assert isinstance(result.get("error"), BusError), result
        assert "ENCORE_ERR_" in result["error"].message  # type: ignore[union-attr]
    finally:
        slow.close()


def test_a_name_lost_signal_from_a_peer_is_not_the_bus_drivers(device: Device) -> None:
    device.start()
    owner = device.busctl("--json=short", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus", "org.freedesktop.DBus", "GetNameOwner", "s",
                          NAME)
    unique = json.loads(owner)["data"][0]
    # Any peer can send a signal that looks like the bus driver's, addressed to the service.
    r = subprocess.run(["gdbus", "emit", "--address", device.address, "--dest", unique, "--object-path", "/org/freedesktop/DBus",
                        "--signal", "org.freedesktop.DBus.NameLost", f"'{NAME}'"], capture_output=True, text=True, timeout=30)
    assert r.returncode == 0, r.stderr
    time.sleep(1)
    assert device.service is not None and device.service.poll() is None
    assert "took org.encore.Exposure away" not in device.log_text()
    assert device.get("Enabled") is True
