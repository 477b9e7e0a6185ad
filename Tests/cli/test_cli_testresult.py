"""`encore test` and `encore submit` against the stand-in verification and
submission servers: a user's whole path (register, poll, positive, submit
14 enriched keys) with the stand-in's recorded SubmissionPayload decoded by
the protobuf package; exit statuses and one-line failures; secrets kept
out of the output; background noise; and a kill between the TAN and the
upload, after which the next run resumes with the same TAN."""
import hashlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))
sys.path.insert(0, str(REPO / "bindings/python"))
sys.path.insert(0, str(REPO / "Tests"))
import encore  # noqa: E402
from standins.cwa_backend import verification_and_submission  # noqa: E402

RAW_KEY = "cd" * 32
DAY = 86_400
NOW = 20_400 * DAY + 9 * 3600
GUID = "5A17E1-0FB4A2C3-1B2C-4D5E-8F90-123456789ABC"
# TRL by key age when the user has had symptoms within the last 7 days.
LAST_7_DAYS_TRL = [4, 5, 6, 7, 7, 7, 6, 5, 4, 3, 2, 1, 1, 1, 1]


def env():
    e = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    e["ENCORE_DB_KEY_HEX"] = RAW_KEY
    return e


def run(*args, **kw):
    return subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=env(), timeout=120, **kw)


@pytest.fixture
def servers():
    with verification_and_submission() as servers:
        yield servers


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "client.db"
    assert run("store", "init", "--db", path).returncode == 0
    with encore.Client.open(path, raw_key=bytes.fromhex(RAW_KEY), clock=NOW) as client:
        for age in range(16):
            day = NOW // DAY - age
            client.own_keys.put(encore.OwnKey(key_data=hashlib.sha256(b"k%d" % age).digest()[:16],
                                            rolling_start_interval_number=day * 144, created=day * DAY))
    return path


def urls(v, s):
    return ["--verification", v.url, "--submission", s.url]


def fake(r):
    return dict((k.lower(), x) for k, x in r.headers)["cwa-fake"]


