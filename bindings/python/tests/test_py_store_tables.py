"""encore.Store tables: own keys, key file cache, tracing history, risk
results and settings, with the library-owned bytes and string lists."""
import hashlib
import json
import math

import pytest

import encore
from encore_testdata import REPO, TestClock, run_in_threads

RAW = bytes(range(100, 132))


@pytest.fixture
def store(tmp_path):
    with encore.Store.open(tmp_path / "tables.db", raw_key=RAW) as s:
        yield s


@pytest.fixture
def clock():
    return TestClock(1_591_000_000)


def key(i, start, period=144, created=1_600_000_000):
    return encore.OwnKey(key_data=bytes([i]) * 16, rolling_start_interval_number=start, rolling_period=period,
                         created=created)


# ---- own keys ---------------------------------------------------------------

def test_own_keys(client):
    assert client.own_keys.latest() is None
    assert client.own_keys.list() == [] and client.own_keys.count() == 0
    client.own_keys.put(key(1, 2_650_288))
    client.own_keys.put(key(2, 2_650_000))
    client.own_keys.put(key(3, 2_650_144, period=100))
    assert [k.rolling_start_interval_number for k in client.own_keys.list()] == [2_650_000, 2_650_144, 2_650_288]
    assert client.own_keys.list(since=2_650_100) == [key(3, 2_650_144, period=100), key(1, 2_650_288)]
    assert client.own_keys.count(since=2_650_200) == 1
    assert client.own_keys.latest() == key(1, 2_650_288)
    client.own_keys.put(key(2, 2_650_432, period=7, created=5))  # same key bytes: replaced
    assert client.own_keys.count() == 3
    assert client.own_keys.latest() == key(2, 2_650_432, period=7, created=5)


def test_many_own_keys_come_back_in_chunks(client):
    for i in range(300):
        client.own_keys.put(encore.OwnKey(key_data=i.to_bytes(16, "big"), rolling_start_interval_number=i))
    back = client.own_keys.list()
    assert len(back) == 300 and [k.rolling_start_interval_number for k in back] == list(range(300))


@pytest.mark.parametrize("bad", [key(1, -1), key(1, 0, period=0), key(1, 0, period=145), key(1, 0, created=-1)])
def test_bad_own_keys(client, bad):
    with pytest.raises(encore.InvalidArgumentError):
        client.own_keys.put(bad)
    assert client.own_keys.count() == 0


def test_own_key_values_are_checked_before_c(client):
    with pytest.raises(ValueError):
        client.own_keys.put(encore.OwnKey(key_data=b"short", rolling_start_interval_number=1))
    with pytest.raises(ValueError):
        client.own_keys.put(key(1, 1 << 31))
    with pytest.raises(TypeError):
        client.own_keys.put((bytes(16), 1, 144, 0))
    with pytest.raises(ValueError):
        client.own_keys.count(since=1 << 40)


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


def test_packages(client, clock, sample, trust):
    assert client.keyfiles.add("DE", "2020-06-01", sample, trust, etag='"v1"') > 0
    assert client.keyfiles.has("DE", "2020-06-01")
    assert client.keyfiles.has("DE", "2020-06-01", etag='"v1"')
    assert not client.keyfiles.has("DE", "2020-06-01", etag='"v2"')
    assert not client.keyfiles.has("AT", "2020-06-01")
    assert client.keyfiles.get("DE", "2020-06-01") == sample
    info = client.keyfiles.info("DE", "2020-06-01")
    assert info == encore.CachedKeyFileInfo(region="DE", identifier="2020-06-01", etag='"v1"',
                                      sha256=hashlib.sha256(sample).digest(), size=len(sample),
                                      downloaded=1_591_000_000)
    # Re-published: replaced.
    clock.set(1_591_100_000)
    client.keyfiles.add("DE", "2020-06-01", sample, trust, etag='"v2"')
    assert client.keyfiles.info("DE", "2020-06-01").etag == '"v2"'
    # No ETag; downloaded is the client's time when it was added; an empty ETag is one.
    clock.set(1_750_000_000)
    client.keyfiles.add("DE", "2020-06-01/hour/13", sample, trust)
    info = client.keyfiles.info("DE", "2020-06-01/hour/13")
    assert info.etag is None and info.downloaded == 1_750_000_000
    client.keyfiles.add("DE", "2020-06-01/hour/14", sample, trust, etag="")
    assert client.keyfiles.info("DE", "2020-06-01/hour/14").etag == ""
    # A day replaces the cached hours of that day.
    client.keyfiles.add("DE", "2020-06-01", sample, trust)
    assert client.keyfiles.list("DE") == ["2020-06-01"]


