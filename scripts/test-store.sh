#!/usr/bin/env bash
# Runs the store's durability, privacy and concurrency tests (Tests/store:
# crash safety under SIGKILL, nothing in plaintext at rest, the sqlcipher
# command-line tool on encore's stores, two processes on one store, disk
# full, fsync per commit) against the repository's build/lib/libencore.so.
# Needs `make lib` first, and the sqlcipher tool (Debian package sqlcipher).
# Arguments go to pytest (e.g. -k crash, -s to see the crash test's figures).
set -euo pipefail
cd "$(dirname "$0")/.."
lib="$PWD/build/lib/libencore.so"
[ -e "$lib" ] || { echo "test-store: $lib is missing; run 'make lib' first" >&2; exit 1; }
export ENCORE_LIBRARY="$lib"
# Keep test runs from writing caches into directories other people own.
export PYTHONDONTWRITEBYTECODE=1

status=0
python3 -m pytest -q -p no:cacheprovider Tests/store "$@" || status=$?
if [ "$status" -eq 5 ]; then
    # pytest's "no tests collected": a broken test layout must not pass.
    echo "test-store: pytest collected no tests in Tests/store" >&2
    exit 1
fi
exit "$status"
