"""What encored's radio believes on the bus, and from whom: another peer
(any local user on a system bus) that forges the bus driver's
NameOwnerChanged, BlueZ's signals or BlueZ's Release() changes nothing;
the package's bus policy lets only BlueZ call the daemon; and the device's
own RPIs, replayed hours later, are never sightings."""
from __future__ import annotations

import os
import pwd
import re
import shutil
import tempfile
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from bluez_world import Daemon, World, wait_for
from conftest import ADAPTER_A, ADAPTER_B
from bus_peer import Advertiser, Peer, device_properties, error_name
from daemon_store import encore_cli, history, sightings
from encore import crypto

ADV_PATH = "/org/encore/radio/advertisement"
ACCESS_DENIED = "org.freedesktop.DBus.Error.AccessDenied"
# A device path under A's adapter and the report of an EN advertiser no one runs.
FORGED_DEVICE = "/org/bluez/hci0/dev_66_55_44_33_22_11"
FORGED_PAYLOAD = bytes(range(16)) + b"\x01\x02\x03\x04"


@pytest.fixture
def peer(world: World) -> Iterator[Peer]:
    p = Peer(world.address)
    try:
        yield p
    finally:
        p.close()


def scans(d: Daemon) -> list[str]:
    """The daemon's "scan: ..." log lines."""
    return [line for line in d.log_text().splitlines() if "scan:" in line]


def next_scan(world: World, d: Daemon, adapter: int = 0, during: Callable[[], None] = lambda: None) -> str:
    """Moves the clock to the daemon's next scan window, runs `during` while
    the window is open, and returns the window's log line once it closed:
    by then the daemon has handled all that was sent to it before (its one
    thread reads the bus in order)."""
    done, started = len(scans(d)), discoveries(world, adapter)
    world.advance_clock(300)
    wait_for(f"{d.name}'s next discovery", lambda: discoveries(world, adapter) > started)
    during()
    wait_for(f"{d.name}'s next scan", lambda: len(scans(d)) > done)
    return scans(d)[done]


def registrations(world: World) -> int:
    """Advertisements BlueZoo registered (its log's "Registering advertisement[...]")."""
    return (world.root / "bluezoo.log").read_text().count("Registering advertisement")


def discoveries(world: World, adapter: int) -> int:
    return (world.root / "bluezoo.log").read_text().count(f"Starting discovery on adapter[{adapter}]")


def tracing_a(world: World) -> Daemon:
    """A on hci0, tracing, its first scan done and its advertisement registered."""
    a = world.daemon("a", "--adapter", "hci0")
    a.wait_log("scan:")
    wait_for("A's advertisement", lambda: world.active_instances("hci0") == 1)
    return a


def forge_bluez(peer: Peer, world: World, a: Daemon) -> None:
    """BlueZ's signals from the peer, in a scan window of A's: a Device1
    report under A's adapter, then A's adapter powered off and removed."""
    target = peer.unique_name_of(a.pid)

    def forge() -> None:
        peer.signal(target, "/", "org.freedesktop.DBus.ObjectManager", "InterfacesAdded", "oa{sa{sv}}",
                    (FORGED_DEVICE, {"org.bluez.Device1": device_properties(FORGED_PAYLOAD, -40)}))
        peer.signal(target, FORGED_DEVICE, "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
                    ("org.bluez.Device1", device_properties(FORGED_PAYLOAD, -35), []))
        peer.signal(target, "/org/bluez/hci0", "org.freedesktop.DBus.Properties", "PropertiesChanged", "sa{sv}as",
                    ("org.bluez.Adapter1", {"Powered": ("b", False)}, []))
        peer.signal(target, "/", "org.freedesktop.DBus.ObjectManager", "InterfacesRemoved", "oas",
                    ("/org/bluez/hci0", ["org.bluez.Adapter1", "org.bluez.LEAdvertisingManager1"]))

    next_scan(world, a, during=forge)


