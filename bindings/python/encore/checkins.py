"""CWA event check-ins (presence tracing): QR codes, the check-ins kept in
a client, matching trace warning packages, their risk, and the protected
reports a submission sends. The list of check-ins (CheckIns) also holds the
visits at SwissCovid and NotifyMe venues; the rest of CrowdNotifier (trace
keys, the authority's side) is encore.crowdnotifier.

    checkins = CheckIns(store)
    visit = checkins.add("https://e.coronawarn.app?v=1#CAES...", start=t0, end=t1)
    summary = checkins.match_package(open("twp.zip", "rb").read(), trust=trust)
    risk = checkins.assess()
    print(risk.total_risk_level, [(m.check_in, m.overlap_minutes) for m in risk.matches])

Bad QR codes raise their own classes (QrNotCwaError, QrVersionError,
QrEncodingError, QrMalformedError, QrInvalidError, QrTooLargeError); a
package whose export.bin is no TraceWarningPackage WarningMalformedError;
unusable reports inside a package are skipped and counted, never raised.

The organizer side: create_location() makes the QR code of one's own event
or place (CreatedLocation: its URL, location, png(), svg())."""
from __future__ import annotations

import builtins
import contextlib
import ctypes
import dataclasses
import json
import os
from typing import TYPE_CHECKING

from . import _cdata, _client, _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import checked_int, checked_uint, fixed_bytes, take_bytes as _take_bytes, text, uint8_pointer
from ._config import ParsedConfig
from ._handle import Handle
from ._loader import lib
from ._records import (  # re-exported: the public names of the generated records
    CheckIn as CheckIn, CheckInAssessment as CheckInAssessment, CheckInDay as CheckInDay, CheckInMatch as
    CheckInMatch, CheckInRecord as CheckInRecord, CheckInReport as CheckInReport, ProtectedReport as
    ProtectedReport, TraceLocation as TraceLocation, WarningMatchSummary as WarningMatchSummary)

if TYPE_CHECKING:
    from ._client import CClient
from .testresult import SYMPTOMS, Symptoms
from .trust import TrustList


# ---- QR codes ---------------------------------------------------------------

def _take_location(pointer: ctypes._Pointer[_ffi.encore_trace_location]) -> TraceLocation:
    try:
        i = _cdata.output(_ffi.encore_trace_location_info)
        lib.encore_trace_location_get_info(pointer, ctypes.byref(i))
        return TraceLocation.from_c(i)
    finally:
        lib.encore_trace_location_free(pointer)


def parse_qr(qr_code: str | bytes) -> TraceLocation:
    """The location of a CWA event QR code's text
    (https://e.coronawarn.app?v=1#<base64url>, padding allowed). Nothing is stored."""
    out = ctypes.POINTER(_ffi.encore_trace_location)()
    lib.encore_trace_location_parse(text(qr_code, "qr_code"), ctypes.byref(out))
    return _take_location(out)


def location_from_payload(payload: bytes | bytearray | memoryview) -> TraceLocation:
    """The location of a QRCodePayload's bytes (what follows "#", decoded)."""
    if not isinstance(payload, (bytes, bytearray, memoryview)):
        raise TypeError(f"payload must be bytes, not {type(payload).__name__}")
    data = bytes(payload)
    out = ctypes.POINTER(_ffi.encore_trace_location)()
    lib.encore_trace_location_parse_payload(uint8_pointer(data), len(data), ctypes.byref(out))
    return _take_location(out)


# ---- the organizer side: creating an event or place ------------------------

@dataclasses.dataclass(frozen=True)
class CreatedLocation:
    """A new CWA event or place: the URL its QR code shows and what it says."""
    url: str
    location: TraceLocation

    def png(self, scale: int = 8) -> bytes:
        """The printable QR code as a PNG (8-bit grey, `scale` pixels a module, 1-16)."""
        return qr_image(self.url, "png", scale)

    def svg(self) -> str:
        """The printable QR code as SVG text."""
        return qr_image(self.url, "svg").decode("utf-8")


