"""Plain Python values for the library's C records."""
from __future__ import annotations

import ctypes
import dataclasses
from typing import Optional, Self

from . import _ffi

# ENCORE_SIGNATURE_VERIFIED -> "verified", from the header's constants so a
# new outcome needs no edit here.
_PREFIX = "ENCORE_SIGNATURE_"
SIGNATURE_STATUSES = {value: name[len(_PREFIX):].lower()
                      for name, value in vars(_ffi).items() if name.startswith(_PREFIX)}


def _text(value: bytes | None) -> str | None:
    return value.decode("utf-8", "replace") if value is not None else None


@dataclasses.dataclass(frozen=True)
class KeyFileInfo:
    """What a key file says about itself (encore_keyfile_info)."""
    start_timestamp: int
    end_timestamp: int
    region: Optional[str]
    batch_num: int
    batch_size: int
    key_count: int
    revised_key_count: int
    invalid_key_count: int
    signature_status: str  # "verified", "unsigned", "untrusted", "invalid" or "skipped"
    is_zip: bool
    signature_key_id: Optional[str]
    signature_key_version: Optional[str]

    @classmethod
    def from_c(cls, info: _ffi.encore_keyfile_info) -> Self:
        """The value of a C encore_keyfile_info."""
        # Copies the strings: in C they live only as long as the handle.
        return cls(
            start_timestamp=info.start_timestamp, end_timestamp=info.end_timestamp,
            region=_text(info.region), batch_num=info.batch_num, batch_size=info.batch_size,
            key_count=info.key_count, revised_key_count=info.revised_key_count,
            invalid_key_count=info.invalid_key_count,
            signature_status=SIGNATURE_STATUSES.get(info.signature_status, f"unknown ({info.signature_status})"),
            is_zip=bool(info.is_zip), signature_key_id=_text(info.signature_key_id),
            signature_key_version=_text(info.signature_key_version))


@dataclasses.dataclass(frozen=True)
class Key:
    """One diagnosis key (encore_key)."""
    key_data: bytes
    transmission_risk_level: int
    rolling_start_interval_number: int
    rolling_period: int
    report_type: int  # ENCORE_REPORT_*
    days_since_onset_of_symptoms: Optional[int]

    @classmethod
    def from_c(cls, key: _ffi.encore_key) -> Self:
        """The value of a C encore_key."""
        return cls(
            key_data=bytes(key.key_data),
            transmission_risk_level=key.transmission_risk_level,
            rolling_start_interval_number=key.rolling_start_interval_number,
            rolling_period=key.rolling_period, report_type=key.report_type,
            days_since_onset_of_symptoms=(key.days_since_onset_of_symptoms
                                          if key.has_days_since_onset_of_symptoms else None))


# ---- Store records ----------------------------------------------------------

def checked_int(value: int, bits: int, what: str) -> int:
    """`value` checked to be an int that fits a signed C integer of `bits`
    bits (ctypes would wrap it without a word); bool is refused."""
    limit = 1 << (bits - 1)
    if not isinstance(value, int) or isinstance(value, bool) or not -limit <= value < limit:
        raise ValueError(f"{what} must be an int from {-limit} to {limit - 1}, not {value!r}")
    return value


def _fixed_bytes(value: bytes, size: int, what: str) -> bytes:
    data = bytes(value)
    if len(data) != size:
        raise ValueError(f"{what} must be {size} bytes, not {len(data)}")
    return data


