"""Exposure matching and the exposure check on a client's sightings."""
from __future__ import annotations

import contextlib
import ctypes
import dataclasses
import os

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, TypeAlias, TypeVar

from . import _cdata, _ffi, _progress, errors  # noqa: F401  (errors installs the status checks)
from .checkins import take_assessment as take_checkin_assessment
from ._cdata import checked_int
from ._loader import lib
from ._records import (  # re-exported: the public names of the generated records
    CheckResult as CheckResult)
from .risk import RiskConfig, _assessment
from .trust import TrustList

if TYPE_CHECKING:
    from ._progress import ProgressFn
    from .keyfile import Verify
    from .client import Client

# A key file to match: its path, or its bytes.
KeySource: TypeAlias = str | os.PathLike[str] | bytes | bytearray
_S = TypeVar("_S", bound=ctypes.Structure)



@dataclasses.dataclass(frozen=True)
class MatchResult:
    """What matching sightings against key files found: the exposure windows,
    ENF v1's summary and the matcher's statistics."""
    windows: tuple[dict[str, Any], ...]  # dicts in the conformance form, `date` in unix seconds
    summary_v1: dict[str, Any]
    stats: dict[str, Any]


def _sources(sources: Sequence[KeySource]) -> tuple[ctypes.Array[_ffi.encore_key_source], list[object]]:
    """encore_key_source structs for paths (str, os.PathLike) and bytes; the
    returned list keeps the bytes alive for the call."""
    array, _size = _cdata.array_of(_ffi.encore_key_source, [_ffi.encore_key_source() for _ in sources])
    keep: list[object] = []
    for i, s in enumerate(sources):
        if isinstance(s, (bytes, bytearray)):
            buf = (ctypes.c_uint8 * max(len(s), 1)).from_buffer_copy(bytes(s) or b"\0")
            keep.append(buf)
            array[i].data = ctypes.cast(buf, ctypes.POINTER(ctypes.c_uint8))
            array[i].length = len(s)
        else:
            path = str(s).encode()
            keep.append(path)
            array[i].path = path
    return array, keep


def _options(trust: TrustList | None, verify: Verify, threads: int,
             progress: ProgressFn | None) -> tuple[_ffi.encore_match_options, list[Any], _progress.Progress | None]:
    """The match options, what must stay alive for the call, and the
    progress watcher (None without `progress`)."""
    from .keyfile import _options as keyfile_options
    if trust is not None and not isinstance(trust, TrustList):
        raise TypeError("trust must be a TrustList or None")
    o = _ffi.encore_match_options()
    # No time: the C client's clock is the match's (the init's now is ignored).
    lib.encore_match_options_init(ctypes.byref(o), ctypes.sizeof(o), 0)
    o.threads = checked_int(threads, 32, "threads") if threads else 0
    keep: list[Any] = []
    if trust is not None:
        borrowed = trust._handle.borrow()
        pointer = borrowed.__enter__()
        keep.append(borrowed)
    else:
        pointer = ctypes.POINTER(_ffi.encore_trust)()
    kf = keyfile_options(pointer, verify, None, None, None)
    keep.append(kf)
    o.keyfile_options = ctypes.pointer(kf)
    return o, keep, _progress.attach(o, progress)


def _release(keep: list[Any]) -> None:
    for k in keep:
        if hasattr(k, "__exit__"):
            k.__exit__(None, None, None)


def _windows(result: ctypes._Pointer[_ffi.encore_match_result]) -> tuple[tuple[dict[str, Any], ...], dict[str, Any]]:
    stats = _cdata.output(_ffi.encore_match_stats)
    lib.encore_match_result_get_stats(result, ctypes.byref(stats))
    windows = list(_cdata.copy_list(lambda *page: lib.encore_match_result_copy_windows(result, *page),
                                    _ffi.encore_exposure_window, _copy))
    instances = list(_cdata.copy_list(lambda *page: lib.encore_match_result_copy_scan_instances(result, *page),
                                      _ffi.encore_scan_instance, _copy))
    out: list[dict[str, Any]] = []
    for w in windows:
        scans = instances[w.first_scan_instance:w.first_scan_instance + w.scan_instance_count]
        out.append({"date": w.date, "reportType": w.report_type, "infectiousness": w.infectiousness,
                    "calibrationConfidence": w.calibration_confidence,
                    "scanInstances": [{"minAttenuation": s.min_attenuation, "typicalAttenuation": s.typical_attenuation,
                                       "secondsSinceLastScan": s.seconds_since_last_scan} for s in scans]})
    return tuple(out), _fields(stats)


def _copy(struct: _S) -> _S:
    """A copy of a struct out of a buffer that is reused."""
    return type(struct).from_buffer_copy(struct)


