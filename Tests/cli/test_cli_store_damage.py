"""`encore` on a store damaged on disk (issue 48): a failing command leaves
nothing on stdout; damage is called damage (never a wrong key) in words
without SQL; an empty file is not made a store; `store check` says what is
damaged; `store salvage` copies what can still be read into a new store.

The damage is done with plain file writes on a store of many sightings;
its first page (salt and key check) is left intact, so the key is right.
Tests run as root (who reads any file whatever its mode), so an unreadable
store cannot be made here and is not tested.
"""
import json
import os

import pytest

from test_cli_store import KEY_A, KEY_B, assert_failure, init, ok, run, write

PAGE = 4096
ROWS = 20_000


def sighting_lines(n):
    return [f"{1_600_000_000 + i},{i:032x},{i:08x},-60" for i in range(n)]


@pytest.fixture
def full(tmp_path):
    """A store with ROWS sightings, checkpointed (no WAL)."""
    db = tmp_path / "full.db"
    init(db)
    ok(run("sightings", "import", "--db", db, write(tmp_path, "s.csv", sighting_lines(ROWS))))
    assert os.path.getsize(db) % PAGE == 0 and os.path.getsize(db) > 100 * PAGE
    return db


# Four pages around the middle: which page holds what moves as the
# features' tables grow (a single middle page once turned out to be one no
# table reads), and four always hit the sightings' rows.
DAMAGED_PAGES = 4


def flip_middle_page(db):
    first = os.path.getsize(db) // PAGE // 2 - DAMAGED_PAGES // 2
    with open(db, "r+b") as f:
        for page in range(first, first + DAMAGED_PAGES):
            f.seek(page * PAGE + 300)
            data = f.read(32)
            f.seek(page * PAGE + 300)
            f.write(bytes(b ^ 0xFF for b in data))


def no_sql(line):
    for fragment in ("SELECT", "WHERE", "INSERT", "FROM ", "ORDER BY"):
        assert fragment not in line, line


def test_a_command_that_fails_half_way_writes_nothing_to_stdout(full):
    flip_middle_page(full)
    for args in (["--json"], []):
        r = run("sightings", "list", "--db", full, *args)
        line = assert_failure(r, 1, full)  # stdout is empty: no half of the list
        assert "the store is damaged" in line and "sightings" in line
        no_sql(line)


def test_long_output_is_written_whole(tmp_path):
    """Past Output.spillBytes (4 MiB) the held output goes to a temporary file and comes back whole."""
    db = tmp_path / "long.db"
    init(db)
    ok(run("sightings", "import", "--db", db, write(tmp_path, "s.csv", sighting_lines(40_000))))
    r = ok(run("sightings", "list", "--db", db, "--json"))
    assert len(r.stdout) > 4 << 20
    assert len(json.loads(r.stdout)) == 40_000


def test_a_store_cut_in_half_is_damaged_not_a_wrong_key(full):
    os.truncate(full, os.path.getsize(full) // PAGE // 2 * PAGE)
    before = full.read_bytes()
    line = assert_failure(run("store", "info", "--db", full), 1, full)
    assert "damaged" in line and "wrong key" not in line, line
    line = assert_failure(run("store", "info", "--db", full, ENCORE_DB_KEY_HEX=KEY_B), 1, full)
    assert "wrong key" in line
    assert full.read_bytes() == before


@pytest.mark.parametrize("command", [["store", "info"], ["store", "init"], ["store", "check"], ["sightings", "list"]])
def test_an_empty_file_is_refused_and_left_empty(tmp_path, command):
    db = tmp_path / "empty.db"
    db.write_bytes(b"")
    line = assert_failure(run(*command, "--db", db), 1, db)
    assert "empty" in line and "store init" not in line, line
    assert db.read_bytes() == b"" and sorted(p.name for p in tmp_path.iterdir()) == ["empty.db"]


def test_check_of_a_sound_store(full):
    r = ok(run("store", "check", "--db", full))
    assert r.stdout == f"{full}: sound: every table reads whole and SQLite's integrity check passes\n"


def test_check_names_what_is_damaged(full):
    flip_middle_page(full)
    before = full.read_bytes()
    line = assert_failure(run("store", "check", "--db", full), 1, full)
    assert "the store is damaged" in line and "the sightings table is damaged" in line, line
    no_sql(line)
    assert full.read_bytes() == before


def test_check_of_a_store_cut_in_half(full):
    os.truncate(full, os.path.getsize(full) // PAGE // 2 * PAGE)
    line = assert_failure(run("store", "check", "--db", full), 1, full)
    assert "damaged" in line


def test_salvage_copies_what_can_be_read_under_a_new_key(full, tmp_path):
    flip_middle_page(full)
    before = full.read_bytes()
    to = tmp_path / "rescued.db"
    r = ok(run("store", "salvage", "--db", full, "--to", to, "--json", ENCORE_DB_KEY_HEX=KEY_A, ENCORE_NEW_DB_KEY_HEX=KEY_B))
    report = json.loads(r.stdout)
    sightings = next(t for t in report["tables"] if t["name"] == "sightings")
    assert not report["complete"] and not sightings["complete"]
    assert ROWS - DAMAGED_PAGES * 125 <= sightings["copied"] < ROWS and sightings["lostAtMost"] >= ROWS - sightings["copied"]
    assert full.read_bytes() == before
    info = json.loads(ok(run("store", "info", "--db", to, "--json", ENCORE_DB_KEY_HEX=KEY_B)).stdout)
    assert info["counts"]["sightings"] == sightings["copied"]
    ok(run("store", "check", "--db", to, ENCORE_DB_KEY_HEX=KEY_B))


def test_salvage_text_names_the_losses(full, tmp_path):
    flip_middle_page(full)
    r = ok(run("store", "salvage", "--db", full, "--to", tmp_path / "r.db"))
    lines = r.stdout.splitlines()
    assert lines[0].startswith(f"{full} -> {tmp_path / 'r.db'}: ") and "some rows could not be read" in lines[0]
    [sightings] = [l for l in lines if l.startswith("  sightings: ")]
    assert "unreadable" in sightings and "at most" in sightings and "rows lost" in sightings
    # The same key as the damaged store's when no new one is given.
    ok(run("store", "check", "--db", tmp_path / "r.db"))


def test_salvage_refuses_an_existing_target_and_a_wrong_key(full, tmp_path):
    existing = tmp_path / "existing.db"
    existing.write_bytes(b"mine")
    line = assert_failure(run("store", "salvage", "--db", full, "--to", existing), 1)
    assert "exists" in line and existing.read_bytes() == b"mine"
    to = tmp_path / "new.db"
    line = assert_failure(run("store", "salvage", "--db", full, "--to", to, ENCORE_DB_KEY_HEX=KEY_B), 1, full)
    assert "wrong key" in line and not to.exists()


def test_sync_does_not_create_a_store(tmp_path):
    """Only `store init` creates a store (`sync` used to make a missing one)."""
    missing = tmp_path / "missing.db"
    r = run("sync", "--db", missing, "--distribution", "http://127.0.0.1:9", "--country", "DE")
    line = assert_failure(r, 1, missing)
    assert "no such store" in line
    assert list(tmp_path.iterdir()) == []
