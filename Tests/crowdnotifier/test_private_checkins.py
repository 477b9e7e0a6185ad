"""Private CrowdNotifier check-ins (issue 41) against the pymcl reference
and at rest: `encore checkin add --private` keeps what the SDKs keep (the
day and each hour's c1, c2, c3 and nonce), which the reference's trace keys
open as they open a diary check-in's; the store, read with the sqlcipher
command-line tool and the key, holds no run of the venue's QR payload,
location id, name, address or anything derived from them (its hours'
identities, preId, notification key), and its schema refuses them in a
private row; a private check-in cannot be ended without its QR code."""
import hashlib
import json
import shutil
import subprocess
from pathlib import Path

import pytest

import cn_reference as ref
from test_crowdnotifier import backend_pem, encore, match  # noqa: F401  (the suite's helpers)

EVENING = 1795629600  # 2026-11-25T18:00:00Z
MIDNIGHT = EVENING + 6 * 3600
NOW = MIDNIGHT + 86400
PASSPHRASE = "crowdnotifier tests"  # what encore() gives the CLI as ENCORE_DB_KEY
NAME, ADDRESS = "Privatissimo Zeta", "Geheimgasse 77, Bern"


@pytest.fixture(scope="module")
def sqlcipher():
    path = shutil.which("sqlcipher")
    if path is None:
        pytest.fail("the sqlcipher command-line tool is missing: install the Debian package `sqlcipher`", pytrace=False)
    return path


