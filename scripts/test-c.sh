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
    cc "${flags[@]}" "$src" -o "$exe" -lencore -lpthread -lcurl -lcrypto
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

# The programs run side by side, as many at a time as the machine has cores
# (valgrind runs each on one): each one's output goes to a file of its own,
# printed in the order below once all have ended, so a failure reads the same
# as in a serial run.
export ENCORE_TEST_DATA="$PWD/Tests/data"
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
jobs_max=$(nproc 2>/dev/null || echo 2)
titles=()
n=0
# run TITLE [VAR=VALUE] PROGRAM ARGS...: one program in the background.
run() {
    local title=$1
    shift
    while (($(jobs -rp | wc -l) >= jobs_max)); do wait -n || true; done
    titles+=("$title")
    (env "$@" > "$logs/$n.out" 2>&1; echo $? > "$logs/$n.status") &
    n=$((n + 1))
}
vg() { local title=$1; shift; run "$title" "${valgrind[@]}" "$@"; }

for t in "$out"/test_*; do
    vg "$t" "$t"
done
for t in embed_sqlite_first embed_encore_first embed_sqlcipher_host; do
    vg "$out/$t (a host with its own SQLite)" "$out/$t"
done
for t in test_store test_store_tables; do
    run "$out/$t with every sqlite3_* of the global scope trapped" LD_PRELOAD="$PWD/$out/libsqlite_trap.so" "${valgrind[@]}" "$out/$t"
done
vg example "$out/example" Tests/data/exports/google-sample/sample_diagnosis_key_file.zip 310 v1 Tests/data/exports/google-sample/public_310-v1.pem
wait

failed=0
for ((i = 0; i < n; i++)); do
    echo "== ${titles[$i]}"
    cat "$logs/$i.out"
    status=$(cat "$logs/$i.status" 2>/dev/null || echo 1)
    if [[ $status != 0 ]]; then
        echo "C tests: ${titles[$i]} FAILED (exit $status)"
        failed=$((failed + 1))
    fi
done
if ((failed)); then
    echo "C tests: $failed of $n programs failed"
    exit 1
fi
