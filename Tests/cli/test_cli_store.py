"""Tests of `encore store ...` and `encore sightings import`.

They run the built binary: $ENCORE_CLI, or else <repo>/build/bin/encore
(`make cli` builds it). Run with `python3 -m pytest -q Tests/cli/test_cli_store.py`.

Most tests use a raw key (ENCORE_DB_KEY_HEX): a passphrase costs a key
derivation (tens of milliseconds) on every open.
"""

import json
import os
import sqlite3
import stat
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))

KEY_A = "a1" * 32
KEY_B = "0123456789abcdef" * 4
PASSPHRASE = "correct horse battery staple"
INFO_FIELDS = ["path", "schemaVersion", "latestSchemaVersion", "tables", "fileSize", "walSize", "counts"]
PURGE_FIELDS = ["now", "maxAgeSeconds", "cutoff", "deleted", "total"]
PURGE_KINDS = ["sightings", "ownKeys", "keyfiles", "tracingEvents", "riskResults"]
DAY = 86_400
KEY_VARIABLES = ["ENCORE_DB_KEY", "ENCORE_DB_KEY_HEX", "ENCORE_NEW_DB_KEY", "ENCORE_NEW_DB_KEY_HEX"]


@pytest.fixture(scope="session", autouse=True)
def cli_binary():
    if not (CLI.is_file() and os.access(CLI, os.X_OK)):
        pytest.fail(f"{CLI} is missing: build it with `make cli` or set ENCORE_CLI", pytrace=False)


def environment(**keys):
    """os.environ without any encore key variable, plus `keys`."""
    env = {k: v for k, v in os.environ.items() if k not in KEY_VARIABLES}
    env.update(keys)
    return env


def run(*args, input=None, **keys):
    """Runs encore with the key variables given (ENCORE_DB_KEY_HEX=KEY_A unless any is)."""
    if not keys:
        keys = {"ENCORE_DB_KEY_HEX": KEY_A}
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, timeout=120,
                          env=environment(**keys), input=input)


def ok(result):
    assert result.returncode == 0, (result.stdout, result.stderr)
    assert result.stderr == ""
    return result


def assert_failure(result, code, subject=None):
    """Exit `code`, nothing on stdout; for exit 1 exactly one stderr line
    `encore: SUBJECT: ...`; for exit 2 a message and the usage."""
    assert result.returncode == code, (result.stdout, result.stderr)
    assert result.stdout == ""
    if code == 1:
        lines = result.stderr.splitlines()
        assert len(lines) == 1, result.stderr
        assert result.stderr.endswith("\n")
        prefix = f"encore: {subject}: " if subject is not None else "encore: "
        assert lines[0].startswith(prefix), lines[0]
        return lines[0]
    assert "Usage:" in result.stderr or "USAGE:" in result.stderr, result.stderr
    return result.stderr


def init(db, **keys):
    return ok(run("store", "init", "--db", db, **keys))


def info(db, **keys):
    return json.loads(ok(run("store", "info", "--db", db, "--json", **keys)).stdout)


def count(db, **keys):
    return info(db, **keys)["counts"]["sightings"]


def import_csv(db, path, **keys):
    return json.loads(ok(run("sightings", "import", "--db", db, path, "--json", **keys)).stdout)


def row(time, rpi=1, aem=1, rssi=-60, prev=None):
    """A CSV line; rpi and aem are given as small numbers."""
    line = f"{time},{rpi:032x},{aem:08x},{rssi}"
    return line if prev is None else f"{line},{prev}"


def write(tmp_path, name, lines, end="\n"):
    p = tmp_path / name
    p.write_text("".join(l + end for l in lines))
    return p


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "store.db"
    init(path)
    return path


# --- init and info ------------------------------------------------------------

def test_init_creates_a_private_store_and_is_idempotent(tmp_path):
    path = tmp_path / "s.db"
    r = init(path)
    assert "created" in r.stdout
    assert path.is_file()
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    r = init(path)
    assert "already exists" in r.stdout
    assert count(path) == 0


