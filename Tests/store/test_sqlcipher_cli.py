"""The sqlcipher command-line tool (Debian package `sqlcipher`, the same
SQLCipher 3.4 the library links) opens stores written by encore: with the
passphrase (PRAGMA key = '...'), with the raw key (PRAGMA key = "x'HEX'"),
and the page size (PRAGMA cipher_page_size = 4096, SQLCipher 3 defaults to
1024), while encore still has the store open, and it can write to one that
encore then reads. A wrong passphrase is refused by the tool too. A store
of an earlier encore (1 KiB pages) still opens in both, and keeps its page
size."""
import ctypes
import shutil
from pathlib import Path
import subprocess

import pytest

import storelib

RAW_KEY = bytes(range(0x40, 0x60))
PASSPHRASE = "it's a \"store\" passphrase"
T0 = 1_650_000_000
ROWS = 1234


def rows():
    return [(T0 + i, bytes([i & 0xFF, i >> 8]) * 8, bytes([1, 2, 3, i & 0xFF]), -(i % 90), T0 - 1 if i % 3 == 0 else None)
            for i in range(ROWS)]


@pytest.fixture(scope="module")
def sqlcipher():
    path = shutil.which("sqlcipher")
    if path is None:
        pytest.fail("the sqlcipher command-line tool is missing: install the Debian package `sqlcipher` "
                    "(apt-get install sqlcipher); scripts/deps.sh does not install it", pytrace=False)
    return path


PAGES = "PRAGMA cipher_page_size = 4096"
# Made by encore before stores got 4 KiB pages: the raw key ab..ab, two
# sightings (and a CWA check-in added since).
LEGACY = Path(__file__).resolve().parents[1] / "data" / "store" / "legacy-1024.db"
LEGACY_KEY = bytes([0xAB]) * 32


def sql_string(text):
    return "'" + text.replace("'", "''") + "'"


def run(tool, db, *statements, check=True):
    script = "".join(s.rstrip(";") + ";\n" for s in statements)
    done = subprocess.run([tool, "-batch", str(db)], input=script, capture_output=True, text=True, timeout=120)
    if check:
        assert done.returncode == 0 and done.stderr == "", f"sqlcipher failed ({done.returncode}): {done.stderr}"
    return done


def make_store(path, key):
    store = storelib.open_store(path, key)
    assert storelib.add(store, rows()) == ROWS
    return store


def test_passphrase(sqlcipher, tmp_path):
    db = tmp_path / "pass.db"
    store = make_store(db, storelib.make_key(PASSPHRASE.encode()))
    version = ctypes.c_uint32()
    storelib.check("schema_version", storelib.lib.encore_store_get_schema_version(store, ctypes.byref(version)))
    storelib.close(store)
    out = run(sqlcipher, db, f"PRAGMA key = {sql_string(PASSPHRASE)}", PAGES, "SELECT count(*) FROM sightings",
              "PRAGMA user_version", "PRAGMA journal_mode", "PRAGMA integrity_check",
              "SELECT time, hex(rpi), hex(aem), rssi, ifnull(prev_scan, 'none') FROM sightings ORDER BY time LIMIT 4")
    lines = out.stdout.splitlines()
    assert lines[:4] == [str(ROWS), str(version.value), "wal", "ok"], lines
    expected = [f"{t}|{r.hex().upper()}|{a.hex().upper()}|{s}|{'none' if p is None else p}" for t, r, a, s, p in rows()[:4]]
    assert lines[4:] == expected


def test_raw_key(sqlcipher, tmp_path):
    db = tmp_path / "raw.db"
    storelib.close(make_store(db, storelib.make_key(RAW_KEY, raw=True)))
    out = run(sqlcipher, db, f"PRAGMA key = \"x'{RAW_KEY.hex().upper()}'\"", PAGES, "SELECT count(*) FROM sightings")
    assert out.stdout.split() == [str(ROWS)]
    out = run(sqlcipher, db, f"PRAGMA key = \"x'{RAW_KEY.hex()}'\"", PAGES, "SELECT count(*) FROM sightings")
    assert out.stdout.split() == [str(ROWS)]


def test_wrong_passphrase_is_refused_by_the_tool(sqlcipher, tmp_path):
    db = tmp_path / "pass.db"
    storelib.close(make_store(db, storelib.make_key(PASSPHRASE.encode())))
    out = run(sqlcipher, db, "PRAGMA key = 'not it'", PAGES, "SELECT count(*) FROM sightings", check=False)
    assert out.returncode != 0 and "file is encrypted or is not a database" in out.stderr


