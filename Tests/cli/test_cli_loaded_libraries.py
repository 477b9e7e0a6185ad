"""libcurl and libsystemd are loaded with dlopen when first needed, never
linked (issue 49: a command that needs neither maps neither, which is most
of the tool's start): the binaries do not name them, a command that makes
no request and uses no bus does not map them, and a missing or unusable
library is a clear error with exit status 1, never a crash."""
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_cli_match import CLI, REPO, RAW_KEY, run  # noqa: E402

LIBRARY = REPO / "build" / "lib" / "libencore.so"


def needed(binary):
    out = subprocess.run(["readelf", "-d", str(binary)], capture_output=True, text=True, check=True).stdout
    return re.findall(r"\(NEEDED\)\s+Shared library: \[(.+?)\]", out)


@pytest.mark.parametrize("binary", [CLI, LIBRARY], ids=["encore", "libencore.so"])
def test_the_binaries_name_neither_libcurl_nor_libsystemd(binary):
    names = needed(binary)
    assert names, "readelf found no NEEDED entry"
    assert not [n for n in names if n.startswith(("libcurl", "libsystemd"))], names


def test_a_check_maps_neither(tmp_path):
    """The maps of a store command, read just before it exits (LD_DEBUG
    lists each object the loader opens)."""
    db = tmp_path / "s.db"
    assert run("store", "init", "--db", db).returncode == 0
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    env.update(ENCORE_DB_KEY_HEX=RAW_KEY, LD_DEBUG="files")
    r = subprocess.run([str(CLI), "check", "--db", str(db), "--now", "1700000000"], capture_output=True, text=True, env=env,
                       timeout=120)
    assert r.returncode == 0, r.stderr
    opened = re.findall(r"file=(\S+)", r.stderr)
    assert any("libsqlcipher" in f for f in opened), "LD_DEBUG=files shows no loading: the test sees nothing"
    assert not [f for f in opened if "libcurl" in f or "libsystemd" in f], opened


@pytest.fixture(params=["garbage", "empty"])
def broken_libraries(tmp_path, request):
    """A directory whose libcurl.so.4 and libsystemd.so.0 the loader finds
    first (LD_LIBRARY_PATH) and cannot use: a file that is no library, or a
    library without their functions."""
    where = tmp_path / "broken"
    where.mkdir()
    for soname in ("libcurl.so.4", "libsystemd.so.0"):
        if request.param == "garbage":
            (where / soname).write_bytes(b"not a shared object\n")
        else:
            source = tmp_path / "empty.c"
            source.write_text("int encore_test_nothing_here;\n")
            subprocess.run(["cc", "-shared", "-fPIC", "-o", str(where / soname), str(source)], check=True)
    return where, request.param


def broken_run(where, *args):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    env.update(ENCORE_DB_KEY_HEX=RAW_KEY, LD_LIBRARY_PATH=str(where))
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=env, timeout=120)


def test_a_missing_libcurl_is_a_clear_error(tmp_path, broken_libraries):
    where, kind = broken_libraries
    db = tmp_path / "s.db"
    assert run("store", "init", "--db", db).returncode == 0
    # Nothing listens there: without libcurl no connection is even tried.
    r = broken_run(where, "sync", "--db", db, "--distribution", "http://127.0.0.1:9", "--now", "1700000000")
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "cannot load libcurl (libcurl.so.4)" in r.stderr if kind == "garbage" else "libcurl.so.4 has no curl_" in r.stderr, r.stderr
    assert "install Debian's libcurl4" in r.stderr
    # The store is as it was: another command on it works.
    assert broken_run(where, "check", "--db", db, "--now", "1700000000").returncode == 0


def test_a_missing_libsystemd_is_a_clear_error(broken_libraries):
    where, kind = broken_libraries
    r = broken_run(where, "device", "status")
    assert r.returncode == 1, (r.returncode, r.stderr)
    assert "cannot load libsystemd (libsystemd.so.0)" in r.stderr if kind == "garbage" else "libsystemd.so.0 has no sd_bus_" in r.stderr, r.stderr
    assert "install Debian's libsystemd0" in r.stderr
