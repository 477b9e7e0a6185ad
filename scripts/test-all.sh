#!/usr/bin/env bash
# `make test` and `make test-packages`: the builds first, then every suite,
# each through scripts/suite.sh (one line each, its output in build/logs/),
# then a summary table. A failing suite does not stop the others; the exit
# status is 1 when any step failed.
#   scripts/test-all.sh "MAKE TARGETS TO BUILD" SUITE... [--beside SUITE...]
# The suites after --beside mostly wait (on buses, servers, clocks: under
# half a core each) and run one after another in a second lane, beside the
# suites that compute, from the first of those on; each prints its line
# when it ends.
# A suite NAME runs `make test-NAME` (check-abi: `make check-abi`), with
# ENCORE_SKIP_BUILD=1 so that it reuses the products built once at the
# start instead of asking SwiftPM again in every suite.
set -uo pipefail
cd "$(dirname "$0")/.."
build_targets=${1:?usage: test-all.sh "BUILD TARGETS" SUITE...}
shift
mkdir -p build/logs
rm -f build/logs/summary.tsv
start=$SECONDS
printf '%-15s %-7s %-44s %7s %7s\n' step result "what passed" time cpu
failed=0
# shellcheck disable=SC2086 # the targets are words
if ! scripts/suite.sh build make --no-print-directory $build_targets; then
    echo "test: the build failed; no suite runs"
    exit 1
fi
main=() beside=()
while (($#)); do
    if [[ $1 == --beside ]]; then shift; beside=("$@"); break; fi
    main+=("$1")
    shift
done
# run_suites SUITE...: one after another; exits with how many failed.
run_suites() {
    local suite target n=0
    for suite in "$@"; do
        target=test-$suite
        [[ $suite == check-abi ]] && target=check-abi
        ENCORE_SKIP_BUILD=1 scripts/suite.sh "$suite" make --no-print-directory "$target" || n=$((n + 1))
    done
    return "$n"
}
lane=
if ((${#beside[@]})); then
    run_suites "${beside[@]}" &
    lane=$!
fi
run_suites "${main[@]}" || failed=$?
if [[ -n $lane ]]; then
    wait "$lane" || failed=$((failed + $?))
fi

# The table: every step again, aligned, with the failures first to the eye.
echo
echo "summary ($(wc -l < build/logs/summary.tsv) steps, $((SECONDS - start)) s; logs in build/logs/):"
# "all": the steps' seconds added up (more than the run took when a second
# lane ran beside the first) and their processor seconds.
awk -F'\t' '{ printf "  %-15s %-7s %-44s %5s s %5s s\n", $1, $2, $3, $4, $5; wall += $4; cpu += $5 }
    END { printf "  %-15s %-7s %-44s %5s s %5s s\n", "all", "", "", wall, cpu }' build/logs/summary.tsv
suites=$((${#main[@]} + ${#beside[@]}))
if ((failed)); then
    echo "test: $failed of $suites suites FAILED"
    exit 1
fi
echo "test: all $suites suites passed"