def test_tool_reads_while_encore_has_it_open(sqlcipher, tmp_path):
    db = tmp_path / "open.db"
    store = make_store(db, storelib.make_key(RAW_KEY, raw=True))
    try:
        assert (tmp_path / "open.db-wal").stat().st_size > 0  # the rows are in the WAL
        out = run(sqlcipher, db, f"PRAGMA key = \"x'{RAW_KEY.hex()}'\"", PAGES, "SELECT count(*) FROM sightings")
        assert out.stdout.split() == [str(ROWS)]
        storelib.add(store, [(T0 + 10 ** 6, b"\x77" * 16, b"wxyz", -1, None)])
        out = run(sqlcipher, db, f"PRAGMA key = \"x'{RAW_KEY.hex()}'\"", PAGES, "SELECT count(*) FROM sightings")
        assert out.stdout.split() == [str(ROWS + 1)]
    finally:
        storelib.close(store)


def test_encore_reads_what_the_tool_wrote(sqlcipher, tmp_path):
    db = tmp_path / "tool.db"
    storelib.close(make_store(db, storelib.make_key(PASSPHRASE.encode())))
    run(sqlcipher, db, f"PRAGMA key = {sql_string(PASSPHRASE)}", PAGES,
        f"INSERT INTO sightings (time, rpi, aem, rssi, prev_scan) VALUES ({T0 + 5 * 10 ** 6}, zeroblob(16), x'01020304', -9, NULL)")
    store = storelib.open_store(db, storelib.make_key(PASSPHRASE.encode()), storelib.make_options(create=False))
    try:
        assert storelib.count(store) == ROWS + 1
        assert storelib.copy_all(store, T0 + 5 * 10 ** 6) == [(T0 + 5 * 10 ** 6, bytes(16), b"\1\2\3\4", -9, None)]
        assert storelib.integrity_status(store) == storelib.OK
    finally:
        storelib.close(store)


def test_new_stores_have_4_kib_pages(sqlcipher, tmp_path):
    db = tmp_path / "pages.db"
    storelib.close(make_store(db, storelib.make_key(RAW_KEY, raw=True)))
    out = run(sqlcipher, db, f"PRAGMA key = \"x'{RAW_KEY.hex()}'\"", PAGES, "PRAGMA page_size")
    assert out.stdout.split() == ["4096"]
    # With SQLCipher 3's default page size the right key does not read it.
    out = run(sqlcipher, db, f"PRAGMA key = \"x'{RAW_KEY.hex()}'\"", "SELECT count(*) FROM sightings", check=False)
    assert out.returncode != 0 and "file is encrypted or is not a database" in out.stderr


def test_a_store_of_an_earlier_encore_opens_and_keeps_its_pages(sqlcipher, tmp_path):
    db = tmp_path / "legacy.db"
    db.write_bytes(LEGACY.read_bytes())
    key = f"PRAGMA key = \"x'{LEGACY_KEY.hex()}'\""
    # Its table has the name of its time (sightings were "observations" then).
    assert run(sqlcipher, db, key, "PRAGMA page_size", "SELECT count(*) FROM observations").stdout.split() == ["1024", "2"]
    # A wrong key is still told as such (not as a page size it did not fit).
    status, _ = storelib.open_status(db, storelib.make_key(bytes(32), raw=True))
    assert status == storelib.ffi.ENCORE_ERR_STORE_WRONG_KEY
    store = storelib.open_store(db, storelib.make_key(LEGACY_KEY, raw=True), storelib.make_options(create=False))
    try:
        assert storelib.count(store) == 2
        assert storelib.add(store, rows()[:10]) == 10
        assert storelib.integrity_status(store) == storelib.OK
    finally:
        storelib.close(store)
    assert run(sqlcipher, db, key, "PRAGMA page_size", "SELECT count(*) FROM sightings").stdout.split() == ["1024", "12"]
    # Renamed in place when encore opened it; the old name is gone.
    names = run(sqlcipher, db, key, "SELECT group_concat(name) FROM sqlite_master WHERE name LIKE 'observations%' OR name LIKE 'key_packages%'")
    assert names.stdout.strip() == ""
    assert db.stat().st_size % 1024 == 0
