#!/usr/bin/env python3
"""Syncs a store with CWA's distribution server on an asyncio loop, one
thread, with an async HTTP client (httpx, or aiohttp when httpx is not
installed): the library makes the requests and verifies and stores the
answers (encore_sync_start and the operation API); the loop performs them.
Prints what `encore sync` prints; with --json the same document as
`encore sync --json`.

    ENCORE_DB_KEY=... async_sync.py --db client.db \\
        --distribution https://svc90.main.px.t-online.de --trust 310:v1:cwa.pem --json

The store key comes from the environment as for the CLI: ENCORE_DB_KEY (a
passphrase) or ENCORE_DB_KEY_HEX (64 hex digits), exactly one of them.
Exit status: 0 synced (or nothing due), 1 the sync failed, 2 usage errors.
"""
import argparse
import asyncio
import importlib
import json
import os
import sys
from collections.abc import Callable
from typing import Any

import encore


def store_key() -> tuple[bytes | None, bytes | None]:
    """(passphrase, raw_key) from the environment, as the CLI reads them."""
    passphrase, hex_key = os.environb.get(b"ENCORE_DB_KEY"), os.environ.get("ENCORE_DB_KEY_HEX")
    if (passphrase is None) == (hex_key is None):
        raise SystemExit(usage("set exactly one of ENCORE_DB_KEY (a passphrase) and ENCORE_DB_KEY_HEX (64 hex digits)"))
    if passphrase is not None:
        if not passphrase:
            raise SystemExit(usage("ENCORE_DB_KEY is set but empty"))
        return passphrase, None
    assert hex_key is not None
    digits = hex_key.strip()
    try:
        raw = bytes.fromhex(digits)
    except ValueError:
        raw = b""
    if len(digits) != 64 or len(raw) != 32:
        raise SystemExit(usage("ENCORE_DB_KEY_HEX must be 64 hex digits (a raw 32-byte key)"))
    return None, raw


def trust_list(arguments: list[str]) -> encore.TrustList:
    """A TrustList of --trust KEY_ID:VERSION:PEM_FILE arguments."""
    trust = encore.TrustList()
    for argument in arguments:
        parts = argument.split(":", 2)
        if len(parts) != 3 or not all(parts):
            raise SystemExit(usage(f"--trust {argument}: KEY_ID:VERSION:PEM_FILE"))
        try:
            with open(parts[2], "rb") as f:
                trust.add_key(parts[0], parts[1], f.read())
        except (OSError, encore.EncoreError) as e:
            raise SystemExit(usage(f"--trust {argument}: {e}"))
    return trust


def usage(message: str) -> int:
    print(f"async_sync.py: {message}", file=sys.stderr)
    return 2


# What httpx imports only at its first request, inside the loop: anyio's
# asyncio backend (about 30 modules, 40-60 ms of the loop's thread, the
# longest stall of a sync; make bench-sync). Private paths of httpcore and
# anyio: one that is gone is skipped (it then costs its import, nothing more).
HTTPX_FIRST_REQUEST_IMPORTS = ("httpcore._backends.anyio", "anyio._backends._asyncio")


def http_module() -> Any:
    """httpx (with what it imports at its first request), else aiohttp."""
    try:
        httpx = importlib.import_module("httpx")
    except ImportError:
        return importlib.import_module("aiohttp")
    for name in HTTPX_FIRST_REQUEST_IMPORTS:
        try:
            importlib.import_module(name)
        except ImportError:
            pass
    return httpx


# Imported before the loop runs: an import inside a coroutine blocks the
# loop for as long as it takes (httpx's: about 0.2 s; its first request's
# own imports above: 40-60 ms).
HTTP = http_module()


async def session() -> Any:
    """An async HTTP client: an httpx.AsyncClient, else an aiohttp.ClientSession."""
    if HTTP.__name__ == "httpx":
        return HTTP.AsyncClient(timeout=30)
    return HTTP.ClientSession(timeout=HTTP.ClientTimeout(total=30))


