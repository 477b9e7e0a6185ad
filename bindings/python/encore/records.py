"""Plain Python values for the library's C records."""
import dataclasses
from typing import Optional

from . import _ffi

# ENCORE_SIGNATURE_VERIFIED -> "verified", from the header's constants so a
# new outcome needs no edit here.
_PREFIX = "ENCORE_SIGNATURE_"
SIGNATURE_STATUSES = {value: name[len(_PREFIX):].lower()
                      for name, value in vars(_ffi).items() if name.startswith(_PREFIX)}


def _text(value):
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
    def from_c(cls, info):
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
    def from_c(cls, key):
        return cls(
            key_data=bytes(key.key_data),
            transmission_risk_level=key.transmission_risk_level,
            rolling_start_interval_number=key.rolling_start_interval_number,
            rolling_period=key.rolling_period, report_type=key.report_type,
            days_since_onset_of_symptoms=(key.days_since_onset_of_symptoms
                                          if key.has_days_since_onset_of_symptoms else None))
