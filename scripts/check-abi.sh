#!/usr/bin/env bash
# Checks the C ABI of a built libencore.so against include/encore.h:
# the header is freshly generated, compiles strictly as C99 and C++ under gcc
# and clang, declares exactly the functions the library exports, which are
# those support/deb/libencore<MAJOR>.symbols records (none removed), and the
# library carries its SONAME without depending on the Swift toolchain. The
# other generated text is checked here too: Python's _ffi.py and _records.py
# against the header; docs/architecture.md's module
# graph against Package.swift, and Sources/CEncoreProto against proto/;
# each feature's SQL against the tables it owns (scripts/check-tables.py);
# and Package.swift's graph against the imports of the files (scripts/
# check-imports.py, on the modules of the release build `make lib cli
# encored` made).
# The header is then held to the ABI the SONAME shipped (scripts/abi.sh:
# libabigail's abidiff against support/abi/libencore<MAJOR>.abi), and each
# exported function to the symbol version its line of the symbols file gives.
set -euo pipefail
cd "$(dirname "$0")/.."
lib=${1:?usage: check-abi.sh path/to/libencore.so.X.Y.Z}
major=$(sed -n 's/^#define ENCORE_VERSION_MAJOR //p' Sources/CEncoreTypes/include/encore_types.h)

scripts/gen-header.py --check
python3 bindings/python/gen_ffi.py --check
python3 bindings/python/gen_records.py --check
scripts/gen-architecture.py --check
scripts/check-tables.py
# Every target's files, the tests' too (their fixture modules built if missing).
scripts/check-imports.py --scope all --build-missing
scripts/gen-proto.sh --check

tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '#include "encore.h"\nint main(void) { return encore_version() == 0; }\n' > "$tmp/h.c"
cp "$tmp/h.c" "$tmp/h.cpp"
for cc in gcc clang; do
    $cc -std=c99 -Wall -Wextra -Wpedantic -Werror -Iinclude -c "$tmp/h.c" -o "$tmp/h.o"
    echo "header: $cc -std=c99 -Wall -Wextra -Wpedantic -Werror: ok"
done
for cxx in g++ clang++; do
    $cxx -std=c++11 -Wall -Wextra -Wpedantic -Werror -Iinclude -c "$tmp/h.cpp" -o "$tmp/h.o"
    echo "header: $cxx -std=c++11 -Wall -Wextra -Wpedantic -Werror: ok"
done

# The header against the ABI this SONAME shipped: additions pass, breaks
# fail; and the check of that check (a changed signature must fail).
baseline=support/abi/libencore$major.abi
[ -f "$baseline" ] || { echo "check-abi: $baseline is missing: a new SONAME records its ABI with scripts/abi.sh dump include/encore.h $baseline" >&2; exit 1; }
scripts/abi.sh diff "$baseline" include/encore.h
echo "abi: include/encore.h keeps every function, struct layout and constant of $baseline (abidiff): ok"
scripts/abi.sh selftest "$baseline" include/encore.h

# Global definitions only: the version node (type A) and LOCAL entries that
# the toolchain leaves in .dynsym are not linkable. NAME@VERSION a line.
nm -D --defined-only --extern-only "$lib" | awk '$2 != "A" {print $3}' | sed 's/@@*/@/' | sort > "$tmp/exported_versions"
sed 's/@.*//' "$tmp/exported_versions" > "$tmp/exported"
scripts/gen-header.py --list | sort > "$tmp/declared"
if ! diff -u "$tmp/declared" "$tmp/exported"; then
    echo "check-abi: functions declared in include/encore.h (-) differ from those $lib exports (+)" >&2
    exit 1
fi
echo "exports: $(wc -l < "$tmp/exported") functions, exactly those of the header: ok"
# Against the record of what this SONAME has shipped (support/deb/
# libencore$major.symbols, also the Debian package's symbols file): a
# function may be added, with the version it first ships in, but not
# removed while the SONAME stays.
symbols=support/deb/libencore$major.symbols
[ -f "$symbols" ] || { echo "check-abi: $symbols is missing: a new SONAME starts its own record (see support/deb/)" >&2; exit 1; }
sed -n 's/^ \([^@ ]*\)@[^ ]* .*/\1/p' "$symbols" | grep -vx 'LIBENCORE_[0-9.]*' | sort > "$tmp/recorded"
gone=$(comm -23 "$tmp/recorded" "$tmp/exported")
new=$(comm -13 "$tmp/recorded" "$tmp/exported")
if [ -n "$gone" ]; then
    echo "check-abi: $symbols records functions the library no longer exports; removing one breaks libencore.so.$major's ABI:" >&2
    echo "$gone" >&2; exit 1
