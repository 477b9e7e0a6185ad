"""CWA's test result access and key submission over a store and a transport."""
from __future__ import annotations

import ctypes
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any, Literal, TypeAlias, TypeVar

from . import _cdata, _ffi, errors  # noqa: F401  (errors installs the status checks)
from ._cdata import Text, text
from ._loader import lib
from ._records import (  # re-exported: the public names of the generated records
    SubmitSummary as SubmitSummary, TestStatus as TestStatus)
from .operation import Operation

if TYPE_CHECKING:
    from ._client import CClient

_T = TypeVar("_T")
# What the user says of their symptoms (without an onset date).
Symptoms: TypeAlias = Literal["no-info", "none", "onset-unknown", "onset-last-7-days", "onset-1-2-weeks",
                              "onset-over-2-weeks"]

SYMPTOMS = {"no-info": _ffi.ENCORE_SYMPTOMS_NO_INFORMATION, "none": _ffi.ENCORE_SYMPTOMS_NONE,
            "onset-unknown": _ffi.ENCORE_SYMPTOMS_ONSET_UNKNOWN, "onset-last-7-days": _ffi.ENCORE_SYMPTOMS_ONSET_LAST_7_DAYS,
            "onset-1-2-weeks": _ffi.ENCORE_SYMPTOMS_ONSET_1_2_WEEKS, "onset-over-2-weeks": _ffi.ENCORE_SYMPTOMS_ONSET_OVER_2_WEEKS}


class TestResultClient:
    """The test registration of a client (encore.Client's `tests`) against
    CWA's verification server (and the submission server, whose fake
    requests hide the real ones), at the client's time.

        client.tests.register(qr="https://localhost/?...")
        if client.tests.poll().result == "POSITIVE":
            client.tests.submit(symptoms="onset-last-7-days")
    """
    __test__ = False

    def __init__(self, client: CClient) -> None:
        self._c = client

    def register(self, *, qr: Text | None = None, guid: Text | None = None, teletan: Text | None = None,
                 dob: Text | None = None, rapid: bool = False) -> TestStatus:
        """Registers a test by exactly one of qr, guid and teletan. `qr` takes a
        lab test's, a rapid antigen test's (https://s.coronawarn.app?v=1#...)
        and a rapid PCR test's (https://p.coronawarn.app?v=1#...) code. A key
        that cannot be right raises TestKeyError (TestCodeHashError for a rapid
        code whose hash does not match) before anything is sent."""
        key, keep = _test_key(qr, guid, teletan, dob, rapid)
        status = _cdata.output(_ffi.encore_test_status)
        self._c.call(lib.encore_test_register_run, ctypes.byref(key), ctypes.byref(status))
        del keep
        return TestStatus.from_c(status)

    def register_operation(self, *, qr: Text | None = None, guid: Text | None = None, teletan: Text | None = None,
                           dob: Text | None = None, rapid: bool = False) -> Operation[TestStatus]:
        """The registration as an Operation the caller drives (no transport
        needed); its result is the TestStatus."""
        key, keep = _test_key(qr, guid, teletan, dob, rapid)
        return self._start(lambda out: self._c.call(lib.encore_test_register_start, ctypes.byref(key), out), _test_status, keep=keep)

    def _start(self, start: Callable[[Any], int], result: Callable[[Operation[_T]], _T], keep: object = None) -> Operation[_T]:
        """The operation start(out) makes (a lambda calling a start function of the library)."""
        out = ctypes.POINTER(_ffi.encore_operation)()
        start(ctypes.byref(out))
        return Operation(out, result, keep=(self._c, keep))

    def poll(self) -> TestStatus:
        """One poll of the result; `notify` is True in the poll that brings a new final result."""
        status = _cdata.output(_ffi.encore_test_status)
        self._c.call(lib.encore_test_poll_run, ctypes.byref(status))
        return TestStatus.from_c(status)

    def poll_operation(self) -> Operation[TestStatus]:
        """The poll as an Operation the caller drives (no transport needed);
        its result is the TestStatus."""
        return self._start(lambda out: self._c.call(lib.encore_test_poll_start, out), _test_status)

    def status(self) -> TestStatus:
        """Where the test stands at the client's time, from the store alone."""
        status = _cdata.output(_ffi.encore_test_status)
        self._c.call(lib.encore_test_get_status, ctypes.byref(status))
        return TestStatus.from_c(status)

    def forget(self) -> bool:
        """Deletes the stored test registration; returns whether there was one."""
        existed = ctypes.c_int32()
        self._c.call(lib.encore_test_forget, ctypes.byref(existed))
        return bool(existed.value)

    def submit(self, *, symptoms: Symptoms = "no-info", onset: int | None = None, visited: Iterable[Text] = (),
               federation: bool = False) -> SubmitSummary:
        """Uploads the own keys of the last 14 days. `onset` (unix seconds of
        a UTC midnight) instead of `symptoms` gives the day symptoms began."""
        o, keep = _submit_options(symptoms, onset, visited, federation)
        summary = _cdata.output(_ffi.encore_submit_summary)
        self._c.call(lib.encore_submit_run, ctypes.byref(o), ctypes.byref(summary))
        del keep
        return SubmitSummary.from_c(summary)

    def noise(self) -> None:
        """One session of fake requests (background noise), as real sessions
        look; needs the submission server."""
        self._c.call(lib.encore_test_noise_run)

    def noise_operation(self) -> Operation[dict[str, Any]]:
        """The noise session as an Operation the caller drives; its result is
        the operation's JSON."""
        return self._start(lambda out: self._c.call(lib.encore_test_noise_start, out), Operation.json)

    def submit_operation(self, *, symptoms: Symptoms = "no-info", onset: int | None = None,
                         visited: Iterable[Text] = (), federation: bool = False) -> Operation[SubmitSummary]:
        """The submission as an Operation the caller drives (no transport
        needed); its result is the SubmitSummary."""
        o, keep = _submit_options(symptoms, onset, visited, federation)
        return self._start(lambda out: self._c.call(lib.encore_submit_start, ctypes.byref(o), out), _submit_summary, keep=keep)


