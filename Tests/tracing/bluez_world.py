"""A radio-free world for encore-tracingd: a private dbus-daemon used as
the system bus, BlueZoo (PyPI `bluezoo`, a BlueZ D-Bus mock) on it with
adapters that hear each other's LE advertisements, and the daemons, each
with its own store, all on one test clock (--test-clock-file)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, TypeVar

REPO = Path(__file__).resolve().parents[2]
TRACINGD = Path(os.environ.get("ENCORE_TRACINGD", REPO / "build" / "bin" / "encore-tracingd"))
CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))
BLUEZOO = Path(sys.executable).parent / "bluezoo"
T = TypeVar("T")


def wait_for(what: str, probe: Callable[[], T | None], timeout: float = 15.0, every: float = 0.1) -> T:
    """probe() until it returns something other than None/False."""
    deadline = time.monotonic() + timeout
    while True:
        value = probe()
        if value is not None and value is not False:
            return value
        if time.monotonic() > deadline:
            raise AssertionError(f"timed out after {timeout} s waiting for {what}")
        time.sleep(every)


@dataclass
class Daemon:
    """One encore-tracingd with its store and its log."""
    name: str
    db: Path
    passphrase: str
    args: list[str]
    log: Path
    env: dict[str, str]
    # False: the key is not in the environment (a credential gives it).
    key_in_environment: bool = True
    # Run through this first (e.g. ["unshare", "-n"]).
    command_prefix: list[str] = field(default_factory=list)
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {k: v for k, v in self.env.items() if not k.startswith("ENCORE_DB_KEY")}
        if self.key_in_environment:
            env["ENCORE_DB_KEY"] = self.passphrase
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([*self.command_prefix, str(TRACINGD), "--db", str(self.db), *self.args], stdout=log, stderr=log,
                                            env=env)

    @property
    def pid(self) -> int:
        assert self.process is not None, f"{self.name} is not running"
        return self.process.pid

    def log_text(self) -> str:
        return self.log.read_text(errors="replace")

    def log_count(self, needle: str) -> int:
        return self.log_text().count(needle)

    def wait_log(self, needle: str, count: int = 1, timeout: float = 15.0) -> None:
        wait_for(f"{self.name}'s log to say {needle!r} {count} times", lambda: self.log_count(needle) >= count, timeout)

    def stop(self, timeout: float = 10.0) -> int:
        assert self.process is not None
        self.process.send_signal(signal.SIGTERM)
        code = self.process.wait(timeout)
        self.process = None
        return code

    def kill(self) -> None:
        if self.process is not None and self.process.poll() is None:
            self.process.kill()
            self.process.wait()
        self.process = None


@dataclass
class World:
    """The private bus, BlueZoo and the daemons of one test."""
    root: Path
    adapters: list[str]
    address: str = ""
    bus_pid: int = 0
    bluezoo: subprocess.Popen[bytes] | None = None
    daemons: list[Daemon] = field(default_factory=list)
    clock_file: Path = field(init=False)

    def __post_init__(self) -> None:
        self.clock_file = self.root / "clock-offset"
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

    def busctl(self, *args: str) -> str:
        return subprocess.run(["busctl", f"--address={self.address}", *args], capture_output=True, text=True, check=True,
                              timeout=30).stdout

    def bluez_objects(self) -> list[str]:
        r = subprocess.run(["busctl", f"--address={self.address}", "--list", "tree", "org.bluez"], capture_output=True, text=True, timeout=30)
        return [line.strip() for line in r.stdout.splitlines() if line.strip().startswith("/org/bluez/hci")] if r.returncode == 0 else []

    def active_instances(self, adapter: str) -> int:
        out = self.busctl("get-property", "org.bluez", f"/org/bluez/{adapter}", "org.bluez.LEAdvertisingManager1", "ActiveInstances")
        return int(out.split()[1])

    def set_powered(self, adapter: str, powered: bool) -> None:
        self.busctl("set-property", "org.bluez", f"/org/bluez/{adapter}", "org.bluez.Adapter1", "Powered", "b", "true" if powered else "false")

    def advance_clock(self, seconds: int) -> None:
        offset = int(self.clock_file.read_text()) + seconds
        tmp = self.clock_file.with_suffix(".tmp")
        tmp.write_text(f"{offset}\n")
        tmp.replace(self.clock_file)

    def now(self) -> int:
        return int(time.time()) + int(self.clock_file.read_text())

    def daemon(self, name: str, *args: str, env: dict[str, str] | None = None, key_in_environment: bool = True,
               command_prefix: list[str] | None = None) -> Daemon:
        d = Daemon(name=name, db=self.root / f"{name}.db", passphrase=f"passphrase of {name}",
                   args=[*args, "--test-clock-file", str(self.clock_file)], log=self.root / f"{name}.log",
                   env=self.env | (env or {}), key_in_environment=key_in_environment, command_prefix=command_prefix or [])
        self.daemons.append(d)
        d.start()
        return d

    def close(self) -> None:
        for d in self.daemons:
            d.kill()
        if self.bluezoo is not None:
            self.bluezoo.kill()
            self.bluezoo.wait()
        if self.bus_pid:
            try:
                os.kill(self.bus_pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
