"""`encore sync` when the app configuration cannot be fetched (404, 5xx) or
verified: the key files and trace warnings are synced and checked all
the same, with the last verified configuration or the built-in one; the
JSON says which and why; the failure counts for the configuration's own
backoff, not for the sync's (issue 25, part 4)."""
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent))
from test_cli_sync import (CONFIG, NOW, cached, day, db, dist, served, signer, sync, sync_json,  # noqa: E402,F401
                           trust)
from test_cli_detect import run  # noqa: E402
from standins import protos  # noqa: E402

DAYS = "/version/v1/diagnosis-keys/country/EUR/date"


def plan(db, dist, now):
    r = run("sync", "plan", "--db", db, "--distribution", dist.url, "--trigger", "periodic", "--now", now, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_a_configuration_answering_404_still_fetches_and_checks_with_the_built_in_one(db, dist, trust):
    dist.inject(CONFIG, status=404, times=None)
    out = sync_json(db, dist, trust)  # exit 0
    kinds = [f["kind"] for f in out["fetched"]]
    assert "config" not in kinds and kinds.count("day") == 4 and "hour" in kinds
    assert {k[1]: p["etag"] for k, p in cached(db).items()} == served(dist)
    assert out["configuration"]["used"] == "built-in" and "404" in out["configuration"]["reason"]
    assert out["configuration"]["failures"] == 1
    # The check ran, on the built-in parameters: the contact two days ago is found.
    assert out["check"] is not None and out["check"]["status"] == "HIGH" and out["check"]["windowCount"] == 1
    again = run_check(db)
    assert again["assessment"] == out["check"]["assessment"]
    text = sync(db, dist, trust).stdout
    assert "built-in" in text
    # Not counted for the sync's backoff: a periodic sync is due as usual.
    p = plan(db, dist, NOW + 60)
    assert p["steps"] == [] and "backing off" not in p["reason"] and p["nextDueAt"] == NOW + 3600


def run_check(db):
    r = run("check", "--db", db, "--json", "--now", NOW)
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


@pytest.mark.parametrize("status", [500, 503])
def test_a_configuration_answering_5xx_backs_off_alone(db, dist, trust, status):
    dist.inject(CONFIG, status=status, times=None)
    for n in range(1, 6):
        out = sync_json(db, dist, trust)
        assert out["configuration"] == {"used": "built-in", "reason": out["configuration"]["reason"], "failures": n}
        assert str(status) in out["configuration"]["reason"]
    assert {k[1] for k in cached(db)} == set(served(dist))
    # Five failures: the configuration waits 80 min (± 20 %), longer than
    # the hourly sync, which goes on without it.
    p = plan(db, dist, NOW + 3600)
    steps = [s["step"] for s in p["steps"]]
    assert "config" not in steps and "hours" in steps and "warnings" in steps, p
    assert "configuration is backing off after 5 failed fetches" in p["reason"]
    r = run("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", NOW + 3600, "--trigger", "periodic", "--json")
    assert r.returncode == 0, r.stderr
    out = json.loads(r.stdout)
    assert out["configuration"]["used"] == "built-in" and "backing off" in out["configuration"]["reason"]
    assert len(dist.requests_to(CONFIG)) == 5  # no sixth request
    # Served again: the next configuration fetch resets the count.
    dist.clear_faults()
    out = sync_json(db, dist, trust)
    assert out["configuration"] == {"used": "fetched", "reason": None, "failures": 0}
    assert plan(db, dist, NOW + 3600)["steps"][0]["step"] == "config"


def test_the_last_verified_configuration_is_preferred_to_the_built_in_one(db, dist, trust):
    first = sync_json(db, dist, trust)
    assert first["configuration"] == {"used": "fetched", "reason": None, "failures": 0}
    # A new configuration, but tampered with on the way: it fails verification.
    config = protos.ApplicationConfigurationAndroid()
    config.minVersionCode = 3
    dist.set_app_config(config)
    dist.inject(CONFIG, tamper=True, times=None)
    out = sync_json(db, dist, trust)
    assert out["configuration"]["used"] == "last-verified" and out["configuration"]["failures"] == 1
    assert "config" not in [f["kind"] for f in out["fetched"]]
    assert {k[1]: p["etag"] for k, p in cached(db).items()} == served(dist)
    # The stored configuration is still the one verified before.
    dist.clear_faults()
    assert sync_json(db, dist, trust)["configuration"]["used"] == "fetched"


def test_what_is_not_the_configurations_fault_still_fails_the_sync(db, dist, trust):
    # What is not the configuration's fault still fails: the day index 503.
    dist.inject(CONFIG, status=404, times=None)
    dist.inject(DAYS, status=503, times=None)
    r = sync(db, dist, trust)
    assert r.returncode == 1 and "503" in r.stderr
