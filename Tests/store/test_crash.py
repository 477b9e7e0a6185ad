"""Crash safety: a writer process killed with SIGKILL at random moments, over
and over on one store, never loses a batch it reported as committed and
never leaves a batch in part.

The child (store_child.py writer) adds numbered batches of BATCH_SIZE
sightings, one encore_sighting_add call each, and prints
"committed N" once the call has returned. The parent kills it after a
seeded random delay, then opens the store itself: the integrity check
passes, every reported batch is there in full (counted per batch: batch b
owns a time range), no batch is there in part, the batches present are
0..k without a gap, and sample batches read back field for field.

SIGKILL tests a crash of the process (the kernel keeps what was written);
it cannot test power loss, which synchronous=FULL is for: test_fsync.py
checks that a commit syncs before it returns.

ENCORE_CRASH_SEED and ENCORE_CRASH_KILLS change the seed and the number
of kills.
"""
import os
import random
import signal
import subprocess
import sys
import time

import pytest

import storelib
from store_child import batch_range, batch_rows

CHILD = os.path.join(os.path.dirname(os.path.abspath(__file__)), "store_child.py")
KEY = bytes(range(100, 132))
BATCH_SIZE = 500
KILLS = int(os.environ.get("ENCORE_CRASH_KILLS", "60"))
SEED = int(os.environ.get("ENCORE_CRASH_SEED", "20260601"))
#: The whole test gives up (fails) after this long.
BUDGET_SECONDS = max(150, 3 * KILLS)


def spawn(db, first_batch):
    return subprocess.Popen([sys.executable, CHILD, "writer", str(db), KEY.hex(), str(first_batch), str(BATCH_SIZE)],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def committed_batches(output):
    """The batch numbers the child reported; fails on any other line."""
    batches = []
    for line in output.splitlines():
        if line == "open":
            continue
        assert line.startswith("committed "), f"child said: {line!r}"
        batches.append(int(line.split()[1]))
    return batches


def verify(db, reported, next_batch, rng):
    """Checks the store after a kill; returns how many batches are present."""
    store = storelib.open_store(db, storelib.make_key(KEY, raw=True), storelib.make_options(create=False))
    try:
        status = storelib.integrity_status(store)
        assert status == storelib.OK, f"integrity check: {storelib.status_name(status)}: {storelib.last_error()}"
        # The batch the child was adding when killed may be there (in full)
        # or not; every earlier one must be, and nothing after it.
        present = 0
        for b in range(next_batch + 2):
            n = storelib.count(store, *batch_range(b))
            assert n in (0, BATCH_SIZE), f"batch {b} is there in part: {n} of {BATCH_SIZE} rows"
            if b in reported:
                assert n == BATCH_SIZE, f"batch {b} was reported committed but is missing"
            if n:
                assert b == present, f"batch {b} is there but batch {present} is not"
                present += 1
        total = storelib.count(store)
        assert total == present * BATCH_SIZE, f"{total} rows in all, {present} whole batches"
        # Field-for-field: the newest batch and a random older one.
        for b in ({present - 1, rng.randrange(present)} if present else ()):
            assert storelib.copy_all(store, *batch_range(b)) == batch_rows(b, BATCH_SIZE), f"batch {b} reads back wrong"
        return present
    finally:
        storelib.close(store)


def test_sigkill_never_loses_or_splits_a_committed_batch(tmp_path):
    rng = random.Random(SEED)
    db = tmp_path / "crash.db"
    started = time.monotonic()
    next_batch = 0          # the first batch the next child writes
    reported = set()
    stats = {"kills": 0, "killed before open": 0, "killed with nothing committed": 0,
             "in-flight batch committed but unreported": 0, "rows verified (sum over kills)": 0}
    kill = 0
    # KILLS kills at least, and on until more batches than kills were
    # committed: on a loaded machine the child commits less between kills.
    while kill < KILLS or len(reported) <= KILLS:
        assert time.monotonic() - started < BUDGET_SECONDS, \
            f"over {BUDGET_SECONDS} s after {kill} kills and {len(reported)} batches committed"
        child = spawn(db, next_batch)
        opened = False
        try:
            if kill % 5 == 4:
                # From the start: hits interpreter start-up, opening, WAL recovery.
                time.sleep(rng.uniform(0.0, 0.25))
            else:
                line = child.stdout.readline()
                if line != "open\n":
                    child.kill()
                    _, err = child.communicate(timeout=30)
                    pytest.fail(f"kill {kill}: the writer did not open the store: {line!r} {err}")
                opened = True
                time.sleep(rng.uniform(0.0, 0.03))
            child.send_signal(signal.SIGKILL)
            # Not communicate(): it reads the pipes' descriptors and would
            # miss the lines readline() above already buffered (on a loaded
            # machine "open" comes with several "committed" lines at once).
            child.wait(timeout=30)
            out, err = child.stdout.read(), child.stderr.read()
        finally:
            if child.poll() is None:
                child.kill()
                child.wait()
        assert child.returncode == -signal.SIGKILL, \
            f"kill {kill} (seed {SEED}): the writer ended by itself ({child.returncode}): {out[-500:]} {err[-2000:]}"
        stats["kills"] += 1
        if not opened and "open" not in out.splitlines():
            stats["killed before open"] += 1
        batches = committed_batches(out)
        if not batches:
            stats["killed with nothing committed"] += 1
        assert batches == list(range(next_batch, next_batch + len(batches))), f"kill {kill}: batches out of order"
        reported.update(batches)
        in_flight = next_batch + len(batches)
        try:
            present = verify(db, reported, in_flight, rng)
        except AssertionError as e:
            raise AssertionError(f"after kill {kill} (seed {SEED}; child reported {len(batches)} batches, "
                                 f"{in_flight} in flight): {e}") from None
        if present == in_flight + 1:
            stats["in-flight batch committed but unreported"] += 1
        stats["rows verified (sum over kills)"] += present * BATCH_SIZE
        next_batch = present
        kill += 1
    stats["batches at the end"] = next_batch
    stats["store MB"] = round(os.path.getsize(db) / 1e6, 1)
    stats["reported committed"] = len(reported)
    stats["seconds"] = round(time.monotonic() - started, 1)
    print(f"\ncrash test (seed {SEED}): " + ", ".join(f"{k} {v}" for k, v in stats.items()))
    assert KILLS >= 50 or "ENCORE_CRASH_KILLS" in os.environ
