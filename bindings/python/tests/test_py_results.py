"""Results as structs: the sync's report, the push status and the check-in
reports come from the library's structs, and say the same as the library's
JSON of the same result (one value behind both)."""
import ctypes
import datetime as dt
import json

import encore
from encore import _cdata, _ffi
from encore._loader import lib
from encore.store import _take_bytes
from encore_clients import TestClock
from test_py_checkins import REAL_QR
from test_py_sync import NOW, RAW_KEY, day, drive, setup  # noqa: F401  (setup: the stand-in distribution server with two days)
from urllib_fetch import perform


def assert_agrees(report: encore.SyncReport) -> None:
    """The report's typed fields (from the structs) against its JSON."""
    d = report.document
    assert len(report.items) == len(d["items"])
    for item, j in zip(report.items, d["items"]):
        assert (item.kind, item.outcome, item.day, item.hour, item.interval, item.tag, item.keys, item.matches, item.bytes) == \
            (j["kind"], j["outcome"], j["day"], j["hour"], j["interval"], j["etag"], j["keys"], j["matches"] or 0, j["bytes"])
        assert (item.status != 0) == (j["error"] is not None) == (item.outcome == "failed")
    assert [f.tag for f in report.fetched] == [f["etag"] for f in d["fetched"]]
    c = d["configuration"]
    assert (None if report.configuration is None else
            (report.configuration.used, report.configuration.reason, report.configuration.failures)) == \
        (None if c is None else (c["used"], c["reason"], c["failures"]))
    assert (report.deleted, report.revoked, report.stopped_early, report.next_due_at, report.clock_offset, list(report.warnings)) == \
        (d["deleted"], d["revoked"], d["stoppedEarly"], d["nextDueAt"], d["clockOffset"], d["warnings"])
    assert (report.check is None) == (d["check"] is None)


def test_a_sync_report_is_its_items_and_says_what_its_json_says(setup):
    dist, trust, store = setup
    clock = TestClock(NOW)
    s = encore.Client(store, clock=clock, transport=encore.Transport.curl(), distribution=dist.url, trust=trust).sync
    report = s.run(network="metered")
    assert_agrees(report)
    days = {i.day: i for i in report.items if i.kind == "day"}
    assert set(days) == {day(1), day(2)} and days[day(1)].keys == days[day(2)].keys == 5
    assert all(i.outcome == "fetched" and i.bytes > 0 and i.tag and i.status == 0 for i in days.values())
    [config] = [i for i in report.items if i.kind == "config"]
    assert config.outcome == "fetched" and config.bytes > 0
    assert report.configuration == encore.SyncConfiguration("fetched", None, 0)

    # Again: the configuration is current (304), nothing new is fetched.
    clock.now = NOW + 60
    again = s.run(network="metered")
    assert_agrees(again)
    [config] = [i for i in again.items if i.kind == "config"]
    assert (config.outcome, config.bytes, config.tag) == ("cached", 0, [i for i in report.items if i.kind == "config"][0].tag)
    assert again.fetched == () and again.configuration == encore.SyncConfiguration("unchanged", None, 0)


def test_a_failed_configuration_is_an_item_with_its_status(setup):
    dist, trust, store = setup
    config_lost = lambda r: None if "app_config" in r.url else perform(r)  # noqa: E731
    op = encore.Client(store, clock=NOW, distribution=dist.url, trust=trust).sync.operation(network="metered")
    drive(op, answer=config_lost)
    report = op.result()
    assert_agrees(report)
    [config] = [i for i in report.items if i.kind == "config"]
    assert config.outcome == "failed" and encore.errors.status_name_of(config.status) == "ENCORE_ERR_NETWORK"
    assert report.document["items"][0]["error"]["kind"] == "network"
    assert report.configuration is not None and report.configuration.used == "built-in" and report.configuration.failures == 1
    assert "could not be fetched" in (report.configuration.reason or "")


def test_the_push_status_says_what_its_json_says(tmp_path):
    with encore.Store.open(str(tmp_path / "p.db"), raw_key=RAW_KEY) as store:
        client = encore.Client(store, clock=NOW)
        push = client.push
        for en, isolated in [(None, None), (True, False), (False, True)]:
            push.set_state(exposure_notifications=en, isolated=isolated)
            status = push.status
            b = _ffi.encore_bytes()
            client._c.call(lib.encore_push_get_status_json, ctypes.byref(b))
            j = json.loads(_take_bytes(b))
            assert (status.registered, status.registered_at, status.server, status.api, status.push_type,
                    status.exposure_notifications, status.check_ins, status.isolated) == \
                (j["registered"], j["registeredAt"], j["server"], j["api"], j["pushType"],
                 j["exposureNotifications"], j["checkIns"], j["isolated"])
        assert push.status == encore.PushStatus(False, None, None, None, None, False, False, False, True)


def test_the_checkin_reports_say_what_their_json_says(tmp_path):
    with encore.Store.open(str(tmp_path / "c.db"), raw_key=RAW_KEY) as store:
        client = encore.Client(store, clock=NOW)
        checkins = client.checkins
        midnight = NOW - NOW % 86400
        first = checkins.add(REAL_QR, midnight - 3600, midnight + 3600)  # over midnight: two reports
        reports = checkins.reports()
        assert len(reports) == 2 and {r.checkin for r in reports} == {first}
        # The library's JSON of the same list (reports are shuffled when made).
        o = _ffi.encore_submit_options()
        lib.encore_submit_options_init(ctypes.byref(o), ctypes.sizeof(o))
        out = ctypes.POINTER(_ffi.encore_checkin_report_list)()
        client._c.call(lib.encore_checkin_report_list_open, ctypes.byref(o), ctypes.byref(out))
        try:
            structs = list(_cdata.copy_list(lambda *page: lib.encore_checkin_report_list_copy(out, *page),
                                            _ffi.encore_checkin_report_info, encore.CheckInReport.from_c))
            b = _ffi.encore_bytes()
            lib.encore_checkin_report_list_get_json(out, ctypes.byref(b))
            documents = json.loads(_take_bytes(b))["reports"]
        finally:
            lib.encore_checkin_report_list_free(out)
        assert len(structs) == len(documents) == 2
        for r, j in zip(structs, documents):
            assert (r.checkin, r.start_interval_number, r.period, r.transmission_risk_level) == \
                (j["checkin"], j["startIntervalNumber"], j["period"], j["transmissionRiskLevel"])
            assert (r.report.location_id_hash.hex(), r.report.iv.hex(), r.report.encrypted_record.hex(), r.report.mac.hex()) == \
                (j["locationIdHash"], j["iv"], j["encryptedCheckInRecord"], j["mac"])
            assert dt.datetime.fromtimestamp(r.start, dt.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ") == j["start"]
