#!/usr/bin/env bash
# Builds a libFuzzer target and runs it. FUZZ_TARGET chooses which:
#   keyfile (default)  KeyFile(bytes:options:)          fuzz/KeyFileFuzzer.swift
#   checkin            CWA event QR codes and trace      fuzz/CheckInFuzzer.swift
#                      warning packages
#   crowdnotifier      CrowdNotifier trace keys, QR      fuzz/CrowdNotifierFuzzer.swift
#                      codes, associated data, points
#   protocols          servers' answers, QR codes of     fuzz/ProtocolsFuzzer.swift
#                      tests, push registrations, the
#                      planners' numbers, keys, JSON
#
#   scripts/fuzz.sh [SECONDS]      (default: $FUZZ_SECONDS, else 60)
#   FUZZ_TARGET=checkin scripts/fuzz.sh 60
#
# SwiftPM cannot build a -sanitize=fuzzer binary of one target here, so this
# compiles directly: the C targets with clang (ASan + fuzzer coverage), the
# core layers' sources (Sources/Encore{Support,...}, their imports of each
# other removed) plus every harness, what they share (fuzz/Harness.swift)
# and the entry point that picks one (fuzz/Main.swift), with swiftc as one module.
# Output: build/fuzz/encore-fuzzer, every target in one binary (the layers
# compile once; ENCORE_FUZZ_TARGET=TARGET picks one); corpus in build/fuzz/corpus (keyfile,
# seeded with the samples of Tests/data/exports) or build/fuzz/corpus-TARGET
# (checkin: seeded by fuzz/checkin_seeds.py); crashes in build/fuzz/artifacts
# (the checkin target's named checkin-*).
# Exits non-zero when the fuzzer finds a crash (or the build fails).
# Extra libFuzzer flags may be given in FUZZ_FLAGS; FUZZ_BUILD_ONLY=1 only builds.
set -euo pipefail

root="$(cd "$(dirname "$0")/.." && pwd)"
cd "$root"
seconds="${1:-${FUZZ_SECONDS:-60}}"
[[ "$seconds" =~ ^[0-9]+$ ]] || { echo "fuzz: SECONDS must be a whole number, not '$seconds'" >&2; exit 2; }

out="$root/build/fuzz"
target="${FUZZ_TARGET:-keyfile}"
# Per target: its dictionary and its corpus. Every target is in the one
# binary (fuzz/Main.swift dispatches on ENCORE_FUZZ_TARGET).
case "$target" in
    keyfile) dict=fuzz/keyfile.dict corpus="$out/corpus" artifacts="$out/artifacts/" ;;
    checkin) dict=fuzz/checkin.dict corpus="$out/corpus-checkin" artifacts="$out/artifacts/checkin-" ;;
    crowdnotifier) dict=fuzz/checkin.dict corpus="$out/corpus-crowdnotifier" artifacts="$out/artifacts/crowdnotifier-" ;;
    protocols) dict=fuzz/protocols.dict corpus="$out/corpus-protocols" artifacts="$out/artifacts/protocols-" ;;
    *) echo "fuzz: FUZZ_TARGET must be keyfile, checkin, crowdnotifier or protocols, not '$target'" >&2; exit 2 ;;
esac
# The layers the harnesses stand on (each with those below it), in order.
layers=(EncoreSupport EncoreWire EncoreCrypto EncoreStorage EncoreHTTP EncoreKeyFiles EncoreExposure EncoreRisk
        EncoreCrowdNotifier EncoreCheckIns EncoreTracing EncoreCheck EncoreTestResults EncorePush EncoreSync)
binary="$out/encore-fuzzer"
obj="$out/obj"
maps="$out/modulemaps"
mkdir -p "$obj" "$maps" "$corpus" "$out/artifacts"

# Built once for all targets: again only when a source, a harness or this
# script is newer than the binary.
if [[ -x "$binary" ]] && [[ -z "$(find Sources fuzz scripts/fuzz.sh Package.swift -newer "$binary" -print -quit)" ]]; then
    echo "fuzz: $binary is up to date"
