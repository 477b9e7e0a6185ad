"""bindings/python/examples/async_sync.py: the sync driven on an asyncio
loop with httpx (the operation API), against the stand-in distribution
server. Its --json is `encore sync --json`'s document for the same store;
a second run fetches nothing; a tampered package fails it (exit 1) and
keeps nothing unverified; without a store key it is a usage error."""
import json
import os
import shutil
import subprocess
import sys
import time

from test_cli_sync import CONFIG, NOW, cached, day, day_path, db, dist, signer, sync_json, trust  # noqa: F401  (fixtures)
from test_cli_match import REPO, RAW_KEY

EXAMPLE = REPO / "bindings/python/examples/async_sync.py"


def example(db, dist, trust, *extra, key=True):
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    env["PYTHONPATH"] = str(REPO / "bindings/python")
    if key:
        env["ENCORE_DB_KEY_HEX"] = RAW_KEY
    return subprocess.run([sys.executable, str(EXAMPLE), "--db", str(db), "--distribution", dist.url, "--trust", trust,
                           "--now", str(NOW), *extra], capture_output=True, text=True, env=env, timeout=300)


def example_json(db, dist, trust):
    r = example(db, dist, trust, "--json")
    assert r.returncode == 0, r.stderr
    return json.loads(r.stdout)


def test_the_example_prints_what_encore_sync_prints(tmp_path, db, dist, trust):
    twin = tmp_path / "twin.db"
    shutil.copyfile(db, twin)
    started = time.monotonic()
    by_cli = sync_json(twin, dist, trust)
    by_example = example_json(db, dist, trust)
    between = time.monotonic() - started
    # The offset is the server's clock against the fixed `now` when each run
    # asks (whole seconds): the second run asks at most as many seconds later
    # as both runs took together (a loaded machine starts Python slowly).
    assert -1 <= by_example.pop("clockOffset") - by_cli.pop("clockOffset") <= between + 2
    assert by_example == by_cli
    assert by_example["check"]["status"] == "HIGH" and len(by_example["fetched"]) > 4
    assert cached(db).keys() == cached(twin).keys()
    # A second run: the configuration answers 304, nothing is fetched.
    dist.clear_requests()
    again = example_json(db, dist, trust)
    assert again["fetched"] == [] and again["check"] is None
    assert len(dist.requests_to(CONFIG)) == 1 and dist.requests_to(CONFIG)[0].header("If-None-Match")


def test_the_text_form(db, dist, trust):
    r = example(db, dist, trust)
    assert r.returncode == 0, r.stderr
    assert r.stdout.startswith("fetched: configuration, day ") and "check: ran on the cache" in r.stdout


def test_a_tampered_package_fails_and_nothing_unverified_is_kept(db, dist, trust):
    dist.inject(day_path("EUR", day(2)), tamper=True)
    r = example(db, dist, trust, "--json")
    assert r.returncode == 1 and r.stdout == "" and "async_sync.py: " in r.stderr, r.stderr
    ids = {k[1] for k in cached(db)}
    assert day(2) not in ids and day(4) in ids and day(3) in ids


def test_without_a_store_key_it_is_a_usage_error(db, dist, trust):
    r = example(db, dist, trust, key=False)
    assert r.returncode == 2 and "ENCORE_DB_KEY" in r.stderr