def _fields(struct: ctypes.Structure) -> dict[str, Any]:
    """The values of a struct's fields, without struct_size and reserved ones."""
    return {f: (list(getattr(struct, f)) if f == "attenuation_durations" else getattr(struct, f))
            for f, *_ in struct._fields_ if f not in ("struct_size", "reserved")}


def match(client: Client, sources: Sequence[KeySource], trust: TrustList | None = None,
          verify: Verify = True, threads: int = 0, progress: ProgressFn | None = None) -> MatchResult:
    """Matches the client's sightings against key files (paths or bytes) at
    the client's time, verified with `trust` (None: the client's) unless
    verify=False.
    `progress(done, total)` may return False, or raise, to cancel."""
    array, keep_sources = _sources(sources)
    options, keep, watcher = _options(trust, verify, threads, progress)
    out = ctypes.POINTER(_ffi.encore_match_result)()
    try:
        with _progress.reraising(watcher):
            client._c.call(lib.encore_match_run, array, ctypes.sizeof(_ffi.encore_key_source), len(sources), ctypes.byref(options), ctypes.byref(out))
    finally:
        _release(keep)
    try:
        windows, stats = _windows(out)
        s = _cdata.sized(_ffi.encore_summary_v1)
        lib.encore_match_result_get_summary_v1(out, ctypes.byref(s))
        summary = _fields(s)
        return MatchResult(windows, summary, stats)
    finally:
        lib.encore_match_result_free(out)


def exposure_check(client: Client, sources: Sequence[KeySource], config: RiskConfig | None = None,
                   trust: TrustList | None = None, verify: Verify = True, threads: int = 0,
                   progress: ProgressFn | None = None) -> CheckResult:
    """The exposure check: match, calculate the risk with `config` (a
    RiskConfig; default: CWA's built-in parameters), apply the tracing-time
    and freshness rules, store the result, at the client's time, the files
    verified with `trust` (None: the client's) unless verify=False.
    `progress(done, total)` may return False, or raise, to cancel."""
    config = RiskConfig.cwa() if config is None else config
    if not isinstance(config, RiskConfig):
        raise TypeError("config must be an encore.risk.RiskConfig")
    array, keep_sources = _sources(sources)
    options, keep, watcher = _options(trust, verify, threads, progress)
    out = ctypes.POINTER(_ffi.encore_check_result)()
    try:
        with _progress.reraising(watcher), config._handle.borrow() as c:
            client._c.call(lib.encore_exposure_check, array, ctypes.sizeof(_ffi.encore_key_source), len(sources), c, ctypes.byref(options), None, ctypes.byref(out))
    finally:
        _release(keep)
    return _take_check_result(out)


def exposure_check_cached(client: Client, config: RiskConfig | None = None, threads: int = 0,
                          progress: ProgressFn | None = None, full: bool = False) -> CheckResult:
    """The exposure check at the client's time on its key file cache (what encore.sync
    keeps): `config` None uses the synced app configuration's risk
    parameters, or CWA's built-in ones. What each cached file matched is
    kept, so the check matches only what is new (files it has not matched,
    and the sightings added since); `full=True` matches every file again.
    `progress(done, total)` may return False, or raise, to cancel."""
    if config is not None and not isinstance(config, RiskConfig):
        raise TypeError("config must be an encore.risk.RiskConfig or None")
    options, keep, watcher = _options(None, True, threads, progress)
    check_options = _ffi.encore_check_options()
    lib.encore_check_options_init(ctypes.byref(check_options), ctypes.sizeof(check_options))
    check_options.full = 1 if full else 0
    out = ctypes.POINTER(_ffi.encore_check_result)()
    try:
        with _progress.reraising(watcher), (config._handle.borrow() if config is not None else contextlib.nullcontext(None)) as c:
            client._c.call(lib.encore_exposure_check_cached, c, ctypes.byref(options), ctypes.byref(check_options), ctypes.byref(out))
    finally:
        _release(keep)
    return _take_check_result(out)


def _take_check_result(out: ctypes._Pointer[_ffi.encore_check_result]) -> CheckResult:
    """A CheckResult from a check result handle, which it frees."""
    try:
        s = _cdata.output(_ffi.encore_check_summary)
        lib.encore_check_result_get_summary(out, ctypes.byref(s))
        a = ctypes.POINTER(_ffi.encore_risk_assessment)()
        lib.encore_check_result_get_assessment(out, ctypes.byref(a))
        try:
            assessment = _assessment(a)
        finally:
            lib.encore_risk_assessment_free(a)
        c = ctypes.POINTER(_ffi.encore_checkin_assessment)()
        lib.encore_check_result_get_checkin_assessment(out, ctypes.byref(c))
        check_ins = take_checkin_assessment(c)
        return CheckResult.from_c(s, assessment=assessment, check_ins=check_ins)
    finally:
        lib.encore_check_result_free(out)