def assert_untouched(world: World, a: Daemon) -> None:
    """A traces on as before: on since its start, one advertisement
    registered once, nothing stored that it did not hear."""
    text = a.log_text()
    assert "BlueZ left the bus" not in text and "BlueZ appeared" not in text and "tracing off" not in text
    assert history(a) == [True]
    assert world.active_instances("hci0") == 1 and registrations(world) == 1
    assert FORGED_PAYLOAD[:16] not in {s.rpi for s in sightings(a)}
    assert a.stop() == 0


@pytest.mark.parametrize("claim_owner", [True, False], ids=["claiming-org.bluez", "as-itself"])
def test_a_peer_forging_bluez_changes_nothing(world: World, peer: Peer, claim_owner: bool) -> None:
    """BlueZ's signals from another connection are not BlueZ's, and neither
    is a NameOwnerChanged that does not come from the bus driver: a peer
    that claims org.bluez with one is still not BlueZ."""
    a = tracing_a(world)
    if claim_owner:
        bluez = peer.bus("GetNameOwner", "org.bluez")
        peer.signal(peer.unique_name_of(a.pid), "/org/freedesktop/DBus", "org.freedesktop.DBus", "NameOwnerChanged", "sss",
                    ("org.bluez", bluez, peer.name))
    forge_bluez(peer, world, a)
    assert_untouched(world, a)


def test_calls_from_another_peer_are_refused(world: World, peer: Peer) -> None:
    """Release() (and every other call on the daemon's objects) from anyone
    but BlueZ gets AccessDenied, and the advertisement stays as it was."""
    a = tracing_a(world)
    target = peer.unique_name_of(a.pid)
    assert error_name(peer.call(target, ADV_PATH, "org.bluez.LEAdvertisement1", "Release")) == ACCESS_DENIED
    assert error_name(peer.call(target, ADV_PATH, "org.freedesktop.DBus.Properties", "GetAll", "s",
                                ("org.bluez.LEAdvertisement1",))) == ACCESS_DENIED
    assert error_name(peer.call(target, "/", "org.freedesktop.DBus.Introspectable", "Introspect")) == ACCESS_DENIED
    next_scan(world, a)
    assert_untouched(world, a)