def open_client(a: argparse.Namespace, passphrase: bytes | None,
                raw_key: bytes | None) -> tuple[encore.Client, encore.TrustList]:
    """The client of the store, and the trust list it uses (close both: close())."""
    trust = trust_list(a.trust)
    try:
        return encore.Client.open(a.db, passphrase, raw_key=raw_key, distribution=a.distribution, country=a.country,
                                  trust=trust, clock=a.now), trust
    except BaseException:
        trust.close()
        raise


def close(*objects: Any) -> None:
    """Closes each of `objects` that is not None, in order."""
    for o in objects:
        if o is not None:
            o.close()


async def sync(a: argparse.Namespace, client: Any = None) -> encore.SyncReport:
    """Syncs with `client` (an async HTTP client, closed at the end; None:
    a new one). An application makes its client once, at its start: making
    one (its TLS context) takes tens of milliseconds of the loop."""
    passphrase, raw_key = store_key()
    # Opening the store (its key's proof, a commit), reading the trust
    # list's keys, planning the sync (it records its attempt, a commit) and
    # closing (the WAL's last checkpoint and its deletion, the operation's
    # memory) wait on the disk or take milliseconds of processor: each is
    # done on a worker thread while the loop goes on (10-40 ms of the
    # loop's thread otherwise, more under load). The operation's next()
    # and feeds, light work, run on the loop; its compute steps go to the
    # executor (run_async).
    app, trust = await asyncio.to_thread(open_client, a, passphrase, raw_key)
    operation = None
    try:
        operation = await asyncio.to_thread(app.sync.operation)
        async with client if client is not None else await session() as http:
            return await operation.run_async(http, now=a.now)
    finally:
        await asyncio.to_thread(close, operation, app, trust)


def text(report: encore.SyncReport) -> str:
    """What was fetched and what comes next, as `encore sync` says it (--json has everything)."""
    names: dict[str, Callable[[encore.SyncItem], str]] = {
             "config": lambda f: "configuration", "day": lambda f: f"day {f.day} ({f.keys} keys)",
             "hour": lambda f: f"hour {f.day} {f.hour}:00 ({f.keys} keys)",
             "dp3t": lambda f: f"DP-3T bundle {f.tag} ({f.keys} keys)",
             "warnings": lambda f: f"warnings of hour {f.interval} ({f.keys} reports, {f.matches} new matches)",
             "traceKeys": lambda f: f"trace keys {f.tag} ({f.keys} events, {f.matches} new matches)"}
    fetched = [names[f.kind](f) for f in report.fetched]
    lines = [("fetched", ", ".join(fetched) or "nothing new")]
    if report.deleted:
        lines.append(("deleted", f"{report.deleted} packages"))
    if report.revoked:
        lines.append(("revoked", f"{report.revoked} packages (fetched again)"))
    c = report.configuration
    if c is not None and c.used in ("last-verified", "built-in"):
        lines.append(("configuration", f"the {c.used.replace('-', ' ')} one: {c.reason or ''}"))
    lines += [("warning", w) for w in report.warnings]
    if report.check is not None:
        lines.append(("check", "ran on the cache (--json shows its result)"))
    if report.next_due_at is not None:
        lines.append(("next sync", str(report.next_due_at)))
    return "\n".join(f"{label}: {value}" for label, value in lines)


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0], formatter_class=argparse.RawDescriptionHelpFormatter)
    p.add_argument("--db", required=True, help="the store (created if missing)")
    p.add_argument("--distribution", required=True, help="CWA's distribution server")
    p.add_argument("--country", default="EUR", help="the packages' country (default EUR)")
    p.add_argument("--trust", action="append", default=[], metavar="ID:VER:PEM", help="a trusted signing key; may be repeated")
    p.add_argument("--now", type=int, help="the time (unix seconds; default: now)")
    p.add_argument("--json", action="store_true", help="print the JSON document `encore sync --json` prints")
    a = p.parse_args()
    try:
        report = asyncio.run(sync(a))
    except encore.EncoreError as e:
        print(f"async_sync.py: {e}", file=sys.stderr)
        return 1
    print(json.dumps(report.document, indent=2) if a.json else text(report))
    return 0


if __name__ == "__main__":
    sys.exit(main())