def _test_key(qr: Text | None, guid: Text | None, teletan: Text | None, dob: Text | None,
              rapid: bool) -> tuple[_ffi.encore_test_key, list[bytes]]:
    """An encore_test_key of exactly one of qr, guid and teletan, and the strings it points to."""
    given = [(k, v) for k, v in ((_ffi.ENCORE_TEST_KEY_QR_CODE, qr), (_ffi.ENCORE_TEST_KEY_GUID, guid),
                                 (_ffi.ENCORE_TEST_KEY_TELETAN, teletan)) if v is not None]
    if len(given) != 1:
        raise TypeError("give exactly one of qr, guid and teletan")
    kind, value = given[0]
    keep = [text(value, "key")]
    key = _ffi.encore_test_key(ctypes.sizeof(_ffi.encore_test_key), kind, 1 if rapid else 0, 0, keep[0], None)
    if dob is not None:
        keep.append(text(dob, "dob"))
        key.date_of_birth = keep[-1]
    return key, keep


def _submit_options(symptoms: str, onset: int | None, visited: Iterable[Text],
                    federation: bool) -> tuple[_ffi.encore_submit_options, object]:
    """encore_submit_options, and the memory they point to."""
    o = _ffi.encore_submit_options()
    lib.encore_submit_options_init(ctypes.byref(o), ctypes.sizeof(o))
    if onset is not None:
        o.symptoms, o.onset = _ffi.ENCORE_SYMPTOMS_ONSET_DATE, onset
    else:
        if symptoms not in SYMPTOMS:
            raise ValueError(f"symptoms must be one of {sorted(SYMPTOMS)}")
        o.symptoms = SYMPTOMS[symptoms]
    countries = [text(c, "visited") for c in visited]
    array = (ctypes.c_char_p * max(len(countries), 1))(*countries)
    o.visited_countries = ctypes.cast(array, type(o.visited_countries))
    o.visited_country_count = len(countries)
    o.consent_to_federation = 1 if federation else 0
    return o, (countries, array)


def _submit_summary(operation: Operation[SubmitSummary]) -> SubmitSummary:
    summary = _cdata.output(_ffi.encore_submit_summary)
    operation._handle.call(lib.encore_operation_get_submit_summary, ctypes.byref(summary))
    return SubmitSummary.from_c(summary)


def _test_status(operation: Operation[TestStatus]) -> TestStatus:
    status = _cdata.output(_ffi.encore_test_status)
    operation._handle.call(lib.encore_operation_get_test_status, ctypes.byref(status))
    return TestStatus.from_c(status)
