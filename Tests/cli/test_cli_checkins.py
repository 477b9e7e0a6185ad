"""`encore checkin` end to end (issue 16's "done when"): a check-in made from
a real CWA QR string, a trace warning package made here with the spec's
crypto (AES-256-CBC + HMAC-SHA256, written with the `cryptography` package
independently of encore) and signed like key files, then `encore checkin
match` and `encore check` show the match, its minutes and the combined HIGH
day; and hostile QR codes and packages get distinct failures."""
import base64
import hashlib
import json
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests"))
from standins import checkin_reports, keyfiles, protos  # noqa: E402
from test_cli_match import run  # noqa: E402

REAL_QR = ("https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURh"
           "OIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA")
DAY = 86_400
NOW = 20_400 * DAY + 20 * 3600           # 20:00 UTC
VISIT = (NOW - 8 * 3600, NOW - 6 * 3600)  # 12:00 to 14:00 today


def location_id(qr):
    payload = base64.urlsafe_b64decode(qr.split("#", 1)[1] + "=" * (-len(qr.split("#", 1)[1]) % 4))
    return hashlib.sha256(b"CWA-GUID" + payload).digest()


def report(loc, start_interval, period, trl):
    """A CheckInProtectedReport as CWA's server publishes it (checkins.md)."""
    return checkin_reports.seal(loc, start_interval, period, trl)


@pytest.fixture
def signer(tmp_path):
    s = keyfiles.SigningKey()
    pem = tmp_path / "cwa.pem"
    s.write_public_pem(pem)
    return s, s.trust_arg(pem)