def create_location(description: str | bytes, address: str | bytes, *, start: int | None = None, end: int | None = None,
                    location_type: int | None = None, default_minutes: int | None = None) -> CreatedLocation:
    """Creates a CWA event or place as the Corona-Warn-App does on the phone
    (nothing sent or stored; a fresh random seed, so each call makes a new
    location). `location_type` is CWA's TraceLocationType: places 1, 3-8,
    events 2, 9-12 (default: 2 with start/end, else 1). An event needs
    `start` and a later `end` (unix seconds), a place neither.
    `default_minutes`: how long a guest's check-in lasts without a
    check-out (None: 120 for places, 15 for events; 0: 15; at most 1425).
    What the app refuses raises LocationInvalidError naming the field and
    the rule."""
    spec = _ffi.encore_trace_location_spec()
    lib.encore_trace_location_spec_init(ctypes.byref(spec), ctypes.sizeof(spec))
    description_c, address_c = text(description, "description"), text(address, "address")
    spec.description, spec.address = description_c, address_c
    spec.start_timestamp = 0 if start is None else checked_uint(start, 64, "start")
    spec.end_timestamp = 0 if end is None else checked_uint(end, 64, "end")
    if location_type is None:
        location_type = 2 if start is not None or end is not None else 1
    spec.location_type = checked_uint(location_type, 32, "location_type")
    if default_minutes is not None:
        spec.default_check_in_length_minutes = checked_uint(default_minutes, 31, "default_minutes")
    out = ctypes.POINTER(_ffi.encore_trace_location)()
    lib.encore_trace_location_create(ctypes.byref(spec), ctypes.byref(out))
    try:
        url = _ffi.encore_bytes()
        lib.encore_trace_location_get_url(out, ctypes.byref(url))
        url_text = _take_bytes(url).decode("utf-8")
    except BaseException:
        lib.encore_trace_location_free(out)
        raise
    return CreatedLocation(url_text, _take_location(out))


def qr_image(qr_code: str | bytes, image_format: str = "png", scale: int = 8) -> bytes:
    """The printable QR code of a CWA event QR code's text (parsed first),
    drawn by libqrencode: "png" (bytes; `scale` pixels a module, 1-16) or
    "svg" (UTF-8 bytes; no scale)."""
    formats = {"png": _ffi.ENCORE_QR_IMAGE_PNG, "svg": _ffi.ENCORE_QR_IMAGE_SVG}
    if image_format not in formats:
        raise ValueError(f"image_format must be 'png' or 'svg', not {image_format!r}")
    scale_value = checked_uint(scale, 32, "scale") if image_format == "png" else 0
    location = ctypes.POINTER(_ffi.encore_trace_location)()
    lib.encore_trace_location_parse(text(qr_code, "qr_code"), ctypes.byref(location))
    try:
        out = _ffi.encore_bytes()
        lib.encore_trace_location_get_qr_image(location, formats[image_format], scale_value, ctypes.byref(out))
        return _take_bytes(out)
    finally:
        lib.encore_trace_location_free(location)


# ---- the crypto of protected reports ----------------------------------------

def encrypt_report(location_id: bytes, record: CheckInRecord, iv: bytes | None = None) -> ProtectedReport:
    """A ProtectedReport of `record` (a CheckInRecord) under the keys of
    `location_id` (32 bytes): AES-256-CBC with PKCS#7 and `iv` (16 bytes;
    None: a random one), HMAC-SHA256 over iv || ciphertext."""
    lid = fixed_bytes(location_id, 32, "location_id")
    iv_bytes = None if iv is None else fixed_bytes(iv, 16, "iv")
    r = record.to_c()
    out = _cdata.sized(_ffi.encore_checkin_report)
    lib.encore_checkin_report_encrypt(uint8_pointer(lid), len(lid), ctypes.byref(r),
                                      None if iv_bytes is None else uint8_pointer(iv_bytes),
                                      0 if iv_bytes is None else len(iv_bytes), ctypes.byref(out))
    return ProtectedReport.from_c(out)


def decrypt_report(location_id: bytes, report: ProtectedReport) -> CheckInRecord:
    """The CheckInRecord of a ProtectedReport, opened with the keys of
    `location_id`: ReportMacError when the MAC does not verify (checked
    before anything is decrypted), ReportInvalidError for wrong lengths,
    bad padding or a record that does not decode."""
    lid = fixed_bytes(location_id, 32, "location_id")
    c = report.to_c()
    out = _cdata.sized(_ffi.encore_checkin_record)
    lib.encore_checkin_report_decrypt(uint8_pointer(lid), len(lid), ctypes.byref(c), ctypes.byref(out))
    return CheckInRecord.from_c(out)


def derive_times(start: int, end: int) -> tuple[int, int] | None:
    """A visit's (start, end) as a submission reports them with CWA's
    production parameters (under 10 minutes dropped, aerosol decay added,
    aligned to 10 minutes); None for a dropped visit."""
    s, e, reported = ctypes.c_int64(), ctypes.c_int64(), ctypes.c_int32()
    lib.encore_checkin_derive_times(checked_int(start, 64, "start"), checked_int(end, 64, "end"),
                                    ctypes.byref(s), ctypes.byref(e), ctypes.byref(reported))
    return (s.value, e.value) if reported.value else None


# ---- risk ----------------------------------------------------------------------

