"""The records' generator: the committed _records.py is fresh, a struct that
changes makes it stale, RECORDS that names what the header lacks stops it;
and the generated records round-trip through the library."""
import importlib.util
import shutil
import subprocess
import sys

import pytest

import encore
from encore import _ffi, _records, checkins
from encore_testdata import BINDINGS, REPO

HEADER = (REPO / "include/encore.h").read_text()


def load(name):
    spec = importlib.util.spec_from_file_location(name, BINDINGS / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


gen_records = load("gen_records")


def copy_layout(tmp_path, header_text):
    """The layout the generators expect, with the committed generated files and `header_text` as the header."""
    (tmp_path / "include").mkdir()
    (tmp_path / "include/encore.h").write_text(header_text)
    (tmp_path / "bindings/python/encore").mkdir(parents=True)
    for script in ("gen_ffi.py", "gen_records.py"):
        shutil.copy(BINDINGS / script, tmp_path / "bindings/python" / script)
    shutil.copy(BINDINGS / "encore/_records.py", tmp_path / "bindings/python/encore/_records.py")
    return tmp_path / "bindings/python/gen_records.py"


def run(script, *args):
    return subprocess.run([sys.executable, str(script), *args], capture_output=True, text=True)


def test_committed_records_are_fresh():
    result = run(BINDINGS / "gen_records.py", "--check")
    assert result.returncode == 0, result.stderr


def test_a_field_added_to_a_struct_makes_the_records_stale(tmp_path):
    # A new field at the end of encore_own_key (as a minor release adds one).
    old = "    int64_t created;                        /**< unix seconds the key was made, >= 0 */\n} encore_own_key;"
    assert old in HEADER
    changed = HEADER.replace(old, old.replace("} encore_own_key;", "    int32_t added_later;  /**< a new field */\n} encore_own_key;"))
    script = copy_layout(tmp_path, changed)
    stale = run(script, "--check")
    assert stale.returncode != 0 and "out of date" in stale.stderr and "added_later" in stale.stderr
    assert run(script).returncode == 0
    fresh = run(script, "--check")
    assert fresh.returncode == 0, fresh.stderr
    text = (tmp_path / "bindings/python/encore/_records.py").read_text()
    assert "    added_later: int = " not in text and "    added_later: int\n    \"\"\"a new field\"\"\"" in text


def test_a_field_the_records_name_but_the_header_lacks_stops_the_generator(tmp_path):
    # RECORDS shows encore_keyfile_info.is_zip as a bool: a header without it must not generate quietly.
    assert "int32_t is_zip;" in HEADER
    script = copy_layout(tmp_path, HEADER.replace("int32_t is_zip;", "int32_t was_zip;"))
    result = run(script)
    assert result.returncode != 0 and "encore_keyfile_info has no field is_zip" in result.stderr


def test_an_enum_constant_the_records_name_but_the_header_lacks_stops_the_generator():
    with pytest.raises(gen_records.RecordError, match="ENCORE_CHECKIN_KIND_NOTIFYME"):
        gen_records.generate(HEADER.replace("#define ENCORE_CHECKIN_KIND_NOTIFYME", "#define ENCORE_CHECKIN_KIND_OTHER"))


def test_docstrings_come_from_the_header():
    assert _records.OwnKey.__doc__.startswith("One of the device's own temporary exposure keys.")
    assert "unix seconds the key was made" in (BINDINGS / "encore/_records.py").read_text()


def test_public_names_are_the_generated_records():
    # The modules re-export the generated classes (PurgeCounts and ScanReport add a method each).
    for name in ("Sighting", "OwnKey", "KeyFileInfo", "CheckIn", "TraceLocation", "TestStatus", "SyncItem", "RiskResult"):
        assert getattr(encore, name) is getattr(_records, name)
    assert issubclass(encore.PurgeCounts, _records.PurgeCounts)
    assert issubclass(encore.tracing.ScanReport, _records.ScanReport)


def test_to_c_and_from_c_are_inverse():
    s = encore.Sighting(time=1_700_000_000, rpi=bytes(range(16)), aem=b"\1\2\3\4", rssi=-60, prev_scan=1_699_999_700)
    assert encore.Sighting.from_c(s.to_c()) == s
    assert encore.Sighting.from_c(encore.Sighting(1, bytes(16), bytes(4), 0).to_c()).prev_scan is None
    report = encore.ProtectedReport(bytes(32), bytes(range(16)), bytes(range(16)), bytes(32))
    c = report.to_c()
    assert c.encrypted_record_length == 16 and encore.ProtectedReport.from_c(c) == report


def test_to_c_checks_every_field():
    with pytest.raises(ValueError, match="rssi"):
        encore.Sighting(1, bytes(16), bytes(4), 128).to_c()
    with pytest.raises(ValueError, match="aem"):
        encore.Sighting(1, bytes(16), bytes(3), 0).to_c()
    with pytest.raises(TypeError, match="rpi"):
        encore.Sighting(1, "not bytes", bytes(4), 0).to_c()  # type: ignore[arg-type]
    with pytest.raises(ValueError, match="period"):
        encore.CheckInRecord(1, -1, 1).to_c()
    with pytest.raises(ValueError, match="at most 32"):
        encore.ProtectedReport(bytes(32), bytes(16), bytes(33), bytes(32)).to_c()


def test_an_unknown_code_reads_as_such_or_raises():
    c = _ffi.encore_checkin_day(risk_level=99, date=86400, normalized_time=1.5)
    assert _records.CheckInDay.from_c(c).risk_level == "unknown (99)"
    item = _ffi.encore_sync_item(kind=99, outcome=_ffi.ENCORE_SYNC_OUTCOME_FETCHED, day=-1, hour=-1, interval=-1)
    with pytest.raises(ValueError, match="encore_sync_item.kind"):
        _records.SyncItem.from_c(item)


def test_records_round_trip_through_the_library(tmp_path):
    with encore.Store.open(tmp_path / "s.db", raw_key=bytes(32)) as store, encore.Client(store, clock=1_700_000_000) as client:
        key = encore.OwnKey(key_data=bytes(range(16)), rolling_start_interval_number=2_833_200, created=1_699_990_000)
        client.own_keys.put(key)
        assert client.own_keys.latest() == key
        sightings = [encore.Sighting(time=1_699_999_000 + i, rpi=bytes([i]) * 16, aem=b"\0\1\2\3", rssi=-50 - i,
                                     prev_scan=None if i else 1_699_998_700) for i in range(3)]
        assert client.sightings.add(sightings) == 3
        assert list(client.sightings.list()) == sightings
    record = encore.CheckInRecord(start_interval_number=2_833_333, period=6, transmission_risk_level=5)
    sealed = checkins.encrypt_report(bytes(range(32)), record)
    assert checkins.decrypt_report(bytes(range(32)), sealed) == record
