"""encore.Store as a whole: opening, keys, errors, rekey, integrity, purge,
sightings, closing, and that the class wraps every store function."""
import ctypes
import threading
from pathlib import Path

import pytest

import encore
from encore.exposure import exposure_check
from encore import _ffi
from encore_testdata import TestClock, run_in_threads

RAW = bytes(range(32))


@pytest.fixture
def path(tmp_path):
    return tmp_path / "store.db"


@pytest.fixture
def store(path):
    # A raw key: no key derivation, so the tests stay fast.
    with encore.Store.open(path, raw_key=RAW) as s:
        yield s


@pytest.fixture
def clock():
    return TestClock(1_700_000_000)


def obs(i, time=None, prev=None):
    return encore.Sighting(time=1_600_000_000 + i if time is None else time, rpi=bytes([i % 256]) * 16,
                              aem=bytes([1, 2, 3, i % 256]), rssi=-40 - i % 60, prev_scan=prev)


def test_open_create_and_reopen(path, clock):
    with encore.Store.open(path, raw_key=RAW) as s:
        client = encore.Client(s, clock=clock)
        assert s.schema_version == 7   # the latest: the engine's format with a version per feature (7)
        assert client.sightings.add([obs(1), obs(2)]) == 2
        assert repr(s).startswith("<Store ") and str(path) in repr(s)
    assert s.closed and "closed" in repr(s)
    with pytest.raises(encore.StoreClosedError, match="closed"):
        client.sightings.count()
    client.close()
    with encore.Store.open(str(path), raw_key=bytearray(RAW), create=False, busy_timeout_ms=100) as s, \
            encore.Client(s, clock=clock) as client:
        assert client.sightings.count() == 2
        s.check_integrity()


def test_open_errors(path, tmp_path):
    with encore.Store.open(path, raw_key=RAW):
        pass
    with pytest.raises(encore.StoreWrongKeyError) as caught:
        encore.Store.open(path, raw_key=bytes(32))
    assert "wrong key" in caught.value.message
    with pytest.raises(encore.StoreMissingError):
        encore.Store.open(tmp_path / "missing.db", raw_key=RAW, create=False)
    assert not (tmp_path / "missing.db").exists()
    junk = tmp_path / "junk.db"
    junk.write_bytes(bytes(range(256)) * 4 + b"x")
    with pytest.raises(encore.StoreNotDatabaseError):
        encore.Store.open(junk, raw_key=RAW)
    with pytest.raises(encore.InvalidArgumentError):
        encore.Store.open(path, raw_key=b"short")
    with pytest.raises(encore.InvalidArgumentError):
        encore.Store.open(path, passphrase="")
    with pytest.raises(TypeError):
        encore.Store.open(path)
    with pytest.raises(TypeError):
        encore.Store.open(path, "pass", raw_key=RAW)
    with pytest.raises(ValueError):
        encore.Store.open(str(path) + "\0x", raw_key=RAW)
    with pytest.raises(encore.IoError):
        encore.Store.open(tmp_path / "no-such-dir" / "s.db", raw_key=RAW)


def test_passphrase_and_rekey(path):
    with encore.Store.open(path, "secret") as s:
        s.set_setting("x", 1)
        s.rekey(raw_key=RAW)
    with pytest.raises(encore.StoreWrongKeyError):
        encore.Store.open(path, "secret")
    with encore.Store.open(path, raw_key=RAW) as s:
        assert s.get_int("x") == 1
        with pytest.raises(TypeError):
            s.rekey()
        with pytest.raises(encore.InvalidArgumentError):
            s.rekey(raw_key=b"123")
        s.rekey(b"new secret")
    with encore.Store.open(path, "new secret") as s:
        assert s.get_setting("x") == 1


