from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))            # Tests/machine.py, Tests/standins

from device_world import ACTIONS, ENCORED, Device  # noqa: E402
from machine import BLUEZOO  # noqa: E402


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for program in (ENCORED, ENCORED.parent / "encore-notify"):
        if not program.exists():
            pytest.exit(f"{program} is missing: make encored", returncode=1)
    if not BLUEZOO.exists():
        pytest.exit(f"{BLUEZOO} is missing: make venv", returncode=1)
    for tool in ("dbus-daemon", "busctl", "gdbus", "/usr/bin/python3"):
        if shutil.which(tool) is None:
            pytest.exit(f"{tool} is missing: scripts/deps.sh installs it", returncode=1)


@pytest.fixture
def device(tmp_path: Path) -> Iterator[Device]:
    """A private system bus with BlueZoo (the device's adapter, hci0, powered) and polkit's stand-in allowing
    every action of the service (encored not started yet)."""
    d = Device(root=tmp_path)
    try:
        d.start_bus()
        d.start_bluez()
        d.start_polkit(ACTIONS)
        yield d
    finally:
        d.close()


# A CWA event's check-in QR code (Tests/cli/test_cli_checkins.py's).
CHECKIN_QR = ("https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURh"
              "OIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA")


@pytest.fixture
def checkin_qr() -> str:
    return CHECKIN_QR


@pytest.fixture
def signer():  # type: ignore[no-untyped-def]
    from standins import keyfiles
    return keyfiles.SigningKey()


@pytest.fixture
def trust_arg(tmp_path: Path, signer) -> str:  # type: ignore[no-untyped-def]
    pem = tmp_path / "cwa.pem"
    signer.write_public_pem(pem)
    return str(signer.trust_arg(pem))
