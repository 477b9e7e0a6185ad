#!/usr/bin/env bash
# Regenerates the protobuf-c code from proto/export.proto into Sources/CEncoreProto.
# The output is committed; run this only when the .proto changes.
set -euo pipefail
cd "$(dirname "$0")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
protoc-c --proto_path=proto --c_out="$tmp" proto/export.proto
sed -e 's|#include "export.pb-c.h"|#include "include/export.pb-c.h"|' "$tmp/export.pb-c.c" > Sources/CEncoreProto/export.pb-c.c
cp "$tmp/export.pb-c.h" Sources/CEncoreProto/include/export.pb-c.h
echo "generated Sources/CEncoreProto/{export.pb-c.c,include/export.pb-c.h}"
