#!/usr/bin/env bash
# make bench: builds encore-bench (release) and runs its default suite:
#   - timing of open + parse + verify (and streaming every key) of a generated
#     signed file of 1 000 000 keys, against SHA-256 and zlib inflate of the
#     same export.bin measured in the same run;
#   - peak RSS of reading files of 1 000 000 and 2 000 000 keys, each in a
#     fresh process, checked against 200 MB (exit status 1 when over);
#   - matching: 1 000 000 keys in 14 signed daily files, a dense user (100 000
#     sightings) and a sparse user (2 000), keys/s end-to-end and of matching
#     alone against the single-core floor of ../shared/tools/rpi_floor.c, which
#     this script builds into build/bench/ and encore-bench runs between its
#     own timed runs; targets: dense ≥ 1.5× the floor, sparse ≥ 10×, peak RSS
#     ≤ 100 MB (exit status 1 when missed).
#   - check-ins: a trace warning package of 1 000 000 protected reports
#     against 200 check-ins, reports/s of the scan against SHA-256 of the
#     same export.bin (target ≥ 0.5× its throughput), and once end to end
#     through the store (`scripts/bench.sh checkin` runs it alone).
# Arguments go to `encore-bench suite` (e.g. --keys 2M --runs 9 --dir /tmp/kf);
# `encore-bench help` lists them. `scripts/bench.sh match` runs the matching
# section alone (any encore-bench command may come first).
set -euo pipefail
cd "$(dirname "$0")/.."

floor_src=../shared/tools/rpi_floor.c
if [[ -f "$floor_src" ]]; then
    mkdir -p build/bench
    echo "bench: building the matching floor (${CC:-cc} -O2 $floor_src -lcrypto -o build/bench/rpi_floor)"
    "${CC:-cc}" -O2 "$floor_src" -lcrypto -o build/bench/rpi_floor
    export ENCORE_RPI_FLOOR="$PWD/build/bench/rpi_floor"
else
    echo "bench: $floor_src is missing (no ../shared next to this tree): the matching floor is not measured and the floor ratios are skipped"
    unset ENCORE_RPI_FLOOR
fi

echo "bench: building encore-bench (swift build -c release --product encore-bench)"
swift build -c release --product encore-bench --quiet
bin="$(swift build -c release --show-bin-path)"
# A command first (`scripts/bench.sh match --runs 3`) runs that command alone.
if [[ -n "${1:-}" && "${1:-}" != -* ]]; then
    exec "$bin/encore-bench" "$@"
fi
exec "$bin/encore-bench" suite "$@"
