#!/usr/bin/env python3
"""Matching 10 000 CrowdNotifier trace keys against a user with 30 visits of
3 hours each (3 visits a day over 10 days), through `encore checkin match`:
the time, and the pairings computed (the day and identity filters keep
them to the pairs whose key's identity is the visited venue's that day)
against the SDKs' same-day pairs and what trying every pair would cost.

  ENCORE_CLI=path/to/encore build/venv/bin/python Tests/crowdnotifier/bench_matching.py [--keys N]

The trace keys are made by the pymcl-based reference server (cn_reference):
most are for other venues on 14 days; 6 are for hours of the user's visits.

In the same run, the reference algorithm on pymcl: what the CrowdNotifier
SDKs do, one mcl pairing (sk and c1 deserialised and checked each time, as
the SDKs' decrypt does) per trace key and stored hour of the same day,
single-threaded, over the same visits encrypted by cn_reference.
--reference-keys N runs it on every k-th key only (N of them) and scales
its time by the pairings (printed as an estimate); the default runs all.
--rounds R runs both R times, alternating, and keeps the best time of each:
this machine's cores change speed by a third from one minute to the next
(other tenants), so one run of each can compare a fast minute with a slow
one.  `make bench-crowdnotifier` uses 3 rounds and 2 000 reference keys.
"""
import argparse
import json
import os
import random
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
import cn_reference as ref  # noqa: E402
from signed_trace_keys import sign_trace_keys  # noqa: E402
from standins import keyfiles  # noqa: E402

