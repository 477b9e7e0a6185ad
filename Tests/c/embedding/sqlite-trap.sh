#!/usr/bin/env bash
# Builds an LD_PRELOAD library that defines every function libsqlcipher
# exports (sqlite3_*), each printing its name and exiting with status 97.
# Preloaded objects come first in the global symbol scope, so a store test
# run with it fails at once if any call of encore's — or any call SQLCipher
# makes into itself — resolves through the global scope instead of inside
# SQLCipher.   usage: sqlite-trap.sh OUT.so
set -euo pipefail
out=${1:?usage: sqlite-trap.sh OUT.so}
# awk reads to the end: a reader that quits early can kill ldconfig with
# SIGPIPE, which pipefail turns into a failure of this script.
lib=$(/sbin/ldconfig -p | awk '!lib && /libsqlcipher\.so\.0 /{lib = $NF} END {print lib}')
[ -n "$lib" ] || { echo "sqlite-trap: libsqlcipher.so.0 is not installed" >&2; exit 1; }
src="${out%.so}.c"
{
    echo '#include <stdio.h>'
    echo '#include <unistd.h>'
    echo 'static void trap(const char *name) { fprintf(stderr, "sqlite-trap: %s resolved outside SQLCipher\n", name); _exit(97); }'
    nm -D --defined-only "$lib" | awk '$2 == "T" && $3 ~ /^sqlite3_/ {sub(/@.*/, "", $3); print "void " $3 "(void) { trap(\"" $3 "\"); }"}'
} > "$src"
n=$(grep -c '^void sqlite3_' "$src")
[ "$n" -gt 200 ] || { echo "sqlite-trap: only $n functions found in $lib" >&2; exit 1; }
cc -shared -fPIC -O1 "$src" -o "$out"
