#!/usr/bin/env bash
# Runs the Python binding tests (and the CLI tests in Tests/cli when that
# directory exists) against the repository's build/lib/libencore.so.
set -euo pipefail
cd "$(dirname "$0")/.."
lib="$PWD/build/lib/libencore.so"
[ -e "$lib" ] || { echo "test-python: $lib is missing; run 'make lib' first" >&2; exit 1; }
export ENCORE_LIBRARY="$lib"
# Keep test runs from writing caches into directories other people own.
export PYTHONDONTWRITEBYTECODE=1

dirs=(bindings/python/tests)
[ -d Tests/cli ] && dirs+=(Tests/cli)

status=0
python3 -m pytest -q -p no:cacheprovider "${dirs[@]}" || status=$?
if [ "$status" -eq 5 ]; then
    # pytest's "no tests collected": a broken test layout must not pass.
    echo "test-python: pytest collected no tests in ${dirs[*]}" >&2
    exit 1
fi
exit "$status"