def test_the_whole_path_of_a_positive_user(servers, db):
    state, v, s = servers
    state.set_result_for_guid(GUID, 0)
    r = run("test", "register", "--db", db, *urls(v, s), "--qr", "https://localhost/?" + GUID, "--now", NOW, "--json")
    assert r.returncode == 0, r.stderr
    reg = json.loads(r.stdout)
    assert reg["registered"] and reg["keyType"] == "GUID" and reg["testType"] == "pcr" and reg["result"] == "PENDING"
    token = state.registrations[0].token if hasattr(state, "registrations") else None
    r = run("test", "result", "--db", db, *urls(v, s), "--now", NOW + 60, "--json")
    assert r.returncode == 0 and json.loads(r.stdout)["nextPollAt"] == NOW + 60 + 7200

    state.set_result_for_guid(GUID, 2, sc=NOW)
    first = json.loads(run("test", "result", "--db", db, *urls(v, s), "--now", NOW + 7200, "--json").stdout)
    assert first["result"] == "POSITIVE" and first["notify"] and first["nextPollAt"] is None and first["sampleCollectedAt"] == NOW
    assert not json.loads(run("test", "result", "--db", db, *urls(v, s), "--now", NOW + 7300, "--json").stdout)["notify"]
    text = run("test", "status", "--db", db, "--now", NOW + 7300)
    assert "POSITIVE" in text.stdout

    r = run("submit", "--db", db, *urls(v, s), "--symptoms", "onset-last-7-days", "--now", NOW + 8000, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout) == {"submitted": True, "keys": 14, "checkIns": 0, "submittedAt": NOW + 8000, "unalignedKeys": 0}

    # What the submission server received, decoded with the protobuf package.
    [real] = [q for q in s.requests if fake(q) == "0"]
    payload = encore_payload(real.body)
    with encore.Client.open(db, raw_key=bytes.fromhex(RAW_KEY), clock=NOW + 8000) as client:
        own = sorted(client.own_keys.list(), key=lambda k: k.rolling_start_interval_number)[-14:]
    assert [k.key_data for k in payload.keys] == [k.key_data for k in own]
    today = (NOW + 8000) // DAY
    ages = [today - k.rolling_start_interval_number // 144 for k in payload.keys]
    assert ages == list(range(13, -1, -1))
    assert [k.transmission_risk_level for k in payload.keys] == [LAST_7_DAYS_TRL[a] for a in ages]
    assert [k.days_since_onset_of_symptoms for k in payload.keys] == [701 - a for a in ages]
    assert len(real.body) == 1000 and s.violations == [] and v.violations == []
    # No secret ever reached the output without --show-secrets.
    for out in (r.stdout, r.stderr, text.stdout, first and json.dumps(first)):
        assert "registrationToken" not in out and "tan" not in out.lower().replace("hastan", "")


def encore_payload(body):
    from standins import protos
    p = protos.SubmissionPayload()
    p.ParseFromString(body)
    return p


def test_secrets_only_when_asked(servers, db):
    state, v, s = servers
    teletan = state.issue_teletan()
    r = run("test", "register", "--db", db, *urls(v, s), "--teletan", teletan, "--json", "--show-secrets")
    assert r.returncode == 0, r.stderr
    shown = json.loads(r.stdout)["registrationToken"]
    assert len(shown) == 36
    plain = run("test", "status", "--db", db, "--json")
    assert shown not in plain.stdout and "registrationToken" not in plain.stdout


@pytest.mark.parametrize("args", [["--qr", "https://localhost/?zz"], ["--guid", "123"], ["--teletan", "AAAAAAAAAA"],
                                  ["--guid", GUID, "--dob", "1990-13-01"], ["--qr", "https://localhost/?" + GUID, "--guid", GUID], []])
def test_bad_keys_are_usage_errors_and_send_nothing(servers, db, args):
    state, v, s = servers
    r = run("test", "register", "--db", db, *urls(v, s), *args)
    assert r.returncode == 2, r.stdout + r.stderr
    assert v.requests == [] and s.requests == []


def test_a_refusal_is_one_line_naming_the_answer(servers, db):
    state, v, s = servers
    v.inject("/version/v1/registrationToken", status=403)
    r = run("test", "register", "--db", db, *urls(v, s), "--guid", GUID)
    assert r.returncode == 1 and r.stderr.count("\n") == 1 and "403" in r.stderr
    r = run("submit", "--db", db, *urls(v, s))
    assert r.returncode == 1 and "no test is registered" in r.stderr


def test_noise_is_all_fake(servers, db):
    state, v, s = servers
    assert run("test", "noise", "--db", db, *urls(v, s)).returncode == 0
    assert [(q.path, fake(q)) for q in v.requests] == [("/version/v1/tan", "1")] * 2
    assert [(q.path, fake(q)) for q in s.requests] == [("/version/v1/diagnosis-keys", "1")]


def test_killed_between_tan_and_upload_resumes_with_the_same_tan(servers, db):
    state, v, s = servers
    assert run("test", "register", "--db", db, *urls(v, s), "--teletan", state.issue_teletan()).returncode == 0
    # The upload hangs and is then dropped unprocessed: SIGKILL lands while
    # the TAN is stored and the upload in flight.
    s.inject("/version/v1/diagnosis-keys", delay=30, drop=True)
    child = subprocess.Popen([str(CLI), "submit", "--db", str(db), *urls(v, s), "--now", str(NOW)], env=env(),
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + 20
    while not [q for q in s.requests if fake(q) == "0"] and time.monotonic() < deadline:
        time.sleep(0.02)
    assert child.poll() is None, child.communicate()
    child.send_signal(signal.SIGKILL)
    child.wait()
    s.clear_faults()
    status = json.loads(run("test", "status", "--db", db, "--json").stdout)
    assert status["hasTan"] and status["submittedAt"] is None
    r = run("submit", "--db", db, *urls(v, s), "--now", NOW + 60, "--json")
    assert r.returncode == 0, r.stderr
    real_tans = [q for q in v.requests if q.path == "/version/v1/tan" and fake(q) == "0"]
    assert len(real_tans) == 1 and len(s.submissions) == 1


def test_a_failed_tan_request_names_the_verification_server(servers, db):
    """The TAN comes from the verification server: when its request fails,
    the one line names that server's request, not the submission server
    (issue 48: the line used to start with the submission server's URL)."""
    state, v, s = servers
    state.set_result_for_guid(GUID, 2, sc=NOW)
    assert run("test", "register", "--db", db, *urls(v, s), "--guid", GUID, "--now", NOW).returncode == 0
    assert run("test", "result", "--db", db, *urls(v, s), "--now", NOW + 60).returncode == 0
    v.inject("/version/v1/tan", status=500)
    r = run("submit", "--db", db, *urls(v, s), "--now", NOW + 120)
    assert r.returncode == 1 and r.stdout == "" and r.stderr.count("\n") == 1, r.stderr
    assert s.url not in r.stderr, r.stderr
    assert r.stderr.startswith("encore: submit: ") and "500" in r.stderr, r.stderr
    assert "the verification server answered 500" in r.stderr, r.stderr
    assert [q.path for q in s.requests if fake(q) == "0"] == []