else
    SWIFTC="${SWIFTC:-swiftc}"
    # The clang that ships with the Swift toolchain has the libFuzzer runtime
    # matching swiftc's; prefer it.
    if [[ -z "${CLANG:-}" ]]; then
        swift_bin="$(dirname "$(command -v "$SWIFTC")")"
        if [[ -x "$swift_bin/clang" ]]; then CLANG="$swift_bin/clang"; else CLANG=clang; fi
    fi

    # lld (shipped with the toolchain) links the ASan runtime without the
    # hundreds of "cannot export local symbol" warnings of gold.
    LD_FLAG=""
    if command -v ld.lld >/dev/null 2>&1 || [[ -x "$(dirname "$CLANG")/ld.lld" ]]; then LD_FLAG="-use-ld=lld"; fi

    # The C modules of the package, found rather than listed, since targets come
    # and go: system libraries (a directory with module.modulemap: add it to the
    # include path, link what it names) and C source targets (an include/ dir:
    # SwiftPM synthesises their module maps, so write equivalents here, and
    # compile their .c files with ASan and fuzzer coverage).
    include_flags=()
    link_flags=()
    c_targets=()
    for dir in Sources/C*/; do
        dir="${dir%/}"
        name="$(basename "$dir")"
        if [[ -f "$dir/module.modulemap" ]]; then
            include_flags+=(-I "$dir")
            while IFS= read -r lib; do link_flags+=("-l$lib"); done \
                < <(sed -n 's/^[[:space:]]*link[[:space:]]*"\([^"]*\)".*/\1/p' "$dir/module.modulemap")
        elif [[ -d "$dir/include" ]]; then
            c_targets+=("$name")
            include_flags+=(-I "$dir/include")
        fi
    done

    # Libraries that C source targets link through Package.swift's
    # linkerSettings (.linkedLibrary; none at present: libcurl, once linked
    # for CEncoreHTTP, is loaded with dlopen on the first request): only on the
    # lines of C targets (the library product's static Foundation parts are
    # not for this dynamically linked fuzzer).
    while IFS= read -r lib; do link_flags+=("-l$lib"); done \
        < <(grep -E '\.target\(name: "C[A-Za-z]*"' Package.swift | grep -o 'linkedLibrary("[^"]*")' \
            | sed 's/linkedLibrary("\(.*\)")/\1/' | sort -u)

    swift_module_flags=()
    objects=()
    cflags=(-fsanitize=fuzzer-no-link,address -g -O1 -fPIC)
    echo "fuzz: compiling C targets: ${c_targets[*]}"
    for name in "${c_targets[@]}"; do
        map="$maps/$name.modulemap"
        printf 'module %s {\n    umbrella "%s"\n    export *\n}\n' "$name" "$root/Sources/$name/include" > "$map"
        swift_module_flags+=(-Xcc -fmodule-map-file="$map")
        while IFS= read -r -d '' c; do
            o="$obj/$name-$(basename "${c%.c}").o"
            "$CLANG" "${cflags[@]}" "${include_flags[@]}" -I "Sources/$name/include" -c "$c" -o "$o"
            objects+=("$o")
        done < <(find "Sources/$name" -name '*.c' -print0 | sort -z)
    done

    echo "fuzz: compiling the core's layers + every harness"
    # The layers the target stands on, as one module: their imports of each
    # other would name modules that do not exist here.
    src="$out/src"
    rm -rf "$src" && mkdir -p "$src"
    for layer in "${layers[@]}"; do
        for f in Sources/"$layer"/*.swift; do
            sed -E '/^import (Encore[A-Za-z]+)$/d' "$f" > "$src/$layer-$(basename "$f")"
        done
    done
    mapfile -t swift_sources < <(find "$src" -name '*.swift' | sort)
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g \
        -module-name EncoreFuzz -package-name encore \
        "${include_flags[@]}" "${swift_module_flags[@]}" \
        -module-cache-path "$out/module-cache" \
        "${swift_sources[@]}" fuzz/*.swift \
        "${objects[@]}" "${link_flags[@]}" $LD_FLAG \
        -o "$binary"
    echo "fuzz: built $binary"
fi
[[ "${FUZZ_BUILD_ONLY:-0}" == 1 ]] && exit 0

# Seed corpus (written at run time, never committed): the sample key
# files, or the check-in seeds (AES through `cryptography`: build/venv's
# Python when it exists).
if [[ "$target" == keyfile ]]; then
    while IFS= read -r -d '' f; do
        name="$(echo "${f#Tests/data/exports/}" | tr '/' '_')"
        cp "$f" "$corpus/seed_$name"
    done < <(find Tests/data/exports \( -name '*.zip' -o -name '*.bin' \) -print0)
elif [[ "$target" == crowdnotifier || "$target" == protocols ]]; then
    : # no seeds: the harness's first byte picks the parser, libFuzzer grows the rest (and the dictionary)
else
    python=python3
    [[ -x build/venv/bin/python ]] && python=build/venv/bin/python
    "$python" fuzz/checkin_seeds.py "$corpus"
fi

echo "fuzz: running for ${seconds}s"
log="$out/last-run.log"
[[ "$target" == keyfile ]] || log="$out/last-run-$target.log"
set +e
# shellcheck disable=SC2086
ENCORE_FUZZ_TARGET="$target" "$binary" -max_total_time="$seconds" -rss_limit_mb=2048 -print_final_stats=1 \
    -dict="$dict" -artifact_prefix="$artifacts" ${FUZZ_FLAGS:-} "$corpus" 2>&1 | tee "$log"
status=${PIPESTATUS[0]}
set -e
execs="$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)"
echo "fuzz: ${execs:-?} executions in ${seconds}s, exit status $status"
if ((status != 0)); then
    echo "fuzz: FAILED; inputs that crashed are in $out/artifacts" >&2
    exit "$status"
fi
echo "fuzz: $target ran clean: ok"
