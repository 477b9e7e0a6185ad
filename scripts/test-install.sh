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
for f in lib/libencore.so lib/libencore.so.0 include/encore.h lib/pkgconfig/encore.pc bin/encore \
         share/bash-completion/completions/encore share/zsh/site-functions/_encore \
         share/fish/vendor_completions.d/encore.fish share/man/man1/encore.1 share/man/man1/encore-sync.1; do
    [ -e "$prefix/$f" ] || { echo "test-install: $f was not installed" >&2; exit 1; }
done
export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
cc -std=c99 -Wall -Wextra -Wpedantic -Werror bindings/c/example.c $(pkg-config --cflags --libs encore) \
    -Wl,-rpath,"$prefix/lib" -o "$prefix/example"
"$prefix/example" Tests/data/exports/immuni/export.bin | grep -q "region 222, batch 1 of 1, 3 keys"
echo "install: PREFIX layout, pkg-config and the example against the installed library: ok"

# bash: the installed script registers a completion for encore, and its
# function, driven as bash drives it for `encore <TAB>`, offers the subcommands.
offered=$(bash --norc --noprofile -c '
    set -euo pipefail
    shopt -s extglob
    source "$1"
    spec=$(complete -p encore)
    function=$(sed -n "s/.*-F \([^ ]*\) .*/\1/p" <<<"$spec")
    [ -n "$function" ] || { echo "no completion function in: $spec" >&2; exit 1; }
    COMP_WORDS=(encore "") COMP_CWORD=1 COMP_LINE="encore " COMP_POINT=7 COMPREPLY=()
    PATH="$2:$PATH" "$function" encore "" encore
    printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix/share/bash-completion/completions/encore" "$prefix/bin")
for sub in sync test store demo keyfile; do
    grep -qx -- "$sub" <<<"$offered" || { echo "test-install: bash completion of 'encore <TAB>' does not offer $sub; it offered: $offered" >&2; exit 1; }
done
offered=$(bash --norc --noprofile -c '
    shopt -s extglob
    source "$1"
    COMP_WORDS=(encore sync run --tr) COMP_CWORD=3 COMP_LINE="encore sync run --tr" COMP_POINT=20 COMPREPLY=()
    _encore encore --tr run
    printf "%s\n" "${COMPREPLY[@]}"' _ "$prefix/share/bash-completion/completions/encore")
grep -qx -- "--trust" <<<"$offered" || grep -qx -- "--trigger" <<<"$offered" \
    || { echo "test-install: bash completion of 'encore sync run --tr' offers neither --trust nor --trigger: $offered" >&2; exit 1; }
grep -q '^#compdef encore' "$prefix/share/zsh/site-functions/_encore" || { echo "test-install: _encore is not a zsh completion" >&2; exit 1; }
grep -q "^complete -c 'encore' .*-fa 'sync'" "$prefix/share/fish/vendor_completions.d/encore.fish" \
    || { echo "test-install: encore.fish is not a fish completion of encore's subcommands" >&2; exit 1; }
echo "install: bash completion offers the subcommands and options; zsh and fish completions in place: ok"

# man: the sync page shows sync's options (run is its default subcommand).
page=$(MANWIDTH=100 man -l "$prefix/share/man/man1/encore-sync.1" 2>&1)
for option in --db --distribution --trust --dp3t --budget; do
    grep -q -- "$option" <<<"$page" || { echo "test-install: man encore-sync does not show $option" >&2; exit 1; }
done
warnings=$(for page in "$prefix"/share/man/man1/*.1; do groff -man -Tutf8 -ww -z "$page" 2>&1; done)
[ -z "$warnings" ] || { echo "test-install: groff warns about the man pages: $warnings" >&2; exit 1; }
echo "install: man pages ($(ls "$prefix/share/man/man1" | wc -l)); man encore-sync shows the sync options: ok"
