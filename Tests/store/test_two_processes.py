"""Two processes on one store: while process A holds a write transaction,
process B (this test) can open the store and read it; B's insert waits and
succeeds with the default busy timeout (5000 ms), and fails quickly with
ENCORE_ERR_STORE_BUSY, inserting nothing, with busy_timeout_ms = 0.

A is either the sqlcipher tool (BEGIN IMMEDIATE, an insert, then `.system`
sleeps HOLD_SECONDS inside the transaction) or an encore process adding one
very large batch (one long transaction)."""
import ctypes
import os
import shutil
import subprocess
import sys
import time

import pytest

import storelib

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "store_child.py")
KEY = bytes(range(7, 39))
HOLD_SECONDS = 1.5
HOLD_ROWS = 150_000
T0 = 1_650_000_000


def b_rows(n, start):
    return [(T0 + start + i, (start + i).to_bytes(16, "big"), b"\xbb\xbb\xbb\xbb", -60, None) for i in range(n)]


def empty_add(store):
    """A write transaction that adds nothing: a probe for another writer's lock."""
    status, _ = storelib.add_status(store, (storelib.ffi.encore_sighting * 1)(), 0)
    return status


def start_sqlcipher_holder(db, marker):
    tool = shutil.which("sqlcipher")
    if tool is None:
        pytest.fail("the sqlcipher command-line tool is missing: install the Debian package `sqlcipher`", pytrace=False)
    script = (f"PRAGMA key = \"x'{KEY.hex()}'\";\n"
              "PRAGMA cipher_page_size = 4096;\n"
              "BEGIN IMMEDIATE;\n"
              "INSERT INTO sightings (time, rpi, aem, rssi, prev_scan) VALUES (1, zeroblob(16), x'aaaaaaaa', -1, NULL);\n"
              f".system touch '{marker}'; sleep {HOLD_SECONDS}\n"
              "COMMIT;\n")
    script_path = f"{marker}.sql"
    with open(script_path, "w") as f:
        f.write(script)
    with open(script_path) as stdin:
        holder = subprocess.Popen([tool, "-batch", str(db)], stdin=stdin, stdout=subprocess.PIPE,
                                  stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + 20
    while not os.path.exists(marker):
        assert holder.poll() is None, f"sqlcipher ended early: {holder.stderr.read()}"
        assert time.monotonic() < deadline, "sqlcipher never took the lock"
        time.sleep(0.002)
    return holder, 1


def start_encore_holder(db, probe):
    holder = subprocess.Popen([sys.executable, CHILD, "hold", str(db), KEY.hex(), str(HOLD_ROWS)],
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    assert holder.stdout.readline() == "adding\n", holder.stderr.read()
    deadline = time.monotonic() + 20
    while empty_add(probe) != storelib.ffi.ENCORE_ERR_STORE_BUSY:  # until A's transaction has begun
        assert holder.poll() is None, "the encore holder finished before its lock was seen"
        assert time.monotonic() < deadline, "the encore holder never took the lock"
        time.sleep(0.001)
    return holder, HOLD_ROWS


@pytest.mark.parametrize("holder_kind", ["sqlcipher", "encore"])
def test_second_process_waits_or_gets_busy(tmp_path, holder_kind):
    db = tmp_path / "shared.db"
    key = storelib.make_key(KEY, raw=True)
    setup = storelib.open_store(db, key)
    storelib.add(setup, b_rows(10, 0))
    storelib.close(setup)
    probe = storelib.open_store(db, key, storelib.make_options(busy_timeout_ms=0))
    handles = [probe]
    holder = None
    try:
        if holder_kind == "sqlcipher":
            holder, a_rows = start_sqlcipher_holder(db, tmp_path / "locked")
        else:
            holder, a_rows = start_encore_holder(db, probe)
        locked_at = time.monotonic()
        # A holds the write lock now. B opens the store meanwhile, both ways.
        impatient = storelib.open_store(db, key, storelib.make_options(create=False, busy_timeout_ms=0))
        handles.append(impatient)
        patient = storelib.open_store(db, key, storelib.make_options(create=False))
        handles.append(patient)
        assert empty_add(impatient) == storelib.ffi.ENCORE_ERR_STORE_BUSY, "A does not hold the lock"

        # busy_timeout_ms = 0: BUSY at once, nothing added.
        array, n = storelib.sightings(b_rows(100, 1000))
        added = ctypes.c_size_t(12345)
        started = time.monotonic()
        status = storelib.lib.encore_sighting_add(storelib.client_of(impatient), array, ctypes.sizeof(storelib.ffi.encore_sighting), n, ctypes.byref(added))
        busy_seconds = time.monotonic() - started
        assert status == storelib.ffi.ENCORE_ERR_STORE_BUSY, storelib.status_name(status)
        assert added.value == 12345
        assert busy_seconds < 0.25, f"BUSY took {busy_seconds:.3f} s"
        # Readers are not blocked by the writer (WAL): A's rows are not visible yet.
        started = time.monotonic()
        assert storelib.count(impatient) == 10
        assert time.monotonic() - started < 0.25
        assert holder.poll() is None, "A finished too early for the test to mean anything"

        # The default timeout (5000 ms): B waits for A's commit, then succeeds.
        started = time.monotonic()
        status, b_added = storelib.add_status(patient, array, n)
        waited = time.monotonic() - started
        assert status == storelib.OK, f"{storelib.status_name(status)} after {waited:.3f} s: {storelib.last_error()}"
        assert b_added == 100
        assert waited > 0.05, f"B did not wait ({waited:.3f} s): was A's lock held?"
        out, err = holder.communicate(timeout=60)
        assert holder.returncode == 0, f"A failed: {out} {err}"
        held = time.monotonic() - locked_at
        print(f"\n{holder_kind}: BUSY after {busy_seconds * 1000:.1f} ms; B waited {waited * 1000:.0f} ms "
              f"(A held the lock at least {held * 1000:.0f} ms from when B saw it)")

        assert storelib.count(patient) == 10 + a_rows + 100
        # The impatient handle works again once the lock is free.
        status, again = storelib.add_status(impatient, *storelib.sightings(b_rows(5, 5000)))
        assert status == storelib.OK and again == 5
        assert storelib.count(impatient) == 10 + a_rows + 105
        assert storelib.integrity_status(patient) == storelib.OK
    finally:
        if holder is not None and holder.poll() is None:
            holder.kill()
            holder.wait()
        for h in handles:
            storelib.close(h)
