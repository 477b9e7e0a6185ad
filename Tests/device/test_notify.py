"""encore-notify, the session agent, against python-dbusmock's
notification daemon on a private session bus: the risk rising to high
gives exactly one critical notification, which a restart of the service
does not repeat; a test result available gives one normal notification
that does not say which; the session bus going away and coming back."""
from __future__ import annotations

import datetime as dt
import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from device_world import CLI, REPO, Device, dbusmock_path, wait_for

sys.path.insert(0, str(REPO / "Tests/cli"))
sys.path.insert(0, str(REPO / "bindings/python"))
from test_cli_match import sightings  # noqa: E402

NOTIFY = Path(os.environ.get("ENCORE_NOTIFY", REPO / "build" / "bin" / "encore-notify"))
DAY = 86_400
NOW = int(time.time())
TODAY = dt.datetime.fromtimestamp(NOW, dt.timezone.utc).date()
CONTACT = bytes(range(16))
GUID = "5A17E1-0FB4A2C3-1B2C-4D5E-8F90-123456789ABC"


def day(back: int) -> str:
    return (TODAY - dt.timedelta(days=back)).isoformat()


@dataclass
class Session:
    """The user's session bus (at a fixed path, so that it can come back) with the notification daemon's stand-in."""
    root: Path
    pid: int = 0
    daemon: subprocess.Popen[bytes] | None = None

    @property
    def address(self) -> str:
        return f"unix:path={self.root / 'session_bus'}"

    def start(self) -> None:
        out = subprocess.run(["dbus-daemon", "--session", "--fork", f"--address={self.address}", "--print-pid=1"],
                             capture_output=True, text=True, check=True, timeout=30).stdout.split()
        self.pid = int(out[0])
        env = {**os.environ, "DBUS_SESSION_BUS_ADDRESS": self.address, "PYTHONPATH": dbusmock_path()}
        with open(self.root / "notifications.log", "ab") as log:
            self.daemon = subprocess.Popen(["/usr/bin/python3", "-m", "dbusmock", "--session", "--template", "notification_daemon"],
                                           stdout=log, stderr=log, env=env)
        wait_for("the notification daemon", lambda: self.calls() is not None)

    def calls(self) -> list[Any] | None:
        r = subprocess.run(["busctl", f"--address={self.address}", "--json=short", "call", "org.freedesktop.Notifications",
                            "/org/freedesktop/Notifications", "org.freedesktop.DBus.Mock", "GetCalls"], capture_output=True, text=True, timeout=30)
        return json.loads(r.stdout)["data"][0] if r.returncode == 0 else None

    def notifications(self) -> list[dict[str, Any]]:
        out = []
        for _, method, args in self.calls() or []:
            if method == "Notify":
                app, replaces, icon, summary, body, actions, hints, timeout = [a["data"] for a in args]
                out.append({"app": app, "replaces": replaces, "summary": summary, "body": body, "hints": hints})
        return out

    def stop(self) -> None:
        if self.daemon is not None:
            self.daemon.kill()
            self.daemon.wait()
            self.daemon = None
        if self.pid:
            try:
                os.kill(self.pid, signal.SIGTERM)
            except ProcessLookupError:
                pass
            self.pid = 0
        (self.root / "session_bus").unlink(missing_ok=True)


@pytest.fixture
def session(tmp_path: Path) -> Iterator[Session]:
    s = Session(root=tmp_path)
    try:
        s.start()
        yield s
    finally:
        s.stop()


@pytest.fixture
def agent(device: Device, session: Session) -> Iterator[subprocess.Popen[bytes]]:
    env = {**device.env, "DBUS_SESSION_BUS_ADDRESS": session.address}
    with open(device.root / "notify.log", "ab") as log:
        p = subprocess.Popen([str(NOTIFY)], stdout=log, stderr=log, env=env)
    try:
        yield p
    finally:
        p.send_signal(signal.SIGTERM)
        assert p.wait(10) == 0


def agent_log(device: Device) -> str:
    return (device.root / "notify.log").read_text(errors="replace")


@pytest.fixture
def met_a_contact(device: Device) -> None:
    """The device heard the contact two days ago (as tracing would have recorded it)."""
    env = {**os.environ, "ENCORE_DB_KEY": "passphrase of the device"}
    csv = device.root / "heard.csv"
    midnight = NOW - NOW % DAY
    csv.write_text("time,rpi,aem,rssi,prev_scan\n" + "\n".join(sightings(CONTACT, midnight - 2 * DAY + 9 * 3600, 5, rssi=-65)) + "\n")
    for args in (["store", "init", "--db", str(device.db)], ["sightings", "import", "--db", str(device.db), str(csv)]):
        r = subprocess.run([str(CLI), *args], capture_output=True, text=True, env=env, timeout=60)
        assert r.returncode == 0, r.stderr


