#!/usr/bin/env bash
# The C ABI of libencore as libabigail sees it, and its comparison with the
# committed baseline of the SONAME (support/abi/libencore<MAJOR>.abi).
#
#   scripts/abi.sh dump HEADER OUT      the ABI that HEADER declares, as abidw XML,
#                                       and its constants beside it (OUT.constants)
#   scripts/abi.sh diff BASELINE HEADER fails when HEADER breaks BASELINE's ABI
#   scripts/abi.sh selftest             diff passes additions and fails breaks
#
# Why from the header: libencore.so is Swift, and its DWARF describes Swift's
# view of the @c functions, not the C types a caller compiles against (abidw
# of the real library finds the symbols and no encore_* type). So the header's
# prototypes are compiled, with debug information, into a stand-in library
# linked with the real one's version script and SONAME: its ABI corpus has
# every function's signature, every struct's layout and every symbol's
# version. scripts/check-abi.sh already holds the real library's exports to
# the header's declarations; this holds the header to what the SONAME shipped.
#
# What counts as compatible: a function added; a member appended to a struct
# that starts with struct_size (the library reads and writes only the size a
# caller says: the header's "every struct can grow" rule; abidiff's
# has_data_member_inserted_at = end). Anything else that abidiff reports
# (a removed function, a changed parameter or return type, a member added
# in the middle, removed or retyped, a by-value struct that grew inside
# another) fails, and so does a status or other constant whose value moved.
set -euo pipefail
cd "$(dirname "$0")/.."
command -v abidw >/dev/null || { echo "abi: abidw is missing (Debian's abigail-tools; scripts/deps.sh installs it)" >&2; exit 1; }
scratch=$(mktemp -d); trap 'rm -rf "$scratch"' EXIT
# A fresh folder under the one scratch folder, for each step.
scratch_dir() { mktemp -d -p "$scratch"; }

# The stand-in library of HEADER in DIR/libencore.so.
build_standin() {
    local header=$1 dir=$2 major
    major=$(sed -n 's/^#define ENCORE_VERSION_MAJOR //p' "$header")
    {
        echo '#include "encore.h"'
        # One definition per prototype (the generator writes each on one line):
        # its body never runs, it only makes the compiler describe the signature.
        grep -E '^[A-Za-z].*\bencore_[a-z0-9_]+\(.*\);$' "$header" | sed 's/;$/ { __builtin_trap(); }/'
    } > "$dir/standin.c"
    cp "$header" "$dir/encore.h"
    gcc -std=c99 -g -O0 -fPIC -shared -I"$dir" -o "$dir/libencore.so" "$dir/standin.c" \
        -Wl,--version-script=support/libencore.map -Wl,-soname,"libencore.so.$major" -Wno-unused-parameter
}

# Every integer constant the header defines (statuses, enum-like values),
# NAME VALUE a line, computed by the compiler (some are expressions).
constants() {
    local header=$1 dir=$2
    {
        printf '#include <stdio.h>\n#include "encore.h"\nint main(void) {\n'
        sed -n 's/^#define \(ENCORE_[A-Z0-9_]*\) .*/\1/p' "$header" | grep -v '^ENCORE_VERSION_' |
            while read -r name; do printf '    printf("%%s %%lld\\n", "%s", (long long)(%s));\n' "$name" "$name"; done
        printf '    return 0;\n}\n'
    } > "$dir/constants.c"
    cp "$header" "$dir/encore.h"
    gcc -std=c99 -I"$dir" -o "$dir/constants" "$dir/constants.c"
    "$dir/constants" | sort
}

dump() {
    local header=$1 out=$2 dir
    dir=$(scratch_dir)
    build_standin "$header" "$dir"
    abidw --no-show-locs --no-corpus-path "$dir/libencore.so" > "$out"
    constants "$header" "$dir" > "$out.constants"
}

# The suppressions that make an appended member of a struct_size struct pass
# (encore_bytes and encore_http_header have no struct_size: they never grow).
suppressions() {
    cat <<'EOF'
[suppress_type]
  type_kind = struct
  name_regexp = ^encore_
  name_not_regexp = ^(encore_bytes|encore_http_header)$
  has_data_member_inserted_at = end
EOF
}