def test_init_does_not_touch_a_store_with_another_key(tmp_path, db):
    before = db.read_bytes()
    line = assert_failure(run("store", "init", "--db", db, ENCORE_DB_KEY_HEX=KEY_B), 1, db)
    assert "wrong key" in line
    assert db.read_bytes() == before


def test_info_json(db):
    data = info(db)
    assert list(data) == INFO_FIELDS
    assert data["path"] == str(db)
    assert data["schemaVersion"] == data["latestSchemaVersion"] >= 1
    assert data["fileSize"] > 0 and data["fileSize"] % 1024 == 0
    assert data["walSize"] >= 0
    assert data["counts"] == {"sightings": 0}
    # Each feature's tables at their own version, the ones without tables at 0.
    assert data["tables"]["exposure"] >= 2 and data["tables"]["keyfiles"] >= 2 and data["tables"]["checkins"] >= 3
    assert data["tables"]["sync"] == 0 and set(data["tables"]) >= {"check", "testresults", "push", "tracing"}


def test_former_command_names_still_work(db, tmp_path):
    """`encore observations` is the former name of `encore sightings` (an alias)."""
    csv = write(tmp_path, "s.csv", [row(1_600_000_000)])
    assert ok(run("observations", "import", "--db", db, csv)).returncode == 0
    assert info(db)["counts"] == {"sightings": 1}


def test_info_text(db):
    out = ok(run("store", "info", "--db", db)).stdout
    assert "store:" in out and str(db) in out
    assert "schema version:" in out
    assert "sightings:" in out


def test_passphrase_round_trip(tmp_path):
    path = tmp_path / "p.db"
    init(path, ENCORE_DB_KEY=PASSPHRASE)
    csv = write(tmp_path, "o.csv", [row(1000), row(2000, rpi=2)])
    assert import_csv(path, csv, ENCORE_DB_KEY=PASSPHRASE) == {"rows": 2, "new": 2, "duplicates": 0}
    assert count(path, ENCORE_DB_KEY=PASSPHRASE) == 2
    line = assert_failure(run("store", "info", "--db", path, ENCORE_DB_KEY="wrong"), 1, path)
    assert "wrong key" in line and "ENCORE_DB_KEY" in line
    # The raw key is not the passphrase's derived key.
    assert_failure(run("store", "info", "--db", path, ENCORE_DB_KEY_HEX=KEY_A), 1, path)


def test_wrong_raw_key(db):
    line = assert_failure(run("store", "info", "--db", db, ENCORE_DB_KEY_HEX=KEY_B), 1, db)
    assert "wrong key" in line and "ENCORE_DB_KEY_HEX" in line
    assert KEY_B not in line


def test_hex_key_case_and_surrounding_blanks(db):
    assert count(db, ENCORE_DB_KEY_HEX=KEY_A.upper()) == 0
    assert count(db, ENCORE_DB_KEY_HEX=f" {KEY_A}\n") == 0


@pytest.mark.parametrize("command", ["info", "purge", "rekey", "import"])
def test_missing_store_is_not_created(tmp_path, command):
    path = tmp_path / "missing.db"
    args = {"info": ["store", "info"], "purge": ["store", "purge"], "rekey": ["store", "rekey"],
            "import": ["sightings", "import"]}[command] + ["--db", path]
    if command == "import":
        args.append(write(tmp_path, "o.csv", [row(1)]))
    r = run(*args, ENCORE_DB_KEY_HEX=KEY_A, ENCORE_NEW_DB_KEY_HEX=KEY_B)
    line = assert_failure(r, 1, path)
    assert "no such store" in line and "store init" in line
    assert list(tmp_path.glob("missing.db*")) == []


