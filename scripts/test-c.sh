#!/usr/bin/env bash
# Builds the C tests and the C example against build/lib/libencore.so with
# -Werror and runs them, under valgrind when it is installed.
set -euo pipefail
cd "$(dirname "$0")/.."
out=build/c-tests
mkdir -p "$out"
flags=(-std=c99 -Wall -Wextra -Wpedantic -Werror -O1 -g -D_POSIX_C_SOURCE=200809L -Iinclude -Lbuild/lib -Wl,-rpath,"$PWD/build/lib")
for src in Tests/c/*.c bindings/c/*.c; do
    exe="$out/$(basename "${src%.c}")"
    cc "${flags[@]}" "$src" -o "$exe" -lencore -lpthread
done
run() {
    if command -v valgrind >/dev/null; then
        valgrind -q --error-exitcode=99 --leak-check=full --show-possibly-lost=no --errors-for-leak-kinds=definite "$@"
    else
        "$@"
    fi
}
export ENCORE_TEST_DATA="$PWD/Tests/data"
for t in "$out"/test_*; do
    echo "== $t"
    run "$t"
done
echo "== example"
run "$out/example" Tests/data/exports/google-sample/sample_diagnosis_key_file.zip 310 v1 Tests/data/exports/google-sample/public_310-v1.pem