def test_risk_rises_to_high_once(device: Device, session: Session, agent: Any, met_a_contact: None, signer: Any, trust_arg: str) -> None:
    from standins import keyfiles
    from standins.cwa_distribution import CwaDistributionServer
    with CwaDistributionServer(signer) as dist:
        for back in range(3, 0, -1):
            keys = [keyfiles.make_key(day=day(back)) for _ in range(10)]
            if back == 2:
                keys.append(keyfiles.make_key(CONTACT, day=day(back), trl=6, report_type=1, dsos=1))
            dist.add_day("EUR", day(back), keys)
        # The agent is there first; the service's background sync finds the keys by itself.
        device.start("--distribution", dist.url, "--trust", trust_arg, "--no-warnings")
        wait_for("a high risk", lambda: device.get("RiskLevel") == "high", timeout=30)
        [n] = wait_for("the notification", lambda: session.notifications() or None)
        assert n["app"] == "encore" and n["replaces"] == 0
        assert n["hints"]["urgency"] == {"type": "y", "data": 2}
        assert n["summary"] == "Increased risk"
        assert day(2) not in n["body"]
        # The service restarts: the agent reads it again, and posts nothing twice.
        assert device.stop() == 0
        device.start("--distribution", dist.url, "--trust", trust_arg, "--no-warnings")
        wait_for("the agent to follow the new service", lambda: agent_log(device).count("the device service is on the bus") >= 2)
        device.call("SyncNow", timeout=120)
        time.sleep(1)
        assert len(session.notifications()) == 1
        assert device.get("RiskLevel") == "high"


def test_a_test_result_is_told_without_saying_which(device: Device, session: Session, agent: Any) -> None:
    from standins.cwa_backend import verification_and_submission
    with verification_and_submission() as (state, v, s):
        state.set_result_for_guid(GUID, 0)
        device.start("--verification", v.url, "--submission", s.url)
        device.call("RegisterTest", f"'https://localhost/?{GUID}'")
        wait_for("the agent to read the service", lambda: "the device service is on the bus" in agent_log(device))
        time.sleep(0.5)
        assert session.notifications() == []
        state.set_result_for_guid(GUID, 2, sc=NOW)
        device.advance_clock(2 * 3600 + 60)
        [n] = wait_for("the notification", lambda: session.notifications() or None, timeout=30)
        assert n["summary"] == "Your test result is available"
        assert "positive" not in (n["summary"] + n["body"]).lower()
        assert n["hints"]["urgency"] == {"type": "y", "data": 1}


def test_the_session_bus_goes_away_and_comes_back(device: Device, session: Session, agent: Any) -> None:
    from standins.cwa_backend import verification_and_submission
    with verification_and_submission() as (state, v, s):
        state.set_result_for_guid(GUID, 0)
        device.start("--verification", v.url, "--submission", s.url)
        device.call("RegisterTest", f"'https://localhost/?{GUID}'")
        wait_for("the agent to read the service", lambda: "the device service is on the bus" in agent_log(device))
        session.stop()
        wait_for("the agent to notice", lambda: "the session bus went away" in agent_log(device))
        session.start()
        wait_for("the agent to connect again", lambda: agent_log(device).count("connected to the session bus") >= 2)
        state.set_result_for_guid(GUID, 2, sc=NOW)
        device.advance_clock(2 * 3600 + 60)
        [n] = wait_for("the notification on the new bus", lambda: session.notifications() or None, timeout=30)
        assert n["summary"] == "Your test result is available"


def test_bluetooth_off_warns_once_and_the_warning_closes_when_back(device: Device, session: Session, agent: Any) -> None:
    device.start()
    device.wait_log("tracing on (adapter hci0)")
    wait_for("the agent to read the service", lambda: "the device service is on the bus" in agent_log(device))
    time.sleep(0.5)
    assert session.notifications() == []
    device.set_powered("hci0", False)
    wait_for("State bluetooth-off", lambda: device.get("State") == "bluetooth-off")
    [n] = wait_for("the warning", lambda: session.notifications() or None)
    assert n["summary"] == "Exposure logging is off" and "Bluetooth is off" in n["body"]
    assert n["hints"]["urgency"] == {"type": "y", "data": 1}
    device.set_powered("hci0", True)
    wait_for("State active", lambda: device.get("State") == "active")
    closed = wait_for("the warning closed", lambda: [args for _, method, args in session.calls() or [] if method == "CloseNotification"] or None)
    assert len(closed) == 1
    time.sleep(0.5)
    assert len(session.notifications()) == 1