def test_sightings(client):
    rows = [obs(i) for i in range(600)] + [obs(5, prev=1_599_999_000)]
    assert client.sightings.add(rows) == 601
    assert client.sightings.add(rows[:10]) == 0  # identical sightings are kept once
    assert client.sightings.count() == 601
    assert client.sightings.count(1_600_000_010, 1_600_000_020) == 10
    back = list(client.sightings.list())  # more than one CHUNK
    assert len(back) == 601 and set(back) == set(rows)
    assert [o.time for o in client.sightings.list(start=1_600_000_598)] == [1_600_000_598, 1_600_000_599]
    assert list(client.sightings.list(end=1_600_000_000)) == []
    # All or nothing.
    with pytest.raises(encore.InvalidArgumentError):
        client.sightings.add([obs(1000), obs(1001, time=-5)])
    assert client.sightings.count() == 601
    with pytest.raises(ValueError):
        obs(1).__class__(time=1, rpi=b"short", aem=b"1234", rssi=0).to_c()
    with pytest.raises(ValueError):
        client.sightings.add([encore.Sighting(time=1, rpi=bytes(16), aem=bytes(4), rssi=200)])
    with pytest.raises(ValueError):
        client.sightings.count(start=1 << 63)
    # A sighting that folds a scan's reports keeps its typical RSSI beside the strongest (issue 46).
    folded = encore.Sighting(time=5, rpi=bytes([7]) * 16, aem=bytes(4), rssi=-50, typical_rssi=-58)
    assert client.sightings.add([folded]) == 1
    assert list(client.sightings.list(end=6)) == [folded]
    with pytest.raises(ValueError):
        encore.Sighting(time=1, rpi=bytes(16), aem=bytes(4), rssi=-50, typical_rssi=-200).to_c()


def test_purge(store, client, clock):
    now = 1_700_000_000
    client.sightings.add([obs(1, time=now - 20 * 86400), obs(2, time=now - 86400)])
    clock.set(now - 20 * 86400)
    client.exposure_check([])
    clock.advance(86400)
    kept = client.exposure_check([]).stored_result_id
    counts = store.purge(now=now)
    assert counts == encore.PurgeCounts(sightings=1, own_keys=0, keyfiles=0, tracing_events=0, risk_results=1)
    assert counts.total == 2
    assert client.risk_results.last().id == kept
    assert store.purge().sightings == 1  # now defaults to the current time
    with pytest.raises(encore.InvalidArgumentError):
        store.purge(now=now, max_age=-1)


def test_several_threads_share_a_store(store, client):
    def work(t):
        for i in range(30):
            client.sightings.add([obs(t * 1000 + i, time=1_600_000_000 + t * 1000 + i)])
            store.set_setting(f"t{t}", i)
            client.sightings.count()
    assert run_in_threads(work, 6) == []
    assert client.sightings.count() == 180
    assert all(store.get_int(f"t{t}") == 29 for t in range(6))


def test_close_while_another_thread_uses_the_store(path, clock):
    s = encore.Store.open(path, raw_key=RAW)
    client = encore.Client(s, clock=clock)
    client.sightings.add([obs(i) for i in range(2000)])
    seen = []

    def read():
        try:
            seen.append(sum(1 for _ in client.sightings.list()))
        except (ValueError, encore.StoreClosedError):  # closed between two chunks
            seen.append("closed")

    reader = threading.Thread(target=read)
    reader.start()
    s.close()
    reader.join()
    client.close()
    assert seen in ([2000], ["closed"])
    assert s.closed


def test_store_and_tables_wrap_every_function_of_theirs():
    """Store wraps the store's maintenance functions, encore.tables every
    function of the tables a client reaches."""
    for module, prefixes, at_least in (
            (encore.store, ("encore_store_", "encore_bytes_", "encore_string_list_"), 15),
            (encore.tables, ("encore_sighting_", "encore_own_key_", "encore_keyfile_cache_", "encore_tracing_event_",
                             "encore_risk_result_"), 20)):
        # encore_bytes is read through _cdata.take_bytes, which every module shares.
        source = Path(module.__file__).read_text() + Path(encore._cdata.__file__).read_text()
        names = [n for n in _ffi.FUNCTIONS if n.startswith(prefixes)]
        assert len(names) >= at_least
        missing = [n for n in names if f'"{n}"' not in source and f"lib.{n}" not in source]
        assert missing == []


