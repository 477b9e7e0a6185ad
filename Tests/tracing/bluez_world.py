"""A radio-free world for encored's tracing: one machine (Tests/machine.py:
a private dbus-daemon used as the system bus, BlueZoo with adapters that
hear each other's LE advertisements, a test clock) and the services on it,
each with its own store and adapter. Only one service may own
org.encore.Exposure on a bus: so each service here serves its API on a
bus of its own and traces on the world's (--test-radio-bus), unless the
test wants both on the world's bus (one service, as on a real machine)."""
from __future__ import annotations

import os
import signal
import subprocess
from dataclasses import dataclass, field
from pathlib import Path

from machine import CLI, ENCORED, Machine, wait_for

__all__ = ["CLI", "ENCORED", "Daemon", "World", "wait_for"]


@dataclass
class Daemon:
    """One encored with its store and its log."""
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
    # The service's own system bus (its API there), None: the world's.
    api_bus: Machine | None = None
    process: subprocess.Popen[bytes] | None = None

    def start(self) -> None:
        env = {k: v for k, v in self.env.items() if not k.startswith("ENCORE_DB_KEY")}
        if self.key_in_environment:
            env["ENCORE_DB_KEY"] = self.passphrase
        args = list(self.args)
        if self.api_bus is not None:
            args += ["--test-radio-bus", env["DBUS_SYSTEM_BUS_ADDRESS"]]
            env["DBUS_SYSTEM_BUS_ADDRESS"] = self.api_bus.address
        with open(self.log, "ab") as log:
            self.process = subprocess.Popen([*self.command_prefix, str(ENCORED), "--db", str(self.db), *args], stdout=log, stderr=log,
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


class World(Machine):
    """The private bus, BlueZoo and the services of one test."""

    def __init__(self, root: Path, adapters: list[str]) -> None:
        super().__init__(root, adapters)
        self.daemons: list[Daemon] = []
        self.api_buses: list[Machine] = []

    def daemon(self, name: str, *args: str, env: dict[str, str] | None = None, key_in_environment: bool = True,
               command_prefix: list[str] | None = None, own_bus: bool = True) -> Daemon:
        """A service on the world's BlueZoo; `own_bus`: its API on a bus of its own."""
        api_bus = None
        if own_bus:
            (self.root / name).mkdir(exist_ok=True)
            api_bus = Machine(self.root / name)
            api_bus.start_bus()
            self.api_buses.append(api_bus)
        d = Daemon(name=name, db=self.root / f"{name}.db", passphrase=f"passphrase of {name}",
                   args=[*args, "--test-clock-file", str(self.clock_file)], log=self.root / f"{name}.log",
                   env=self.env | (env or {}), key_in_environment=key_in_environment, command_prefix=command_prefix or [], api_bus=api_bus)
        self.daemons.append(d)
        d.start()
        return d

    def close(self) -> None:
        for d in self.daemons:
            d.kill()
        for bus in self.api_buses:
            bus.close_machine()
        self.close_machine()