def test_not_a_store(tmp_path):
    text = tmp_path / "notes.txt"
    text.write_text("hello\n" * 500)
    assert_failure(run("store", "info", "--db", text), 1, text)
    assert_failure(run("store", "init", "--db", text), 1, text)
    assert text.read_text() == "hello\n" * 500

    plain = tmp_path / "plain.sqlite"
    with sqlite3.connect(plain) as c:
        c.execute("CREATE TABLE t (x)")
    line = assert_failure(run("store", "info", "--db", plain), 1, plain)
    assert "unencrypted SQLite database" in line

    assert_failure(run("store", "info", "--db", tmp_path), 1, tmp_path)


# --- the key variables ------------------------------------------------------

COMMANDS = [
    ["store", "init"], ["store", "info"], ["store", "purge"], ["store", "rekey"], ["sightings", "import"],
]


def command_line(command, db, tmp_path):
    args = [*command, "--db", db]
    if command[0] == "sightings":
        args.append(write(tmp_path, "o.csv", [row(1)]))
    return args


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_missing_key_is_a_usage_error(tmp_path, command):
    path = tmp_path / "s.db"
    r = subprocess.run([str(CLI), *map(str, command_line(command, path, tmp_path))], capture_output=True, text=True,
                       env=environment(ENCORE_NEW_DB_KEY_HEX=KEY_B))
    message = assert_failure(r, 2)
    assert "ENCORE_DB_KEY" in message and "ENCORE_DB_KEY_HEX" in message
    assert not path.exists()


@pytest.mark.parametrize("keys, expected", [
    ({"ENCORE_DB_KEY": PASSPHRASE, "ENCORE_DB_KEY_HEX": KEY_A}, "both"),
    ({"ENCORE_DB_KEY": ""}, "empty"),
    ({"ENCORE_DB_KEY_HEX": ""}, "64 hex digits"),
    ({"ENCORE_DB_KEY_HEX": KEY_A[:-2]}, "64 hex digits"),
    ({"ENCORE_DB_KEY_HEX": KEY_A + "00"}, "64 hex digits"),
    ({"ENCORE_DB_KEY_HEX": "g" + KEY_A[1:]}, "64 hex digits"),
])
def test_bad_key_variables_are_usage_errors(tmp_path, keys, expected):
    path = tmp_path / "s.db"
    message = assert_failure(run("store", "init", "--db", path, **keys), 2)
    assert expected in message
    assert KEY_A[1:] not in message and PASSPHRASE not in message
    assert not path.exists()


@pytest.mark.parametrize("option", ["--key", "--db-key", "--key-hex", "--passphrase"])
def test_key_on_the_command_line_is_not_accepted(tmp_path, option):
    path = tmp_path / "s.db"
    message = assert_failure(run("store", "init", "--db", path, option, KEY_A), 2)
    assert "Unknown option" in message
    assert not path.exists()


def test_groups_without_subcommand_are_usage_errors():
    for group in ["store", "sightings"]:
        r = run(group)
        assert r.returncode == 2
        assert r.stdout == ""


def test_help_names_the_key_variables():
    for command in COMMANDS:
        r = run(*command, "--help")
        assert r.returncode == 0, r.stderr
        assert "ENCORE_DB_KEY" in r.stdout


# --- sightings import -----------------------------------------------------

def test_import_counts_new_rows_and_duplicates(tmp_path, db):
    first = write(tmp_path, "a.csv", [row(1000, rpi=1), row(1000, rpi=1), row(1000, rpi=2), row(2000, rpi=1, prev=1700)])
    assert import_csv(db, first) == {"rows": 4, "new": 3, "duplicates": 1}
    # prev_scan is part of a sighting; an empty prev_scan is none.
    second = write(tmp_path, "b.csv", [row(1000, rpi=1), row(2000, rpi=1, prev=1701), row(3000) + ","])
    assert import_csv(db, second) == {"rows": 3, "new": 2, "duplicates": 1}
    assert count(db) == 5

    out = ok(run("sightings", "import", "--db", db, second)).stdout
    assert out == f"{second}: 3 rows read, 0 new, 3 already stored or repeated\n"


