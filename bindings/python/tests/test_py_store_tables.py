"""encore.Store tables: own keys, key package cache, tracing history, risk
results and settings, with the library-owned bytes and string lists."""
import hashlib
import math
import threading

import pytest

import encore

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


# ---- key package cache ------------------------------------------------------

def test_packages(store):
    content = b"PK\x03\x04" + bytes(range(256)) * 400
    store.put_package("DE", "2020-06-01", content, etag='"v1"', downloaded=1_591_000_000)
    assert store.has_package("DE", "2020-06-01")
    assert store.has_package("DE", "2020-06-01", etag='"v1"')
    assert not store.has_package("DE", "2020-06-01", etag='"v2"')
    assert not store.has_package("AT", "2020-06-01")
    assert store.get_package("DE", "2020-06-01") == content
    info = store.package_info("DE", "2020-06-01")
    assert info == encore.PackageInfo(region="DE", identifier="2020-06-01", etag='"v1"',
                                      sha256=hashlib.sha256(content).digest(), size=len(content),
                                      downloaded=1_591_000_000)
    # Re-published: replaced.
    store.put_package("DE", "2020-06-01", b"new", etag='"v2"', downloaded=1_591_100_000)
    assert store.get_package("DE", "2020-06-01") == b"new"
    assert store.package_info("DE", "2020-06-01").etag == '"v2"'
    # No ETag, empty content, downloaded defaults to now.
    store.put_package("DE", "2020-06-01/hour/13", b"")
    info = store.package_info("DE", "2020-06-01/hour/13")
    assert info.etag is None and info.size == 0 and info.sha256 == hashlib.sha256(b"").digest()
    assert info.downloaded > 1_700_000_000
    assert store.get_package("DE", "2020-06-01/hour/13") == b""
    store.put_package("DE", "2020-06-01/hour/14", b"x", etag="")
    assert store.package_info("DE", "2020-06-01/hour/14").etag == ""


def test_listing_missing_and_removing(store):
    for ident in ["2020-06-02", "2020-06-01", "2020-06-01/hour/9"]:
        store.put_package("DE", ident, ident.encode(), downloaded=1)
    store.put_package("EUR", "2020-06-03", b"e", downloaded=1)
    assert store.packages("DE") == ["2020-06-01", "2020-06-01/hour/9", "2020-06-02"]
    assert store.packages("FR") == []
    available = ["2020-06-04", "2020-06-01", "2020-06-03", "2020-06-04", "2020-06-02"]
    assert store.missing_packages("DE", available) == ["2020-06-04", "2020-06-03"]
    assert store.missing_packages("DE", iter(available)) == ["2020-06-04", "2020-06-03"]
    assert store.missing_packages("EUR", []) == []
    assert store.remove_package("DE", "2020-06-02") is True
    assert store.remove_package("DE", "2020-06-02") is False
    with pytest.raises(encore.NotFoundError) as caught:
        store.get_package("DE", "2020-06-02")
    assert "2020-06-02" in caught.value.message
    with pytest.raises(encore.NotFoundError):
        store.package_info("DE", "2020-06-02")
    assert store.purge(now=2_000_000_000).key_packages == 3


@pytest.mark.parametrize("call", [
    lambda s: s.put_package("", "x", b"1"),
    lambda s: s.put_package("DE", "", b"1"),
    lambda s: s.put_package("DE", "x" * 1025, b"1"),
    lambda s: s.put_package("DE", "x", b"1", downloaded=-1),
    lambda s: s.put_package(b"D\xff", "x", b"1"),
    lambda s: s.has_package("DE", ""),
    lambda s: s.missing_packages("DE", ["ok", ""]),
    lambda s: s.packages(""),
])
def test_bad_package_arguments(store, call):
    with pytest.raises(encore.InvalidArgumentError):
        call(store)


def test_package_arguments_checked_in_python(store):
    with pytest.raises(ValueError):
        store.put_package("DE", "a\0b", b"1")
    with pytest.raises(TypeError):
        store.put_package("DE", "x", "text is not bytes")
    with pytest.raises(TypeError):
        store.missing_packages("DE", "2020-06-01")


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

def test_risk_results(store):
    assert store.last_risk_result() is None
    a = store.add_risk_result(2000, 1, '{"level": "low"}')
    b = store.add_risk_result(1000, 2, "älter ✓")
    assert b > a
    assert store.last_risk_result() == encore.RiskResult(id=a, time=2000, level=1, document='{"level": "low"}')
    c = store.add_risk_result(2000, -3, "")
    assert store.last_risk_result().id == c
    assert store.risk_result(b).document == "älter ✓"
    with pytest.raises(encore.NotFoundError):
        store.risk_result(10_000)
    assert [r.id for r in store.risk_results()] == [b, a, c]
    assert [r.level for r in store.risk_results(1500, 3000)] == [1, -3]
    assert store.count_risk_results() == 3 and store.count_risk_results(end=1000) == 0
    with pytest.raises(encore.InvalidArgumentError):
        store.add_risk_result(-1, 0, "{}")
    with pytest.raises(ValueError):
        store.add_risk_result(1, 0, "a\0b")
    with pytest.raises(ValueError):
        store.add_risk_result(1, 1 << 31, "{}")
    with pytest.raises(TypeError):
        store.add_risk_result(1, 0, b"{}")
    assert store.count_risk_results() == 3


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


def test_tables_from_several_threads(store):
    errors = []

    def work(t):
        try:
            for i in range(20):
                store.put_package(f"R{t}", f"id-{i}", bytes([i]), downloaded=1)
                assert store.get_package(f"R{t}", f"id-{i}") == bytes([i])
                store.add_tracing_event(t * 100 + i, i % 2 == 0)
                store.add_risk_result(t * 100 + i, i, str(i))
                store.set_setting(f"k{t}", i)
                store.put_own_key(encore.OwnKey(key_data=bytes([t, i]) * 8, rolling_start_interval_number=i))
                store.active_tracing_seconds(0, 10_000)
        except Exception as e:  # noqa: BLE001 - reported below
            errors.append(e)

    threads = [threading.Thread(target=work, args=(t,)) for t in range(5)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert store.count_tracing_events() == 100 and store.count_risk_results() == 100
    assert store.count_own_keys() == 100
    assert all(len(store.packages(f"R{t}")) == 20 and store.get_int(f"k{t}") == 19 for t in range(5))
