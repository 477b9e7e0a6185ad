"""What the benches of whole commands share (bench_sync.py, bench_check.py):
running the CLI on a store whose key is in the environment, and the setting
of 14 signed day packages with noise sightings."""
import datetime as dt
import os
import random
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO / "Tests"))
from standins import keyfiles  # noqa: E402

CLI = Path(os.environ.get("ENCORE_CLI", REPO / "build" / "bin" / "encore"))
RAW_KEY = "ab" * 32


def cli_environment():
    """The environment the CLI runs in: the store's raw key, no other key variable."""
    env = {k: v for k, v in os.environ.items() if not k.startswith("ENCORE_DB_KEY")}
    env["ENCORE_DB_KEY_HEX"] = RAW_KEY
    return env


def run(*args):
    """The CLI with the store's key in the environment; exits the bench on failure."""
    r = subprocess.run([str(CLI), *map(str, args)], capture_output=True, text=True, env=cli_environment())
    if r.returncode != 0:
        sys.exit(f"bench: encore {' '.join(map(str, args[:2]))} failed: {r.stderr.strip()}")
    return r


def spawn_timed(*args):
    """The seconds one CLI command takes from its spawn to its exit, output
    to /dev/null: for commands of a few milliseconds, whose figure would
    otherwise carry Python's pipes (subprocess.run with captured output
    takes about 2 ms to run /bin/true here). Exits the bench on failure;
    run the command once with run() first to see its message."""
    env = cli_environment()
    argv = [str(CLI), *map(str, args)]
    null = os.open(os.devnull, os.O_WRONLY)
    try:
        actions = [(os.POSIX_SPAWN_DUP2, null, 1), (os.POSIX_SPAWN_DUP2, null, 2)]
        started = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, env, file_actions=actions)
        _, status = os.waitpid(pid, 0)
        took = time.perf_counter() - started
    finally:
        os.close(null)
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(f"bench: encore {' '.join(argv[1:3])} exited {os.waitstatus_to_exitcode(status)}")
    return took


class Setting:
    """Now, today, the 14 days before it, a work directory, a signing key
    and its --trust argument, and a seeded random generator."""

    def __init__(self, name, keys, now):
        self.now = now
        self.today = dt.datetime.fromtimestamp(now, dt.timezone.utc).date()
        self.days = [(self.today - dt.timedelta(days=b)).isoformat() for b in range(14, 0, -1)]
        self.per_day = keys // len(self.days)
        self.work = Path(tempfile.mkdtemp(prefix=f"encore-{name}-"))
        self.signer = keyfiles.SigningKey()
        pem = self.work / "cwa.pem"
        self.signer.write_public_pem(pem)
        self.trust = self.signer.trust_arg(pem)
        self.rng = random.Random(7)

    def keys(self, day, n):
        """`n` random keys of `day` (CONFIRMED_TEST, days since onset 1)."""
        return [keyfiles.make_key(self.rng.randbytes(16), day=day, trl=5, report_type=1, dsos=1) for _ in range(n)]

    def noise(self, name, count, days):
        """A CSV of `count` sightings that match nothing over the last `days` days."""
        path = self.work / name
        path.write_text("time,rpi,aem,rssi,prev_scan\n" + "".join(
            f"{self.now - self.rng.randrange(days * 86400)},{self.rng.randbytes(16).hex()},00000000,-70,\n" for _ in range(count)))
        return path
