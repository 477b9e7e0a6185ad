"""Own keys, matching and the exposure check through Python: device A's
advertisements heard by device B; A's keys published; B finds the encounter."""
import io
import sys
import zipfile

import pytest
from encore_testdata import REPO, TestClock

import encore
from encore.exposure import match, exposure_check
from encore.records import Sighting
from encore.risk import RiskConfig

sys.path.insert(0, str(REPO / "Tests"))
from standins.wire import field, fixed64  # noqa: E402

DAY = 86_400
T0 = 19_000 * DAY + 9 * 3600


def key_file(keys, dsos=2, end=None):
    """An unsigned zip with `keys` (Key values), written by hand."""
    body = field(3, b"DE") + field(4, 1) + field(5, 1)
    if end is not None:
        body = fixed64(2, end) + body
    for k in keys:
        msg = (field(1, k.key_data) + field(2, 6) + field(3, k.rolling_start_interval_number)
               + field(4, k.rolling_period) + field(5, 1) + field(6, dsos * 2))
        body += field(7, msg)
    out = io.BytesIO()
    with zipfile.ZipFile(out, "w") as z:
        z.writestr("export.bin", b"EK Export v1    " + body)
    return out.getvalue()


@pytest.fixture
def devices(tmp_path):
    """Devices A and B (their clients), in one world: one clock, which the
    tests move."""
    clock = TestClock(T0)
    with encore.Client.open(tmp_path / "a.db", raw_key=bytes(range(32)), clock=clock) as a, \
            encore.Client.open(tmp_path / "b.db", raw_key=bytes(range(1, 33)), clock=clock) as b:
        yield a, b, clock


def hear(a, b, clock, scans=5, rssi=-70):
    """B hears A's advertisement every 5 minutes from T0 on."""
    heard = []
    for i in range(scans):
        clock.set(T0 + i * 300)
        p = a.own_keys.advertisement(tx_power=-10)
        heard.append(Sighting(time=clock(), rpi=p[:16], aem=p[16:], rssi=rssi, prev_scan=clock() - 300))
    b.sightings.add(heard)


def test_own_keys_rotate_daily_and_form_the_history(devices):
    a, _, clock = devices
    k1 = a.own_keys.current()
    clock.advance(3600)
    assert a.own_keys.current() == k1
    clock.set(T0 + DAY)
    k2 = a.own_keys.current()
    assert k2.key_data != k1.key_data and k2.rolling_start_interval_number == k1.rolling_start_interval_number + 144
    history = a.own_keys.history()
    assert [k.key_data for k in history] == [k1.key_data, k2.key_data]


def test_b_matches_what_it_heard_of_a(devices):
    a, b, clock = devices
    hear(a, b, clock)
    published = key_file(a.own_keys.history())
    clock.set(T0 + DAY)
    r = b.match([published], verify=False)
    assert r.stats["matched_keys"] == 1 and len(r.windows) == 1
    w = r.windows[0]
    assert w["date"] == T0 - T0 % DAY and w["infectiousness"] == 2 and w["reportType"] == 1
    assert w["scanInstances"] == [{"minAttenuation": 60, "typicalAttenuation": 60, "secondsSinceLastScan": 300}] * 5
    assert r.summary_v1["matched_key_count"] == 1


def test_the_exposure_check_is_high_and_stored(devices):
    a, b, clock = devices
    hear(a, b, clock)
    b.tracing_history.add(T0 - 3 * DAY, True)
    published = key_file(a.own_keys.history(), end=T0 + DAY)
    clock.set(T0 + DAY + 3600)
    r = b.exposure_check([published], verify=False)
    assert r.status == "HIGH" and r.notification_due and r.window_count == 1
    assert r.assessment.number_of_days_with_high_risk == 1
    last = b.risk_results.last()
    assert last.id == r.stored_result_id and last.level == encore._ffi.ENCORE_CHECK_HIGH


def test_unverified_files_are_refused_by_default(devices):
    a, b, _ = devices
    with pytest.raises(encore.SignatureMissingError):
        b.match([key_file(a.own_keys.history())])


def test_cancelling_the_check_stores_nothing(devices):
    a, b, clock = devices
    hear(a, b, clock)
    published = key_file(a.own_keys.history())
    clock.set(T0 + DAY)
    with pytest.raises(encore.CancelledError):
        b.exposure_check([published], config=RiskConfig.cwa(), verify=False, progress=lambda done, total: False)
    assert b.risk_results.last() is None


def test_an_exception_in_the_progress_callback_cancels_the_check_and_comes_back(devices):
    a, b, clock = devices
    hear(a, b, clock)
    published = key_file(a.own_keys.history())
    seen = []

    def progress(done, total):
        seen.append(done)
        raise KeyError("stop")
    clock.set(T0 + DAY)
    with pytest.raises(KeyError) as caught:
        b.exposure_check([published], config=RiskConfig.cwa(), verify=False, progress=progress)
    # Raised by the callback once, after the library stopped with ENCORE_ERR_CANCELLED.
    assert isinstance(caught.value.__cause__, encore.CancelledError) and len(seen) == 1
    assert b.risk_results.last() is None
    with pytest.raises(KeyError):
        b.match([published], verify=False, progress=progress)
    # The same call without a failing callback goes through.
    calls = []
    m = b.match([published], verify=False, threads=2, progress=lambda done, total: calls.append((done, total)))
    assert len(m.windows) == 1 and calls and calls[-1][0] == calls[-1][1]
