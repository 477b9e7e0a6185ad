"""Tracing: what a radio host broadcasts, when it scans and what it heard.

    with encore.Client.open("state.db", raw_key=key) as client, client.tracer() as tracer:
        tracer.set_calibration(Calibration(tx_power=-20, rssi_correction=3))
        tracer.start(now)
        ad = tracer.advertisement(now)          # broadcast ad.payload until ad.valid_until
        window = tracer.next_scan(now)          # scan from window.start to window.end
        tracer.ingest_scan(window, reports)     # one sighting per RPI, one transaction
        tracer.stop(now)                        # whenever scanning stops, for any reason

No I/O but the store's; every time is unix seconds passed in.
"""
from __future__ import annotations

import ctypes
import dataclasses
import weakref
from typing import TYPE_CHECKING, Iterable, Self

from . import _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import array_of, sized, text
from ._handle import Closeable, Handle
from ._loader import lib
from ._cdata import checked_int, take_text
from ._records import (  # re-exported: the public names of the generated records
    Advertisement as Advertisement, ScanResult as ScanResult, ScanReport as _ScanReport, ScanWindow as ScanWindow,
    TracingStatus as TracingStatus)

if TYPE_CHECKING:
    from .client import Client


class ScanReport(_ScanReport):
    """One advertisement heard: RPI (16 bytes), AEM (4), RSSI as measured
    (before the RSSI correction; 127 means "not available") and its time."""

    @classmethod
    def from_service_data(cls, data: bytes, rssi: int, time: int) -> Self:
        """From the 20 bytes of service data of UUID 0xFD6F."""
        if len(data) != 20:
            raise ValueError(f"service data of 0xFD6F has 20 bytes, not {len(data)}")
        return cls(rpi=bytes(data[:16]), aem=bytes(data[16:]), rssi=rssi, time=time)


@dataclasses.dataclass(frozen=True)
class Calibration:
    """The device's Bluetooth calibration; None: not measured (the default
    applies, and the confidence follows from what was measured)."""
    tx_power: int | None = None
    rssi_correction: int | None = None
    confidence: int | None = None


@dataclasses.dataclass(frozen=True)
class EffectiveCalibration:
    """What a stored calibration amounts to: the values the AEM and the RSSI correction use."""
    stored: Calibration
    tx_power: int
    rssi_correction: int
    confidence: int


class Tracer(Closeable):
    """The tracing driver over a client's store (see encore.Client.tracer()).
    Thread safe. Raises TracingInactiveError for an advertisement
    or a scan while tracing is off."""

    def __init__(self, client: Client, *, random_seed: int | None = None, scan_window_seconds: int | None = None,
                 scan_period_seconds: int | None = None, rotation_min_seconds: int | None = None,
                 rotation_max_seconds: int | None = None) -> None:
        options = _ffi.encore_tracer_options()
        lib.encore_tracer_options_init(ctypes.byref(options), ctypes.sizeof(options))
        if random_seed is not None:
            if not isinstance(random_seed, int) or isinstance(random_seed, bool) or not 0 <= random_seed < 1 << 64:
                raise ValueError("random_seed must be an int from 0 to 2**64 - 1")
            options.has_random_seed = 1
            options.random_seed = random_seed
        for name, value in (("scan_window_seconds", scan_window_seconds), ("scan_period_seconds", scan_period_seconds),
                            ("rotation_min_seconds", rotation_min_seconds), ("rotation_max_seconds", rotation_max_seconds)):
            if value is not None:
                setattr(options, name, checked_int(value, 64, name))
        out = ctypes.POINTER(_ffi.encore_tracer)()
        client._c.call(lib.encore_tracer_new, ctypes.byref(options), ctypes.byref(out))
        self._handle = Handle(out, lib.encore_tracer_free, "Tracer")
        weakref.finalize(self, self._handle.close)

    def start(self, now: int) -> None:
        """Tracing starts: "on" in the tracing history."""
        self._handle.call(lib.encore_tracer_start, checked_int(now, 64, "now"))

    def stop(self, now: int) -> None:
        """Tracing stops, for any reason: "off" in the tracing history."""
        self._handle.call(lib.encore_tracer_stop, checked_int(now, 64, "now"))

    def advertisement(self, now: int) -> Advertisement:
        """The payload to broadcast at `now` (a new one once the last expired)."""
        a = sized(_ffi.encore_advertisement)
        self._handle.call(lib.encore_tracer_get_advertisement, checked_int(now, 64, "now"), ctypes.byref(a))
        return Advertisement.from_c(a)

    def rotate(self, now: int) -> Advertisement:
        """A new payload at `now`, whatever the current one's validity."""
        a = sized(_ffi.encore_advertisement)
        self._handle.call(lib.encore_tracer_rotate, checked_int(now, 64, "now"), ctypes.byref(a))
        return Advertisement.from_c(a)

    def next_scan(self, now: int) -> ScanWindow:
        w = sized(_ffi.encore_scan_window)
        self._handle.call(lib.encore_tracer_next_scan, checked_int(now, 64, "now"), ctypes.byref(w))
        return ScanWindow.from_c(w)

    def ingest_scan(self, window: ScanWindow, reports: Iterable[ScanReport]) -> ScanResult:
        """Stores one scan's reports: one sighting per RPI, in one transaction."""
        w = window.to_c()
        rows = [r.to_c() for r in reports]
        array, size = array_of(_ffi.encore_scan_report, rows)
        result = sized(_ffi.encore_scan_result)
        self._handle.call(lib.encore_tracer_ingest_scan, ctypes.byref(w), array, size, len(rows), ctypes.byref(result))
        return ScanResult.from_c(result)

    def set_calibration(self, calibration: Calibration) -> None:
        """Stores the calibration; the next payload carries it."""
        c = sized(_ffi.encore_tracing_calibration)
        for field in ("tx_power", "rssi_correction", "confidence"):
            value = getattr(calibration, field)
            if value is not None:
                setattr(c, "has_" + field, 1)
                setattr(c, field, checked_int(value, 32, field))
        self._handle.call(lib.encore_tracer_set_calibration, ctypes.byref(c))


def calibration(client: Client) -> EffectiveCalibration:
    """The store's calibration and what it amounts to."""
    c = sized(_ffi.encore_tracing_calibration)
    client._c.call(lib.encore_tracing_get_calibration, ctypes.byref(c))
    stored = Calibration(tx_power=c.tx_power if c.has_tx_power else None,
                         rssi_correction=c.rssi_correction if c.has_rssi_correction else None,
                         confidence=c.confidence if c.has_confidence else None)
    return EffectiveCalibration(stored=stored, tx_power=c.effective_tx_power, rssi_correction=c.effective_rssi_correction,
                                confidence=c.effective_confidence)


def set_adapter(client: Client, name: str | None) -> None:
    """Records the adapter the host traces with ("hci0"); None removes it."""
    client._c.call(lib.encore_tracing_set_adapter, None if name is None else text(name, "name"))


def adapter(client: Client) -> str | None:
    """The recorded adapter name, None when there is none."""
    b = _ffi.encore_bytes()
    try:
        client._c.call(lib.encore_tracing_get_adapter, ctypes.byref(b))
    except errors.BY_STATUS[_ffi.ENCORE_ERR_NOT_FOUND]:
        return None
    return take_text(b)


def status(client: Client) -> TracingStatus:
    """At the client's time: on or off and since when, the last scan, the RPIs heard in the last hour and 14 days."""
    st = sized(_ffi.encore_tracing_status)
    client._c.call(lib.encore_tracing_get_status, ctypes.byref(st))
    return TracingStatus.from_c(st)