DAY = 86400
FIRST_DAY = 1795564800  # 2026-11-25T00:00:00Z
# The day after the last visit: none is past the 10-day retention yet.
NOW = FIRST_DAY + 10 * DAY


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--keys", type=int, default=10_000)
    ap.add_argument("--reference-keys", type=int, default=0, help="0: all")
    ap.add_argument("--rounds", type=int, default=1, help="rounds of both, alternating; the best time of each is kept")
    args = ap.parse_args()
    cli = os.environ.get("ENCORE_CLI", os.path.join(os.path.dirname(__file__), "..", "..", "build", "bin", "encore"))
    env = dict(os.environ, ENCORE_DB_KEY="bench")
    rng = random.Random(17)
    with tempfile.TemporaryDirectory() as tmp:
        db = os.path.join(tmp, "client.db")
        subprocess.run([cli, "store", "init", "--db", db], check=True, env=env, capture_output=True)
        mine = []
        t = time.perf_counter()
        for i in range(30):
            venue = ref.Venue(name="Venue %d" % i)
            arrival = FIRST_DAY + (i // 3) * DAY + (9 + 4 * (i % 3)) * 3600 + 60
            departure = arrival + 2 * 3600 + 1700  # touches 3 hours
            subprocess.run([cli, "checkin", "add", "--db", db, "--qr", venue.qr, "--start", str(arrival), "--end", str(departure),
                            "--now", str(NOW)], check=True, env=env, capture_output=True)
            mine.append((venue, arrival, departure))
        checkin_seconds = time.perf_counter() - t
        others = [ref.Venue(name="Other %d" % i) for i in range(40)]
        t = time.perf_counter()
        body = ref.field_varint(1, 3)
        events = 0
        # 6 keys for the user's visits (their middle hour), the rest elsewhere.
        for venue, arrival, _ in rng.sample(mine, 6):
            one = venue.trace_keys(arrival + 3600, arrival + 3700, "please get tested")
            body += one[2:]  # drop the wrapper's version field, keep the event
            events += 1
        while events < args.keys:
            venue = rng.choice(others)
            start = FIRST_DAY + rng.randrange(14) * DAY + rng.randrange(24) * 3600
            one = venue.trace_keys(start, start + 1800, "x")
            body += one[2:]
            events += 1
        make_seconds = time.perf_counter() - t
        keys = os.path.join(tmp, "keys.pb")
        with open(keys, "wb") as f:
            f.write(body)
        signature, key = sign_trace_keys(keys, keyfiles.SigningKey(key_id="crowdnotifier", key_version="v1"))
        match_seconds = ref_seconds = float("inf")
        for r in range(max(1, args.rounds)):
            t = time.perf_counter()
            p = subprocess.run([cli, "checkin", "match", "--db", db, "--trace-keys", keys, "--signature", str(signature),
                                "--crowdnotifier-key", str(key), "--now", str(NOW), "--json"],
                               check=True, env=env, capture_output=True, text=True)
            seconds = time.perf_counter() - t
            doc = json.loads(p.stdout)["traceKeys"]
            rs, ref_pairings, ref_matches, sampled = reference(mine, body, args.reference_keys)
            if args.rounds > 1:
                print("round %d: encore %.2f s, reference %.1f s on %d keys" % (r + 1, seconds, rs, sampled))
            match_seconds, ref_seconds = min(match_seconds, seconds), min(ref_seconds, rs)
    hours = 30 * 3
    # What the SDKs compute: one pairing per same-day (key, stored hour).
    hours_by_day = {}
    for _, arrival, departure in mine:
        for h in ref.hours(arrival, departure):
            hours_by_day[h // DAY * DAY] = hours_by_day.get(h // DAY * DAY, 0) + 1
    same_day = sum(hours_by_day.get(ev[4], 0) for ev in ref.events(body))
    print("visits: 30 x 3 hours (3 visits a day over 10 days), checked in through the CLI in %.1f s" % checkin_seconds)
    print("trace keys: %d (%d bytes), made by pymcl in %.1f s" % (events, len(body), make_seconds))
    best = " (best of %d rounds)" % args.rounds if args.rounds > 1 else ""
    print("encore checkin match --trace-keys: %.2f s%s (process, store and all); matches %d (expected 6)" % (match_seconds, best, doc["matches"]))
    print("pairings computed: %d (only pairs whose key's identity is the visited venue's that day); the SDKs compute %d "
          "(every same-day pair); every key against every hour would be %d" % (doc["pairings"], same_day, events * hours))
    print("per trace key (whole command / keys): %.1f us" % (1e6 * match_seconds / events))
    est = ref_seconds * same_day / max(ref_pairings, 1)
    print("reference algorithm on pymcl (one mcl pairing per same-day pair, 1 thread): %s%.1f s%s for %d pairings%s; "
          "matches %d" % ("" if sampled == events else "~", est, best, same_day,
                          "" if sampled == events else " (measured %.1f s on %d keys, %d pairings)" % (ref_seconds, sampled, ref_pairings),
                          ref_matches))
    print("encore / reference time: %.4f (%.1fx faster)" % (match_seconds / est, est / match_seconds))
    if sampled == events and ref_pairings != same_day:
        sys.exit("bench: the reference computed %d pairings, not the %d same-day pairs" % (ref_pairings, same_day))
    if doc["pairings"] > same_day:
        sys.exit("bench: encore computed %d pairings, more than the %d same-day pairs" % (doc["pairings"], same_day))
    if doc["matches"] != 6:
        sys.exit("bench: expected 6 matches")


def reference(mine, body, limit):
    """The SDKs' matching on pymcl over the same visits: (seconds, pairings, matches, keys tried)."""
    by_day = {}
    for venue, arrival, departure in mine:
        _, _, notification_key = ref.nonces(venue.payload)
        record = b"\x01" + arrival.to_bytes(8, "big") + departure.to_bytes(8, "big") + notification_key
        for h in ref.hours(arrival, departure):
            by_day.setdefault(h // DAY * DAY, []).append(ref.encrypt(venue.mpk, ref.identity(venue.payload, h), record))
    events = ref.events(body)
    step = max(1, len(events) // limit) if limit else 1
    tried = events[::step]
    pairings = matches = 0
    t = time.perf_counter()
    for ev in tried:
        for c1, c2, c3, nonce in by_day.get(ev[4], ()):
            pairings += 1
            if ref.decrypt(ev[3], ev[2], c1, c2, c3, nonce) is not None:
                matches += 1
    return time.perf_counter() - t, pairings, matches, len(tried)


if __name__ == "__main__":
    main()