def package(tmp_path, signer, reports, name="twp.zip"):
    twp = protos.TraceWarningPackage(intervalNumber=NOW // 3600, region="DE", checkInProtectedReports=reports)
    path = tmp_path / name
    path.write_bytes(keyfiles.signed_package(twp.SerializeToString(), [signer]))
    return path


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "client.db"
    assert run("store", "init", "--db", path).returncode == 0
    return path


def test_a_real_qr_code_a_warning_and_the_combined_high_day(tmp_path, db, signer):
    s, trust = signer
    r = run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", VISIT[0], "--end", VISIT[1], "--now", NOW)
    assert r.returncode == 0, r.stderr
    checkin_id = int(r.stdout)
    listed = json.loads(run("checkin", "list", "--db", db, "--json", "--now", NOW).stdout)
    assert "Agway Inc." in json.dumps(listed)

    # A positive visitor was there 13:00-15:00 (TRL 7): 60 minutes overlap.
    loc = location_id(REAL_QR)
    other = report(hashlib.sha256(b"another place").digest(), (NOW - 7 * 3600) // 600, 12, 7)
    twp = package(tmp_path, s, [report(loc, (NOW - 7 * 3600) // 600, 12, 7), other])
    r = run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW, "--json", twp)
    assert r.returncode == 0, r.stderr
    m = json.loads(r.stdout)
    assert m["skippedReports"] == 0
    assert len(m["matches"]) == 1
    match = m["matches"][0]
    assert match["checkin"] == checkin_id and match["locationIdHash"] == hashlib.sha256(loc).hexdigest()
    assert match["overlapMinutes"] == 60 and match["transmissionRiskLevel"] == 7
    today = "%04d-%02d-%02d" % __import__("time").gmtime(NOW)[:3]
    assert match["date"] == today
    # TRL 7 → 1.4; 60 min × 1.4 = 84 ≥ 10: HIGH.
    assert m["days"] == [{"date": today, "normalizedTime": pytest.approx(84.0), "riskLevel": "HIGH"}]
    assert m["totalRiskLevel"] == "HIGH"

    # The exposure check combines it: HIGH even without any exposure window.
    keys = tmp_path / "keys.zip"
    keys.write_bytes(keyfiles.key_file([keyfiles.make_key(day="2025-11-07")], s, end_timestamp=NOW - 3600))
    r = run("check", "--db", db, "--trust", trust, "--now", NOW, "--json", keys)
    assert r.returncode == 0, r.stderr
    check = json.loads(r.stdout)
    assert check["status"] == "HIGH" and check["windowCount"] == 0
    text = run("check", "--db", db, "--trust", trust, "--now", NOW, keys)
    assert "HIGH" in text.stdout and "60" in text.stdout

    # Matching the same package again adds nothing.
    again = json.loads(run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW, "--json", twp).stdout)
    assert len(again["matches"]) == 1


def test_hostile_reports_are_skipped_and_counted(tmp_path, db, signer):
    s, trust = signer
    assert run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", VISIT[0], "--end", VISIT[1], "--now", NOW).returncode == 0
    loc = location_id(REAL_QR)
    good = report(loc, (NOW - 7 * 3600) // 600, 12, 7)
    bad_mac = report(loc, (NOW - 7 * 3600) // 600, 12, 7)
    bad_mac.mac = bytes(32)
    short = report(loc, (NOW - 7 * 3600) // 600, 12, 7)
    short.encryptedCheckInRecord = short.encryptedCheckInRecord[:8]
    twp = package(tmp_path, s, [good, bad_mac, short])
    m = json.loads(run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW, "--json", twp).stdout)
    assert len(m["matches"]) == 1 and m["skippedReports"] == 2


def test_bad_qr_codes_and_packages_fail_clearly(tmp_path, db, signer):
    s, trust = signer
    cases = [
        "https://example.com?v=1#" + REAL_QR.split("#")[1],          # not CWA
        "https://e.coronawarn.app?v=9#" + REAL_QR.split("#")[1],     # unknown version
        "https://e.coronawarn.app?v=1#@@@@",                         # not base64url
        "https://e.coronawarn.app?v=1#AAAA",                         # not a QRCodePayload
    ]
    messages = set()
    for qr in cases:
        r = run("checkin", "add", "--db", db, "--qr", qr, "--start", VISIT[0], "--now", NOW)
        assert r.returncode != 0 and r.stderr.strip(), qr
        messages.add(r.stderr.strip())
    assert len(messages) == len(cases)
    # An end before the start.
    r = run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", VISIT[1], "--end", VISIT[0], "--now", NOW)
    assert r.returncode != 0
    # A package signed by a stranger, and one that is not a TraceWarningPackage.
    stranger = keyfiles.SigningKey()
    twp = package(tmp_path, stranger, [])
    assert run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW, twp).returncode == 1
    garbage = tmp_path / "garbage.zip"
    garbage.write_bytes(keyfiles.signed_package(b"\xff\xff\xff", [s]))
    r = run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW, garbage)
    assert r.returncode == 1 and r.stderr.strip()
    # No package at all is a usage error.
    assert run("checkin", "match", "--db", db, "--now", NOW).returncode == 2
    # Unverified on request is a usage error too: nothing unverified is stored.
    r = run("checkin", "match", "--db", db, "--no-verify", "--now", NOW, twp)
    assert r.returncode == 2 and "verified" in r.stderr


def test_the_json_shapes_and_the_text(tmp_path, db, signer):
    """`checkin match --json` has exactly the issue's members; `check --json`
    carries the check-ins' part and the combined day; the text says the
    minutes; list, end, delete and report round-trip."""
    s, trust = signer
    first = int(run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", VISIT[0], "--now", NOW).stdout)
    assert run("checkin", "end", "--db", db, first, "--end", VISIT[1]).returncode == 0
    second = int(run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", NOW - 3600, "--end", NOW - 1800, "--now", NOW).stdout)
    listed = json.loads(run("checkin", "list", "--db", db, "--json", "--now", NOW).stdout)["checkins"]
    assert [(c["id"], c["start"], c["end"]) for c in listed] == [(first, VISIT[0], VISIT[1]), (second, NOW - 3600, NOW - 1800)]
    assert run("checkin", "end", "--db", db, 9999, "--end", NOW).returncode == 1
    assert run("checkin", "end", "--db", db, first, "--end", VISIT[0] - 60).returncode == 1

    loc = location_id(REAL_QR)
    twp = package(tmp_path, s, [report(loc, (NOW - 7 * 3600) // 600, 12, 7)])
    r = run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW, "--json", twp)
    m = json.loads(r.stdout)
    assert list(m) == ["matches", "days", "totalRiskLevel", "skippedReports"]
    assert [list(x) for x in m["matches"]] == [["checkin", "locationIdHash", "overlapMinutes", "transmissionRiskLevel", "normalizedTime", "date"]]
    assert [list(x) for x in m["days"]] == [["date", "normalizedTime", "riskLevel"]]
    assert m["matches"][0]["checkin"] == first  # the later visit (19:00-19:30) does not overlap 13:00-15:00
    text = run("checkin", "match", "--db", db, "--trust", trust, "--now", NOW, twp).stdout
    assert "check-in risk: HIGH" in text and "60 min overlap" in text and "TRL 7" in text

    keys = tmp_path / "keys.zip"
    keys.write_bytes(keyfiles.key_file([keyfiles.make_key(day="2025-11-07")], s, end_timestamp=NOW - 3600))
    check = json.loads(run("check", "--db", db, "--trust", trust, "--now", NOW, "--json", keys).stdout)
    today = "%04d-%02d-%02d" % __import__("time").gmtime(NOW)[:3]
    assert check["checkIns"]["totalRiskLevel"] == "HIGH" and check["checkIns"]["matches"][0]["overlapMinutes"] == 60
    assert check["combined"]["days"] == [{"date": today, "riskLevel": "HIGH", "exposureWindows": None, "checkIns": "HIGH"}]
    text = run("check", "--db", db, "--trust", trust, "--now", NOW, keys).stdout
    assert "60 min overlap" in text and f"combined {today}: HIGH" in text

    # A submission's reports: 12:00-14:00 derived to 12:00-14:30 (decay), the
    # record readable with the location's key by anyone who scanned the code.
    reports = json.loads(run("checkin", "report", "--db", db, "--now", NOW, "--json").stdout)["reports"]
    mine = [x for x in reports if x["checkin"] == first]
    assert len(mine) == 1 and mine[0]["startIntervalNumber"] * 600 == VISIT[0] and mine[0]["period"] == 15
    record = checkin_reports.open_report(loc, *(bytes.fromhex(mine[0][k]) for k in ("iv", "encryptedCheckInRecord", "mac")))
    assert (record.startIntervalNumber, record.period, record.transmissionRiskLevel) == (VISIT[0] // 600, 15, mine[0]["transmissionRiskLevel"])

    # A bad --config file, and deleting: its warnings go with it.
    bad = tmp_path / "bad.json"
    bad.write_text('{"transmissionRiskValueMapping": 5}')
    r = run("checkin", "match", "--db", db, "--config", bad, "--trust", trust, "--now", NOW, twp)
    assert r.returncode == 1 and r.stderr.strip()
    assert run("checkin", "delete", "--db", db, first).returncode == 0
    assert run("checkin", "delete", "--db", db, first).returncode == 1
    check = json.loads(run("check", "--db", db, "--trust", trust, "--now", NOW, "--json", keys).stdout)
    assert check["checkIns"]["totalRiskLevel"] == "LOW" and check["status"] != "HIGH"


def test_a_private_crowdnotifier_checkin(tmp_path, db):
    """`checkin add --private` (issue 41): listed as a private visit, nothing
    of the venue in `list`; `checkin end` needs `--qr` (without it exit 1,
    the check-in unchanged); a CWA code cannot be private."""
    qr = run("crowdnotifier", "venue", "--name", "Hidden Bar", "--address", "Nowhere 1", "--out-secret", tmp_path / "msk").stdout.strip()
    added = json.loads(run("checkin", "add", "--db", db, "--qr", qr, "--start", NOW - 1800, "--now", NOW, "--private", "--json").stdout)
    assert added["checkin"]["private"] is True and "description" not in added["checkin"]
    assert added["location"]["description"] == "Hidden Bar"  # what the QR code on the command line says, not the store
    cid = added["checkin"]["id"]
    listed = json.loads(run("checkin", "list", "--db", db, "--json", "--now", NOW).stdout)["checkins"]
    assert listed == [{"id": cid, "start": NOW - 1800, "end": None, "autoEnd": listed[0]["autoEnd"], "submitted": False,
                       "kind": "swisscovid", "private": True}]
    text = run("checkin", "list", "--db", db, "--now", NOW).stdout
    assert "private visit (swisscovid)" in text and "Hidden Bar" not in text and "Nowhere" not in text
    r = run("checkin", "end", "--db", db, cid, "--end", NOW - 60)
    assert r.returncode == 1 and "needs the venue's QR code" in r.stderr
    assert json.loads(run("checkin", "list", "--db", db, "--json", "--now", NOW).stdout)["checkins"] == listed
    assert run("checkin", "end", "--db", db, cid, "--end", NOW - 60, "--qr", qr).returncode == 0
    assert json.loads(run("checkin", "list", "--db", db, "--json", "--now", NOW).stdout)["checkins"][0]["end"] == NOW - 60
    r = run("checkin", "add", "--db", db, "--qr", REAL_QR, "--start", NOW - 1800, "--now", NOW, "--private")
    assert r.returncode == 1 and "cannot be private" in r.stderr