def test_nothing_unverified_is_kept(store, client, sample, trust):
    damaged = bytearray(sample)
    damaged[len(damaged) // 2] ^= 0x40
    with pytest.raises(encore.EncoreError):
        client.keyfiles.add("DE", "2020-06-01", bytes(damaged), trust)
    with encore.TrustList() as nobody, pytest.raises(encore.SignatureUntrustedError):
        client.keyfiles.add("DE", "2020-06-01", sample, nobody)
    with pytest.raises(encore.ZipTruncatedError):
        client.keyfiles.add("DE", "2020-06-01", b"PK\x03\x04 but no zip", trust)
    assert client.keyfiles.list("DE") == []
    assert not hasattr(store, "put_package") and not hasattr(store, "add_risk_result")


def test_listing_missing_and_removing(store, client, clock, sample, trust):
    clock.set(1)
    for ident in ["2020-06-02", "2020-06-01", "2020-06-01/hour/9"]:
        client.keyfiles.add("DE", ident, sample, trust)
    client.keyfiles.add("EUR", "2020-06-03", sample, trust)
    assert client.keyfiles.list("DE") == ["2020-06-01", "2020-06-01/hour/9", "2020-06-02"]
    assert client.keyfiles.list("FR") == []
    available = ["2020-06-04", "2020-06-01", "2020-06-03", "2020-06-04", "2020-06-02"]
    assert client.keyfiles.missing("DE", available) == ["2020-06-04", "2020-06-03"]
    assert client.keyfiles.missing("DE", iter(available)) == ["2020-06-04", "2020-06-03"]
    assert client.keyfiles.missing("EUR", []) == []
    assert client.keyfiles.remove("DE", "2020-06-02") is True
    assert client.keyfiles.remove("DE", "2020-06-02") is False
    with pytest.raises(encore.NotFoundError) as caught:
        client.keyfiles.get("DE", "2020-06-02")
    assert "2020-06-02" in caught.value.message
    with pytest.raises(encore.NotFoundError):
        client.keyfiles.info("DE", "2020-06-02")
    assert store.purge(now=2_000_000_000).keyfiles == 3


@pytest.mark.parametrize("call", [
    lambda c, clock, z, t: c.keyfiles.add("", "2020-06-01", z, t),
    lambda c, clock, z, t: c.keyfiles.add("DE", "", z, t),
    lambda c, clock, z, t: c.keyfiles.add("DE", "x" * 1025, z, t),
    lambda c, clock, z, t: (clock.set(-1), c.keyfiles.add("DE", "2020-06-01", z, t)),
    lambda c, clock, z, t: c.keyfiles.add(b"D\xff", "2020-06-01", z, t),
    lambda c, clock, z, t: c.keyfiles.add("DP3T", "2020-06-01", z, t),
    lambda c, clock, z, t: c.keyfiles.add("TWP-DE", "2020-06-01", z, t),
    lambda c, clock, z, t: c.keyfiles.has("DE", ""),
    lambda c, clock, z, t: c.keyfiles.missing("DE", ["ok", ""]),
    lambda c, clock, z, t: c.keyfiles.list(""),
])
def test_bad_package_arguments(client, clock, sample, trust, call):
    with pytest.raises(encore.InvalidArgumentError):
        call(client, clock, sample, trust)


def test_package_arguments_checked_in_python(client, sample, trust):
    with pytest.raises(ValueError):
        client.keyfiles.add("DE", "a\0b", sample, trust)
    with pytest.raises(TypeError):
        client.keyfiles.add("DE", "2020-06-01", "text is not bytes", trust)
    with pytest.raises(TypeError):
        client.keyfiles.missing("DE", "2020-06-01")


# ---- tracing history --------------------------------------------------------

def test_tracing_history(client):
    assert client.tracing_history.active_seconds(0, 1000) == 0
    for t, active in [(100, True), (200, False), (300, True), (350, True), (400, False), (500, True)]:
        client.tracing_history.add(t, active)
    assert client.tracing_history.active_seconds(0, 1000) == 100 + 100 + 500
    assert client.tracing_history.active_seconds(150, 1000) == 50 + 100 + 500
    assert client.tracing_history.active_seconds(600, 700) == 100
    assert client.tracing_history.active_seconds(5, 5) == 0
    assert client.tracing_history.count() == 6 and client.tracing_history.count(300, 400) == 2
    assert client.tracing_history.list(300, 450) == [encore.TracingEvent(300, True), encore.TracingEvent(350, True),
                                              encore.TracingEvent(400, False)]
    with pytest.raises(encore.InvalidArgumentError):
        client.tracing_history.active_seconds(10, 5)
    with pytest.raises(encore.InvalidArgumentError):
        client.tracing_history.add(-1, True)
    with pytest.raises(TypeError):
        client.tracing_history.add(1, 1)
    assert client.tracing_history.count() == 6


# ---- risk results -----------------------------------------------------------

def check(client, clock, now):
    """Risk results are what the exposure check stores: no other way in."""
    clock.set(now)
    return client.exposure_check([]).stored_result_id


def test_risk_results(client, clock):
    assert client.risk_results.last() is None
    a, b = check(client, clock, 1000), check(client, clock, 2000)
    assert b > a
    last = client.risk_results.last()
    assert (last.id, last.time) == (b, 2000) and json.loads(last.document)["status"]
    assert check(client, clock, 500) is None  # the clock went back: nothing stored
    c = check(client, clock, 2000)
    assert client.risk_results.last().id == c
    assert client.risk_results.get(a).time == 1000
    with pytest.raises(encore.NotFoundError):
        client.risk_results.get(10_000)
    assert [r.id for r in client.risk_results.list()] == [a, b, c]
    assert [r.id for r in client.risk_results.list(1500, 3000)] == [b, c]
    assert client.risk_results.count() == 3 and client.risk_results.count(end=1000) == 0


def test_the_librarys_settings_are_its_own(store, client, clock):
    clock.set(1000)
    client.push.set_state(isolated=True)
    for name in ["sync.config", "push.isolated", "encore.x"]:
        with pytest.raises(encore.InvalidArgumentError, match="the library's own"):
            store.set_setting(name, "{}")
        with pytest.raises(encore.InvalidArgumentError):
            store.get_setting(name)
    assert client.push.status.isolated is True
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
    # One client for all threads, its clock at one time for all: a check at
    # an earlier time than another's would store nothing.
    client = encore.Client(store, clock=10_000)

    def work(t):
        for i in range(20):
            client.keyfiles.add(f"R{t}", f"2030-01-{i + 1:02}", sample, trust)
            assert client.keyfiles.get(f"R{t}", f"2030-01-{i + 1:02}") == sample
            client.tracing_history.add(t * 100 + i, i % 2 == 0)
            if i % 4 == 0:
                assert client.exposure_check([]).stored_result_id is not None
            store.set_setting(f"k{t}", i)
            client.own_keys.put(encore.OwnKey(key_data=bytes([t, i]) * 8, rolling_start_interval_number=i))
            client.tracing_history.active_seconds(0, 10_000)

    assert run_in_threads(work, 5) == []
    assert client.tracing_history.count() == 100 and client.risk_results.count() == 25
    assert client.own_keys.count() == 100
    assert all(len(client.keyfiles.list(f"R{t}")) == 20 and store.get_int(f"k{t}") == 19 for t in range(5))
