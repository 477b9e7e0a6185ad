"""A device without a device: a private dbus-daemon as its system bus,
polkit's authority played by python-dbusmock (template polkitd: allow or
deny action ids), the CWA stand-ins (distribution with signed packages,
verification, submission) and encored with its own store, on one test
clock (--test-clock-file). The tests talk to the service as clients do,
over the bus (busctl)."""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, TypeVar

REPO = Path(__file__).resolve().parents[2]
ENCORED = Path(os.environ.get("ENCORE_ENCORED", REPO / "build" / "bin" / "encored"))
CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))
NAME, PATH, IFACE = "org.encore.Exposure", "/org/encore/Exposure", "org.encore.Exposure1"
POLKIT, POLKIT_PATH = "org.freedesktop.PolicyKit1", "/org/freedesktop/PolicyKit1/Authority"
ACTIONS = ["org.encore.Exposure.read", "org.encore.Exposure.manage", "org.encore.Exposure.submit-keys", "org.encore.Exposure.delete-data"]
T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 20.0, every: float = 0.1) -> T:
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


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


@dataclass
class Device:
    """One machine: its system bus, polkit stand-in and encored."""
    root: Path
    address: str = ""
    bus_pid: int = 0
    polkit: subprocess.Popen[bytes] | None = None
    service: subprocess.Popen[bytes] | None = None
    clock_file: Path = field(init=False)
    log: Path = field(init=False)
    db: Path = field(init=False)
    args: list[str] = field(default_factory=list)

    def __post_init__(self) -> None:
        self.clock_file = self.root / "clock-offset"
        self.clock_file.write_text("0\n")
        self.log = self.root / "encored.log"
        self.db = self.root / "device.db"

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": self.address}

    # MARK: the bus and polkit

    def start_bus(self) -> None:
        out = subprocess.run(["dbus-daemon", "--session", "--fork", "--print-address=1", "--print-pid=1"],
                             capture_output=True, text=True, check=True, timeout=30).stdout.split()
        self.address, self.bus_pid = out[0], int(out[1])

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

    def busctl(self, *args: str, timeout: float = 60) -> str:
        r = subprocess.run(["busctl", f"--address={self.address}", *args], capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise AssertionError(f"busctl {' '.join(args)}: {r.stderr}")
        return r.stdout

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

    def advance_clock(self, seconds: int) -> None:
        offset = int(self.clock_file.read_text()) + seconds
        tmp = self.clock_file.with_suffix(".tmp")
        tmp.write_text(f"{offset}\n")
        tmp.replace(self.clock_file)

    def now(self) -> int:
        return int(time.time()) + int(self.clock_file.read_text())

    def close(self) -> None:
        for p in (self.service, self.polkit):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        if self.bus_pid:
            try:
                os.kill(self.bus_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass


def bus_error(stderr: str) -> BusError:
    """gdbus prints "Error: GDBus.Error:NAME: MESSAGE"; busctl "Call failed: MESSAGE" (no name)."""
    text = stderr.strip()
    m = re.search(r"GDBus\.Error:([A-Za-z0-9_.]+): (.*)", text, re.S)
    if m:
        return BusError(m.group(1), m.group(2).strip())
    return BusError("", text.removeprefix("Call failed: "))
