"""encore.Store tables: own keys, key file cache, tracing history, risk
results and settings, with the library-owned bytes and string lists."""
import hashlib
import json
import math

import pytest

import encore
from encore.exposure import exposure_check
from encore_testdata import REPO, run_in_threads

RAW = bytes(range(100, 132))


@pytest.fixture
def store(tmp_path):
    with encore.Store.open(tmp_path / "tables.db", raw_key=RAW) as s:
        yield s


def key(i, start, period=144, created=1_600_000_000):
    return encore.OwnKey(key_data=bytes([i]) * 16, rolling_start_interval_number=start, rolling_period=period,
                         created=created)


# ---- own keys ---------------------------------------------------------------

def test_own_keys(store):
    assert store.latest_own_key() is None
    assert store.own_keys() == [] and store.count_own_keys() == 0
    store.put_own_key(key(1, 2_650_288))
    store.put_own_key(key(2, 2_650_000))
    store.put_own_key(key(3, 2_650_144, period=100))
    assert [k.rolling_start_interval_number for k in store.own_keys()] == [2_650_000, 2_650_144, 2_650_288]
    assert store.own_keys(since=2_650_100) == [key(3, 2_650_144, period=100), key(1, 2_650_288)]
    assert store.count_own_keys(since=2_650_200) == 1
    assert store.latest_own_key() == key(1, 2_650_288)
    store.put_own_key(key(2, 2_650_432, period=7, created=5))  # same key bytes: replaced
    assert store.count_own_keys() == 3
    assert store.latest_own_key() == key(2, 2_650_432, period=7, created=5)


def test_many_own_keys_come_back_in_chunks(store):
    for i in range(300):
        store.put_own_key(encore.OwnKey(key_data=i.to_bytes(16, "big"), rolling_start_interval_number=i))
    back = store.own_keys()
    assert len(back) == 300 and [k.rolling_start_interval_number for k in back] == list(range(300))


@pytest.mark.parametrize("bad", [key(1, -1), key(1, 0, period=0), key(1, 0, period=145), key(1, 0, created=-1)])
def test_bad_own_keys(store, bad):
    with pytest.raises(encore.InvalidArgumentError):
        store.put_own_key(bad)
    assert store.count_own_keys() == 0


def test_own_key_values_are_checked_before_c(store):
    with pytest.raises(ValueError):
        store.put_own_key(encore.OwnKey(key_data=b"short", rolling_start_interval_number=1))
    with pytest.raises(ValueError):
        store.put_own_key(key(1, 1 << 31))
    with pytest.raises(TypeError):
        store.put_own_key((bytes(16), 1, 144, 0))
    with pytest.raises(ValueError):
        store.count_own_keys(since=1 << 40)


# ---- key file cache ------------------------------------------------------

SAMPLE_DIR = REPO / "Tests/data/exports/google-sample"


@pytest.fixture(scope="module")
def sample():
    return (SAMPLE_DIR / "sample_diagnosis_key_file.zip").read_bytes()


@pytest.fixture
def trust():
    with encore.TrustList() as t:
        t.add_key("310", "v1", (SAMPLE_DIR / "public_310-v1.pem").read_bytes())
        yield t


def test_packages(store, sample, trust):
    assert store.import_keyfile("DE", "2020-06-01", sample, trust, etag='"v1"', now=1_591_000_000) > 0
    assert store.has_keyfile("DE", "2020-06-01")
    assert store.has_keyfile("DE", "2020-06-01", etag='"v1"')
    assert not store.has_keyfile("DE", "2020-06-01", etag='"v2"')
    assert not store.has_keyfile("AT", "2020-06-01")
    assert store.get_keyfile("DE", "2020-06-01") == sample
    info = store.keyfile_info("DE", "2020-06-01")
    assert info == encore.CachedKeyFileInfo(region="DE", identifier="2020-06-01", etag='"v1"',
                                      sha256=hashlib.sha256(sample).digest(), size=len(sample),
                                      downloaded=1_591_000_000)
    # Re-published: replaced.
    store.import_keyfile("DE", "2020-06-01", sample, trust, etag='"v2"', now=1_591_100_000)
    assert store.keyfile_info("DE", "2020-06-01").etag == '"v2"'
    # No ETag; now defaults to the current time; an empty ETag is one.
    store.import_keyfile("DE", "2020-06-01/hour/13", sample, trust)
    info = store.keyfile_info("DE", "2020-06-01/hour/13")
    assert info.etag is None and info.downloaded > 1_700_000_000
    store.import_keyfile("DE", "2020-06-01/hour/14", sample, trust, etag="")
    assert store.keyfile_info("DE", "2020-06-01/hour/14").etag == ""
    # A day replaces the cached hours of that day.
    store.import_keyfile("DE", "2020-06-01", sample, trust)
    assert store.keyfiles("DE") == ["2020-06-01"]


