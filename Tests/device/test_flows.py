"""The test flows over the bus against the CWA verification and
submission stand-ins: a teleTAN registered and its keys submitted with
the user's consent (polkit's submit-keys; refused, nothing is uploaded),
a lab test's result polled in the background until it is positive, and
the library's errors (a test that is not positive) by name."""
from __future__ import annotations

import datetime as dt
import hashlib
import sys
import time
from collections.abc import Iterator
from typing import Any

import pytest

from device_world import ACTIONS, REPO, BusError, Device, wait_for

sys.path.insert(0, str(REPO / "bindings/python"))
import encore  # noqa: E402

DAY = 86_400
GUID = "5A17E1-0FB4A2C3-1B2C-4D5E-8F90-123456789ABC"


@pytest.fixture
def cwa() -> Iterator[Any]:
    from standins.cwa_backend import verification_and_submission
    with verification_and_submission() as servers:
        yield servers


def own_keys(device: Device) -> None:
    """Sixteen days of own keys, as tracing leaves them (the service does not trace yet)."""
    now = int(time.time())
    with encore.Client.open(device.db, "passphrase of the device", clock=now) as client:
        for age in range(16):
            day = now // DAY - age
            client.own_keys.put(encore.OwnKey(key_data=hashlib.sha256(b"k%d" % age).digest()[:16],
                                                 rolling_start_interval_number=day * 144, created=day * DAY))


def real_uploads(submission: Any) -> list[Any]:
    return [q for q in submission.requests if dict((k.lower(), x) for k, x in q.headers).get("cwa-fake") == "0"]


def test_teletan_registered_and_keys_submitted_with_consent(device: Device, cwa: Any) -> None:
    state, v, s = cwa
    own_keys(device)
    device.start("--verification", v.url, "--submission", s.url)
    assert device.call("RegisterTest", f"'{state.issue_teletan()}'", timeout=60) == "()"
    assert wait_for("a positive test", lambda: device.get("TestState") == "positive")

    # The user did not consent (polkit's auth_self failed): nothing is uploaded.
    device.set_allowed([a for a in ACTIONS if a != "org.encore.Exposure.submit-keys"])
    with pytest.raises(BusError) as e:
        device.call("SubmitKeys", "@a{sv} {}")
    assert e.value.name == "org.encore.Error.NotAuthorized"
    assert "org.encore.Exposure.submit-keys" in e.value.message
    assert real_uploads(s) == []
    assert device.get("TestState") == "positive"

    device.set_allowed(ACTIONS)
    assert device.call("SubmitKeys", "@a{sv} {}", timeout=120) == "()"
    [upload] = real_uploads(s)
    assert upload.path.endswith("/diagnosis-keys")
    assert device.get("TestState") == "submitted"


def test_a_lab_test_is_polled_in_the_background(device: Device, cwa: Any) -> None:
    state, v, s = cwa
    own_keys(device)
    state.set_result_for_guid(GUID, 0)
    device.start("--verification", v.url, "--submission", s.url)
    device.call("RegisterTest", f"'https://localhost/?{GUID}'", timeout=60)
    assert device.get("TestState") == "pending"
    # Not positive yet: the library's status by name.
    with pytest.raises(BusError) as e:
        device.call("SubmitKeys", "{'symptomatic': <true>}", timeout=60)
    assert e.value.name == "org.encore.Error.NotPositive"
    assert e.value.message.startswith("ENCORE_ERR_NOT_POSITIVE: ")
    assert real_uploads(s) == []

    state.set_result_for_guid(GUID, 2, sc=int(time.time()))
    # CWA's schedule polls a pending lab test every two hours: the service does it by itself.
    device.advance_clock(2 * 3600 + 60)
    assert wait_for("the background poll", lambda: device.get("TestState") == "positive", timeout=30)
    onset = (dt.datetime.now(dt.timezone.utc).date() - dt.timedelta(days=3)).isoformat()
    assert device.call("SubmitKeys", f"{{'onset': <'{onset}'>}}", timeout=120) == "()"
    assert len(real_uploads(s)) == 1
    assert device.get("TestState") == "submitted"


def test_register_test_refuses_a_malformed_code(device: Device, cwa: Any) -> None:
    state, v, s = cwa
    device.start("--verification", v.url, "--submission", s.url)
    with pytest.raises(BusError) as e:
        device.call("RegisterTest", "'not a code'")
    assert e.value.name.startswith("org.encore.Error.")
    assert v.requests == []


def test_register_test_without_a_verification_server(device: Device) -> None:
    device.start()
    with pytest.raises(BusError) as e:
        device.call("RegisterTest", f"'https://localhost/?{GUID}'")
    assert e.value.name == "org.encore.Error.InvalidArgument"
    assert "verification" in e.value.message