def test_import_header_blank_lines_and_layout(tmp_path, db):
    lines = ["", "  TIME , rpi,aem , rssi ", "", row(10), "   ", row(20, rssi=127), row(30, rssi=-128), ""]
    p = write(tmp_path, "h.csv", lines, end="\r\n")
    p.write_bytes(b"\xef\xbb\xbf" + p.read_bytes())  # byte order mark
    assert import_csv(db, p) == {"rows": 3, "new": 3, "duplicates": 0}

    p = write(tmp_path, "h5.csv", ["time,rpi,aem,rssi,prev_scan", row(40, prev=35), row(50) + ","])
    assert import_csv(db, p)["new"] == 2

    # No final newline; upper-case hex is the same sighting as lower-case.
    p = tmp_path / "nonl.csv"
    p.write_text(row(60, rpi=0xAB) + "\n" + f"60,{0xAB:032X},{1:08X},-60")
    assert import_csv(db, p) == {"rows": 2, "new": 1, "duplicates": 1}
    assert count(db) == 6


def test_import_empty_file_and_header_only(tmp_path, db):
    assert import_csv(db, write(tmp_path, "e.csv", [])) == {"rows": 0, "new": 0, "duplicates": 0}
    assert import_csv(db, write(tmp_path, "h.csv", ["time,rpi,aem,rssi"])) == {"rows": 0, "new": 0, "duplicates": 0}


def test_import_from_stdin(db):
    r = ok(run("sightings", "import", "--db", db, "-", "--json", input=row(5) + "\n" + row(6) + "\n"))
    assert json.loads(r.stdout)["new"] == 2


BAD_ROWS = [
    ("rpi not hex", f"100,{'zz' * 16},01020304,-60", "rpi"),
    ("rpi short", f"100,{'11' * 15},01020304,-60", "rpi"),
    ("rpi long", f"100,{'11' * 17},01020304,-60", "rpi"),
    ("aem not hex", f"100,{'11' * 16},0102030x,-60", "aem"),
    ("aem short", f"100,{'11' * 16},010203,-60", "aem"),
    ("three columns", f"100,{'11' * 16},01020304", "columns"),
    ("six columns", f"100,{'11' * 16},01020304,-60,90,1", "columns"),
    ("rssi 128", row(100, rssi=128), "rssi"),
    ("rssi -129", row(100, rssi=-129), "rssi"),
    ("rssi not integer", f"100,{'11' * 16},01020304,strong", "rssi"),
    ("time fraction", row("100.5"), "time"),
    ("time text", row("noon"), "time"),
    ("time empty", row(""), "time"),
    ("time negative", row(-1), "time"),
    ("time too large", row(2 ** 63), "time"),
    ("prev_scan text", row(100, prev="x"), "prev_scan"),
    ("prev_scan negative", row(100, prev=-5), "prev_scan"),
    ("header not first", "time,rpi,aem,rssi", "time"),
    ("quoted field", f'"100",{"11" * 16},01020304,-60', "time"),
]


@pytest.mark.parametrize("bad, field", [(b, f) for _, b, f in BAD_ROWS], ids=[n for n, _, _ in BAD_ROWS])
def test_a_bad_row_fails_the_whole_import(tmp_path, db, bad, field):
    import_csv(db, write(tmp_path, "before.csv", [row(1, rpi=99)]))
    # Good rows before and after the bad one, and a blank line that counts.
    p = write(tmp_path, "bad.csv", [row(10), "", row(20), bad, row(30)])
    line = assert_failure(run("sightings", "import", "--db", db, p), 1, p)
    assert ": line 4: " in line, line
    assert field in line
    assert "nothing was imported" in line
    assert count(db) == 1


