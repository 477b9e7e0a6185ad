#!/usr/bin/env bash
# Makes the test-only Python virtualenv build/venv from Tests/requirements.txt
# and Tests/requirements-nodeps.txt (installed without their dependencies)
# (again only when the requirements changed) and prints its python's path.
# The tests' PyPI packages live there, never in the system's Python.
set -euo pipefail
cd "$(dirname "$0")/.."
venv=build/venv
req=Tests/requirements.txt
nodeps=Tests/requirements-nodeps.txt
if [[ -x "$venv/bin/python" ]] && cat "$req" "$nodeps" | cmp -s - "$venv/.requirements"; then
    echo "$PWD/$venv/bin/python"
    exit 0
fi
echo "venv: installing the test packages of $req into $venv" >&2
rm -rf "$venv"
python3 -m venv "$venv" >&2
"$venv/bin/pip" install -q --disable-pip-version-check -r "$req" >&2
"$venv/bin/pip" install -q --disable-pip-version-check --no-deps -r "$nodeps" >&2
cat "$req" "$nodeps" > "$venv/.requirements"
echo "$PWD/$venv/bin/python"
