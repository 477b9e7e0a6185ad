#!/usr/bin/env bash
# Builds one SwiftPM product in release mode (ENCORE_BUILD_CONFIG=debug:
# debug), quietly: one line says what is built and why it may take a while,
# the compiler's output goes to build/logs/PRODUCT.log and is shown only
# when the build fails.
#   scripts/build.sh [--package-path DIR] PRODUCT [SWIFT BUILD ARGS]
# --package-path builds a product of another package of the tree (server/:
# encore-pushd), in that package's own .build.
set -euo pipefail
cd "$(dirname "$0")/.."
package=.
if [[ ${1:-} == --package-path ]]; then
    package=${2:?usage: build.sh [--package-path DIR] PRODUCT [ARGS]}
    shift 2
fi
product=${1:?usage: build.sh [--package-path DIR] PRODUCT [ARGS]}
shift
mkdir -p build/logs
log=build/logs/$product.log
config=${ENCORE_BUILD_CONFIG:-release}
if [[ -d $package/.build/$config ]]; then
    note="incremental"
else
    # Counted on the 2-core machines this project is built on: the Swift
    # compiler builds the core's layers and swift-argument-parser once.
    note="first $config build: about 2 minutes on 2 cores; later builds take seconds"
    if [[ $package != . ]]; then
        # The server's dependencies (SwiftNIO, Hummingbird, PostgresNIO,
        # AsyncHTTPClient) come on top of the core.
        note="first $config build of $package/: 5 minutes or more on 2 cores; later builds take seconds"
    fi
fi
printf 'build: %s (%s) ... ' "$product" "$note"
start=$SECONDS
if ! swift build --package-path "$package" -c "$config" --product "$product" "$@" > "$log" 2>&1; then
    echo "FAILED"
    # The toolchain's own warning about mktemp in static Foundation is not ours.
    grep -v "the use of \`mktemp' is dangerous" "$log" | tail -40 >&2
    echo "build: the whole log is $log" >&2
    exit 1
fi
echo "done in $((SECONDS - start)) s"