def dump(tool, db):
    """Every table of the store as SQL text (blobs as X'HEX'), read with the passphrase."""
    script = f"PRAGMA key = '{PASSPHRASE}';\nPRAGMA cipher_page_size = 4096;\n.dump\n"
    done = subprocess.run([tool, "-batch", str(db)], input=script, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0 and "CREATE TABLE check_ins" in done.stdout, done.stderr
    return done.stdout


def query(tool, db, sql):
    script = f"PRAGMA key = '{PASSPHRASE}';\nPRAGMA cipher_page_size = 4096;\n{sql};\n"
    done = subprocess.run([tool, "-batch", str(db)], input=script, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    return [line.split("|") for line in done.stdout.splitlines() if line]


def secrets_of(venue, days):
    """What must not be kept of a venue: its payload, ids, texts and what they derive (hex, upper case)."""
    location_id = hashlib.sha256(b"CWA-GUID" + venue.payload).digest()
    pre, time_key, notification_key = ref.nonces(venue.payload)
    pre_id = ref.sha256(b"CN-PREID", venue.payload, pre)
    identities = [ref.identity(venue.payload, day + h * 3600) for day in days for h in range(24)]
    return {"payload": venue.payload, "location id": location_id, "location id hash": hashlib.sha256(location_id).digest(),
            "name": NAME.encode(), "address": ADDRESS.encode(), "public key": venue.mpk, "preId": pre_id,
            "time key nonce": time_key, "notification key": notification_key, **{f"identity {i}": x for i, x in enumerate(identities)}}


def found(text, secret, window=8):
    """Whether any `window` bytes of `secret` appear in the dump, as a blob's hex or as text."""
    hex_text = text.upper()
    for i in range(max(1, len(secret) - window + 1)):
        part = secret[i:i + window]
        if part.hex().upper() in hex_text:
            return True
        try:
            if part.decode("utf-8") in text:
                return True
        except UnicodeDecodeError:
            pass
    return False


def visit(db, venue, *extra):
    """A visit across UTC midnight (23:10 to 01:40), its id."""
    return int(encore("checkin", "add", "--db", db, "--qr", venue.qr, "--start", MIDNIGHT - 3000, "--end", MIDNIGHT + 6000,
                      "--now", NOW, *extra).stdout)


@pytest.mark.parametrize("layout", ["swisscovid", "notifyme"])
def test_private_checkin_matches_reference_trace_keys_as_a_diary_one(tmp_path, layout):
    venue = ref.Venue(name=NAME, address=ADDRESS, kind=layout)
    dbs = {}
    for mode in ("diary", "private"):
        dbs[mode] = tmp_path / f"{mode}.db"
        encore("store", "init", "--db", dbs[mode])
        visit(dbs[mode], venue, *(["--private"] if mode == "private" else []))
    (listed,) = json.loads(encore("checkin", "list", "--db", dbs["private"], "--now", NOW, "--json").stdout)["checkins"]
    assert listed["private"] is True and listed["kind"] == layout and "description" not in listed and "address" not in listed
    assert (listed["start"], listed["end"]) == (MIDNIGHT - 3000, MIDNIGHT + 6000)
    text = encore("checkin", "list", "--db", dbs["private"], "--now", NOW).stdout
    assert "private visit" in text and NAME not in text
    # Keys made by pymcl for 22:30-00:20: the visit's 23:00 hour (one day) and 00:00 hour (the next).
    keys = tmp_path / "keys.pb"
    keys.write_bytes(venue.trace_keys(MIDNIGHT - 5400, MIDNIGHT + 1200, "Bitte testen", layout=layout))
    found_matches = {}
    for mode, db in dbs.items():
        doc = match(db, keys)
        found_matches[mode] = sorted((m["date"], m["arrival"], m["departure"], m["start"], m["end"], m["message"])
                                     for m in doc["crowdNotifierMatches"])
        assert doc["traceKeys"]["matches"] == 2 and len(doc["traceKeys"]["new"]) == 2
        identities = {m["identity"] for m in doc["crowdNotifierMatches"]}
        venue_identities = {ref.identity(venue.payload, h).hex() for h in (MIDNIGHT - 3600, MIDNIGHT)}
        # A diary visit's match names the hour's identity; a private one's does not.
        assert (identities == venue_identities) == (mode == "diary")
        assert match(db, keys)["traceKeys"]["new"] == []
    assert found_matches["diary"] == found_matches["private"] and len({m[0] for m in found_matches["private"]}) == 2


def test_private_checkin_cannot_end_without_its_qr_code(tmp_path):
    venue, other = ref.Venue(name=NAME, address=ADDRESS), ref.Venue(kind="notifyme")
    db = tmp_path / "client.db"
    encore("store", "init", "--db", db)
    cid = visit(db, venue, "--private")
    before = encore("checkin", "list", "--db", db, "--now", NOW, "--json").stdout
    p = encore("checkin", "end", "--db", db, cid, "--end", MIDNIGHT + 60, check=False)
    assert p.returncode == 1 and "QR code" in p.stderr and "private" in p.stderr
    p = encore("checkin", "end", "--db", db, cid, "--end", MIDNIGHT + 60, "--qr", other.qr, check=False)
    assert p.returncode == 1 and "swisscovid" in p.stderr
    assert encore("checkin", "list", "--db", db, "--now", NOW, "--json").stdout == before
    encore("checkin", "end", "--db", db, cid, "--end", MIDNIGHT + 60, "--qr", venue.qr)
    (listed,) = json.loads(encore("checkin", "list", "--db", db, "--now", NOW, "--json").stdout)["checkins"]
    assert listed["end"] == MIDNIGHT + 60 and listed["private"] is True


def test_private_store_keeps_nothing_of_the_venue(sqlcipher, tmp_path):
    venue = ref.Venue(name=NAME, address=ADDRESS)
    days = [MIDNIGHT - 86400, MIDNIGHT]
    secrets = secrets_of(venue, days)
    keys = tmp_path / "keys.pb"
    keys.write_bytes(venue.trace_keys(MIDNIGHT - 1800, MIDNIGHT + 1200, "Bitte testen"))
    dumps = {}
    for mode in ("diary", "private"):
        db = tmp_path / f"{mode}.db"
        encore("store", "init", "--db", db)
        extra = ["--private"] if mode == "private" else []
        cid = visit(db, venue, *extra)
        # Edited (checked out earlier, with the QR code) and matched: every table written.
        encore("checkin", "end", "--db", db, cid, "--end", MIDNIGHT + 5000, "--qr", venue.qr)
        assert match(db, keys)["traceKeys"]["matches"] == 2
        dumps[mode] = dump(sqlcipher, db)
        # The hours as the SDKs keep them: the reference opens each with pymcl's key of its hour.
        hours = query(sqlcipher, db, "SELECT day, hex(c1), hex(c2), hex(c3), hex(nonce) FROM crowdnotifier_hours ORDER BY rowid")
        assert [int(h[0]) for h in hours] == [days[0], days[1], days[1]]
        for (day, c1, c2, c3, nonce), hour in zip(hours, (MIDNIGHT - 3600, MIDNIGHT, MIDNIGHT + 3600)):
            ident = ref.identity(venue.payload, hour)
            record = ref.decrypt(venue.secret_key(ident), ident, *(bytes.fromhex(x) for x in (c1, c2, c3, nonce)))
            assert record is not None and record[1:17] == (MIDNIGHT - 3000).to_bytes(8, "big") + (MIDNIGHT + 5000).to_bytes(8, "big")
    # The diary store keeps the venue readable: the check can see it.
    assert all(found(dumps["diary"], secrets[name]) for name in ("payload", "location id", "location id hash", "name", "address"))
    # The private one keeps none of it.
    leaked = [name for name, secret in secrets.items() if found(dumps["private"], secret)]
    assert leaked == [], leaked
    assert 'INSERT INTO "check_ins"' in dumps["private"] and 'INSERT INTO "crowdnotifier_exposures"' in dumps["private"]
    # The schema holds a private row to it: no venue text or payload can be written into one.
    for change in ("description = 'Privatissimo Zeta'", "payload = x'0804'", "location_id = randomblob(32)", "kind = 0"):
        script = f"PRAGMA key = '{PASSPHRASE}';\nPRAGMA cipher_page_size = 4096;\nUPDATE check_ins SET {change} WHERE private = 1;\n"
        done = subprocess.run([sqlcipher, "-batch", str(tmp_path / "private.db")], input=script, capture_output=True, text=True, timeout=120)
        assert "CHECK constraint failed" in done.stderr, (change, done.stderr)
