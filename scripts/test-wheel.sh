#!/usr/bin/env bash
# The wheel as a user gets it: `make wheel`'s dist/encore-<version>-*.whl is
# installed offline into a fresh venv outside the checkout; `import encore`
# from elsewhere prints the version and loads the library the wheel carries;
# the wheel is typed (py.typed: mypy --strict checks the example against the
# installed package, whose import it refuses without the marker); then the
# binding tests (bindings/python/tests, all of them) run against the
# installed package, with ENCORE_LIBRARY unset and the checkout's copy of
# the package out of sys.path (ENCORE_TEST_INSTALLED=1, encore_testdata.py).
# The tests' own packages (pytest, cryptography, ...) come from build/venv:
# its Python runs them with the fresh venv's site-packages first on the path.
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
version=$(sed -n 's/^#define ENCORE_VERSION_STRING "\(.*\)"/\1/p' Sources/CEncoreTypes/include/encore_types.h)
shopt -s nullglob
wheels=(dist/encore-"$version"-py3-none-*.whl)
[ ${#wheels[@]} -eq 1 ] || { echo "test-wheel: expected one dist/encore-$version-py3-none-*.whl (make wheel), found ${#wheels[@]}" >&2; exit 1; }
wheel="$repo/${wheels[0]}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
unset ENCORE_LIBRARY PYTHONPATH
export PYTHONDONTWRITEBYTECODE=1

echo "== wheel: $(basename "$wheel") into a fresh venv ($tmp)"
python3 -m venv "$tmp/venv"
"$tmp/venv/bin/pip" install -q --no-index --disable-pip-version-check "$wheel"
site=$("$tmp/venv/bin/python" -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
[ -f "$site/encore/libencore.so" ] || { echo "test-wheel: the wheel installed no $site/encore/libencore.so" >&2; exit 1; }
# Stripped (no symbol table; the exports are in .dynsym), exports still only encore_*.
! readelf -SW "$site/encore/libencore.so" | grep -w '\.symtab' > /dev/null \
    || { echo "test-wheel: the wheel's libencore.so is not stripped" >&2; exit 1; }
others=$(nm -D --defined-only --extern-only "$site/encore/libencore.so" | awk '$2 != "A" && $3 !~ /^encore_/ { print $3 }')
[ -z "$others" ] || { echo "test-wheel: the wheel's libencore.so exports more than encore_*: $others" >&2; exit 1; }
echo "wheel: its libencore.so is stripped and exports only encore_*: ok"

# From a directory outside the checkout: the version, and the library is the package's own.
mkdir "$tmp/elsewhere"
out=$(cd "$tmp/elsewhere" && "$tmp/venv/bin/python" -c 'import encore; print(encore.__version__); print(encore._lib._name); print(encore.__file__)')
{ read -r got; read -r loaded; read -r package; } <<<"$out"
[ "$got" = "$version" ] || { echo "test-wheel: import encore printed version '$got', expected $version" >&2; exit 1; }
[ "$loaded" = "$site/encore/libencore.so" ] || { echo "test-wheel: loaded $loaded, not the wheel's $site/encore/libencore.so" >&2; exit 1; }
[ "$package" = "$site/encore/__init__.py" ] || { echo "test-wheel: imported $package, not the installed package" >&2; exit 1; }
echo "wheel: import encore outside the checkout: version $got, library $loaded: ok"

# Typed (PEP 561): the marker is in the wheel and installed, and mypy takes the
# installed package's annotations (its optional HTTP clients are not installed there).
python3 -c 'import sys, zipfile; sys.exit("encore/py.typed" not in zipfile.ZipFile(sys.argv[1]).namelist())' "$wheel" \
    || { echo "test-wheel: the wheel has no encore/py.typed" >&2; exit 1; }
[ -f "$site/encore/py.typed" ] || { echo "test-wheel: the wheel installed no $site/encore/py.typed" >&2; exit 1; }
python=$(scripts/venv.sh)
printf '[mypy]\nstrict = True\n[mypy-httpx,aiohttp]\nignore_missing_imports = True\n' > "$tmp/mypy.ini"
(cd "$tmp/elsewhere" && "$python" -m mypy --config-file "$tmp/mypy.ini" --cache-dir "$tmp/mypy-cache" \
    --python-executable "$tmp/venv/bin/python" "$repo/bindings/python/examples/async_sync.py")
echo "wheel: py.typed in the wheel, mypy --strict on the example against the installed package: ok"

# The binding tests against the installed package.
cd "$tmp/elsewhere"
ENCORE_TEST_INSTALLED=1 PYTHONPATH="$site" "$python" -m pytest -q -p no:cacheprovider -n "${PYTEST_JOBS:-auto}" "$repo/bindings/python/tests"
