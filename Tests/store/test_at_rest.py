"""Nothing in plaintext at rest: known RPIs and AEMs written to a store do
not appear in its files (the database, -wal, -shm, -journal), neither as
bytes nor as hex text, while the store is open (data still in the WAL),
after it is closed, after a rekey, and after the writer was killed. Nor do
the raw key, the passphrase, SQLite's plaintext header or the schema text.

A positive control writes the same rows to a plain SQLite database with
Python's sqlite3 and finds them there with the same scanner, so a scan that
finds nothing means something.
"""
import ctypes
import os
import signal
import sqlite3
import struct
import subprocess
import sys
from pathlib import Path

import pytest

import storelib

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "store_child.py")
SUFFIXES = ("", "-wal", "-shm", "-journal")
ROWS = 300
RAW_KEY = bytes.fromhex("c0ffee00" * 8)
PASSPHRASE = b"Plaintext-Passphrase-Marker-7f3a"
T0 = 1_650_000_000


def rpi(i):
    return b"RPI!plaintext" + bytes([0xA5, i >> 8, i & 0xFF])


def aem(i):
    return bytes([0xAE, 0x4D, i >> 8, i & 0xFF])


def rows():
    return [(T0 + i, rpi(i), aem(i), -(40 + i % 50), T0 - 5 if i % 2 else None) for i in range(ROWS)]


def secrets():
    """Byte strings none of which may be found: name -> bytes."""
    found = {}
    for i in range(ROWS):
        for name, value in ((f"rpi {i}", rpi(i)), (f"rpi+aem {i}", rpi(i) + aem(i))):
            found[name] = value
        found[f"rpi {i} hex"] = rpi(i).hex().encode()
        found[f"rpi {i} HEX"] = rpi(i).hex().upper().encode()
    found["shared RPI prefix"] = b"RPI!plaintext"
    found["raw key"] = RAW_KEY
    found["raw key hex"] = RAW_KEY.hex().encode()
    found["raw key HEX"] = RAW_KEY.hex().upper().encode()
    found["passphrase"] = PASSPHRASE
    found["SQLite header"] = b"SQLite format 3"
    found["schema text"] = b"CREATE TABLE"
    found["table name"] = b"sightings"
    return found


def files_of(db):
    return {db + s: open(db + s, "rb").read() for s in SUFFIXES if os.path.exists(db + s)}


def scan(db, patterns=None):
    """(files scanned with sizes, findings as 'what in which file')."""
    patterns = patterns or secrets()
    files = files_of(db)
    findings = [f"{name} in {os.path.basename(path)}" for path, data in files.items()
                for name, value in patterns.items() if value in data]
    # A 4-byte AEM can occur in ciphertext by chance (about size/2^32 per
    # AEM); plaintext would hold every one of them, twice (table and index).
    aem_hits = sum(data.count(aem(i)) for data in files.values() for i in range(ROWS))
    if aem_hits > 3:
        findings.append(f"{aem_hits} AEMs")
    return {os.path.basename(p): len(d) for p, d in files.items()}, findings


def test_scanner_finds_plaintext(tmp_path):
    """The control: a plain SQLite database (WAL mode, still open) gives itself away."""
    db = str(tmp_path / "plain.db")
    connection = sqlite3.connect(db)
    connection.execute("PRAGMA journal_mode = WAL")
    connection.execute("CREATE TABLE sightings (time, rpi, aem, rssi, prev_scan)")
    connection.execute("CREATE UNIQUE INDEX o ON sightings (time, rpi, aem, rssi, ifnull(prev_scan, 0))")
    connection.executemany("INSERT INTO sightings VALUES (?, ?, ?, ?, ?)", rows())
    connection.commit()
    try:
        sizes, findings = scan(db)
        assert os.path.exists(db + "-wal")
        assert any(f.startswith("rpi+aem 0 ") for f in findings), findings[:5]
        assert any(f == "rpi 299 in plain.db-wal" for f in findings), findings[:5]
        assert any(f.endswith(" AEMs") for f in findings)
    finally:
        connection.close()


@pytest.mark.parametrize("kind", ["raw", "passphrase"])
def test_no_plaintext_while_open_and_after_close(tmp_path, kind):
    db = str(tmp_path / "secret.db")
    key = storelib.make_key(RAW_KEY, raw=True) if kind == "raw" else storelib.make_key(PASSPHRASE)
    store = storelib.open_store(db, key)
    try:
        assert storelib.add(store, rows()) == ROWS
        # Open, nothing checkpointed: the rows are in the WAL only.
        sizes, findings = scan(db)
        assert sizes.get("secret.db-wal", 0) > 0, sizes
        assert findings == [], f"while open ({sizes}): {findings[:10]}"
        # A purge with secure_delete; then more rows, still open.
        counts = storelib.ffi.encore_purge_counts(ctypes.sizeof(storelib.ffi.encore_purge_counts))
        storelib.check("purge", storelib.lib.encore_store_purge(store, T0 + 100, 0, counts))
        assert counts.sightings == 100
        storelib.add(store, rows()[:100])
        sizes, findings = scan(db)
        assert findings == [], f"after purge, open ({sizes}): {findings[:10]}"
    finally:
        storelib.close(store)
    sizes, findings = scan(db)
    assert "secret.db-journal" not in sizes
    assert findings == [], f"after close ({sizes}): {findings[:10]}"

    # Rekey (SQLCipher rewrites every page through a rollback journal).
    store = storelib.open_store(db, key)
    try:
        new_key = storelib.make_key(PASSPHRASE) if kind == "raw" else storelib.make_key(RAW_KEY, raw=True)
        storelib.check("rekey", storelib.lib.encore_store_rekey(store, new_key))
        assert storelib.count(store) == ROWS
        sizes, findings = scan(db)
        assert findings == [], f"after rekey, open ({sizes}): {findings[:10]}"
    finally:
        storelib.close(store)
    sizes, findings = scan(db)
    assert findings == [], f"after rekey and close ({sizes}): {findings[:10]}"


