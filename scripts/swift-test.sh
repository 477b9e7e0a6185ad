#!/usr/bin/env bash
# The Swift tests (Swift Testing only: the package has no XCTest cases, and
# SwiftPM would run an empty XCTest pass), built with SwiftPM's explicit
# target-dependency import check: a target that imports a module of the
# package it does not depend on fails the run. SwiftPM prints that check's
# errors but goes on building (swiftlang/swift-package-manager#7062), so
# this script reads them from the build's output. A release build, with the
# library's and the tool's flags: the tests run on the very modules that
# `make lib cli` compiled (no second, debug build of the core), optimized as
# they ship; the tests therefore use no @testable import.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build/logs
log=build/logs/swift-test-build.log
check=(--explicit-target-dependency-import-check error)
if ! swift build -c release --build-tests "${check[@]}" > "$log" 2>&1; then
    tail -40 "$log" >&2
    echo "swift tests: the build failed; the whole log is $log" >&2
    exit 1
fi
if grep "without declaring it a dependency" "$log" >&2; then
    echo "swift tests: a target imports a module it does not declare (Package.swift)" >&2
    exit 1
fi
echo "swift tests: every target imports only what it declares"
# --skip-build: `swift test` builds with testable imports by default, that is
# every module of the core again with other flags (and `make lib` after it).
swift test -c release --skip-build --disable-xctest
