"""Bench of the check with kept matches (make bench-check, issue 49): a
dense user (100 000 sightings) with 14 day packages of 1 000 000 keys
synced from the loopback stand-in distribution server, cached and matched
(their matches kept). Each figure is a whole command (`encore sync`, which
runs the check on what it brought, or `encore check`) on a copy of that
store, against `encore check --full` (every cached file matched again) on
the same files in the same run:
- a sync that brings the next day's package (71 428 keys) and its check:
  target <= 0.2 x the full check;
- a sync that brings one hour package (an hour of a day's keys) and its
  check: target <= 0.1 x;
- a check with nothing new: target <= 20 ms (the CLI's start included).
Prints the figures and the ratios; exit status 1 when a target is missed."""
import argparse
import datetime as dt
import os
import shutil
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from benchlib import Setting, run, spawn_timed  # noqa: E402
from standins.cwa_distribution import CwaDistributionServer  # noqa: E402


def timed(*args):
    t = time.perf_counter()
    run(*args)
    return time.perf_counter() - t


def copy_store(src, dst):
    """A copy of the store, on disk before the command under test runs: the
    command's own sync of the file would otherwise write the whole copy
    out (some 27 MB, 50 ms and more) and be counted as the command's."""
    for suffix in ("", "-wal", "-shm"):
        Path(str(dst) + suffix).unlink(missing_ok=True)
        if Path(str(src) + suffix).exists():
            shutil.copyfile(str(src) + suffix, str(dst) + suffix)
            durable(Path(str(dst) + suffix))
    durable(Path(dst).parent)


def durable(path):
    fd = os.open(path, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--keys", type=int, default=1_000_000)
    p.add_argument("--sightings", type=int, default=100_000)
    p.add_argument("--runs", type=int, default=3)
    a = p.parse_args()
    b = Setting("bench-check", a.keys, int(time.time()))
    now, today, days, per_day, work, trust = b.now, b.today, b.days, b.per_day, b.work, b.trust
    hour = dt.datetime.fromtimestamp(now, dt.timezone.utc).hour
    print(f"bench-check: 14 signed day packages of {per_day} keys, {a.sightings} sightings ...", flush=True)
    # Sightings over the last 14 days that match nothing: every key with a
    # sighting in its validity is derived, and no match is kept.
    dense = b.noise("dense.csv", a.sightings, 14)
    keys = b.keys

    with CwaDistributionServer(b.signer) as dist:
        for d in days:
            dist.add_day("EUR", d, keys(d, per_day))
        base = work / "base.db"
        run("store", "init", "--db", base)
        run("sightings", "import", "--db", base, dense)
        # 14 days cached and matched: the sync runs the check, which keeps its matches.
        run("sync", "--db", base, "--distribution", dist.url, "--trust", trust, "--now", now, "--network", "metered")

        def sync(network, at):
            db = work / "run.db"
            copy_store(base, db)
            took = timed("sync", "--db", db, "--distribution", dist.url, "--trust", trust, "--now", at, "--network", network)
            full = timed("check", "--db", db, "--full", "--now", at)
            return took, full

        # One hour package of today (an hour's share of a day's keys).
        dist.add_hour("EUR", today.isoformat(), max(hour - 1, 0), keys(today.isoformat(), per_day // 24))
        hours = [sync("unmetered", now) for _ in range(a.runs)]
        dist.remove_hour("EUR", today.isoformat(), max(hour - 1, 0))

        # Nothing new: the check after a check.
        quiet = work / "quiet.db"
        copy_store(base, quiet)
        run("check", "--db", quiet, "--now", now)
        nothing = statistics.median(spawn_timed("check", "--db", quiet, "--now", now) for _ in range(max(a.runs, 5)))
        # What any command costs before it does anything, for comparison.
        start = statistics.median(spawn_timed("--version") for _ in range(max(a.runs, 5)))

        # The next day: today's package comes, the oldest day goes.
        dist.add_day("EUR", today.isoformat(), keys(today.isoformat(), per_day))
        dist.remove_day("EUR", days[0])
        next_day = [sync("metered", now + 86400) for _ in range(a.runs)]

    def figure(pairs):
        took = statistics.median(t for t, _ in pairs)
        full = statistics.median(f for _, f in pairs)
        return took, full, took / full

    day_took, day_full, day_ratio = figure(next_day)
    hour_took, hour_full, hour_ratio = figure(hours)
    print(f"bench-check: {a.keys} keys in 14 day packages cached and matched, {a.sightings} sightings (median of {a.runs})")
    print(f"  sync of the next day's package + check   {day_took * 1000:8.0f} ms   full check {day_full * 1000:6.0f} ms"
          f"   = {day_ratio:.2f} x   target <= 0.2 x")
    print(f"  sync of one hour package + check         {hour_took * 1000:8.0f} ms   full check {hour_full * 1000:6.0f} ms"
          f"   = {hour_ratio:.2f} x   target <= 0.1 x")
    print(f"  check with nothing new                   {nothing * 1000:8.1f} ms   (the CLI's start included)"
          f"          target <= 20 ms")
    print(f"  (encore --version, the CLI's start alone  {start * 1000:8.1f} ms)")
    missed = day_ratio > 0.2 or hour_ratio > 0.1 or nothing > 0.020
    sys.exit(1 if missed else 0)


if __name__ == "__main__":
    main()
