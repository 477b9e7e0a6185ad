"""Rapid antigen and rapid PCR tests with `encore test` and `encore submit`
against the stand-in verification and submission servers, the codes made
and the results uploaded by the stand-in point-of-care portal
(standins/poc.py): the issue's "done when" (register by the three QR kinds;
pending, negative, positive and invalid with the sample time; a positive
rapid test submits keys, with the right submission type), the hash check,
and the corrected answers (400 for an unknown token, 403 only for a
date-of-birth mismatch)."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_cli_testresult import DAY, GUID, NOW, db, encore_payload, fake, run, servers, urls  # noqa: E402,F401
from standins import poc  # noqa: E402

HOUR = 3600
PERSONAL = dict(fn="Jacob", ln="Tyler", dob="1963-03-17")


def register(v, s, db, url, *extra, now=NOW):
    return run("test", "register", "--db", db, *urls(v, s), "--qr", url, "--now", now, "--json", *extra)


def result(v, s, db, now):
    r = run("test", "result", "--db", db, *urls(v, s), "--now", now, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def real_requests(server, path):
    return [q for q in server.requests if q.path == path and fake(q) == "0"]


def test_a_rapid_antigen_test_from_pending_to_negative_with_its_sample_time(servers, db):
    state, v, s = servers
    url, code_hash = poc.rapid_code("rat", NOW - 600, **PERSONAL)
    r = register(v, s, db, url)
    assert r.returncode == 0, r.stderr
    reg = json.loads(r.stdout)
    # Unknown to the test result server yet: 0, pending.
    assert reg["testType"] == "rapid-antigen" and reg["rapid"] and reg["keyType"] == "GUID" and reg["result"] == "PENDING"
    assert reg["testedAt"] == NOW - 600 and reg["sampleCollectedAt"] is None
    assert reg["nextPollAt"] == NOW + 15 * 60  # every 15 min for the first 90 min
    [sent] = real_requests(v, "/version/v1/registrationToken")
    assert sent.decoded["key"] == poc.registration_key(code_hash) and sent.decoded["keyType"] == "GUID"
    assert "keyDob" not in sent.decoded

    poc.upload_result(state, code_hash, 6, sc=NOW - 300)
    neg = result(v, s, db, NOW + 900)
    assert neg["result"] == "NEGATIVE" and neg["notify"] and neg["sampleCollectedAt"] == NOW - 300 and neg["testedAt"] == NOW - 300
    assert not neg["outdated"] and neg["nextPollAt"] is None
    text = run("test", "status", "--db", db, "--now", NOW + 900).stdout
    assert "rapid antigen test" in text and "NEGATIVE" in text and "sample collected" in text
    # Outdated strictly after 48 hours from the sample.
    at = lambda t: json.loads(run("test", "status", "--db", db, "--now", t, "--json").stdout)["outdated"]  # noqa: E731
    assert not at(NOW - 300 + 48 * HOUR) and at(NOW - 300 + 48 * HOUR + 1)


def test_a_positive_rapid_antigen_test_submits_keys_as_a_rapid_test(servers, db):
    state, v, s = servers
    url, code_hash = poc.rapid_code("rat", NOW - 600, url_safe=True)  # anonymous, base64url
    poc.upload_result(state, code_hash, 7, sc=NOW - 500)
    r = register(v, s, db, url)
    assert r.returncode == 0, r.stderr
    reg = json.loads(r.stdout)
    assert reg["result"] == "POSITIVE" and reg["notify"] and reg["sampleCollectedAt"] == NOW - 500
    r = run("submit", "--db", db, *urls(v, s), "--now", NOW + 60, "--json")
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["keys"] == 14
    [real] = real_requests(s, "/version/v1/diagnosis-keys")
    payload = encore_payload(real.body)
    assert payload.submissionType == 1 and len(payload.keys) == 14  # SUBMISSION_TYPE_RAPID_TEST
    assert v.violations == [] and s.violations == []


def test_a_rapid_pcr_test_is_a_pcr_test_to_the_servers(servers, db):
    state, v, s = servers
    url, code_hash = poc.rapid_code("pcr", NOW - 600, fn="Isaac", ln="Dupuy", dob="1965-12-08")
    r = register(v, s, db, url)
    assert r.returncode == 0, r.stderr
    reg = json.loads(r.stdout)
    assert reg["testType"] == "rapid-pcr" and not reg["rapid"] and reg["result"] == "PENDING"
    assert reg["nextPollAt"] == NOW + 120 * 60  # polled as a PCR test
    poc.upload_result(state, code_hash, 12, sc=NOW)  # the portal's 12 reaches the app as 2
    assert result(v, s, db, NOW + 7200)["result"] == "POSITIVE"
    assert run("submit", "--db", db, *urls(v, s), "--now", NOW + 7300).returncode == 0
    [real] = real_requests(s, "/version/v1/diagnosis-keys")
    assert encore_payload(real.body).submissionType == 0  # SUBMISSION_TYPE_PCR_TEST
    # --rapid does not turn a rapid PCR code into a rapid antigen test.
    assert run("test", "forget", "--db", db).returncode == 0
    r = register(v, s, db, poc.rapid_code("pcr")[0], "--rapid")
    assert r.returncode == 2 and "rapid PCR" in r.stderr


@pytest.mark.parametrize("kind,code,expected", [("rat", 8, "INVALID"), ("rat", 2, "INVALID"), ("rat", 1, "INVALID"),
                                                ("pcr", 13, "INVALID"), ("pcr", 7, "INVALID"), ("pcr", 11, "NEGATIVE")])
def test_each_kind_files_the_servers_codes_as_the_app_does(servers, db, kind, code, expected):
    state, v, s = servers
    url, code_hash = poc.rapid_code(kind, NOW - 60)
    assert register(v, s, db, url).returncode == 0
    # What a lab or the other kind of portal would have uploaded.
    state.set_result(poc.registration_key(code_hash), code - 10 if code >= 10 else code, sc=NOW)
    assert result(v, s, db, NOW + 60)["result"] == expected


def test_codes_that_cannot_be_right_are_usage_errors_and_send_nothing(servers, db):
    state, v, s = servers
    good, code_hash = poc.rapid_code("rat", NOW)
    wrong = poc.rapid_code("rat", NOW, hash="0" * 64)[0]
    incomplete = poc.rapid_code("rat", NOW, extra={"fn": "Max"})[0]
    unknown = poc.rapid_code("rat", NOW, extra={"x": 1})[0]
    for url in (wrong, incomplete, unknown, good.replace("?v=1", "?v=2"), good + "!", "https://s.coronawarn.app?v=1#"):
        r = register(v, s, db, url)
        assert r.returncode == 2, (url, r.stdout, r.stderr)
    assert "hash" in register(v, s, db, wrong).stderr
    # A date of birth goes with a lab test's code only.
    assert register(v, s, db, good, "--dob", "1990-01-01").returncode == 2
    assert v.requests == [] and s.requests == []


def test_a_code_registers_once(servers, db):
    state, v, s = servers
    url, _ = poc.rapid_code("rat", NOW)
    assert register(v, s, db, url).returncode == 0
    assert run("test", "forget", "--db", db).returncode == 0
    r = register(v, s, db, url)
    assert r.returncode == 1 and "400" in r.stderr and "registered already" in r.stderr, r.stderr
    assert json.loads(run("test", "status", "--db", db, "--json").stdout)["registered"] is False


def test_an_unknown_token_is_400_and_after_21_days_redeemed(db):
    from standins.cwa_backend import verification_and_submission
    from standins.cwa_state import CwaState
    clock = [float(NOW)]
    with verification_and_submission(CwaState(clock=lambda: clock[0])) as (state, v, s):
        url, code_hash = poc.rapid_code("rat", NOW - 60)
        assert register(v, s, db, url).returncode == 0
        # The server forgot the registration (a reset, say) within 21 days: an error, the state stays.
        state.sessions.clear()
        r = run("test", "result", "--db", db, *urls(v, s), "--now", NOW + 3600)
        assert r.returncode == 1 and "400" in r.stderr and "registration token" in r.stderr, r.stderr
        assert json.loads(run("test", "status", "--db", db, "--json", "--now", NOW + 3600).stdout)["result"] == "PENDING"
        assert not any(q.status == 404 for q in v.requests)
        # Over 21 days after registration the server deleted it: 400 means redeemed.
        assert run("test", "forget", "--db", db).returncode == 0
        url, code_hash = poc.rapid_code("rat", NOW - 60)
        assert register(v, s, db, url).returncode == 0
        clock[0] = NOW + 21 * DAY + 1
        later = result(v, s, db, NOW + 21 * DAY + 1)
        assert later["result"] == "REDEEMED" and later["nextPollAt"] is None
        assert [q.status for q in real_requests(v, "/version/v1/testresult")][-1] == 400


def test_a_pending_test_is_redeemed_after_60_days(servers, db):
    state, v, s = servers
    assert register(v, s, db, poc.rapid_code("rat", NOW)[0]).returncode == 0
    status = lambda t: json.loads(run("test", "status", "--db", db, "--json", "--now", t).stdout)  # noqa: E731
    assert status(NOW + 60 * DAY)["result"] == "PENDING"
    assert status(NOW + 60 * DAY + 1)["result"] == "REDEEMED" and status(NOW + 60 * DAY + 1)["nextPollAt"] is None


def test_a_test_redeemed_at_registration_is_not_kept(servers, db):
    state, v, s = servers
    url, code_hash = poc.rapid_code("rat", NOW)
    poc.upload_result(state, code_hash, 9)
    r = register(v, s, db, url)
    assert r.returncode == 1 and "redeemed" in r.stderr, r.stderr
    assert json.loads(run("test", "status", "--db", db, "--json").stdout)["registered"] is False


def test_403_only_for_a_date_of_birth_mismatch(servers, db):
    state, v, s = servers
    # The lab reports different results under the GUID and its date-of-birth key.
    state.set_result_for_guid(GUID, 2, sc=NOW)
    state.set_result_for_guid(GUID, 1, sc=NOW, dob="01011990")
    state.set_result_for_guid(GUID, 2, sc=NOW)  # the GUID's own result differs from the dob key's
    r = run("test", "register", "--db", db, *urls(v, s), "--guid", GUID, "--dob", "1990-01-01", "--now", NOW)
    assert r.returncode == 1 and "403" in r.stderr and "date of birth" in r.stderr, r.stderr
    # A TAN refused by the server (400: not positive) is a refused TAN, not a server failure.
    assert run("test", "forget", "--db", db).returncode == 0
    url, code_hash = poc.rapid_code("rat", NOW)
    poc.upload_result(state, code_hash, 7)
    assert register(v, s, db, url).returncode == 0
    poc.upload_result(state, code_hash, 6)  # the portal corrected it before the TAN was asked for
    r = run("submit", "--db", db, *urls(v, s), "--now", NOW + 60)
    assert r.returncode == 1 and "400" in r.stderr and "TAN" in r.stderr, r.stderr
