#!/usr/bin/env bash
# Installs into a temporary prefix and builds the C example against the
# installed header and library through pkg-config, as a user would; then
# checks the installed shell completion (bash completes `encore <TAB>`) and
# man pages (`man encore-sync` shows the sync options).
set -euo pipefail
cd "$(dirname "$0")/.."
prefix=$(mktemp -d)
trap 'rm -rf "$prefix"' EXIT
make --no-print-directory install PREFIX="$prefix" >/dev/null
major=$(sed -n 's/^#define ENCORE_VERSION_MAJOR //p' Sources/CEncoreTypes/include/encore_types.h)
for f in lib/libencore.so lib/libencore.so.$major include/encore.h lib/pkgconfig/encore.pc bin/encore \
         share/bash-completion/completions/encore share/zsh/site-functions/_encore \
         share/fish/vendor_completions.d/encore.fish share/man/man1/encore.1 share/man/man1/encore-sync.1; do
    [ -e "$prefix/$f" ] || { echo "test-install: $f was not installed" >&2; exit 1; }
done
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c99 -Wall -Wextra -Wpedantic -Werror bindings/c/example.c $(pkg-config --cflags --libs encore) \
    -Wl,-rpath,"$prefix/lib" -o "$prefix/example"
# (grep without -q below: it reads to the end, so under pipefail the command
# before it cannot die of SIGPIPE and turn a match into a failure.)
"$prefix/example" Tests/data/exports/immuni/export.bin | grep "region 222, batch 1 of 1, 3 keys" >/dev/null
echo "install: PREFIX layout, pkg-config and the example against the installed library: ok"

. scripts/share-checks.sh
check_bash_completion "$prefix/share/bash-completion/completions/encore" "$prefix/bin"
grep -q '^#compdef encore' "$prefix/share/zsh/site-functions/_encore" || { echo "test-install: _encore is not a zsh completion" >&2; exit 1; }
grep -q "^complete -c 'encore' .*-fa 'sync'" "$prefix/share/fish/vendor_completions.d/encore.fish" \
    || { echo "test-install: encore.fish is not a fish completion of encore's subcommands" >&2; exit 1; }
echo "install: bash completion offers the subcommands and options; zsh and fish completions in place: ok"

# man: the sync page shows sync's options.
check_man_sync "$(MANWIDTH=100 man -l "$prefix/share/man/man1/encore-sync.1" 2>&1)"
warnings=$(for page in "$prefix"/share/man/man1/*.1; do groff -man -Tutf8 -ww -z "$page" 2>&1; done)
[ -z "$warnings" ] || { echo "test-install: groff warns about the man pages: $warnings" >&2; exit 1; }
echo "install: man pages ($(ls "$prefix/share/man/man1" | wc -l)); man encore-sync shows the sync options: ok"
