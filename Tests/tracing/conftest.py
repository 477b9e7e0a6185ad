from __future__ import annotations

import shutil
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))            # Tests/machine.py, Tests/standins (key files)
sys.path.insert(0, str(HERE.parents[1] / "bindings/python"))

from bluez_world import CLI, ENCORED, World  # noqa: E402
from machine import BLUEZOO  # noqa: E402

ADAPTER_A, ADAPTER_B = "00:11:22:33:44:55", "00:11:22:33:44:66"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for path, how in ((ENCORED, "make encored"), (CLI, "make cli"), (BLUEZOO, "make venv")):
        if not path.exists():
            pytest.exit(f"{path} is missing: {how}", returncode=1)
    for tool in ("dbus-daemon", "busctl"):
        if shutil.which(tool) is None:
            pytest.exit(f"{tool} is missing: scripts/deps.sh installs it", returncode=1)


@pytest.fixture
def world(tmp_path: Path) -> Iterator[World]:
    """A private bus with BlueZoo and two adapters (hci0: A, hci1: B)."""
    w = World(root=tmp_path, adapters=[ADAPTER_A, ADAPTER_B])
    try:
        w.start_bus()
        w.start_bluez()
        yield w
    finally:
        w.close()
