"""Another peer on the test's private bus: what any local user may do on
a system bus. It sends signals straight to one connection (a unicast
signal needs no match rule on the receiver's side), calls the daemon's
objects, and advertises through BlueZoo as any BLE advertiser in range
would. jeepney, a pure-Python D-Bus client: sdbus (BlueZoo's) cannot
address a signal to one connection."""
from __future__ import annotations

import threading
from typing import Any

from jeepney import DBusAddress, HeaderFields, Message, MessageType, new_error, new_method_call, new_method_return, new_signal
from jeepney.bus_messages import message_bus
from jeepney.io.blocking import DBusConnection, open_dbus_connection

EN_UUID = "0000fd6f-0000-1000-8000-00805f9b34fb"


class Peer:
    """One connection of its own (its unique name is `name`)."""

    def __init__(self, address: str) -> None:
        self.conn: DBusConnection = open_dbus_connection(address)
        self.name: str = self.conn.unique_name

    def close(self) -> None:
        self.conn.close()

    def call(self, destination: str, path: str, interface: str, member: str, signature: str | None = None,
             body: tuple[Any, ...] = ()) -> Message:
        """The reply, a method return or an error."""
        msg = new_method_call(DBusAddress(path, bus_name=destination, interface=interface), member, signature, body)
        return self.conn.send_and_get_reply(msg, timeout=10)

    def bus(self, member: str, *args: str) -> Any:
        """A call to the bus driver (org.freedesktop.DBus), its one result."""
        reply = self.call(message_bus.bus_name, message_bus.object_path, message_bus.interface, member, "s" if args else None, args)
        assert reply.header.message_type == MessageType.method_return, reply.body
        return reply.body[0]

    def unique_name_of(self, pid: int) -> str:
        """The connection the process `pid` has to the bus for its radio: not
        the one that serves org.encore.Exposure, when it has that one too."""
        names = self.bus("ListNames")
        api = self.bus("GetNameOwner", "org.encore.Exposure") if "org.encore.Exposure" in names else None
        for name in names:
            if name.startswith(":") and name != api and self.bus("GetConnectionUnixProcessID", name) == pid:
                return str(name)
        raise AssertionError(f"process {pid} has no radio connection to the bus")

    def signal(self, destination: str, path: str, interface: str, member: str, signature: str, body: tuple[Any, ...]) -> None:
        """A signal sent to `destination` alone (whatever it claims to be, the bus stamps our name as its sender)."""
        msg = new_signal(DBusAddress(path, interface=interface), member, signature, body)
        msg.header.fields[HeaderFields.destination] = destination
        self.conn.send(msg)

    def ping(self, destination: str) -> None:
        """A call `destination` answers in order after what we sent before: when
        it comes back, the messages before it were read."""
        self.call(destination, "/", "org.freedesktop.DBus.Peer", "Ping")


def error_name(reply: Message) -> str | None:
    """The D-Bus error a reply carries, None for a method return."""
    if reply.header.message_type != MessageType.error:
        return None
    return str(reply.header.fields[HeaderFields.error_name])


def device_properties(payload: bytes, rssi: int) -> dict[str, tuple[str, Any]]:
    """Device1's properties as BlueZ reports an EN advertiser."""
    return {"RSSI": ("n", rssi), "ServiceData": ("a{sv}", {EN_UUID: ("ay", payload)})}


class Advertiser:
    """An LE advertisement of `payload` (RPI ‖ AEM) registered on one of
    BlueZoo's adapters, from a connection of its own: the other adapters
    hear it when they scan. A thread answers BlueZoo's calls to the
    advertisement object (its properties) until close()."""

    PATH = "/test/advertisement"

    def __init__(self, address: str, adapter: str, payload: bytes) -> None:
        self.conn: DBusConnection = open_dbus_connection(address)
        self.properties: dict[str, tuple[str, Any]] = {
            "Type": ("s", "broadcast"), "ServiceUUIDs": ("as", ["fd6f"]),
            "ServiceData": ("a{sv}", {"fd6f": ("ay", payload)}), "Discoverable": ("b", True)}
        self.registered = threading.Event()
        self.error: str | None = None
        self._stop = threading.Event()
        register = new_method_call(DBusAddress(f"/org/bluez/{adapter}", bus_name="org.bluez", interface="org.bluez.LEAdvertisingManager1"),
                                   "RegisterAdvertisement", "oa{sv}", (self.PATH, {}))
        self._serial = next(self.conn.outgoing_serial)
        self.conn.send(register, serial=self._serial)
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    def _serve(self) -> None:
        while not self._stop.is_set():
            try:
                msg = self.conn.receive(timeout=0.1)
            except TimeoutError:
                continue
            except OSError:
                return
            if msg.header.fields.get(HeaderFields.reply_serial) == self._serial:
                self.error = error_name(msg)
                self.registered.set()
            elif msg.header.message_type == MessageType.method_call:
                self.conn.send(self._answer(msg))

    def _answer(self, call: Message) -> Message:
        fields = call.header.fields
        member, path = fields.get(HeaderFields.member), fields.get(HeaderFields.path)
        if path == self.PATH and fields.get(HeaderFields.interface) == "org.freedesktop.DBus.Properties":
            if member == "GetAll":
                return new_method_return(call, "a{sv}", (self.properties,))
            if member == "Get" and call.body[1] in self.properties:
                return new_method_return(call, "v", (self.properties[call.body[1]],))
        if path == self.PATH and member == "Release":
            return new_method_return(call)
        return new_error(call, "org.freedesktop.DBus.Error.UnknownMethod")

    def close(self) -> None:
        self._stop.set()
        self._thread.join(5)
        self.conn.close()
