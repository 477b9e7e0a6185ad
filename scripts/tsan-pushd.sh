#!/usr/bin/env bash
# `make test-pushd-tsan`: the push service's suite (Tests/pushd) against a
# debug build of encore-pushd with ThreadSanitizer, in its own directory
# (server/.build-tsan: the release build the other suites use is left alone).
# Every report of every encore-pushd process the tests start (two serve and
# two send instances at once, drains, PostgreSQL and SQLCipher) goes to a
# file of its own; any report fails the run, the first one shown. The
# service's locks are EncoreSupport's Locked (pthread mutexes, which TSan
# follows), not Synchronization's Mutex (raw futex calls it cannot see).
# Not part of `make test-all`: its build alone takes about 5 minutes on 2 cores.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=server/.build-tsan
mkdir -p build/logs
log=build/logs/pushd-tsan-build.log
echo "pushd-tsan: building encore-pushd with ThreadSanitizer ($scratch; the first build takes about 5 minutes)"
if ! swift build --package-path server -c debug --product encore-pushd --sanitize=thread --scratch-path "$scratch" > "$log" 2>&1; then
    tail -40 "$log" >&2
    echo "pushd-tsan: the build failed; the whole log is $log" >&2
    exit 1
fi
reports=$(mktemp -d)
trap 'rm -rf "$reports"' EXIT
status=0
TSAN_OPTIONS="halt_on_error=0 log_path=$reports/report ${TSAN_OPTIONS:-}" ENCORE_PUSHD="$PWD/$scratch/debug/encore-pushd" \
    scripts/pytest-suite.sh "push registry tests against encore-pushd under ThreadSanitizer" Tests/pushd -- -n "${PYTEST_WAIT_JOBS:-4}" \
    || status=$?
files=("$reports"/report.*)
if [[ -e ${files[0]} ]]; then
    echo "pushd-tsan: ${#files[@]} encore-pushd processes reported races; the first report:" >&2
    head -60 "${files[0]}" >&2
    grep -h "^SUMMARY" "${files[@]}" | sort | uniq -c >&2
    exit 1
fi
if ((status != 0)); then
    echo "pushd-tsan: the tests failed (status $status)" >&2
    exit "$status"
fi
echo "pushd-tsan: no data race reported"