def test_header_fixes_the_column_count(tmp_path, db):
    p = write(tmp_path, "h.csv", ["time,rpi,aem,rssi", row(10), row(20, prev=15)])
    line = assert_failure(run("sightings", "import", "--db", db, p), 1, p)
    assert ": line 3: " in line and "4 columns" in line
    assert count(db) == 0


def test_overlong_line(tmp_path, db):
    p = tmp_path / "long.csv"
    p.write_text(row(1) + "\n" + "1" * 5000 + "\n")
    line = assert_failure(run("sightings", "import", "--db", db, p), 1, p)
    assert ": line 2: " in line and "longer than" in line
    p.write_bytes(b"\x00" * (3 << 20))  # no newline at all
    line = assert_failure(run("sightings", "import", "--db", db, p), 1, p)
    assert ": line 1: " in line
    assert count(db) == 0


def test_import_unreadable_file(tmp_path, db):
    missing = tmp_path / "nope.csv"
    line = assert_failure(run("sightings", "import", "--db", db, missing), 1, missing)
    assert "cannot open" in line
    assert_failure(run("sightings", "import", "--db", db, tmp_path), 1, tmp_path)


def test_import_many_rows_across_read_chunks(tmp_path, db):
    n = 60_000  # about 4 MB: several read chunks, lines cut at chunk ends
    p = tmp_path / "many.csv"
    with p.open("w") as f:
        f.write("time,rpi,aem,rssi,prev_scan\n")
        for i in range(n):
            f.write(f"{1_600_000_000 + i},{i * 7919:032x},{i:08x},{i % 256 - 128},{1_600_000_000 + i - 300}\n")
    assert import_csv(db, p) == {"rows": n, "new": n, "duplicates": 0}
    assert count(db) == n


# --- purge -------------------------------------------------------------------

NOW = 1_700_000_000


def test_purge_counts(tmp_path, db):
    rows = [row(NOW - 20 * DAY, rpi=1), row(NOW - 15 * DAY, rpi=2), row(NOW - 14 * DAY - 1, rpi=3),
            row(NOW - 14 * DAY, rpi=4), row(NOW - DAY, rpi=5), row(NOW, rpi=6)]
    import_csv(db, write(tmp_path, "o.csv", rows))
    r = ok(run("store", "purge", "--db", db, "--now", NOW, "--json"))
    data = json.loads(r.stdout)
    assert list(data) == PURGE_FIELDS
    assert data["now"] == NOW
    assert data["maxAgeSeconds"] == 14 * DAY
    assert data["cutoff"] == NOW - 14 * DAY
    assert list(data["deleted"]) == PURGE_KINDS
    assert data["deleted"]["sightings"] == 3
    assert data["total"] == sum(data["deleted"].values()) == 3
    assert count(db) == 3

    data = json.loads(ok(run("store", "purge", "--db", db, "--now", NOW, "--max-age-days", 1, "--json")).stdout)
    assert data["deleted"]["sightings"] == 1  # NOW - 14 days; NOW - 1 day is at the cut-off and stays
    out = ok(run("store", "purge", "--db", db, "--now", NOW, "--max-age-days", 0)).stdout
    assert "deleted 1 row from before 2023-11-14T22:13:20Z (0 days before 2023-11-14T22:13:20Z)" in out
    assert "sightings:" in out and "risk results:" in out
    assert count(db) == 1


def test_purge_defaults_to_the_clock(tmp_path, db):
    import time
    now = int(time.time())
    import_csv(db, write(tmp_path, "o.csv", [row(1000), row(now - 13 * DAY, rpi=2), row(now, rpi=3)]))
    data = json.loads(ok(run("store", "purge", "--db", db, "--json")).stdout)
    assert abs(data["now"] - now) < 60
    assert data["deleted"]["sightings"] == 1
    assert count(db) == 2


