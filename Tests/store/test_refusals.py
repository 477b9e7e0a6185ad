"""Refusals after an unclean shutdown, and keys that are not what they say.

encore_store_open promises that a wrong key (ENCORE_ERR_STORE_WRONG_KEY), a
file that is not a store and a store of a newer encore (_TOO_NEW) leave the
file unmodified. With a clean store (no -wal) that holds (Tests/c/test_store.c
checks it byte for byte). After a crash the -wal and -shm files are left
behind; the last connection to close would checkpoint the WAL into the
database file, so the library proves the key and version on a read-only
connection first. The database file and the WAL stay byte-identical; the
-shm file is SQLite's shared-memory WAL index, which any reader (of any key)
rebuilds after a crash, and is left out of the comparison.

SQLCipher reads a passphrase of the form x'<64 hex digits>' as a raw key (no
derivation), and x'<96 hex digits>' as a raw key plus the file's salt: the
library refuses such passphrases (ENCORE_ERR_INVALID_ARGUMENT).
"""
import hashlib
import os
import shutil
import signal
import subprocess
import sys

import pytest

import storelib

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "store_child.py")
KEY = bytes(range(1, 33))
SUFFIXES = ("", "-wal", "-shm", "-journal")
BATCH = 500


def crashed_store(tmp_path, batches=5):
    """A store whose writer was killed after `batches` committed batches: -wal and -shm left behind."""
    db = str(tmp_path / "crashed.db")
    child = subprocess.Popen([sys.executable, CHILD, "writer", db, KEY.hex(), "0", str(BATCH)],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        lines = [child.stdout.readline() for _ in range(batches + 1)]
        assert lines[0] == "open\n" and lines[-1] == f"committed {batches - 1}\n", (lines, child.stderr.read())
    finally:
        child.send_signal(signal.SIGKILL)
        child.communicate(timeout=30)
    assert os.path.getsize(db + "-wal") > 0
    return db


def fingerprint(db):
    return {s: (os.path.getsize(db + s), hashlib.sha256(open(db + s, "rb").read()).hexdigest()[:16])
            for s in SUFFIXES if os.path.exists(db + s)}


def without_read_marks(db, prints):
    """The database and its WAL: -shm (the WAL index every reader may
    rebuild) is left out of the comparison."""
    prints.pop("-shm", None)
    return prints


def sqlcipher_tool():
    tool = shutil.which("sqlcipher")
    if tool is None:
        pytest.fail("the sqlcipher command-line tool is missing: install the Debian package `sqlcipher`", pytrace=False)
    return tool


def wrong_key():
    return storelib.make_key(bytes(32), raw=True)


def test_wrong_key_after_a_crash_loses_nothing(tmp_path):
    db = crashed_store(tmp_path)
    status, _ = storelib.open_status(db, wrong_key())
    assert status == storelib.ffi.ENCORE_ERR_STORE_WRONG_KEY
    store = storelib.open_store(db, storelib.make_key(KEY, raw=True))
    try:
        assert storelib.integrity_status(store) == storelib.OK
        assert storelib.count(store) >= 5 * BATCH
    finally:
        storelib.close(store)


def test_wrong_key_after_a_crash_leaves_the_files_byte_identical(tmp_path):
    db = crashed_store(tmp_path)
    before = without_read_marks(db, fingerprint(db))
    status, _ = storelib.open_status(db, wrong_key())
    assert status == storelib.ffi.ENCORE_ERR_STORE_WRONG_KEY
    assert without_read_marks(db, fingerprint(db)) == before


def test_too_new_after_a_crash_leaves_the_files_byte_identical(tmp_path):
    tool = sqlcipher_tool()
    db = crashed_store(tmp_path)
    # A newer encore's schema version, committed to the WAL by a process that then dies (no checkpoint).
    script = f"PRAGMA key = \"x'{KEY.hex()}'\";\nPRAGMA cipher_page_size = 4096;\nPRAGMA user_version = 999;\n.system kill -9 $PPID\n"
    subprocess.run([tool, "-batch", db], input=script, capture_output=True, text=True, timeout=60)
    before = without_read_marks(db, fingerprint(db))
    assert "-wal" in before
    status, _ = storelib.open_status(db, storelib.make_key(KEY, raw=True))
    assert status == storelib.ffi.ENCORE_ERR_STORE_TOO_NEW
    assert without_read_marks(db, fingerprint(db)) == before


def test_a_passphrase_that_looks_like_a_raw_key_is_refused(tmp_path):
    db = str(tmp_path / "p.db")
    for text in (b"x'" + KEY.hex().encode() + b"'", b"x'" + (KEY + bytes(16)).hex().encode() + b"'"):
        status, store = storelib.open_status(db, storelib.make_key(text))
        assert status == storelib.ffi.ENCORE_ERR_INVALID_ARGUMENT
        assert store is None or not store
    assert not os.path.exists(db)