class CheckInRiskConfig(ParsedConfig):
    """Presence-tracing risk parameters (CWA's
    PresenceTracingRiskCalculationParameters as a dict, JSON text or bytes:
    transmissionRiskValueMapping, normalizedTimePerCheckInToRiskLevelMapping,
    normalizedTimePerDayToRiskLevelMapping, maxCheckInAgeInDays). A bad one
    raises InvalidArgumentError naming the field."""

    _handle: Handle[ctypes._Pointer[_ffi.encore_checkin_risk_config]]
    _c_type = _ffi.encore_checkin_risk_config
    _c_new_cwa = lib.encore_checkin_risk_config_new_cwa
    _c_new_json = lib.encore_checkin_risk_config_new_json
    _c_free = lib.encore_checkin_risk_config_free


def _assessment(pointer: ctypes._Pointer[_ffi.encore_checkin_assessment]) -> CheckInAssessment:
    """A CheckInAssessment of a library assessment handle (not freed here)."""
    s = _cdata.output(_ffi.encore_checkin_risk_summary)
    lib.encore_checkin_assessment_get_summary(pointer, ctypes.byref(s))
    matches = tuple(_cdata.copy_list(lambda *page: lib.encore_checkin_assessment_copy_matches(pointer, *page),
                                     _ffi.encore_checkin_match, CheckInMatch.from_c))
    days = tuple(_cdata.copy_list(lambda *page: lib.encore_checkin_assessment_copy_days(pointer, *page),
                                  _ffi.encore_checkin_day, CheckInDay.from_c))
    b = _ffi.encore_bytes()
    lib.encore_checkin_assessment_get_json(pointer, ctypes.byref(b))
    return CheckInAssessment.from_c(s, matches=matches, days=days, json=json.loads(_take_bytes(b)))


def take_assessment(pointer: ctypes._Pointer[_ffi.encore_checkin_assessment]) -> CheckInAssessment:
    """A CheckInAssessment of a library assessment handle, which is freed."""
    try:
        return _assessment(pointer)
    finally:
        lib.encore_checkin_assessment_free(pointer)


# ---- check-ins in a store ---------------------------------------------------

def _mode(private: bool) -> int:
    return _ffi.ENCORE_CHECKIN_MODE_PRIVATE if private else _ffi.ENCORE_CHECKIN_MODE_DIARY


def _optional_qr(qr_code: str | None) -> bytes | None:
    return None if qr_code is None else text(qr_code, "qr_code")


