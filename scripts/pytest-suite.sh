#!/usr/bin/env bash
# Runs one pytest suite of the repository with the test virtualenv's Python
# (scripts/venv.sh), against build/lib/libencore.so and build/bin/encore.
#   scripts/pytest-suite.sh LABEL DIR... [-- PYTEST ARGS]
# A suite that collects no tests fails: a broken layout must not pass.
set -euo pipefail
cd "$(dirname "$0")/.."
label=${1:?usage: pytest-suite.sh LABEL DIR... [-- ARGS]}
shift
dirs=()
while (($#)) && [[ "$1" != "--" ]]; do dirs+=("$1"); shift; done
[[ "${1:-}" == "--" ]] && shift
python=$(scripts/venv.sh)
export ENCORE_LIBRARY="$PWD/build/lib/libencore.so"
export ENCORE_CLI="$PWD/build/bin/encore"
# Keep test runs from writing caches into directories other people own.
export PYTHONDONTWRITEBYTECODE=1
echo "== $label ($(printf '%s ' "${dirs[@]}"))"
status=0
"$python" -m pytest -q -p no:cacheprovider "${dirs[@]}" "$@" || status=$?
if [ "$status" -eq 5 ]; then
    echo "$label: pytest collected no tests in ${dirs[*]}" >&2
    exit 1
fi
exit "$status"
