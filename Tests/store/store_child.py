"""Helper process of the store tests (not a test module).

    store_child.py writer DB KEYHEX FIRST_BATCH BATCH_SIZE [BATCHES]
        Opens DB with the raw key, prints "open", then adds batch after batch
        (FIRST_BATCH, FIRST_BATCH + 1, ...; one encore_sighting_add
        call each), printing "committed N" and flushing once each call has
        returned. Runs until killed, or closes the store after BATCHES.

    store_child.py diskfull DB KEYHEX ROWS
        Opens DB, adds 1000 sightings, then caps the size of any file it
        writes (RLIMIT_FSIZE, SIGXFSZ ignored) just above the store's files
        and adds ROWS more in one call, which must fail; lifts the cap and
        prints "failed STATUS", "count N", the second attempt's
        "retry STATUS ADDED" and "integrity STATUS".

    store_child.py hold DB KEYHEX ROWS
        Opens DB, builds ROWS sightings, prints "adding", adds them in one
        call (one long write transaction), prints "added SECONDS ROWS", closes.
"""
import os
import struct
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import storelib  # noqa: E402

T0 = 1_600_000_000
#: Batch b owns the times [T0 + b * STRIDE, T0 + (b + 1) * STRIDE).
STRIDE = 1000
MARK = 0x456E436F72654352  # "EnCoreCR"


def batch_rows(batch, size):
    """The sightings of batch `batch`: its number in every field."""
    base = T0 + batch * STRIDE
    return [(base + i, struct.pack(">IIQ", batch, i, MARK), struct.pack(">I", (batch * 7919 + i) & 0xFFFFFFFF),
             -(i % 100), base - 60 if i % 2 else None) for i in range(size)]


def batch_range(batch):
    return T0 + batch * STRIDE, T0 + (batch + 1) * STRIDE


def writer(db, key_hex, first, size, limit=None):
    store = storelib.open_store(db, storelib.make_key(bytes.fromhex(key_hex), raw=True))
    print("open", flush=True)
    batch = first
    while limit is None or batch < first + limit:
        array, n = storelib.sightings(batch_rows(batch, size))
        status, added = storelib.add_status(store, array, n)
        if status != storelib.OK or added != n:
            print(f"error batch {batch}: {storelib.status_name(status)} {storelib.last_error()} added {added}", flush=True)
            sys.exit(3)
        print(f"committed {batch}", flush=True)
        batch += 1
    storelib.close(store)


def disk_full(db, key_hex, rows):
    import resource
    import signal

    store = storelib.open_store(db, storelib.make_key(bytes.fromhex(key_hex), raw=True))
    storelib.add(store, batch_rows(0, 1000))
    array, n = storelib.sightings(row for b in range(rows // 1000) for row in batch_rows(1_000_000 + b, 1000))
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    soft, hard = resource.getrlimit(resource.RLIMIT_FSIZE)
    sizes = [os.path.getsize(db + s) for s in ("", "-wal", "-shm") if os.path.exists(db + s)]
    resource.setrlimit(resource.RLIMIT_FSIZE, (max(sizes) + 16384, hard))
    status, _ = storelib.add_status(store, array, n)
    resource.setrlimit(resource.RLIMIT_FSIZE, (soft, hard))
    print(f"failed {storelib.status_name(status)} {storelib.last_error()}")
    print(f"count {storelib.count(store)}")
    status, added = storelib.add_status(store, array, n)
    print(f"retry {storelib.status_name(status)} {added}")
    print(f"integrity {storelib.status_name(storelib.integrity_status(store))}", flush=True)
    storelib.close(store)


def hold(db, key_hex, rows):
    store = storelib.open_store(db, storelib.make_key(bytes.fromhex(key_hex), raw=True))
    base = 1_700_000_000
    array, n = storelib.sightings((base + i, struct.pack(">QQ", 0xB16, i), b"hold", -70, None) for i in range(rows))
    print("adding", flush=True)
    start = time.monotonic()
    status, added = storelib.add_status(store, array, n)
    if status != storelib.OK:
        print(f"error {storelib.status_name(status)} {storelib.last_error()}", flush=True)
        sys.exit(3)
    print(f"added {time.monotonic() - start:.3f} {added}", flush=True)
    storelib.close(store)


if __name__ == "__main__":
    command, args = sys.argv[1], sys.argv[2:]
    if command == "writer":
        writer(args[0], args[1], int(args[2]), int(args[3]), int(args[4]) if len(args) > 4 else None)
    elif command == "diskfull":
        disk_full(args[0], args[1], int(args[2]))
    elif command == "hold":
        hold(args[0], args[1], int(args[2]))
    else:
        sys.exit(f"unknown command {command}")
