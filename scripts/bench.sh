#!/usr/bin/env bash
# make bench: builds encore-bench (release) and runs its default suite:
#   - timing of open + parse + verify (and streaming every key) of a generated
#     signed file of 1 000 000 keys, against SHA-256 and zlib inflate of the
#     same export.bin measured in the same run;
#   - peak RSS of reading files of 1 000 000 and 2 000 000 keys, each in a
#     fresh process, checked against 200 MB (exit status 1 when over).
# Arguments go to `encore-bench suite` (e.g. --keys 2M --runs 9 --dir /tmp/kf);
# `encore-bench help` lists them.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "bench: building encore-bench (swift build -c release --product encore-bench)"
swift build -c release --product encore-bench --quiet
bin="$(swift build -c release --show-bin-path)"
exec "$bin/encore-bench" suite "$@"
