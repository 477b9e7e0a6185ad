"""A device without a device: a machine (Tests/machine.py: a private
dbus-daemon as its system bus, BlueZoo with the device's adapter, a test
clock), polkit's authority played by python-dbusmock (template polkitd:
allow or deny action ids), the CWA stand-ins (distribution with signed
packages, verification, submission) and encored with its own store. The
tests talk to the service as clients do, over the bus (busctl, gdbus)."""
from __future__ import annotations

import json
import re
import signal
import subprocess
from pathlib import Path
from typing import Any

from machine import CLI, ENCORED, REPO, Machine, wait_for

__all__ = ["ACTIONS", "ADAPTER", "CLI", "ENCORED", "REPO", "BusError", "Device", "wait_for"]
NAME, PATH, IFACE = "org.encore.Exposure", "/org/encore/Exposure", "org.encore.Exposure1"
POLKIT, POLKIT_PATH = "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority"
ACTIONS = ["org.encore.Exposure.read", "org.encore.Exposure.manage", "org.encore.Exposure.submit-keys", "org.encore.Exposure.delete-data"]


def dbusmock_path() -> str:
    """Where the venv's python-dbusmock is, for the system's python3 (which has dbus-python and PyGObject)."""
    import importlib.util
    # Found, not imported: it imports dbus, which only the system's Python has.
    spec = importlib.util.find_spec("dbusmock")
    if spec is None or spec.origin is None:
        raise AssertionError("python-dbusmock is not in the venv: make venv")
    return str(Path(spec.origin).resolve().parents[1])


class BusError(Exception):
    def __init__(self, name: str, message: str):
        super().__init__(f"{name}: {message}")
        self.name, self.message = name, message


# The device's Bluetooth adapter in BlueZoo (hci0).
ADAPTER = "00:11:22:33:44:77"


class Device(Machine):
    """One machine: its system bus, BlueZoo, polkit stand-in and encored."""

    def __init__(self, root: Path, adapters: list[str] | None = None) -> None:
        super().__init__(root, [ADAPTER] if adapters is None else adapters)
        self.polkit: subprocess.Popen[bytes] | None = None
        self.service: subprocess.Popen[bytes] | None = None
        self.log = root / "encored.log"
        self.db = root / "device.db"
        self.args: list[str] = []

    # MARK: polkit

    def start_polkit(self, allowed: list[str]) -> None:
        env = {**self.env, "PYTHONPATH": dbusmock_path()}
        with open(self.root / "polkit.log", "ab") as log:
            self.polkit = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--system", "--template", "polkitd"],
                                           stdout=log, stderr=log, env=env)
        wait_for("polkit's stand-in", lambda: self.has_name(POLKIT))
        self.set_allowed(allowed)

    def set_allowed(self, actions: list[str]) -> None:
        self.busctl("call", POLKIT, POLKIT_PATH, "org.freedesktop.DBus.Mock", "SetAllowed", "as", str(len(actions)), *actions)

    def has_name(self, name: str) -> bool:
        r = subprocess.run(["busctl", f"--address={self.address}", "--json=short", "call", "org.freedesktop.DBus", "/org/freedesktop/DBus",
                            "org.freedesktop.DBus", "NameHasOwner", "s", name], capture_output=True, text=True, timeout=30)
        return r.returncode == 0 and json.loads(r.stdout)["data"][0] is True

    # MARK: the service

    def start(self, *args: str, wait: bool = True) -> None:
        self.args = list(args) or self.args
        env = {k: v for k, v in self.env.items() if not k.startswith("ENCORE_DB_KEY")}
        env["ENCORE_DB_KEY"] = "passphrase of the device"
        with open(self.log, "ab") as log:
            self.service = subprocess.Popen([str(ENCORED), "--db", str(self.db), "--test-clock-file", str(self.clock_file), *self.args],
                                            stdout=log, stderr=log, env=env)
        if wait:
            wait_for("encored on the bus", lambda: self.has_name(NAME) or self.exited())

    def exited(self) -> bool:
        if self.service is not None and self.service.poll() is not None:
            raise AssertionError(f"encored exited with {self.service.returncode}:\n{self.log_text()}")
        return False

    def stop(self, timeout: float = 10.0) -> int:
        assert self.service is not None
        self.service.send_signal(signal.SIGTERM)
        code = self.service.wait(timeout)
        self.service = None
        return code

    def log_text(self) -> str:
        return self.log.read_text(errors="replace") if self.log.exists() else ""

    def log_count(self, needle: str) -> int:
        return self.log_text().count(needle)

    def wait_log(self, needle: str, count: int = 1, timeout: float = 20.0) -> None:
        wait_for(f"encored's log to say {needle!r} {count} times", lambda: self.log_count(needle) >= count, timeout)

    # MARK: the API, as a client calls it

    def call(self, method: str, *args: str, timeout: float = 60, interface: str = IFACE) -> str:
        """A method call through gdbus (which names the error): args in GVariant text ('text', true,
        @a{sv} {}); the answer's GVariant text, "()" for none. A D-Bus error raises BusError."""
        r = subprocess.run(["gdbus", "call", "--address", self.address, "--dest", NAME, "--object-path", PATH,
                            "--timeout", str(int(timeout)), "--method", f"{interface}.{method}", *args],
                           capture_output=True, text=True, timeout=timeout + 10)
        if r.returncode != 0:
            raise bus_error(r.stderr)
        return r.stdout.strip()

    def get(self, prop: str) -> Any:
        r = subprocess.run(["busctl", f"--address={self.address}", "--json=short", "get-property", NAME, PATH, IFACE, prop],
                           capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise bus_error(r.stderr)
        return json.loads(r.stdout)["data"]

    def get_all(self) -> dict[str, Any]:
        r = subprocess.run(["busctl", f"--address={self.address}", "--json=short", "call", NAME, PATH, "org.freedesktop.DBus.Properties",
                            "GetAll", "s", IFACE], capture_output=True, text=True, timeout=30)
        if r.returncode != 0:
            raise bus_error(r.stderr)
        return {k: v["data"] for k, v in json.loads(r.stdout)["data"][0].items()}

    def close(self) -> None:
        self.close_machine(self.service, self.polkit)


def bus_error(stderr: str) -> BusError:
    """gdbus prints "Error: GDBus.Error:NAME: MESSAGE"; busctl "Call failed: MESSAGE" (no name)."""
    text = stderr.strip()
    m = re.search(r"GDBus\.Error:([A-Za-z0-9_.]+): (.*)", text, re.S)
    if m:
        return BusError(m.group(1), m.group(2).strip())
    return BusError("", text.removeprefix("Call failed: "))
