"""A store damaged on disk (issue 48): damage is ENCORE_ERR_STORE_CORRUPT,
never a wrong key; an empty file is not made a store; the integrity check
says what is damaged; a salvage copies what can still be read.

Each store here is made through the library with a raw key and thousands
of sightings (so that they fill many pages), then damaged with plain file
writes: bytes flipped in a page, a page zeroed, the file cut to half its
pages or in the middle of a page, a garbage WAL, an empty file. SQLCipher
checks each page's MAC as it decrypts it, and the store's first page (the
salt and the key check) is left intact, so the key is right in every case
and only a key that is not the store's may be called wrong.

Tests run as root, which reads any file whatever its mode: an unreadable
store (chmod 000) cannot be made here, so it is not tested.
"""
import ctypes
import json
import os
import shutil

import pytest

import storelib

ffi = storelib.ffi
lib = storelib.lib
KEY = bytes(range(1, 33))
OTHER = bytes(range(2, 34))
PAGE = 4096
ROWS = 6000


def key(data=KEY):
    return storelib.make_key(data, raw=True)


def rows(n=ROWS):
    return [(1_600_000_000 + i, i.to_bytes(16, "big"), i.to_bytes(4, "big"), -60, None) for i in range(n)]


@pytest.fixture
def store_path(tmp_path):
    path = str(tmp_path / "store.db")
    handle = storelib.open_store(path, key())
    try:
        storelib.add(handle, rows())
    finally:
        storelib.close(handle)
    assert not os.path.exists(path + "-wal") or os.path.getsize(path + "-wal") == 0
    assert os.path.getsize(path) % PAGE == 0 and os.path.getsize(path) > 40 * PAGE
    return path


def pages(path):
    return os.path.getsize(path) // PAGE


def overwrite(path, offset, data):
    with open(path, "r+b") as f:
        f.seek(offset)
        f.write(data)


def snapshot(path):
    return {s: open(path + s, "rb").read() for s in ("", "-wal") if os.path.exists(path + s)}


def status_and_error(path, k=None, options=None):
    status, handle = storelib.open_status(path, k or key(), options)
    message = storelib.last_error()
    if handle is not None:
        storelib.close(handle)
    return status, message


def read_everything(path):
    """The status of opening the store and reading every sighting."""
    status, handle = storelib.open_status(path, key())
    if status != storelib.OK:
        return status
    try:
        storelib.copy_all(handle)
        return storelib.OK
    except storelib.StoreError as e:
        return e.status
    finally:
        storelib.close(handle)


def salvage(path, to, k=None, new_key=None):
    """(status, report as a dict or None)."""
    out = ffi.encore_bytes()
    status = lib.encore_store_salvage(os.fsencode(path), ctypes.byref(k or key()), os.fsencode(to),
                                      ctypes.byref(new_key or key()), ctypes.byref(out))
    if status != storelib.OK:
        return status, None
    try:
        return status, json.loads(ctypes.string_at(out.data, out.length))
    finally:
        lib.encore_bytes_free(ctypes.byref(out))


# How many pages around the middle are damaged: which page holds what moves
# as the features' tables grow (a single middle page once turned out to be
# one no table reads), and four always hit the sightings' rows (about 110 a
# page) without taking more than a few hundred of them.
DAMAGED_PAGES = 4


def damage_middle(path, how):
    first = pages(path) // 2 - DAMAGED_PAGES // 2
    for page in range(first, first + DAMAGED_PAGES):
        at = page * PAGE
        if how == "flipped":
            with open(path, "rb") as f:
                f.seek(at + 200)
                data = f.read(64)
            overwrite(path, at + 200, bytes(b ^ 0xFF for b in data))
        else:
            overwrite(path, at, bytes(PAGE))


@pytest.mark.parametrize("how", ["flipped", "zeroed"])
def test_a_damaged_page_is_corrupt_not_a_wrong_key(store_path, how):
    damage_middle(store_path, how)
    assert read_everything(store_path) == ffi.ENCORE_ERR_STORE_CORRUPT
    handle = storelib.open_store(store_path, key())
    try:
        assert storelib.integrity_status(handle) == ffi.ENCORE_ERR_STORE_CORRUPT
        message = storelib.last_error()
        assert "sightings" in message and "SELECT" not in message and "WHERE" not in message, message
    finally:
        storelib.close(handle)