class CheckIns:
    """The check-ins of a client (encore.Client's `checkins`). Times are unix
    seconds; "now" is the client's time. `private`: whether SwissCovid and
    NotifyMe check-ins are private unless add() says otherwise (a CWA
    check-in is always a diary one)."""

    def __init__(self, client: CClient, private: bool = False) -> None:
        self._c = client
        self.private = bool(private)

    def add(self, qr_code: str | bytes, start: int, end: int | None = None, *, private: bool | None = None) -> int:
        """Checks in at the place of a CWA, SwissCovid or NotifyMe QR code
        from `start`; without `end` the check-in stays open until the
        location's automatic length has passed. Returns the check-in's id. A
        bad QR code raises its Qr*Error, an end before the start
        CheckinTimesError.

        What is kept: a diary check-in keeps the venue readable in the
        store (QR payload, location id, description, address), as the apps'
        diaries do. `private=True` (SwissCovid and NotifyMe only; None: this
        object's default) keeps what the CrowdNotifier SDKs keep, the day and
        each hour's ciphertext, and nothing of the venue: list() shows a
        private visit, and end()/edit() need the QR code again."""
        qr = text(qr_code, "qr_code")
        # None: the client's default (checkin_private), which never applies to CWA codes: they cannot be private.
        mode = _ffi.ENCORE_CHECKIN_MODE_DEFAULT if private is None else _mode(bool(private))
        out = ctypes.c_int64()
        self._c.call(lib.encore_checkin_add, qr, checked_int(start, 64, "start"),
                   -1 if end is None else checked_int(end, 64, "end"), mode, ctypes.byref(out))
        return out.value

    def end(self, check_in: int, end: int, qr_code: str | None = None) -> None:
        """Checks out: the check-in ends at `end`. NotFoundError for an
        unknown id. A private check-in needs its venue's `qr_code`
        (CheckinQrRequiredError without it, the check-in unchanged); a code
        of another app, or not a diary check-in's own, raises
        CheckinQrMismatchError."""
        qr = _optional_qr(qr_code)
        if qr is None:
            self._c.call(lib.encore_checkin_end, checked_int(check_in, 64, "check_in"), checked_int(end, 64, "end"))
        else:
            self._c.call(lib.encore_checkin_end_with_qr, checked_int(check_in, 64, "check_in"), checked_int(end, 64, "end"), qr)

    def edit(self, check_in: int, start: int, end: int | None = None, qr_code: str | None = None) -> None:
        """Sets a check-in's times (end None: checked in again); `qr_code` as for end()."""
        args = (checked_int(check_in, 64, "check_in"), checked_int(start, 64, "start"), -1 if end is None else checked_int(end, 64, "end"))
        qr = _optional_qr(qr_code)
        if qr is None:
            self._c.call(lib.encore_checkin_edit, *args)
        else:
            self._c.call(lib.encore_checkin_edit_with_qr, *args, qr)

    def delete(self, check_in: int) -> bool:
        """Deletes a check-in and its warnings; returns whether there was one."""
        existed = ctypes.c_int32()
        self._c.call(lib.encore_checkin_delete, checked_int(check_in, 64, "check_in"), ctypes.byref(existed))
        return bool(existed.value)

    def list(self) -> list[CheckIn]:
        """The check-ins, oldest first, after closing those whose time is up
        and deleting those that ended over 10 days before the client's time."""
        out = ctypes.POINTER(_ffi.encore_checkin_list)()
        self._c.call(lib.encore_checkin_list_open, ctypes.byref(out))
        try:
            return list(_cdata.copy_list(lambda *page: lib.encore_checkin_list_copy(out, *page), _ffi.encore_checkin_info,
                                         CheckIn.from_c))
        finally:
            lib.encore_checkin_list_free(out)

    def match_package(self, package: bytes | bytearray | memoryview | str | os.PathLike[str],
                      trust: TrustList | None = None) -> WarningMatchSummary:
        """Matches a trace warning package (bytes, or a path: a zip of
        export.bin + export.sig; empty is the empty package), verified with
        `trust` (a TrustList; None: the client's; nothing unverified is stored), against the check-ins;
        its warnings for them are stored (once, however often a package is
        matched). Returns a WarningMatchSummary."""
        from .keyfile import _options as keyfile_options
        if isinstance(package, (str, os.PathLike)):
            with open(package, "rb") as f:
                package = f.read()
        if not isinstance(package, (bytes, bytearray, memoryview)):
            raise TypeError(f"package must be bytes or a path, not {type(package).__name__}")
        if trust is not None and not isinstance(trust, TrustList):
            raise TypeError(f"trust must be a TrustList or None, not {type(trust).__name__}")
        data = bytes(package)
        summary = _cdata.output(_ffi.encore_warning_match_summary)
        no_trust = contextlib.nullcontext(ctypes.POINTER(_ffi.encore_trust)())
        with (trust._handle.borrow() if trust is not None else no_trust) as trust_pointer:
            options = keyfile_options(trust_pointer, True, None, None, None)
            self._c.call(lib.encore_checkin_match_package, uint8_pointer(data), len(data), ctypes.byref(options),
                       ctypes.byref(summary))
        return WarningMatchSummary.from_c(summary)

    def assess(self, config: CheckInRiskConfig | None = None) -> CheckInAssessment:
        """The presence-tracing risk of the stored warnings (`config` a
        CheckInRiskConfig; None: CWA's production parameters). Reads only."""
        if config is not None and not isinstance(config, CheckInRiskConfig):
            raise TypeError("config must be a CheckInRiskConfig or None")
        out = ctypes.POINTER(_ffi.encore_checkin_assessment)()
        with (config._handle.borrow() if config is not None else contextlib.nullcontext(None)) as c:
            self._c.call(lib.encore_checkin_assess, c, ctypes.byref(out))
        return take_assessment(out)

    def reports(self, symptoms: Symptoms = "no-info", onset: int | None = None) -> builtins.list[CheckInReport]:
        """The protected reports a submission at the client's time would send, shuffled.
        Nothing is sent or stored."""
        o = _ffi.encore_submit_options()
        lib.encore_submit_options_init(ctypes.byref(o), ctypes.sizeof(o))
        if onset is not None:
            o.symptoms, o.onset = _ffi.ENCORE_SYMPTOMS_ONSET_DATE, checked_int(onset, 64, "onset")
        else:
            if symptoms not in SYMPTOMS:
                raise ValueError(f"symptoms must be one of {sorted(SYMPTOMS)}")
            o.symptoms = SYMPTOMS[symptoms]
        out = ctypes.POINTER(_ffi.encore_checkin_report_list)()
        self._c.call(lib.encore_checkin_report_list_open, ctypes.byref(o), ctypes.byref(out))
        try:
            return list(_cdata.copy_list(lambda *page: lib.encore_checkin_report_list_copy(out, *page),
                                         _ffi.encore_checkin_report_info, CheckInReport.from_c))
        finally:
            lib.encore_checkin_report_list_free(out)
