#!/usr/bin/env bash
# Builds the C tests and the C example against build/lib/libencore.so with
# -Werror and runs them, under valgrind when it is installed. Then the
# embedding tests: a host with its own SQLite linked before and after
# encore, a host that uses SQLCipher itself, and the store tests with every
# sqlite3_* name trapped in the global scope (Tests/c/embedding).
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/c-tests
mkdir -p "$out"
flags=(-std=c99 -Wall -Wextra -Wpedantic -Werror -O1 -g -D_POSIX_C_SOURCE=200809L -Iinclude -Lbuild/lib -Wl,-rpath,"$PWD/build/lib")
for src in Tests/c/*.c bindings/c/*.c; do
    exe="$out/$(basename "${src%.c}")"
    cc "${flags[@]}" "$src" -o "$exe" -lencore -lpthread -lcurl
done
embed=Tests/c/embedding/test_embed_host.c
cc "${flags[@]}" "$embed" -o "$out/embed_sqlite_first" -lsqlite3 -lencore -lpthread
cc "${flags[@]}" "$embed" -o "$out/embed_encore_first" -lencore -lsqlite3 -lpthread
cc "${flags[@]}" -DHOST_SQLCIPHER "$embed" -o "$out/embed_sqlcipher_host" -lsqlcipher -lencore -lpthread
Tests/c/embedding/sqlite-trap.sh "$out/libsqlite_trap.so"

valgrind=()
if command -v valgrind >/dev/null; then
    valgrind=(valgrind -q --error-exitcode=99 --leak-check=full --show-possibly-lost=no --errors-for-leak-kinds=definite)
    echo "C tests: under valgrind (memcheck; errors and definite leaks fail)"
else
    echo "C tests: valgrind is not installed; running without it"
fi
run() { "${valgrind[@]}" "$@"; }

export ENCORE_TEST_DATA="$PWD/Tests/data"
for t in "$out"/test_*; do
    echo "== $t"
    run "$t"
done
for t in embed_sqlite_first embed_encore_first embed_sqlcipher_host; do
    echo "== $out/$t (a host with its own SQLite)"
    run "$out/$t"
done
for t in test_store test_store_tables; do
    echo "== $out/$t with every sqlite3_* of the global scope trapped"
    LD_PRELOAD="$PWD/$out/libsqlite_trap.so" run "$out/$t"
done
echo "== example"
run "$out/example" Tests/data/exports/google-sample/sample_diagnosis_key_file.zip 310 v1 Tests/data/exports/google-sample/public_310-v1.pem
