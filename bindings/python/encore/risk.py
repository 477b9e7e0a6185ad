"""CWA's v2 risk calculation over exposure windows."""
from __future__ import annotations

import ctypes
from collections.abc import Iterable, Mapping
from typing import Any

from . import _cdata, _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._config import ParsedConfig
from ._handle import Handle
from ._loader import lib
from ._records import (  # re-exported: the public names of the generated records
    DayRisk as DayRisk, RiskAssessment as RiskAssessment)

DAY = 86_400


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
                            DayRisk.from_c)
    return RiskAssessment.from_c(s, days=tuple(days))
