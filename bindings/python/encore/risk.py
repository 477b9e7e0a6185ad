"""CWA's v2 risk calculation over exposure windows."""
from __future__ import annotations

import ctypes
import dataclasses
from collections.abc import Iterable, Mapping
from typing import Any

from . import _cdata, _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._config import ParsedConfig
from ._handle import Handle
from ._loader import lib

LEVELS = {_ffi.ENCORE_RISK_NONE: None, _ffi.ENCORE_RISK_LOW: "LOW", _ffi.ENCORE_RISK_HIGH: "HIGH"}
DAY = 86_400


@dataclasses.dataclass(frozen=True)
class DayRisk:
    """The risk of one UTC day with exposures."""
    date: int                      # unix seconds of the UTC midnight
    risk_level: str | None         # "LOW", "HIGH" or None
    normalized_time: float
    minimum_distinct_encounters_with_low_risk: int
    minimum_distinct_encounters_with_high_risk: int


@dataclasses.dataclass(frozen=True)
class RiskAssessment:
    """CWA's v2 risk over all exposure windows, and per day."""
    total_risk_level: str | None   # "LOW", "HIGH" or None
    most_recent_date_with_low_risk: int | None
    most_recent_date_with_high_risk: int | None
    number_of_days_with_low_risk: int
    number_of_days_with_high_risk: int
    total_minimum_distinct_encounters_with_low_risk: int
    total_minimum_distinct_encounters_with_high_risk: int
    calculated_at: int
    days: tuple[DayRisk, ...]


class RiskConfig(ParsedConfig):
    """A parsed risk calculation configuration (a dict, JSON text or bytes in
    the form of the conformance file's defaultRiskCalculationConfiguration).
    A malformed one raises InvalidArgumentError naming the bad field."""

    _handle: Handle[ctypes._Pointer[_ffi.encore_risk_config]]
    _c_type = _ffi.encore_risk_config
    _c_new_cwa = lib.encore_risk_config_new_cwa
    _c_new_json = lib.encore_risk_config_new_json
    _c_free = lib.encore_risk_config_free

    def calculate(self, windows: Iterable[Mapping[str, Any]], now: int) -> RiskAssessment:
        """The assessment of windows given as dicts in the conformance form
        (`ageInDays` relative to `now`, or `date` in unix seconds)."""
        rows: list[_ffi.encore_exposure_window] = []
        instances: list[_ffi.encore_scan_instance] = []
        midnight = now - now % DAY
        for w in windows:
            rows.append(_ffi.encore_exposure_window(
                date=w["date"] if "date" in w else midnight - w["ageInDays"] * DAY, report_type=w["reportType"],
                infectiousness=w["infectiousness"], calibration_confidence=w["calibrationConfidence"],
                scan_instance_count=len(w["scanInstances"]), first_scan_instance=len(instances)))
            instances += [_ffi.encore_scan_instance(typical_attenuation=s["typicalAttenuation"], min_attenuation=s["minAttenuation"],
                                                    seconds_since_last_scan=s["secondsSinceLastScan"]) for s in w["scanInstances"]]
        c_windows, window_size = _cdata.array_of(_ffi.encore_exposure_window, rows)
        c_instances, instance_size = _cdata.array_of(_ffi.encore_scan_instance, instances)
        out = ctypes.POINTER(_ffi.encore_risk_assessment)()
        with self._handle.borrow() as config:
            lib.encore_risk_calculate(config, c_windows, window_size, len(rows), c_instances, instance_size, len(instances),
                                      now, ctypes.byref(out))
        try:
            return _assessment(out)
        finally:
            lib.encore_risk_assessment_free(out)


def _assessment(pointer: ctypes._Pointer[_ffi.encore_risk_assessment]) -> RiskAssessment:
    s = _cdata.output(_ffi.encore_risk_summary)
    lib.encore_risk_assessment_get_summary(pointer, ctypes.byref(s))
    days = _cdata.copy_list(lambda *page: lib.encore_risk_assessment_copy_days(pointer, *page), _ffi.encore_day_risk,
                            lambda d: DayRisk(d.date, LEVELS[d.risk_level], d.normalized_time,
                                              d.minimum_distinct_encounters_with_low_risk,
                                              d.minimum_distinct_encounters_with_high_risk))
    return RiskAssessment(
        total_risk_level=LEVELS[s.total_risk_level],
        most_recent_date_with_low_risk=s.most_recent_date_with_low_risk if s.has_most_recent_date_with_low_risk else None,
        most_recent_date_with_high_risk=s.most_recent_date_with_high_risk if s.has_most_recent_date_with_high_risk else None,
        number_of_days_with_low_risk=s.number_of_days_with_low_risk,
        number_of_days_with_high_risk=s.number_of_days_with_high_risk,
        total_minimum_distinct_encounters_with_low_risk=s.total_minimum_distinct_encounters_with_low_risk,
        total_minimum_distinct_encounters_with_high_risk=s.total_minimum_distinct_encounters_with_high_risk,
        calculated_at=s.calculated_at,
        days=tuple(days))
