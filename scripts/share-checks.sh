# The checks of the installed completions and man pages that
# scripts/test-install.sh (a PREFIX) and scripts/test-deb.sh (the packages)
# both make. Sourced; each function exits the shell with a message on failure.

# check_bash_completion SCRIPT BINDIR: the installed bash script registers a
# completion for encore, and its function, driven as bash drives it for
# `encore <TAB>` and `encore sync run --tr<TAB>`, offers the subcommands and options.
check_bash_completion() {
    local script=$1 bindir=$2 offered sub
    offered=$(bash --norc --noprofile -c '
        set -euo pipefail
        shopt -s extglob
        source "$1"
        spec=$(complete -p encore)
        function=$(sed -n "s/.*-F \([^ ]*\) .*/\1/p" <<<"$spec")
        [ -n "$function" ] || { echo "no completion function in: $spec" >&2; exit 1; }
        COMP_WORDS=(encore "") COMP_CWORD=1 COMP_LINE="encore " COMP_POINT=7 COMPREPLY=()
        PATH="$2:$PATH" "$function" encore "" encore
        printf "%s\n" "${COMPREPLY[@]}"' _ "$script" "$bindir")
    for sub in sync test store demo keyfile; do
        grep -qx -- "$sub" <<<"$offered" || { echo "bash completion of 'encore <TAB>' ($script) does not offer $sub; it offered: $offered" >&2; exit 1; }
    done
    offered=$(bash --norc --noprofile -c '
        shopt -s extglob
        source "$1"
        COMP_WORDS=(encore sync run --tr) COMP_CWORD=3 COMP_LINE="encore sync run --tr" COMP_POINT=20 COMPREPLY=()
        _encore encore --tr run
        printf "%s\n" "${COMPREPLY[@]}"' _ "$script")
    grep -qx -- "--trust" <<<"$offered" || grep -qx -- "--trigger" <<<"$offered" \
        || { echo "bash completion of 'encore sync run --tr' ($script) offers neither --trust nor --trigger: $offered" >&2; exit 1; }
}

# check_man_sync TEXT: the rendered encore-sync page shows sync's options (run is its default subcommand).
check_man_sync() {
    local page=$1 option
    for option in --db --distribution --trust --dp3t --budget; do
        grep -q -- "$option" <<<"$page" || { echo "man encore-sync does not show $option" >&2; exit 1; }
    done
}