def test_no_plaintext_after_a_kill(tmp_path):
    """A writer killed mid-stream leaves its WAL and index behind: still nothing readable."""
    db = str(tmp_path / "killed.db")
    child = subprocess.Popen([sys.executable, CHILD, "writer", db, RAW_KEY.hex(), "0", "500"],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [child.stdout.readline() for _ in range(6)]  # "open", then 5 batches
        assert lines[-1].startswith("committed"), lines
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
    patterns = {"the writer's RPI marker": struct.pack(">Q", 0x456E436F72654352),
                "marker hex": b"456e436f72654352", "raw key": RAW_KEY, "raw key hex": RAW_KEY.hex().encode(),
                "SQLite header": b"SQLite format 3", "schema text": b"CREATE TABLE"}
    sizes, findings = scan(db, patterns)
    assert sizes.get("killed.db-wal", 0) > 0, sizes
    assert findings == [], f"after a kill ({sizes}): {findings}"


OTHER_TABLES = ["encore_own_key_put", "encore_store_set_setting",
                "encore_keyfile_cache_import", "encore_exposure_check"]
SAMPLE = Path(__file__).resolve().parents[1] / "data/exports/google-sample"


def test_no_plaintext_in_the_other_tables(tmp_path):
    """Own keys (TEKs), settings, key files and risk results: the same scan."""
    assert all(storelib.has(f) for f in OTHER_TABLES), "the library lacks a table function this test uses"
    lib, ffi = storelib.lib, storelib.ffi
    db = str(tmp_path / "tables.db")
    tek = b"TEK!plaintext\x01\x02\x03"
    text = b"setting-text-marker-5b1d"
    blob = b"setting-blob-marker-\x00\xff\x10"
    package = (SAMPLE / "sample_diagnosis_key_file.zip").read_bytes()
    pem = (SAMPLE / "public_310-v1.pem").read_bytes()
    store = storelib.open_store(db, storelib.make_key(RAW_KEY, raw=True))
    trust = ctypes.POINTER(ffi.encore_trust)()
    config = ctypes.POINTER(ffi.encore_risk_config)()
    try:
        key = ffi.encore_own_key()
        key.struct_size = ctypes.sizeof(key)
        ctypes_memmove(key.key_data, tek)
        key.rolling_start_interval_number = 2_700_000
        key.rolling_period = 144
        key.created = T0
        client = storelib.client_of(store)
        storelib.check("put_own_key", lib.encore_own_key_put(client, key))
        for name, kind, value in ((b"name-marker-text", ffi.ENCORE_SETTING_TEXT, text), (b"name-marker-blob", ffi.ENCORE_SETTING_BLOB, blob)):
            setting = ffi.encore_setting_value(ctypes.sizeof(ffi.encore_setting_value), kind)
            buffer = bytes_arg(value)
            setting.data, setting.length = ctypes.cast(buffer, ctypes.POINTER(ctypes.c_uint8)), len(value)
            storelib.check("set " + name.decode(), lib.encore_store_set_setting(store, name, ctypes.byref(setting)))
        storelib.check("trust", lib.encore_trust_new(ctypes.byref(trust)))
        storelib.check("trust key", lib.encore_trust_add_key(trust, b"310", b"v1", bytes_arg(pem), len(pem)))
        storelib.check("import package", lib.encore_keyfile_cache_import(client, b"DE", b"2020-06-01/hour/13", b"etag-marker-77",
                                                                         bytes_arg(package), len(package), trust, None))
        # A risk result: what the exposure check stores (its JSON document).
        storelib.check("config", lib.encore_risk_config_new_cwa(ctypes.byref(config)))
        options = ffi.encore_match_options()
        storelib.check("options", lib.encore_match_options_init(ctypes.byref(options), ctypes.sizeof(options), 0))
        result = ctypes.POINTER(ffi.encore_check_result)()
        storelib.check("check", lib.encore_exposure_check(client, None, ctypes.sizeof(ffi.encore_key_source), 0, config, ctypes.byref(options), None, ctypes.byref(result)))
        lib.encore_check_result_free(result)
        patterns = {"TEK": tek, "TEK hex": tek.hex().encode(), "setting text": text, "setting blob": blob,
                    "setting name": b"name-marker-text", "package content": package[len(package) // 2:][:32],
                    "package name": b"export.bin", "etag": b"etag-marker-77", "risk document": b'"activeTracingSeconds"'}
        sizes, findings = scan(db, patterns)
        assert findings == [], f"while open ({sizes}): {findings}"
    finally:
        storelib.close(store)
        lib.encore_trust_free(trust)
        lib.encore_risk_config_free(config)
    sizes, findings = scan(db, patterns)
    assert findings == [], f"after close ({sizes}): {findings}"


def ctypes_memmove(field, data):
    ctypes.memmove(field, data, len(data))


def bytes_arg(data):
    return (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