@dataclasses.dataclass(frozen=True)
class Sighting:
    """One sighting heard over Bluetooth (encore_sighting)."""
    time: int                         # unix seconds
    rpi: bytes                        # 16 bytes
    aem: bytes                        # 4 bytes
    rssi: int                         # dBm; of a scan's reports folded, the strongest (the minimum attenuation's)
    prev_scan: Optional[int] = None   # unix seconds of the previous scan, when known
    typical_rssi: Optional[int] = None  # dBm, the mean of a scan's reports (the typical attenuation's); None: rssi

    @classmethod
    def from_c(cls, o: _ffi.encore_sighting) -> Self:
        """The value of a C encore_sighting."""
        return cls(time=o.time, rpi=bytes(o.rpi), aem=bytes(o.aem), rssi=o.rssi,
                   prev_scan=o.prev_scan if o.has_prev_scan else None,
                   typical_rssi=o.typical_rssi if o.has_typical_rssi else None)

    def to_c(self) -> _ffi.encore_sighting:
        """The C encore_sighting of this value (fields checked to fit)."""
        o = _ffi.encore_sighting()
        o.struct_size = ctypes.sizeof(o)
        o.time = checked_int(self.time, 64, "time")
        o.rpi[:] = list(_fixed_bytes(self.rpi, 16, "rpi"))
        o.aem[:] = list(_fixed_bytes(self.aem, 4, "aem"))
        o.rssi = checked_int(self.rssi, 8, "rssi")
        o.has_prev_scan = 0 if self.prev_scan is None else 1
        o.prev_scan = 0 if self.prev_scan is None else checked_int(self.prev_scan, 64, "prev_scan")
        o.has_typical_rssi = 0 if self.typical_rssi is None else 1
        o.typical_rssi = 0 if self.typical_rssi is None else checked_int(self.typical_rssi, 8, "typical_rssi")
        return o


@dataclasses.dataclass(frozen=True)
class OwnKey:
    """One of the device's own temporary exposure keys (encore_own_key)."""
    key_data: bytes                     # 16 bytes
    rolling_start_interval_number: int  # ENIN of the first interval, >= 0
    rolling_period: int = 144           # 1..144
    created: int = 0                    # unix seconds the key was made

    @classmethod
    def from_c(cls, k: _ffi.encore_own_key) -> Self:
        """The value of a C encore_own_key."""
        return cls(key_data=bytes(k.key_data), rolling_start_interval_number=k.rolling_start_interval_number,
                   rolling_period=k.rolling_period, created=k.created)

    def to_c(self) -> _ffi.encore_own_key:
        """The C encore_own_key of this value (fields checked to fit)."""
        k = _ffi.encore_own_key()
        k.struct_size = ctypes.sizeof(k)
        k.key_data[:] = list(_fixed_bytes(self.key_data, 16, "key_data"))
        k.rolling_start_interval_number = checked_int(self.rolling_start_interval_number, 32, "rolling_start_interval_number")
        k.rolling_period = checked_int(self.rolling_period, 32, "rolling_period")
        k.created = checked_int(self.created, 64, "created")
        return k


@dataclasses.dataclass(frozen=True)
class CachedKeyFileInfo:
    """A cached key file, without its content (encore_cached_keyfile_info)."""
    region: str
    identifier: str
    etag: Optional[str]
    sha256: bytes      # computed by the library when the key file was stored
    size: int          # bytes of content
    downloaded: int    # unix seconds


@dataclasses.dataclass(frozen=True)
class TracingEvent:
    """Tracing was switched on (active) or off at `time` (encore_tracing_event)."""
    time: int
    active: bool

    @classmethod
    def from_c(cls, e: _ffi.encore_tracing_event) -> Self:
        """The value of a C encore_tracing_event."""
        return cls(time=e.time, active=bool(e.active))


@dataclasses.dataclass(frozen=True)
class RiskResult:
    """A stored risk result (encore_risk_result and its document)."""
    id: int
    time: int
    level: int
    document: str


@dataclasses.dataclass(frozen=True)
class PurgeCounts:
    """Rows a purge removed (encore_purge_counts)."""
    sightings: int
    own_keys: int
    keyfiles: int
    tracing_events: int
    risk_results: int

    @classmethod
    def from_c(cls, n: _ffi.encore_purge_counts) -> Self:
        """The value of a C encore_purge_counts."""
        return cls(sightings=n.sightings, own_keys=n.own_keys, keyfiles=n.keyfiles,
                   tracing_events=n.tracing_events, risk_results=n.risk_results)

    @property
    def total(self) -> int:
        """Rows removed from all tables."""
        return self.sightings + self.own_keys + self.keyfiles + self.tracing_events + self.risk_results
