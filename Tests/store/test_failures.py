"""All or nothing when SQLite itself fails mid-transaction, and durable
commits.

Disk full: a process caps the size of the files it may write
(RLIMIT_FSIZE) just above the store's, then adds a batch too large for the
room left. With 50 000 rows the failure comes while the rows are being
inserted (the page cache spills to the WAL); with 5 000 it comes at COMMIT.
Either way the call fails with ENCORE_ERR_STORE_FAILED and adds nothing,
the same handle works again once there is room, and the store is sound.

fsync: under strace, every add call syncs the WAL (fdatasync or fsync)
before it returns (synchronous = FULL); skipped when strace is missing.
"""
import os
import re
import shutil
import subprocess
import sys

import pytest

import storelib

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "store_child.py")
KEY = bytes(range(50, 82))


@pytest.mark.parametrize("rows", [50_000, 5_000])
def test_disk_full_adds_nothing(tmp_path, rows):
    db = str(tmp_path / "full.db")
    done = subprocess.run([sys.executable, CHILD, "diskfull", db, KEY.hex(), str(rows)],
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("failed ENCORE_ERR_STORE_FAILED "), lines
    assert lines[1:] == ["count 1000", f"retry ENCORE_OK {rows}", "integrity ENCORE_OK"], lines
    store = storelib.open_store(db, storelib.make_key(KEY, raw=True), storelib.make_options(create=False))
    try:
        assert storelib.count(store) == 1000 + rows
        assert storelib.integrity_status(store) == storelib.OK
    finally:
        storelib.close(store)


def test_every_commit_syncs_the_wal_before_returning(tmp_path):
    strace = shutil.which("strace")
    if strace is None:
        pytest.skip("strace is not installed")
    db = str(tmp_path / "sync.db")
    trace = str(tmp_path / "trace.txt")
    batches = 20
    done = subprocess.run([strace, "-f", "-y", "-e", "trace=fsync,fdatasync,write", "-o", trace,
                           sys.executable, CHILD, "writer", db, KEY.hex(), "0", "200", str(batches)],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0 and "ptrace" in done.stderr:
        pytest.skip(f"strace cannot trace here: {done.stderr.strip()[:200]}")
    assert done.returncode == 0, done.stderr
    # Between one "committed" line and the next, the WAL must be synced.
    syncs_since_report = None
    reports = 0
    for line in open(trace):
        if re.search(r"\b(fsync|fdatasync)\(\d+<[^>]*-wal>\)\s*=\s*0", line):
            if syncs_since_report is not None:
                syncs_since_report += 1
        elif re.search(r'write\(1<[^>]*>, "open', line):
            syncs_since_report = 0
        elif re.search(r'write\(1<[^>]*>, "committed \d+', line):
            assert syncs_since_report is not None, "a commit was reported before the open"
            assert syncs_since_report >= 1, f"commit reported without a WAL sync before it: {line.strip()}"
            syncs_since_report = 0
            reports += 1
    assert reports == batches