def test_a_store_cut_to_half_its_pages_is_damaged_and_left_as_it_is(store_path):
    os.truncate(store_path, pages(store_path) // 2 * PAGE)
    before = snapshot(store_path)
    status, message = status_and_error(store_path)
    assert status == ffi.ENCORE_ERR_STORE_CORRUPT, (storelib.status_name(status), message)
    assert "damaged" in message and "wrong key" not in message
    assert snapshot(store_path) == before
    # Another key is still a wrong key: only the first page tells.
    assert status_and_error(store_path, key(OTHER))[0] == ffi.ENCORE_ERR_STORE_WRONG_KEY
    assert snapshot(store_path) == before


def test_a_store_cut_in_the_middle_of_a_page_is_damaged(store_path):
    os.truncate(store_path, os.path.getsize(store_path) - 100)
    before = snapshot(store_path)
    assert status_and_error(store_path)[0] == ffi.ENCORE_ERR_STORE_CORRUPT
    assert status_and_error(store_path, key(OTHER))[0] == ffi.ENCORE_ERR_STORE_NOT_DATABASE
    assert snapshot(store_path) == before


@pytest.mark.parametrize("create", [False, True])
def test_an_empty_file_is_not_made_a_store(tmp_path, create):
    path = str(tmp_path / "empty.db")
    open(path, "wb").close()
    status, message = status_and_error(path, options=storelib.make_options(create=create))
    assert status == ffi.ENCORE_ERR_STORE_MISSING, (storelib.status_name(status), message)
    assert "empty" in message
    assert os.path.getsize(path) == 0
    assert sorted(os.listdir(tmp_path)) == ["empty.db"]


def test_a_directory_is_not_a_store(tmp_path):
    path = tmp_path / "dir.db"
    path.mkdir()
    assert status_and_error(str(path))[0] == ffi.ENCORE_ERR_IO
    assert salvage(str(path), str(tmp_path / "new.db"))[0] == ffi.ENCORE_ERR_IO
    assert not (tmp_path / "new.db").exists()


def test_a_garbage_wal_is_ignored_and_the_store_reads_whole(store_path):
    """SQLite checks the WAL's header and frames by checksum: garbage is no
    WAL at all, and the store reads as it was last checkpointed."""
    with open(store_path + "-wal", "wb") as f:
        f.write(os.urandom(3 * PAGE + 32))
    assert read_everything(store_path) == storelib.OK
    handle = storelib.open_store(store_path, key())
    try:
        assert storelib.count(handle) == ROWS
        assert storelib.integrity_status(handle) == storelib.OK
    finally:
        storelib.close(handle)


@pytest.mark.parametrize("how", ["flipped", "zeroed"])
def test_salvage_copies_every_readable_row_and_says_what_was_lost(store_path, tmp_path, how):
    damage_middle(store_path, how)
    before = snapshot(store_path)
    to = str(tmp_path / "rescued.db")
    status, report = salvage(store_path, to, new_key=key(OTHER))
    assert status == storelib.OK, storelib.last_error()
    assert snapshot(store_path) == before  # the damaged store is only read
    tables = {t["name"]: t for t in report["tables"]}
    sightings = tables["sightings"]
    assert not report["complete"] and not sightings["complete"]
    assert sightings["unreadable"] and sightings["lostAtMost"] is not None
    # One page of ~100 sightings is lost; everything else came across.
    assert ROWS - DAMAGED_PAGES * 125 <= sightings["copied"] < ROWS
    assert sightings["copied"] + sightings["lostAtMost"] >= ROWS
    assert all(t["complete"] for name, t in tables.items() if name != "sightings")
    # The new store opens with its own key, is sound, and holds those rows.
    handle = storelib.open_store(to, key(OTHER))
    try:
        assert storelib.integrity_status(handle) == storelib.OK
        assert storelib.count(handle) == sightings["copied"]
        copied = storelib.copy_all(handle)
        assert set(copied) <= set(rows())
    finally:
        storelib.close(handle)


def test_salvage_of_a_sound_store_is_complete(store_path, tmp_path):
    to = str(tmp_path / "copy.db")
    status, report = salvage(store_path, to)
    assert status == storelib.OK and report["complete"] and report["rowsCopied"] >= ROWS
    handle = storelib.open_store(to, key())
    try:
        assert storelib.copy_all(handle) == rows()
    finally:
        storelib.close(handle)


def test_salvage_of_a_store_cut_in_half(store_path, tmp_path):
    os.truncate(store_path, pages(store_path) // 2 * PAGE)
    status, report = salvage(store_path, str(tmp_path / "half.db"))
    assert status == storelib.OK, storelib.last_error()
    assert not report["complete"]
    assert 0 < report["rowsCopied"] < ROWS


def test_salvage_refusals_leave_nothing(store_path, tmp_path):
    to = str(tmp_path / "new.db")
    assert salvage(store_path, to, k=key(OTHER))[0] == ffi.ENCORE_ERR_STORE_WRONG_KEY
    assert not os.path.exists(to)
    existing = tmp_path / "existing.db"
    existing.write_bytes(b"keep me")
    assert salvage(store_path, str(existing))[0] == ffi.ENCORE_ERR_INVALID_ARGUMENT
    assert existing.read_bytes() == b"keep me"
    empty = tmp_path / "empty.db"
    empty.write_bytes(b"")
    assert salvage(str(empty), to)[0] == ffi.ENCORE_ERR_STORE_MISSING
    assert not os.path.exists(to)
