"""encore in a Python host that already has the system SQLite in its
global symbol scope (libsqlite3 loaded with RTLD_GLOBAL before encore, as
plugin hosts and some native extensions do): the store opens, writes and
reads; the file is encrypted (no plain SQLite header, and the sqlcipher
tool reads it with the key); the host's own sqlite3 module works on its
plain database at the same time, from another thread.

Each case runs in a child interpreter, since the order in which libraries
enter the process is the point and this process has loaded encore already."""
import os
import shutil
import subprocess
import sys
import textwrap

import pytest

from encore_testdata import PACKAGE_PARENT

RAW_KEY = bytes(range(0x20, 0x40))

CHILD = textwrap.dedent("""
    import ctypes, os, sqlite3, sys, threading
    mode = sys.argv[3]
    if mode == "sqlite-global":
        ctypes.CDLL("libsqlite3.so.0", mode=ctypes.RTLD_GLOBAL)
    elif mode == "sqlcipher-global":
        ctypes.CDLL("libsqlcipher.so.0", mode=ctypes.RTLD_GLOBAL)
    sys.path.insert(0, {bindings!r})
    import encore
    from encore.records import Sighting

    store_path, host_path = sys.argv[1], sys.argv[2]
    errors = []

    def host():
        try:
            db = sqlite3.connect(host_path)
            db.execute("CREATE TABLE t (n INTEGER)")
            for i in range(200):
                with db:
                    db.execute("INSERT INTO t VALUES (?)", (i,))
            assert db.execute("SELECT count(*), sum(n) FROM t").fetchone() == (200, 199 * 100)
            db.close()
        except Exception as e:  # reported by the parent
            errors.append(repr(e))

    thread = threading.Thread(target=host)
    thread.start()
    for round in range(3):
        with encore.Client.open(store_path, raw_key={key!r}) as client:
            client.sightings.add([Sighting(time=1_700_000_000 + round * 100 + i, rpi=bytes([i, round]) * 8,
                                          aem=b"\\x40\\x00\\x00\\x00", rssi=-70, prev_scan=None) for i in range(50)])
            assert client.sightings.count() == 50 * (round + 1)
    thread.join()
    assert not errors, errors
    print("ok", sqlite3.sqlite_version)
""")


def run_child(tmp_path, mode):
    script = tmp_path / "child.py"
    script.write_text(CHILD.format(bindings=str(PACKAGE_PARENT), key=RAW_KEY))
    store, host = tmp_path / "store.db", tmp_path / "host.db"
    done = subprocess.run([sys.executable, str(script), str(store), str(host), mode],
                          capture_output=True, text=True, timeout=120, env=os.environ.copy())
    assert done.returncode == 0, f"child failed ({done.returncode}): {done.stdout}{done.stderr}"
    assert done.stdout.startswith("ok")
    return store, host


@pytest.mark.parametrize("mode", ["sqlite-global", "sqlcipher-global", "none"])
def test_store_beside_the_hosts_sqlite(tmp_path, mode):
    store, host = run_child(tmp_path, mode)
    assert store.read_bytes()[:16] != b"SQLite format 3\0"
    assert host.read_bytes()[:16] == b"SQLite format 3\0"
    tool = shutil.which("sqlcipher")
    if tool is None:
        pytest.fail("the sqlcipher command-line tool is missing (Debian package sqlcipher)", pytrace=False)
    done = subprocess.run([tool, "-batch", str(store)], input=f"PRAGMA key = \"x'{RAW_KEY.hex()}'\";\nPRAGMA cipher_page_size = 4096;\nSELECT count(*) FROM sightings;\n",
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 0 and done.stdout.strip() == "150", done.stdout + done.stderr
