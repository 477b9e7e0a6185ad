#!/usr/bin/env bash
# Installs into a temporary prefix and builds the C example against the
# installed header and library through pkg-config, as a user would.
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make --no-print-directory install PREFIX="$prefix" >/dev/null
for f in lib/libencore.so lib/libencore.so.0 include/encore.h lib/pkgconfig/encore.pc bin/encore; do
    [ -e "$prefix/$f" ] || { echo "test-install: $f was not installed" >&2; exit 1; }
done
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c99 -Wall -Wextra -Wpedantic -Werror bindings/c/example.c $(pkg-config --cflags --libs encore) \
    -Wl,-rpath,"$prefix/lib" -o "$prefix/example"
"$prefix/example" Tests/data/exports/immuni/export.bin | grep -q "region 222, batch 1 of 1, 3 keys"
echo "install: PREFIX layout, pkg-config and the example against the installed library: ok"
