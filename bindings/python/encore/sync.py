"""Background sync over a store and a transport: CWA's key files, app
configuration and trace warning packages, DP-3T exposed keys, CrowdNotifier
trace keys, the planner, the check on the cache."""
from __future__ import annotations

import ctypes
import dataclasses
import json
from typing import TYPE_CHECKING, Any, Literal, TypeAlias

from . import _cdata, _ffi, _progress, errors  # noqa: F401  (errors installs the status checks)
from ._progress import ProgressFn
from ._loader import lib
from .exposure import CheckResult, _take_check_result
from ._records import (  # re-exported: the public names of the generated records
    SyncConfiguration as SyncConfiguration, SyncItem as SyncItem)
from .operation import Operation
from ._cdata import take_bytes as _take_bytes
from .store import _take_list

if TYPE_CHECKING:
    from ._client import CClient

# Why a sync runs, and the network it may use.
Trigger: TypeAlias = Literal["periodic", "push", "app-start", "user"]
Network: TypeAlias = Literal["unmetered", "metered", "none"]

TRIGGERS = {"periodic": _ffi.ENCORE_SYNC_PERIODIC, "push": _ffi.ENCORE_SYNC_PUSH,
            "app-start": _ffi.ENCORE_SYNC_APP_START, "user": _ffi.ENCORE_SYNC_USER}
NETWORKS = {"unmetered": _ffi.ENCORE_NETWORK_UNMETERED, "metered": _ffi.ENCORE_NETWORK_METERED,
            "none": _ffi.ENCORE_NETWORK_NONE}
STEPS = [(_ffi.ENCORE_SYNC_STEP_CONFIG, "config"), (_ffi.ENCORE_SYNC_STEP_DAYS, "days"),
         (_ffi.ENCORE_SYNC_STEP_HOURS, "hours"), (_ffi.ENCORE_SYNC_STEP_DP3T, "dp3t"),
         (_ffi.ENCORE_SYNC_STEP_WARNINGS, "warnings"), (_ffi.ENCORE_SYNC_STEP_TRACE_KEYS, "traceKeys")]


@dataclasses.dataclass(frozen=True)
class SyncPlan:
    """What a sync would fetch now, and when the next one is due."""
    steps: tuple[str, ...]  # of "config", "days", "hours", "dp3t", "warnings", "traceKeys"; empty: nothing due
    next_due_at: int | None  # None without a network


ItemKind: TypeAlias = Literal["day", "hour", "config", "dp3t", "warnings", "traceKeys"]
Outcome: TypeAlias = Literal["fetched", "cached", "failed"]
ConfigurationUsed: TypeAlias = Literal["fetched", "unchanged", "last-verified", "built-in"]

@dataclasses.dataclass(frozen=True)
class SyncReport:
    """What a sync did, read from the library's structs, and the check it ran on the cache."""
    items: tuple[SyncItem, ...]
    configuration: SyncConfiguration | None  # None without a CWA sync
    deleted: int         # cached packages deleted: unlisted, covered by a day, too old
    revoked: int         # cached packages deleted because the configuration revoked them
    stopped_early: bool  # the time budget ran out; the next sync resumes
    next_due_at: int | None
    clock_offset: int | None  # the server's clock minus this device's, seconds
    warnings: tuple[str, ...]  # in words: a clock far off, a budget that ran out, a refused bundle tag
    check: CheckResult | None
    document: dict[str, Any]  # the same result as JSON (a view of it): the form `encore sync --json` prints

    @property
    def fetched(self) -> tuple[SyncItem, ...]:
        """The items kept (fetched, verified, stored)."""
        return tuple(i for i in self.items if i.outcome == "fetched")


