"""Every clock, span and count a host passes, at its extremes: each call
returns or raises an EncoreError (or the binding's ValueError for what a C
type cannot hold); none may trap, hang or allocate for what it refuses.
Two calls did (a CWA check-in edited to start at Int64's end trapped; a
CrowdNotifier visit to Int64's end never returned)."""
import itertools

import pytest

import encore
from encore_testdata import TestClock
from encore import checkins as ck
from encore import crowdnotifier as cn
from encore import crypto

from test_py_checkins import REAL_QR

NOW = 1_795_500_000
TIMES = [-2 ** 63, -1, 0, NOW, 253_402_300_799, 253_402_300_800, 2 ** 63 - 1]
INTERVALS = [-2 ** 31, -1, 0, 144, 2 ** 31 - 1]
INT32S = [-2 ** 31, -1, 0, 1, 2 ** 31 - 1]
SECONDS = [-2 ** 63, -1, 0, 1, 480, 86_400, 86_401, 2 ** 63 - 1]


def add(c, start=NOW - 3600, end=NOW):
    """The real check-in at `start`..`end`, added at NOW."""
    return at(c, NOW).checkins.add(REAL_QR, start, end)


def at(c, now):
    """The client `c`, its clock moved to `now`."""
    c.test_clock.set(now)
    return c


# name: (arity, call(client, *values)); the client's clock stands at NOW and
# the call moves it to the time it tests; arity 1 and 2 run over TIMES,
# "interval" over INTERVALS, "int32" over INT32S, "seconds" (a span) over SECONDS
CALLS = {
    "purge now": (1, lambda c, a: c.store.purge(now=a)),
    "purge age": (1, lambda c, a: c.store.purge(now=NOW, max_age=a)),
    "sightings": (2, lambda c, a, b: c.sightings.list(start=a, end=b)),
    "tracing event": (2, lambda c, a, b: (c.tracing_history.add(a, True), c.tracing_history.active_seconds(a, b))),
    "active tracing": (2, lambda c, a, b: (c.tracing_history.add(NOW, True), c.tracing_history.active_seconds(a, b))),
    "own key": (1, lambda c, a: at(c, a).own_keys.current()),
    "own key history": (1, lambda c, a: at(c, a).own_keys.history()),
    "advertisement": (1, lambda c, a: at(c, a).own_keys.advertisement()),
    "risk results": (2, lambda c, a, b: c.risk_results.list(start=a, end=b)),
    "check-in": (2, lambda c, a, b: add(c, a, b)),
    "check-in now": (1, lambda c, a: at(c, a).checkins.add(REAL_QR, NOW - 3600, NOW)),
    "check-in edit": (2, lambda c, a, b: c.checkins.edit(add(c), a, b)),
    "check-in end": (1, lambda c, a: c.checkins.end(add(c, end=None), a)),
    "check-in list": (1, lambda c, a: (add(c), at(c, a).checkins.list())),
    "check-in risk": (1, lambda c, a: (add(c), at(c, a).checkins.assess())),
    "check-in reports": (1, lambda c, a: (add(c), at(c, a).checkins.reports())),
    "check-in reports onset": (1, lambda c, a: (add(c), c.checkins.reports(symptoms="onset", onset=a))),
    "long check-in reports": (2, lambda c, a, b: (add(c, a, b), c.checkins.reports())),
    "derive times": (2, lambda c, a, b: ck.derive_times(a, b)),
    "create location": (2, lambda c, a, b: ck.create_location("x", "y", start=a, end=b)),
    "venue QR code": (2, lambda c, a, b: cn.qr_code(cn.generate_keys()[1], "x", start=a, end=b)),
    "trace keys": (2, lambda c, a, b: cn.trace_keys(CN_SECRET, CN_QR, a, b)),
    "CrowdNotifier visit": (2, lambda c, a, b: c.checkins.add(CN_QR, a, b)),
    "RPIs": ("interval", lambda c, a: crypto.rpis(bytes(16), a, 144)),
    "push state": (1, lambda c, a: at(c, a).push.set_state(exposure_notifications=True)),
    "push decision": (1, lambda c, a: at(c, a).push.decide("app-start")),
    "cached exposure check": (1, lambda c, a: at(c, a).check()),
    "matching nothing": (1, lambda c, a: at(c, a).match([], verify=False)),
    "sync plan": (1, lambda c, a: at(c, a).sync.plan()),
    "sync budget": ("seconds", lambda c, a: c.sync.operation(budget=a).next(now=NOW)),
    "sync steps' clock": (2, lambda c, a, b: step(at(c, a).sync.operation(), b)),
    "risk: window's day": (1, lambda c, a: risk([window(date=a)], NOW)),
    "risk: clock": (1, lambda c, a: risk([window(date=NOW - NOW % 86_400)], a)),
    "risk: seconds between scans": ("int32", lambda c, a: risk([window(seconds=a, scans=1000)], NOW)),
    "risk: attenuation": ("int32", lambda c, a: risk([window(attenuation=a)], NOW)),
    "risk: report type, infectiousness, confidence": ("int32", lambda c, a: risk([window(kind=a)], NOW)),
}


def window(date=NOW - NOW % 86_400, seconds=300, scans=3, attenuation=50, kind=None):
    """An exposure window in the conformance form (risk.RiskConfig.calculate)."""
    return {"date": date, "reportType": 1 if kind is None else kind, "infectiousness": 1 if kind is None else kind,
            "calibrationConfidence": 0 if kind is None else kind,
            "scanInstances": [{"typicalAttenuation": attenuation, "minAttenuation": attenuation,
                               "secondsSinceLastScan": seconds}] * scans}


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
        clock = TestClock(NOW)
        with encore.TrustList() as nobody, \
                encore.Client.open(str(tmp_path / f"s{i}.db"), "pw", clock=clock, push="https://localhost",
                                   distribution="https://localhost", trust=nobody) as c:
            c.test_clock = clock
            try:
                call(c, *args)
                outcomes.add("returned")
            except encore.EncoreError:
                outcomes.add("refused")
            except ValueError:  # an int the binding cannot pass (e.g. below a uint32)
                outcomes.add("not passed")
    # Returning or refusing is the point (a trap kills the process, a hang never ends);
    # and each call does work for its ordinary values.
    assert "returned" in outcomes, outcomes
