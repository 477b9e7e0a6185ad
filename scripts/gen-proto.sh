#!/usr/bin/env bash
# Regenerates the protobuf-c code of every proto/*.proto into
# Sources/CEncoreProto (NAME.pb-c.c and include/NAME.pb-c.h). The output is
# committed; run this only when a .proto changes. `--check` fails when the
# committed code differs from what protoc-c makes now.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/out/include"
for proto in proto/*.proto; do
    name=$(basename "$proto" .proto)
    protoc-c --proto_path=proto --c_out="$tmp" "$proto"
    # The header lives in include/ (SwiftPM's public headers); the .c file
    # and the headers of imported protos are found there.
    sed -E 's|#include "([a-z_]+)\.pb-c\.h"|#include "include/\1.pb-c.h"|' "$tmp/$name.pb-c.c" > "$tmp/out/$name.pb-c.c"
    cp "$tmp/$name.pb-c.h" "$tmp/out/include/$name.pb-c.h"
done
if [[ "${1:-}" == "--check" ]]; then
    for f in "$tmp"/out/*.c "$tmp"/out/include/*.h; do
        committed="Sources/CEncoreProto/${f#"$tmp/out/"}"
        cmp -s "$f" "$committed" || { echo "gen-proto: $committed is out of date: run scripts/gen-proto.sh" >&2; exit 1; }
    done
    echo "Sources/CEncoreProto is up to date with proto/"
    exit 0
fi
cp "$tmp"/out/*.c Sources/CEncoreProto/
cp "$tmp"/out/include/*.h Sources/CEncoreProto/include/
echo "generated Sources/CEncoreProto from $(ls proto/*.proto | tr '\n' ' ')"
