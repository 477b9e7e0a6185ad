"""encore.tracing through the C ABI: the advertisement and its rotation, the
scan schedule, one scan's ingestion, the calibration, the adapter, the
status, and the refusals."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

import encore
from encore_testdata import TestClock
from encore import tracing
from encore.tracing import Calibration, ScanReport, ScanWindow, Tracer

RAW = bytes(range(32))
MIDNIGHT = 19_000 * 86_400


@pytest.fixture
def clock() -> TestClock:
    return TestClock(MIDNIGHT)


@pytest.fixture
def client(tmp_path: Path, clock: TestClock) -> Iterator[encore.Client]:
    """A store's client on the test's clock."""
    with encore.Client.open(tmp_path / "t.db", raw_key=RAW, clock=clock) as c:
        yield c


def rpi(b: int) -> bytes:
    return bytes([b]) * 16


def test_advertisement_rotates_within_ten_to_twenty_minutes(client: encore.Client, clock: TestClock) -> None:
    with Tracer(client, random_seed=1) as t:
        t.start(MIDNIGHT + 3_600)
        a = t.advertisement(MIDNIGHT + 3_600)
        assert len(a.payload) == 20 and a.since == MIDNIGHT + 3_600
        assert 600 <= a.valid_until - a.since <= 1_200
        assert t.advertisement(a.valid_until - 1) == a
        b = t.advertisement(a.valid_until)
        assert b.since == a.valid_until and b.payload[:16] != a.payload[:16]
        # The payload is the store's own key's RPI of the interval.
        clock.set(MIDNIGHT + 3_600)
        assert a.payload == client.own_keys.advertisement(tx_power=-25, calibration_confidence=0)
        # A seeded tracer draws the same times again.
    with Tracer(client, random_seed=1) as again:
        again.start(MIDNIGHT + 3_600)
        assert again.advertisement(MIDNIGHT + 3_600).valid_until == a.valid_until


def test_the_days_end_cuts_the_validity(client: encore.Client) -> None:
    with Tracer(client, rotation_min_seconds=1_200) as t:
        t.start(MIDNIGHT - 700)
        assert t.advertisement(MIDNIGHT - 700).valid_until == MIDNIGHT


def test_a_scan_becomes_one_sighting_per_rpi(client: encore.Client) -> None:
    with Tracer(client) as t:
        t.set_calibration(Calibration(tx_power=-20, rssi_correction=5))
        t.start(MIDNIGHT)
        w = t.next_scan(MIDNIGHT)
        assert w == ScanWindow(MIDNIGHT, MIDNIGHT + 4)
        own = ScanReport.from_service_data(t.advertisement(MIDNIGHT).payload, -30, MIDNIGHT + 1)
        r = t.ingest_scan(w, [ScanReport(rpi(1), b"\1\2\3\4", -70, MIDNIGHT + 1), ScanReport(rpi(1), b"\1\2\3\4", -60, MIDNIGHT + 2),
                              ScanReport(rpi(2), b"\5\6\7\x08", 127, MIDNIGHT + 2), own])
        assert (r.reports, r.sightings_added, r.repeated_reports, r.own_reports, r.invalid_reports) == (4, 1, 1, 1, 1)
        w2 = t.next_scan(MIDNIGHT + 10)
        assert w2.start == MIDNIGHT + 300
        assert t.ingest_scan(w2, [ScanReport(rpi(1), b"\1\2\3\4", -70, w2.start)]).sightings_added == 1
        assert t.ingest_scan(w2, [ScanReport(rpi(1), b"\1\2\3\4", -70, w2.start)]).sightings_already_stored == 1
        t.stop(MIDNIGHT + 400)
    rows = client.sightings.list()
    assert [(s.time, s.rpi, s.rssi, s.prev_scan) for s in rows] == [(MIDNIGHT + 1, rpi(1), -55, None), (MIDNIGHT + 300, rpi(1), -65, MIDNIGHT)]
    assert [(e.time, e.active) for e in client.tracing_history.list()] == [(MIDNIGHT, True), (MIDNIGHT + 400, False)]


def test_calibration_adapter_and_status(client: encore.Client, clock: TestClock) -> None:
    c = tracing.calibration(client)
    assert c.stored == Calibration() and c.confidence == 0 and c.tx_power == -25 and c.rssi_correction == 4
    with Tracer(client) as t:
        t.set_calibration(Calibration(tx_power=-17, rssi_correction=2))
        assert tracing.calibration(client).confidence == 2
        t.set_calibration(Calibration(tx_power=-17, rssi_correction=2, confidence=3))
        assert tracing.calibration(client) == tracing.EffectiveCalibration(Calibration(-17, 2, 3), -17, 2, 3)
        assert tracing.adapter(client) is None
        tracing.set_adapter(client, "hci0")
        assert tracing.adapter(client) == "hci0"
        st = tracing.status(client)
        assert not st.active and st.since is None and st.last_scan is None
        t.start(MIDNIGHT)
        t.ingest_scan(ScanWindow(MIDNIGHT, MIDNIGHT + 4), [ScanReport(rpi(9), b"\0\0\0\0", -50, MIDNIGHT + 1)])
        clock.set(MIDNIGHT + 100)
        st = tracing.status(client)
        assert st == tracing.TracingStatus(True, MIDNIGHT, MIDNIGHT + 4, 1, 1, 100, 1, 0, 0)
        tracing.set_adapter(client, None)
        assert tracing.adapter(client) is None
    # The host's settings API cannot overwrite the library's tracing settings.
    with pytest.raises(encore.InvalidArgumentError):
        client.store.set_setting("tracing.tx_power", "loud")


def test_the_cap_on_a_days_sightings(client: encore.Client, clock: TestClock) -> None:
    """A tracer with a cap of 10: 9 new RPIs at most (a tenth held back for those kept), the rest dropped and counted."""
    with Tracer(client, max_sightings_per_day=10) as t:
        t.start(MIDNIGHT)
        heard = [ScanReport(rpi(b), b"\0\0\0\1", -40 - b, MIDNIGHT + 1) for b in range(1, 13)]
        r = t.ingest_scan(ScanWindow(MIDNIGHT, MIDNIGHT + 4), heard)
        assert (r.sightings_added, r.sightings_over_cap) == (9, 3)
        # The strongest nine were kept.
        assert {s.rpi for s in client.sightings.list()} == {rpi(b) for b in range(1, 10)}
        clock.set(MIDNIGHT + 10)
        st = tracing.status(client)
        assert (st.sightings_today, st.sightings_dropped_today, st.sightings_dropped_last_14_days) == (9, 3, 3)
    with pytest.raises(encore.InvalidArgumentError):
        Tracer(client, max_sightings_per_day=9)
    with pytest.raises(ValueError):
        Tracer(client, max_sightings_per_day=-1)


def test_refusals(client: encore.Client) -> None:
    with Tracer(client) as t:
        with pytest.raises(encore.TracingInactiveError):
            t.advertisement(MIDNIGHT)
        with pytest.raises(encore.TracingInactiveError):
            t.next_scan(MIDNIGHT)
        with pytest.raises(encore.TracingInactiveError):
            t.ingest_scan(ScanWindow(0, 4), [])
        t.start(MIDNIGHT)
        with pytest.raises(encore.InvalidArgumentError):
            t.ingest_scan(ScanWindow(MIDNIGHT, MIDNIGHT + 4), [ScanReport(rpi(1), b"\0\0\0\0", -50, -1)])
        with pytest.raises(encore.InvalidArgumentError):
            t.ingest_scan(ScanWindow(MIDNIGHT + 4, MIDNIGHT), [])
        with pytest.raises(ValueError):
            t.ingest_scan(ScanWindow(MIDNIGHT, MIDNIGHT + 4), [ScanReport(rpi(1), b"\0\0\0", -50, MIDNIGHT)])
        with pytest.raises(encore.InvalidArgumentError):
            t.set_calibration(Calibration(tx_power=200))
        with pytest.raises(encore.InvalidArgumentError):
            t.set_calibration(Calibration(confidence=4))
        with pytest.raises(encore.InvalidArgumentError):
            tracing.set_adapter(client, "")
    with pytest.raises(encore.InvalidArgumentError):
        Tracer(client, scan_period_seconds=301)
    with pytest.raises(encore.InvalidArgumentError):
        Tracer(client, rotation_min_seconds=0)
    assert client.sightings.count() == 0


@pytest.mark.parametrize("now", [-(1 << 63), -1, 0, (1 << 63) - 1, 253_402_300_799])
def test_every_clock_returns_or_raises(client: encore.Client, clock: TestClock, now: int) -> None:
    # Int64's ends, -1, 0 and the last second of 9999: each call returns or
    # raises an EncoreError, never traps.
    with Tracer(client) as t:
        for call in (lambda: t.start(now), lambda: t.advertisement(now), lambda: t.rotate(now), lambda: t.next_scan(now),
                     lambda: t.ingest_scan(ScanWindow(now, now), [ScanReport(rpi(1), b"\0\0\0\0", -50, now)]),
                     lambda: t.ingest_scan(ScanWindow(max(now, 0), (1 << 63) - 1), []), lambda: (clock.set(now), tracing.status(client)),
                     lambda: t.stop(now)):
            try:
                call()
            except encore.EncoreError:
                pass