@pytest.mark.parametrize("args", [
    ["--max-age-days", "-1"], ["--max-age-days", "x"], ["--now", "yesterday"],
    ["--max-age-days", str(2 ** 62)], ["--now", str(-2 ** 63), "--max-age-days", "1"], ["--now=-1"],
])
def test_purge_bad_arguments(db, args):
    assert_failure(run("store", "purge", "--db", db, *args), 2)


# --- rekey -------------------------------------------------------------------

def test_rekey_round_trip(tmp_path, db):
    import_csv(db, write(tmp_path, "o.csv", [row(1), row(2)]))
    r = ok(run("store", "rekey", "--db", db, ENCORE_DB_KEY_HEX=KEY_A, ENCORE_NEW_DB_KEY_HEX=KEY_B))
    assert "ENCORE_NEW_DB_KEY_HEX" in r.stdout
    assert_failure(run("store", "info", "--db", db, ENCORE_DB_KEY_HEX=KEY_A), 1, db)
    assert count(db, ENCORE_DB_KEY_HEX=KEY_B) == 2

    # Raw key to passphrase and back.
    ok(run("store", "rekey", "--db", db, ENCORE_DB_KEY_HEX=KEY_B, ENCORE_NEW_DB_KEY=PASSPHRASE))
    assert_failure(run("store", "info", "--db", db, ENCORE_DB_KEY_HEX=KEY_B), 1, db)
    assert count(db, ENCORE_DB_KEY=PASSPHRASE) == 2
    ok(run("store", "rekey", "--db", db, ENCORE_DB_KEY=PASSPHRASE, ENCORE_NEW_DB_KEY_HEX=KEY_A))
    assert count(db) == 2


def test_a_store_of_an_earlier_encore_opens_is_rekeyed_and_reopened(tmp_path):
    """Tests/data/store/legacy-1024.db: made by encore before stores had
    4 KiB pages (raw key ab..ab, two sightings), a CWA check-in added since."""
    db = tmp_path / "legacy.db"
    db.write_bytes((REPO / "Tests" / "data" / "store" / "legacy-1024.db").read_bytes())
    old = {"ENCORE_DB_KEY_HEX": "ab" * 32}
    assert count(db, **old) == 2
    listed = json.loads(ok(run("checkin", "list", "--db", db, "--now", 1_762_010_000, "--json", **old)).stdout)
    assert [c["description"] for c in listed["checkins"]] == ["Agway Inc."]
    assert "wrong key" in assert_failure(run("store", "info", "--db", db), 1, db)
    ok(run("store", "rekey", "--db", db, **old, ENCORE_NEW_DB_KEY_HEX=KEY_A))
    assert count(db) == 2
    assert json.loads(ok(run("checkin", "list", "--db", db, "--now", 1_762_010_000, "--json")).stdout) == listed


def test_rekey_needs_both_keys(db):
    for keys in [{"ENCORE_DB_KEY_HEX": KEY_A},
                 {"ENCORE_DB_KEY_HEX": KEY_A, "ENCORE_NEW_DB_KEY": PASSPHRASE, "ENCORE_NEW_DB_KEY_HEX": KEY_B},
                 {"ENCORE_DB_KEY_HEX": KEY_A, "ENCORE_NEW_DB_KEY_HEX": "abc"},
                 {"ENCORE_NEW_DB_KEY_HEX": KEY_B}]:
        message = assert_failure(run("store", "rekey", "--db", db, **keys), 2)
        assert "ENCORE_NEW_DB_KEY" in message or "ENCORE_DB_KEY" in message
    assert count(db) == 0  # still the old key


def test_rekey_with_the_wrong_key_changes_nothing(db):
    before = db.read_bytes()
    line = assert_failure(run("store", "rekey", "--db", db, ENCORE_DB_KEY_HEX=KEY_B, ENCORE_NEW_DB_KEY_HEX=KEY_B), 1, db)
    assert "wrong key" in line
    assert db.read_bytes() == before
    assert count(db) == 0