diff_abi() {
    local baseline=$1 header=$2 dir status=0 report
    dir=$(scratch_dir)
    dump "$header" "$dir/current.abi"
    suppressions > "$dir/suppressions"
    report=$(abidiff --no-show-locs --suppressions "$dir/suppressions" "$baseline" "$dir/current.abi") || true
    # Additions alone are compatible; any removed or changed function or
    # variable, removed or changed symbol, is a break. The summary lines:
    # "Functions changes summary: R Removed, C Changed (F filtered out), A Added functions".
    local broken
    broken=$(grep -E 'changes summary: ' <<< "$report" | grep -vE ': 0 Removed, 0 Changed( \([0-9]+ filtered out\))?, [0-9]+ Added' || true)
    if [ -n "$broken" ]; then
        echo "abi: $header breaks the ABI recorded in $baseline:" >&2
        echo "$report" >&2
        status=1
    fi
    # Constants: each of the baseline's keeps its value (new ones may come).
    constants "$header" "$dir" > "$dir/current.constants"
    local moved
    moved=$(join -a1 "$baseline.constants" "$dir/current.constants" | awk 'NF != 3 || $2 != $3')
    if [ -n "$moved" ]; then
        echo "abi: constants of $baseline.constants that $header removes or renumbers (name, was, now):" >&2
        echo "$moved" >&2
        status=1
    fi
    return $status
}

# The check of the check: from HEADER (the current one), an added function
# and an appended struct member pass; a changed signature, a member inserted
# in the middle and a renumbered status fail.
selftest() {
    local baseline=$1 header=$2 dir
    dir=$(scratch_dir)
    expect() {
        local want=$1 what=$2 file=$3
        if diff_abi "$baseline" "$file" 2>"$dir/err"; then got=pass; else got=fail; fi
        if [ "$got" != "$want" ]; then
            echo "abi selftest: $what should $want, did $got:" >&2; cat "$dir/err" >&2; return 1
        fi
        echo "abi selftest: $what: $want, as it should"
    }
    sed 's/^\(encore_status encore_match_run(.*\)size_t count,/\1uint32_t count,/' "$header" > "$dir/signature.h"
    sed '/^typedef struct encore_check_options {/,/^}/{s/^\( *uint32_t struct_size;.*\)$/\1\n    int32_t inserted;/}' "$header" > "$dir/inserted.h"
    sed '/^typedef struct encore_check_options {/,/^}/{s/^} encore_check_options;/    int32_t appended;\n&/}' "$header" > "$dir/appended.h"
    sed 's/^#define ENCORE_ERR_STORE_BUSY 44 /#define ENCORE_ERR_STORE_BUSY 48 /' "$header" > "$dir/renumbered.h"
    sed 's/^\(encore_status encore_match_run(.*\)$/\1\nint encore_selftest_added(int x);/' "$header" > "$dir/added.h"
    for f in signature inserted appended renumbered added; do
        cmp -s "$header" "$dir/$f.h" && { echo "abi selftest: the $f edit did not apply to $header" >&2; return 1; }
    done
    expect pass "the header itself" "$header"
    expect pass "a function added" "$dir/added.h"
    expect pass "a member appended to a struct_size struct" "$dir/appended.h"
    expect fail "a parameter's type changed (encore_match_run's count)" "$dir/signature.h"
    expect fail "a member inserted before others" "$dir/inserted.h"
    expect fail "a status renumbered" "$dir/renumbered.h"
}

case ${1:-} in
    dump) dump "${2:?HEADER}" "${3:?OUT}" ;;
    diff) diff_abi "${2:?BASELINE}" "${3:?HEADER}" ;;
    selftest) selftest "${2:?BASELINE}" "${3:?HEADER}" ;;
    *) echo "usage: abi.sh dump HEADER OUT | diff BASELINE HEADER | selftest BASELINE HEADER" >&2; exit 2 ;;
esac