class Sync:
    """The sync of a client (encore.Client's `sync`) with CWA's distribution
    server, a DP-3T backend, a CrowdNotifier backend, or several: the
    client's servers and trust list, at the client's time.

        if client.sync.plan(trigger="periodic").steps:
            report = client.sync.run(trigger="periodic")

    or, with the host's own I/O:

        report = await client.sync.operation().run_async(session)
    """

    def __init__(self, client: CClient, *, trace_warnings: bool = True) -> None:
        self._c = client
        self._trace_warnings = bool(trace_warnings)

    def _options(self, trigger: Trigger, network: Network, run_check: bool, budget: int | None,
                 progress: ProgressFn | None) -> tuple[_ffi.encore_sync_options, _progress.Progress | None]:
        if trigger not in TRIGGERS or network not in NETWORKS:
            raise ValueError(f"trigger is one of {sorted(TRIGGERS)}, network one of {sorted(NETWORKS)}")
        o = _ffi.encore_sync_options()
        lib.encore_sync_options_init(ctypes.byref(o), ctypes.sizeof(o))
        o.trigger, o.network, o.run_check = TRIGGERS[trigger], NETWORKS[network], 1 if run_check else 0
        if budget is not None:
            o.budget_seconds = budget
        o.trace_warnings = 1 if self._trace_warnings else 0
        return o, _progress.attach(o, progress)

    def plan(self, *, trigger: Trigger = "user", network: Network = "unmetered") -> SyncPlan:
        """What a sync would fetch now, from the store alone."""
        o, _ = self._options(trigger, network, True, None, None)
        info = _cdata.output(_ffi.encore_sync_plan_info)
        self._c.call(lib.encore_sync_plan, ctypes.byref(o), ctypes.byref(info))
        return SyncPlan(tuple(name for bit, name in STEPS if info.steps & bit), info.next_due_at if info.has_next_due else None)

    def run(self, *, trigger: Trigger = "user", network: Network = "unmetered", run_check: bool = True,
            budget: int | None = None, progress: ProgressFn | None = None) -> SyncReport:
        """Syncs what is due through the client's transport; `progress(done,
        total)` (requests) may return False to cancel. Raises on a failure
        (counted for the backoff)."""
        o, watcher = self._options(trigger, network, run_check, budget, progress)
        out = ctypes.POINTER(_ffi.encore_sync_result)()
        with _progress.reraising(watcher):
            self._c.call(lib.encore_sync_run, ctypes.byref(o), ctypes.byref(out))
        try:
            return _report(out)
        finally:
            lib.encore_sync_result_free(out)

    def operation(self, *, trigger: Trigger = "user", network: Network = "unmetered", run_check: bool = True,
                  budget: int | None = None, progress: ProgressFn | None = None) -> Operation[SyncReport]:
        """The sync as an Operation the caller drives with its own I/O
        (op.run_async(session) on an asyncio loop, or next/feed by hand);
        op.result() is the SyncReport. Planned at the client's time; the
        client's transport is not used."""
        o, watcher = self._options(trigger, network, run_check, budget, progress)
        out = ctypes.POINTER(_ffi.encore_operation)()
        self._c.call(lib.encore_sync_start, ctypes.byref(o), ctypes.byref(out))
        return Operation(out, _operation_report, keep=(watcher, self._c))


def _configuration(result: ctypes._Pointer[_ffi.encore_sync_result]) -> SyncConfiguration | None:
    c = _cdata.output(_ffi.encore_sync_configuration)
    lib.encore_sync_result_get_configuration(result, ctypes.byref(c))
    if c.used == _ffi.ENCORE_SYNC_CONFIG_NONE:
        _take_bytes(c.reason)  # freed
        return None
    return SyncConfiguration.from_c(c)


def _report(result: ctypes._Pointer[_ffi.encore_sync_result]) -> SyncReport:
    """The SyncReport of an encore_sync_result (not freed here)."""
    s = _cdata.output(_ffi.encore_sync_summary)
    lib.encore_sync_result_get_summary(result, ctypes.byref(s))
    items = tuple(_cdata.copy_list(lambda *page: lib.encore_sync_result_copy_items(result, *page), _ffi.encore_sync_item, SyncItem.from_c))
    check = None
    if s.has_check:
        c = ctypes.POINTER(_ffi.encore_check_result)()
        lib.encore_sync_result_get_check(result, ctypes.byref(c))
        check = _take_check_result(c)
    warnings = ctypes.POINTER(_ffi.encore_string_list)()
    lib.encore_sync_result_get_warnings(result, ctypes.byref(warnings))
    b = _ffi.encore_bytes()
    lib.encore_sync_result_get_json(result, ctypes.byref(b))
    document: dict[str, Any] = json.loads(_take_bytes(b))
    return SyncReport(items, _configuration(result), s.deleted, s.revoked, bool(s.stopped_early),
                      s.next_due_at if s.has_next_due else None, s.clock_offset if s.has_clock_offset else None,
                      tuple(_take_list(warnings)), check, document)


def _operation_report(operation: Operation[SyncReport]) -> SyncReport:
    out = ctypes.POINTER(_ffi.encore_sync_result)()
    operation._handle.call(lib.encore_operation_get_sync_result, ctypes.byref(out))
    try:
        return _report(out)
    finally:
        lib.encore_sync_result_free(out)
