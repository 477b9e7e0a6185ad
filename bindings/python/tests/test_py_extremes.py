"""Every clock, span and count a host passes, at its extremes: each call
returns or raises an EncoreError (or the binding's ValueError for what a C
type cannot hold); none may trap, hang or allocate for what it refuses.
Two calls did (a CWA check-in edited to start at Int64's end trapped; a
CrowdNotifier visit to Int64's end never returned)."""
import itertools

import pytest

import encore
from encore_clients import feature, on
from encore import checkins as ck
from encore import crowdnotifier as cn
from encore import crypto

from test_py_checkins import REAL_QR

NOW = 1_795_500_000
TIMES = [-2 ** 63, -1, 0, NOW, 253_402_300_799, 253_402_300_800, 2 ** 63 - 1]
INTERVALS = [-2 ** 31, -1, 0, 144, 2 ** 31 - 1]
INT32S = [-2 ** 31, -1, 0, 1, 2 ** 31 - 1]
SECONDS = [-2 ** 63, -1, 0, 1, 480, 86_400, 86_401, 2 ** 63 - 1]


def add(store, start=NOW - 3600, end=NOW):
    return feature(store, "checkins").add(REAL_QR, start, end, now=NOW)


def push(store):
    return feature(store, "push", push="https://localhost")


# name: (arity, call(store, *values)); arity 1 and 2 run over TIMES, "interval" over INTERVALS,
# "int32" over INT32S, "seconds" (a span) over SECONDS
CALLS = {
    "purge now": (1, lambda s, a: s.purge(now=a)),
    "purge age": (1, lambda s, a: s.purge(now=NOW, max_age=a)),
    "sightings": (2, lambda s, a, b: on(s).sightings.list(start=a, end=b)),
    "tracing event": (2, lambda s, a, b: (on(s).tracing_history.add(a, True), on(s).tracing_history.active_seconds(a, b))),
    "active tracing": (2, lambda s, a, b: (on(s).tracing_history.add(NOW, True), on(s).tracing_history.active_seconds(a, b))),
    "own key": (1, lambda s, a: on(s, a).own_keys.current()),
    "own key history": (1, lambda s, a: on(s, a).own_keys.history()),
    "advertisement": (1, lambda s, a: on(s, a).own_keys.advertisement()),
    "risk results": (2, lambda s, a, b: on(s).risk_results.list(start=a, end=b)),
    "check-in": (2, lambda s, a, b: add(s, a, b)),
    "check-in now": (1, lambda s, a: feature(s, "checkins").add(REAL_QR, NOW - 3600, NOW, now=a)),
    "check-in edit": (2, lambda s, a, b: feature(s, "checkins").edit(add(s), a, b)),
    "check-in end": (1, lambda s, a: feature(s, "checkins").end(add(s, end=None), a)),
    "check-in list": (1, lambda s, a: (add(s), feature(s, "checkins").list(now=a))),
    "check-in risk": (1, lambda s, a: (add(s), feature(s, "checkins").assess(now=a))),
    "check-in reports": (1, lambda s, a: (add(s), feature(s, "checkins").reports(now=a))),
    "check-in reports onset": (1, lambda s, a: (add(s), feature(s, "checkins").reports(symptoms="onset", onset=a, now=NOW))),
    "long check-in reports": (2, lambda s, a, b: (add(s, a, b), feature(s, "checkins").reports(now=NOW))),
    "derive times": (2, lambda s, a, b: ck.derive_times(a, b)),
    "create location": (2, lambda s, a, b: ck.create_location("x", "y", start=a, end=b)),
    "venue QR code": (2, lambda s, a, b: cn.qr_code(cn.generate_keys()[1], "x", start=a, end=b)),
    "trace keys": (2, lambda s, a, b: cn.trace_keys(CN_SECRET, CN_QR, a, b)),
    "CrowdNotifier visit": (2, lambda s, a, b: feature(s, "checkins").add(CN_QR, a, b, now=NOW)),
    "RPIs": ("interval", lambda s, a: crypto.rpis(bytes(16), a, 144)),
    "push state": (1, lambda s, a: push(s).set_state(exposure_notifications=True, now=a)),
    "push decision": (1, lambda s, a: push(s).decide("app-start", now=a)),
    "cached exposure check": (1, lambda s, a: on(s, a).check()),
    "matching nothing": (1, lambda s, a: on(s, a).match([], verify=False)),
    "sync plan": (1, lambda s, a: sync(s).plan(now=a)),
    "sync budget": ("seconds", lambda s, a: sync(s).operation(now=NOW, budget=a).next(now=NOW)),
    "sync steps' clock": (2, lambda s, a, b: step(sync(s).operation(now=a), b)),
    "risk: window's day": (1, lambda s, a: risk([window(date=a)], NOW)),
    "risk: clock": (1, lambda s, a: risk([window(date=NOW - NOW % 86_400)], a)),
    "risk: seconds between scans": ("int32", lambda s, a: risk([window(seconds=a, scans=1000)], NOW)),
    "risk: attenuation": ("int32", lambda s, a: risk([window(attenuation=a)], NOW)),
    "risk: report type, infectiousness, confidence": ("int32", lambda s, a: risk([window(kind=a)], NOW)),
}


def window(date=NOW - NOW % 86_400, seconds=300, scans=3, attenuation=50, kind=None):
    """An exposure window in the conformance form (risk.RiskConfig.calculate)."""
    return {"date": date, "reportType": 1 if kind is None else kind, "infectiousness": 1 if kind is None else kind,
            "calibrationConfidence": 0 if kind is None else kind,
            "scanInstances": [{"typicalAttenuation": attenuation, "minAttenuation": attenuation,
                               "secondsSinceLastScan": seconds}] * scans}


def sync(store):
    return feature(store, "sync", transport=encore.Transport.curl(), distribution="https://localhost", trust=encore.TrustList())


def step(operation, now):
    """The first request, answered with a 503, then the next step, both at `now`."""
    kind, request = operation.next(now=now)
    if kind == "request":
        operation.feed_answer(request.id, 503, [], b"", now=now)
        operation.next(now=now)


def risk(windows, now):
    return encore.risk.RiskConfig.cwa().calculate(windows, now)


CN_SECRET, CN_PUBLIC = cn.generate_keys()
CN_QR = cn.qr_code(CN_PUBLIC, "Zunfthaus")


@pytest.mark.parametrize("name", sorted(CALLS))
def test_extreme_values_return_or_raise(tmp_path, name):
    arity, call = CALLS[name]
    singles = {"interval": INTERVALS, "int32": INT32S, "seconds": SECONDS, 1: TIMES}
    values = [(v,) for v in singles[arity]] if arity in singles else list(itertools.product(TIMES, TIMES))
    outcomes = set()
    for i, args in enumerate(values):
        with encore.Store.open(str(tmp_path / f"s{i}.db"), "pw") as s:
            try:
                call(s, *args)
                outcomes.add("returned")
            except encore.EncoreError:
                outcomes.add("refused")
            except ValueError:  # an int the binding cannot pass (e.g. below a uint32)
                outcomes.add("not passed")
    # Returning or refusing is the point (a trap kills the process, a hang never ends);
    # and each call does work for its ordinary values.
    assert "returned" in outcomes, outcomes
