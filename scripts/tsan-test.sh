#!/usr/bin/env bash
# The Swift tests under ThreadSanitizer: a debug build of the package with
# --sanitize=thread in its own directory (build/tsan: the release build the
# other suites use is left alone), then every Swift test. The matching
# engine, the trace-key matcher, the file pipeline and the progress counters
# share state between threads; a data race TSan sees in any test fails the
# suite, with its report in the log. (The library's locks are pthread
# mutexes, which TSan follows: see Sources/EncoreSupport/Locked.swift.)
# Two suites are left to the release run (scripts/swift-test.sh) alone:
# HostileInputTests (every bit flip of a key file, one thread: 255 of the
# 270 s this suite took, a debug build under TSan being 20 times slower)
# and HostileMemoryTests (peak-RSS bounds, which TSan's shadow memory
# makes meaningless). Neither shares state between threads, so TSan has
# nothing to find there; every other Swift test runs here again.
set -euo pipefail
cd "$(dirname "$0")/.."
scratch=build/tsan
mkdir -p build/logs
log=build/logs/tsan-build.log
if ! swift build --build-tests --sanitize=thread --scratch-path "$scratch" > "$log" 2>&1; then
    tail -40 "$log" >&2
    echo "tsan: the build failed; the whole log is $log" >&2
    exit 1
fi
echo "tsan: built with ThreadSanitizer ($scratch)"
out=$(mktemp)
trap 'rm -f "$out"' EXIT
status=0
# TSan's own exit code (66) when it reported a race after the tests passed.
TSAN_OPTIONS="exitcode=66 ${TSAN_OPTIONS:-}" swift test --sanitize=thread --scratch-path "$scratch" --skip-build --disable-xctest \
    --skip 'HostileInputTests|HostileMemoryTests' \
    > "$out" 2>&1 || status=$?
cat "$out"
races=$(grep -c "WARNING: ThreadSanitizer" "$out" || true)
if ((races > 0)); then
    echo "tsan: $races ThreadSanitizer reports (above); the first:" >&2
    grep -m1 -A30 "WARNING: ThreadSanitizer" "$out" >&2
    exit 1
fi
if ((status != 0)); then
    echo "tsan: the tests failed (status $status)" >&2
    exit "$status"
fi
echo "tsan: no data race reported"
