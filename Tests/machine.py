"""What a machine is to the tests that run without one (Tests/device,
Tests/tracing): a private dbus-daemon used as its system bus
(DBUS_SYSTEM_BUS_ADDRESS), BlueZoo (PyPI `bluezoo`, a BlueZ D-Bus mock) on
it with adapters that hear each other's LE advertisements, and a test
clock the services read (--test-clock-file: the seconds the file holds are
added to the system's clock)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Callable, TypeVar

REPO = Path(__file__).resolve().parents[1]
ENCORED = Path(os.environ.get("ENCORE_ENCORED", REPO / "build" / "bin" / "encored"))
CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))
BLUEZOO = Path(sys.executable).parent / "bluezoo"
T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 20.0, every: float = 0.1) -> T:
    """probe() until it returns something other than None/False."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


class Machine:
    """One machine's system bus, its BlueZoo and its test clock, in `root`."""

    def __init__(self, root: Path, adapters: list[str] | None = None) -> None:
        self.root = root
        self.adapters = adapters or []
        self.address = ""
        self.bus_pid = 0
        self.bluezoo: subprocess.Popen[bytes] | None = None
        self.clock_file = root / "clock-offset"
        self.clock_file.write_text("0\n")

    @property
    def env(self) -> dict[str, str]:
        return {**os.environ, "DBUS_SYSTEM_BUS_ADDRESS": self.address}

    def start_bus(self, config: Path | None = None) -> None:
        """The bus: a session bus (no policy), or one as `config` says."""
        which = [f"--config-file={config}"] if config else ["--session"]
        out = subprocess.run(["dbus-daemon", *which, "--fork", "--print-address=1", "--print-pid=1"],
                             capture_output=True, text=True, check=True, timeout=30).stdout.split()
        self.address, self.bus_pid = out[0], int(out[1])

    def busctl(self, *args: str, timeout: float = 60) -> str:
        r = subprocess.run(["busctl", f"--address={self.address}", *args], capture_output=True, text=True, timeout=timeout)
        if r.returncode != 0:
            raise AssertionError(f"busctl {' '.join(args)}: {r.stderr}")
        return r.stdout

    # MARK: BlueZoo

    def start_bluez(self) -> None:
        args = [str(BLUEZOO), "--auto-enable", "--scan-interval", "1"]
        for a in self.adapters:
            args += ["--adapter", a]
        with open(self.root / "bluezoo.log", "ab") as log:
            self.bluezoo = subprocess.Popen(args, stdout=log, stderr=log, env=self.env)
        wait_for("BlueZoo's adapters", lambda: len(self.bluez_objects()) >= len(self.adapters))

    def stop_bluez(self) -> None:
        assert self.bluezoo is not None
        self.bluezoo.terminate()
        try:
            self.bluezoo.wait(10)
        except subprocess.TimeoutExpired:
            self.bluezoo.kill()
            self.bluezoo.wait()
        self.bluezoo = None

    def bluez_objects(self) -> list[str]:
        r = subprocess.run(["busctl", f"--address={self.address}", "--list", "tree", "org.bluez"], capture_output=True, text=True, timeout=30)
        return [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("/org/bluez/hci")] if r.returncode == 0 else []

    def active_instances(self, adapter: str) -> int:
        out = self.busctl("get-property", "org.bluez", f"/org/bluez/{adapter}", "org.bluez.LEAdvertisingManager1", "ActiveInstances")
        return int(out.split()[1])

    def set_powered(self, adapter: str, powered: bool) -> None:
        self.busctl("set-property", "org.bluez", f"/org/bluez/{adapter}", "org.bluez.Adapter1", "Powered", "b", "true" if powered else "false")

    def remove_adapter(self, index: int) -> None:
        self.busctl("call", "org.bluez", "/org/bluezoo", "org.bluezoo.Manager1", "RemoveAdapter", "y", str(index))

    def add_adapter(self, index: int, address: str) -> None:
        self.busctl("call", "org.bluez", "/org/bluezoo", "org.bluezoo.Manager1", "AddAdapter", "ys", str(index), address)

    # MARK: the test clock

    def advance_clock(self, seconds: int) -> None:
        offset = int(self.clock_file.read_text()) + seconds
        tmp = self.clock_file.with_suffix(".tmp")
        tmp.write_text(f"{offset}\n")
        tmp.replace(self.clock_file)

    def now(self) -> int:
        return int(time.time()) + int(self.clock_file.read_text())

    # MARK: the end

    def close_machine(self, *processes: subprocess.Popen[bytes] | None) -> None:
        """Kills `processes` (what the test started on the bus), BlueZoo and the bus."""
        for p in (*processes, self.bluezoo):
            if p is not None and p.poll() is None:
                p.kill()
                p.wait()
        self.bluezoo = None
        if self.bus_pid:
            try:
                os.kill(self.bus_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