fi
version=$(sed -n 's/^#define ENCORE_VERSION_STRING "\(.*\)"/\1/p' include/encore.h)
node=LIBENCORE_${version%.*}
if [ -n "$new" ]; then
    echo "check-abi: the library exports functions $symbols does not record. A new function gets its own symbol" >&2
    echo "version, that of the release it first ships in: add it to support/libencore.map's $node node and to $symbols:" >&2
    echo "$new" | sed "s/.*/ &@$node $version/" >&2; exit 1
fi
echo "exports: the same $(wc -l < "$tmp/recorded") functions as $symbols records (none removed, each new one recorded): ok"
# Each function carries the symbol version its line records (support/libencore.map
# puts it there): a program linked against 1.1 then asks for LIBENCORE_1.1, and an
# older library says so by name instead of failing on a missing symbol later.
sed -n 's/^ \([^@ ]*@[^ ]*\) .*/\1/p' "$symbols" | grep -v '^LIBENCORE_' | sort > "$tmp/recorded_versions"
if ! diff -u "$tmp/recorded_versions" "$tmp/exported_versions"; then
    echo "check-abi: the symbol versions of $lib (+) differ from those $symbols records (-); support/libencore.map sets them" >&2
    exit 1
fi
echo "exports: each function has the symbol version $symbols records: ok"
# And that version is the release the function first shipped in: LIBENCORE_<major>.<minor>
# of its line's version (the functions of 1.0.0 are LIBENCORE_0's).
misplaced=$(sed -n 's/^ \(encore_[^@ ]*\)@\([^ ]*\) \([0-9]*\.[0-9]*\)\..*/\1 \2 \3/p' "$symbols" |
    awk '{ want = ($3 == "1.0") ? "LIBENCORE_0" : "LIBENCORE_" $3; if ($2 != want) print "  " $1 ": " $2 ", first shipped in " $3 ": " want }')
if [ -n "$misplaced" ]; then
    echo "check-abi: functions of $symbols whose symbol version is not that of the release they first shipped in:" >&2
    echo "$misplaced" >&2; exit 1
fi
echo "exports: each function's symbol version is that of the release it first shipped in: ok"

# (grep without -q below: it reads to the end, so under pipefail the command
# before it cannot die of SIGPIPE and turn a match into a failure.)
if ldd "$lib" | grep 'libswift' >/dev/null; then
    echo "check-abi: $lib depends on a Swift runtime library:" >&2; ldd "$lib" >&2; exit 1
fi
soname=$(readelf -d "$lib" | sed -n 's/.*(SONAME).*\[\(.*\)\]/\1/p')
[ "$soname" = "libencore.so.$major" ] || { echo "check-abi: SONAME is '$soname', expected libencore.so.$major (Package.swift reads the major from encore_types.h; after a bump SwiftPM may use its cached manifest: build once with --manifest-cache none)" >&2; exit 1; }
if readelf -d "$lib" | grep -E 'RUNPATH|RPATH' | grep -iE 'swift|toolchain|/opt' >/dev/null; then
    echo "check-abi: $lib has a run path into the toolchain" >&2; exit 1
fi
echo "library: SONAME $soname, no Swift runtime dependency, no toolchain run path: ok"

# SQLCipher is loaded privately (Sources/CEncoreSQL): never a dependency,
# and no sqlite3_* reference the dynamic linker could bind to another SQLite.
if readelf -d "$lib" | grep NEEDED | grep -iE 'sqlite|sqlcipher' >/dev/null; then
    echo "check-abi: $lib links SQLite or SQLCipher; it must load SQLCipher privately:" >&2
    readelf -d "$lib" | grep NEEDED >&2; exit 1
fi
if nm -D --undefined-only "$lib" | grep 'sqlite3_' >/dev/null; then
    echo "check-abi: $lib references sqlite3_* symbols through the dynamic linker:" >&2
    nm -D --undefined-only "$lib" | grep 'sqlite3_' >&2; exit 1
fi
echo "library: no SQLite dependency and no sqlite3_* reference (SQLCipher is loaded privately): ok"