def test_own_rpis_replayed_hours_later_are_not_sightings(world: World) -> None:
    """An RPI A broadcast three hours ago, broadcast again by another device
    (a replay, or a second adapter of the same host that heard it), is A's
    own, not a sighting."""
    start = world.now()
    a = tracing_a(world)
    key = next(k for k in encore_cli(a, "keys", "history", "--now", str(start))
               if k["rollingStartIntervalNumber"] <= start // 600 < k["rollingStartIntervalNumber"] + k["rollingPeriod"])
    tek = bytes.fromhex(key["keyData"])
    rpi = crypto.rpis(crypto.rpik(tek), start // 600, 1)[0]
    payload = rpi + crypto.aem(crypto.aemk(tek), rpi, bytes([0x40, 0, 0, 0]))
    done = len(scans(a))
    world.advance_clock(3 * 3600)             # a scan overdue: at once
    wait_for("A's scan three hours on", lambda: len(scans(a)) > done)
    replay = Advertiser(world.address, "hci1", payload)
    try:
        assert replay.registered.wait(10) and replay.error is None, replay.error
        wait_for("the replay registered", lambda: world.active_instances("hci1") == 1)
        heard = next_scan(world, a)
        if " 0 reports" in heard:             # BlueZoo's scan came before the window closed: one more
            heard = next_scan(world, a)
    finally:
        replay.close()
    assert " 0 sightings written" in heard and re.search(r", [1-9]\d* own$", heard), heard
    assert sightings(a) == []
    assert a.stop() == 0


POLICY = Path(__file__).resolve().parents[2] / "support/deb/encored.dbus.conf"
SYSTEM_CONF = Path("/usr/share/dbus-1/system.conf")


def system_bus_config(root: Path, daemon_user: str) -> Path:
    """A system bus with Debian's policies: system.conf's default one (no
    method call unless a policy allows it), BlueZ's for root, a permissive
    one as some desktops install (anyone may send LEAdvertisement1 and
    Properties calls anywhere), and the package's for the daemon's user."""
    default = re.search(r'<policy context="default">.*?</policy>', SYSTEM_CONF.read_text(), re.S)
    ours = re.search(r"<busconfig>(.*)</busconfig>", POLICY.read_text(), re.S)
    assert default and ours
    config = root / "system-bus.conf"
    config.write_text(f"""<!DOCTYPE busconfig PUBLIC "-//freedesktop//DTD D-BUS Bus Configuration 1.0//EN"
 "http://www.freedesktop.org/standards/dbus/1.0/busconfig.dtd">
<busconfig>
  <type>system</type>
  <listen>unix:path={root}/system-bus</listen>
  <auth>EXTERNAL</auth>
  {default.group(0)}
  <policy user="root">
    <allow own="org.bluez"/>
    <allow send_destination="org.bluez"/>
    <allow send_interface="org.bluez.LEAdvertisement1"/>
    <allow send_interface="org.freedesktop.DBus.ObjectManager"/>
    <allow send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  <policy context="default">
    <allow send_interface="org.bluez.LEAdvertisement1"/>
    <allow send_interface="org.freedesktop.DBus.Properties"/>
  </policy>
  {ours.group(1).replace('user="encored"', f'user="{daemon_user}"')}
</busconfig>
""")
    return config


@pytest.fixture
def system_world() -> Iterator[World]:
    """A world on a bus with the system policies, in a directory the
    daemon's user (nobody) may use: BlueZoo runs as root, as BlueZ does."""
    if os.geteuid() != 0 or shutil.which("setpriv") is None or not SYSTEM_CONF.exists():
        pytest.skip("needs root, setpriv and dbus's system.conf: the daemon runs as another user")
    root = Path(tempfile.mkdtemp(prefix="encored-policy-"))
    os.chown(root, pwd.getpwnam("nobody").pw_uid, -1)
    root.chmod(0o755)
    w = World(root=root, adapters=[ADAPTER_A, ADAPTER_B])
    try:
        w.start_bus(system_bus_config(root, "nobody"))
        (root / "system-bus").chmod(0o777)
        w.start_bluez()
        yield w
    finally:
        w.close()
        shutil.rmtree(root, ignore_errors=True)


def test_the_bus_policy_lets_only_bluez_call_the_daemon(system_world: World) -> None:
    """The package's policy on a bus with Debian's: BlueZ registers and reads
    the advertisement, its signals come through; another connection's calls
    (root's, not BlueZ's) are refused by the bus itself, never reaching the
    daemon (which would refuse them too, with its own message)."""
    world = system_world
    a = world.daemon("a", "--adapter", "hci0", command_prefix=["setpriv", "--reuid=nobody", "--regid=nogroup", "--clear-groups"],
                     own_bus=False)
    a.wait_log("scan:")
    wait_for("A's advertisement", lambda: world.active_instances("hci0") == 1)
    peer = Peer(world.address)
    try:
        reply = peer.call(peer.unique_name_of(a.pid), ADV_PATH, "org.bluez.LEAdvertisement1", "Release")
    finally:
        peer.close()
    assert error_name(reply) == ACCESS_DENIED and "Rejected receive message" in reply.body[0], reply.body
    # BlueZ's signals and calls still pass: the adapter off, then on (the advertisement registered again).
    world.set_powered("hci0", False)
    a.wait_log("tracing off: adapter hci0 was powered off")
    world.set_powered("hci0", True)
    a.wait_log("tracing on", count=2)
    wait_for("A's advertisement back", lambda: world.active_instances("hci0") == 1)
    assert a.stop() == 0
    assert history(a) == [True, False, True, False]