def test_lists_read_in_pages_give_the_same_items(client):
    # The bindings read every list through the one copy idiom
    # (_cdata.copy_list); its page size does not change what comes out.
    from encore import _cdata
    rows = [obs(i) for i in range(37)]
    client.sightings.add(rows)
    whole = list(client.sightings.list())
    for chunk in (1, 5, 36, 37, 38):
        paged = list(_cdata.copy_list(lambda *page: client._c.call(encore._lib.encore_sighting_copy, -(1 << 63), (1 << 63) - 1, *page),
                                      _ffi.encore_sighting, encore.Sighting.from_c, chunk))
        assert paged == whole
    # An element size below the struct's is refused with a clear message.
    buffer = (_ffi.encore_sighting * 1)()
    copied = ctypes.c_size_t()
    with pytest.raises(encore.InvalidArgumentError, match="element_size"):
        client._c.call(encore._lib.encore_sighting_copy, 0, 1 << 40, 0, buffer, 8, 1, ctypes.byref(copied))


def test_string_lists_are_copied_whole(store, client):
    for i in range(3):
        store.set_setting(f"host.{i}", i)
    assert store.settings() == ["host.0", "host.1", "host.2"]
    assert client.keyfiles.missing("DE", ["a", "b", "a"]) == ["a", "b"]


def _flip_middle_pages(path):
    """Bytes flipped in the four pages in the middle of the file: at least
    one of them holds sightings (the others may be an index's)."""
    middle = path.stat().st_size // 4096 // 2 * 4096
    with open(path, "r+b") as f:
        for page in range(-2, 2):
            f.seek(middle + page * 4096 + 500)
            data = f.read(32)
            f.seek(middle + page * 4096 + 500)
            f.write(bytes(b ^ 0xFF for b in data))


def test_damage_check_and_salvage(tmp_path, clock):
    """A damaged page is StoreCorruptError (it was StoreNotDatabaseError
    with SQLite's findings); Store.salvage copies what
    can be read into a new store under a new key and says what was lost."""
    path = tmp_path / "damaged.db"
    with encore.Store.open(path, raw_key=RAW) as s, encore.Client(s, clock=clock) as client:
        client.sightings.add([obs(i, time=1_600_000_000 + i) for i in range(5000)])
    _flip_middle_pages(path)
    with encore.Store.open(path, raw_key=RAW) as s:
        with pytest.raises(encore.StoreCorruptError) as e:
            s.check_integrity()
        # (Which part is named depends on the page hit: Tests/c and Tests/cli check the table's name.)
        assert e.value.message.startswith("the store is damaged: ") and "SELECT" not in e.value.message
    other = bytes(range(1, 33))
    report = encore.Store.salvage(path, tmp_path / "new.db", raw_key=RAW, new_raw_key=other)
    sightings = next(t for t in report["tables"] if t["name"] == "sightings")
    assert not report["complete"] and 4000 <= sightings["copied"] < 5000
    with encore.Store.open(tmp_path / "new.db", raw_key=other, create=False) as s, encore.Client(s, clock=clock) as client:
        s.check_integrity()
        assert client.sightings.count() == sightings["copied"]
    with pytest.raises(encore.InvalidArgumentError):
        encore.Store.salvage(path, tmp_path / "new.db", raw_key=RAW)


def test_an_empty_file_is_not_made_a_store(tmp_path):
    path = tmp_path / "empty.db"
    path.write_bytes(b"")
    for create in (True, False):
        with pytest.raises(encore.StoreMissingError) as e:
            encore.Store.open(path, raw_key=RAW, create=create)
        assert "empty" in e.value.message
    assert path.read_bytes() == b""