def test_nothing_unverified_is_kept(store, sample, trust):
    damaged = bytearray(sample)
    damaged[len(damaged) // 2] ^= 0x40
    with pytest.raises(encore.EncoreError):
        store.import_keyfile("DE", "2020-06-01", bytes(damaged), trust)
    with encore.TrustList() as nobody, pytest.raises(encore.SignatureUntrustedError):
        store.import_keyfile("DE", "2020-06-01", sample, nobody)
    with pytest.raises(encore.ZipTruncatedError):
        store.import_keyfile("DE", "2020-06-01", b"PK\x03\x04 but no zip", trust)
    assert store.keyfiles("DE") == []
    assert not hasattr(store, "put_package") and not hasattr(store, "add_risk_result")


def test_listing_missing_and_removing(store, sample, trust):
    for ident in ["2020-06-02", "2020-06-01", "2020-06-01/hour/9"]:
        store.import_keyfile("DE", ident, sample, trust, now=1)
    store.import_keyfile("EUR", "2020-06-03", sample, trust, now=1)
    assert store.keyfiles("DE") == ["2020-06-01", "2020-06-01/hour/9", "2020-06-02"]
    assert store.keyfiles("FR") == []
    available = ["2020-06-04", "2020-06-01", "2020-06-03", "2020-06-04", "2020-06-02"]
    assert store.missing_keyfiles("DE", available) == ["2020-06-04", "2020-06-03"]
    assert store.missing_keyfiles("DE", iter(available)) == ["2020-06-04", "2020-06-03"]
    assert store.missing_keyfiles("EUR", []) == []
    assert store.remove_keyfile("DE", "2020-06-02") is True
    assert store.remove_keyfile("DE", "2020-06-02") is False
    with pytest.raises(encore.NotFoundError) as caught:
        store.get_keyfile("DE", "2020-06-02")
    assert "2020-06-02" in caught.value.message
    with pytest.raises(encore.NotFoundError):
        store.keyfile_info("DE", "2020-06-02")
    assert store.purge(now=2_000_000_000).keyfiles == 3


@pytest.mark.parametrize("call", [
    lambda s, z, t: s.import_keyfile("", "2020-06-01", z, t),
    lambda s, z, t: s.import_keyfile("DE", "", z, t),
    lambda s, z, t: s.import_keyfile("DE", "x" * 1025, z, t),
    lambda s, z, t: s.import_keyfile("DE", "2020-06-01", z, t, now=-1),
    lambda s, z, t: s.import_keyfile(b"D\xff", "2020-06-01", z, t),
    lambda s, z, t: s.import_keyfile("DP3T", "2020-06-01", z, t),
    lambda s, z, t: s.import_keyfile("TWP-DE", "2020-06-01", z, t),
    lambda s, z, t: s.has_keyfile("DE", ""),
    lambda s, z, t: s.missing_keyfiles("DE", ["ok", ""]),
    lambda s, z, t: s.keyfiles(""),
])
def test_bad_package_arguments(store, sample, trust, call):
    with pytest.raises(encore.InvalidArgumentError):
        call(store, sample, trust)


def test_package_arguments_checked_in_python(store, sample, trust):
    with pytest.raises(ValueError):
        store.import_keyfile("DE", "a\0b", sample, trust)
    with pytest.raises(TypeError):
        store.import_keyfile("DE", "2020-06-01", "text is not bytes", trust)
    with pytest.raises(TypeError):
        store.missing_keyfiles("DE", "2020-06-01")


# ---- tracing history --------------------------------------------------------

def test_tracing_history(store):
    assert store.active_tracing_seconds(0, 1000) == 0
    for t, active in [(100, True), (200, False), (300, True), (350, True), (400, False), (500, True)]:
        store.add_tracing_event(t, active)
    assert store.active_tracing_seconds(0, 1000) == 100 + 100 + 500
    assert store.active_tracing_seconds(150, 1000) == 50 + 100 + 500
    assert store.active_tracing_seconds(600, 700) == 100
    assert store.active_tracing_seconds(5, 5) == 0
    assert store.count_tracing_events() == 6 and store.count_tracing_events(300, 400) == 2
    assert store.tracing_events(300, 450) == [encore.TracingEvent(300, True), encore.TracingEvent(350, True),
                                              encore.TracingEvent(400, False)]
    with pytest.raises(encore.InvalidArgumentError):
        store.active_tracing_seconds(10, 5)
    with pytest.raises(encore.InvalidArgumentError):
        store.add_tracing_event(-1, True)
    with pytest.raises(TypeError):
        store.add_tracing_event(1, 1)
    assert store.count_tracing_events() == 6


# ---- risk results -----------------------------------------------------------

def check(store, now):
    """Risk results are what the exposure check stores: no other way in."""
    return exposure_check(store, [], now=now).stored_result_id


def test_risk_results(store):
    assert store.last_risk_result() is None
    a, b = check(store, 1000), check(store, 2000)
    assert b > a
    last = store.last_risk_result()
    assert (last.id, last.time) == (b, 2000) and json.loads(last.document)["status"]
    assert check(store, 500) is None  # the clock went back: nothing stored
    c = check(store, 2000)
    assert store.last_risk_result().id == c
    assert store.risk_result(a).time == 1000
    with pytest.raises(encore.NotFoundError):
        store.risk_result(10_000)
    assert [r.id for r in store.risk_results()] == [a, b, c]
    assert [r.id for r in store.risk_results(1500, 3000)] == [b, c]
    assert store.count_risk_results() == 3 and store.count_risk_results(end=1000) == 0


def test_the_librarys_settings_are_its_own(store):
    encore.Push(store).set_state(isolated=True, now=1000)
    for name in ["sync.config", "push.isolated", "encore.x"]:
        with pytest.raises(encore.InvalidArgumentError, match="the library's own"):
            store.set_setting(name, "{}")
        with pytest.raises(encore.InvalidArgumentError):
            store.get_setting(name)
    assert encore.Push(store).status.isolated is True
    assert store.settings() == []


# ---- settings ---------------------------------------------------------------

def test_settings_round_trip(store):
    values = {"int": -(1 << 63), "float": 0.125, "inf": math.inf, "text": "grüß", "empty": "",
              "blob": b"\x00\x01\xff", "empty blob": b""}
    for name, value in values.items():
        store.set_setting(name, value)
    for name, value in values.items():
        got = store.get_setting(name)
        assert got == value and type(got) is type(value)
    assert {n: store.setting_type(n) for n in values} == {
        "int": "integer", "float": "double", "inf": "double", "text": "text", "empty": "text",
        "blob": "blob", "empty blob": "blob"}
    assert store.settings() == sorted(values)
    store.set_setting("int", "now text")  # replaces value and type
    assert store.get_text("int") == "now text"
    assert store.delete_setting("int") is True
    assert store.delete_setting("int") is False
    assert store.setting_type("int") is None
    assert store.get_setting("int", None) is None
    assert store.get_setting("int", 7) == 7


def test_setting_errors(store):
    store.set_setting("n", 5)
    store.set_setting("t", "x")
    with pytest.raises(encore.InvalidArgumentError) as caught:
        store.get_text("n")
    assert "integer" in caught.value.message
    with pytest.raises(encore.InvalidArgumentError) as caught:
        store.get_int("t")
    assert "text" in caught.value.message
    with pytest.raises(encore.InvalidArgumentError):
        store.get_float("n")
    with pytest.raises(encore.InvalidArgumentError):
        store.get_bytes("t")
    for getter in (store.get_int, store.get_float, store.get_text, store.get_bytes, store.get_setting):
        with pytest.raises(encore.NotFoundError):
            getter("missing")
    with pytest.raises(ValueError):
        store.set_setting("d", math.nan)
    with pytest.raises(TypeError):
        store.set_setting("b", True)
    with pytest.raises(TypeError):
        store.set_setting("l", [1])
    with pytest.raises(ValueError):
        store.set_setting("big", 1 << 63)
    with pytest.raises(encore.InvalidArgumentError):
        store.set_setting("", 1)
    with pytest.raises(ValueError):
        store.set_setting("a\0b", 1)
    assert store.settings() == ["n", "t"]


def test_tables_from_several_threads(store, sample, trust):
    def work(t):
        for i in range(20):
            store.import_keyfile(f"R{t}", f"2030-01-{i + 1:02}", sample, trust, now=1)
            assert store.get_keyfile(f"R{t}", f"2030-01-{i + 1:02}") == sample
            store.add_tracing_event(t * 100 + i, i % 2 == 0)
            if i % 4 == 0:  # one time for all: an earlier one than another's stores nothing
                check(store, 10_000)
            store.set_setting(f"k{t}", i)
            store.put_own_key(encore.OwnKey(key_data=bytes([t, i]) * 8, rolling_start_interval_number=i))
            store.active_tracing_seconds(0, 10_000)

    assert run_in_threads(work, 5) == []
    assert store.count_tracing_events() == 100 and store.count_risk_results() == 25
    assert store.count_own_keys() == 100
    assert all(len(store.keyfiles(f"R{t}")) == 20 and store.get_int(f"k{t}") == 19 for t in range(5))
