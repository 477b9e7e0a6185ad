#!/usr/bin/env bash
# `make test-deb`: the packages of `make deb` (scripts/build-deb.sh), as a
# Debian machine gets them.
#  1. Each package's control fields and contents (dpkg-deb -I / -c); every
#     library its binaries load is its own or a Debian package's (not the
#     Swift toolchain's); they are hardened (full RELRO, _FORTIFY_SOURCE);
#     lintian finds nothing (no error, no warning) but what the overrides
#     in support/deb/ explain.
#  2. Installed with `dpkg -i` into a throw-away root, then used from there:
#     the C example compiled with `pkg-config --cflags --libs encore` and run,
#     the reference manual's links (jquery.js: Debian's libjs-jquery),
#     `encore demo`, bash completion of `encore <TAB>`, `man encore-sync`,
#     `encore-pushd --help` and `--version`, `man 8 encore-pushd`;
#     encore-pushd's user, units (valid, not enabled) and
#     conffile; the same of encored (`encored --help`, `man 8 encored`, its
#     D-Bus policy for the API and the radio, polkit actions,
#     `encore-notify --version`; it replaces encore-tracingd); then purged.
# The throw-away root: when this runs as root and may mount an overlay in
# a private mount namespace (unshare -m), a chroot of the running system with
# every write going to a temporary upper layer, so dpkg runs for real
# (Depends checked against the installed system, maintainer scripts,
# triggers) and the machine itself is never touched, and with the Swift
# toolchain's libraries hidden (an empty directory mounted on them), as on
# a machine without it; otherwise (a user, a
# container without mounts) the packages are extracted with dpkg-deb -x into
# a temporary directory and used there through PKG_CONFIG_SYSROOT_DIR and
# LD_LIBRARY_PATH, and what only dpkg does (the user, the conffile) is
# checked from the control files alone (ENCORE_DEB_TEST_ROOT=extract forces
# this way). Its line "throw-away root: ..." says which was taken.
#   scripts/test-deb.sh              (from the repository)
#   test-deb.sh --inside DIR         (inside the chroot: install and use)
#   test-deb.sh --use ROOT DIR       (use the installed files under ROOT)
set -euo pipefail
# (grep without -q below: it reads to the end, so under pipefail the command
# before it cannot die of SIGPIPE and turn a match into a failure.)

# Usage of installed files, rooted at $1 ("" inside the chroot); $2 holds the test's files.
use_installed() {
    local root=$1 dir=$2 multiarch out
    multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || gcc -print-multiarch)
    # shellcheck source=scripts/share-checks.sh
    . "$dir/share-checks.sh"
    if [[ -n $root ]]; then
        export PKG_CONFIG_SYSROOT_DIR=$root PKG_CONFIG_PATH=$root/usr/lib/$multiarch/pkgconfig
        export LD_LIBRARY_PATH=$root/usr/lib/$multiarch
    fi
    # The example, built as a user builds it: only pkg-config's flags, no run path.
    # shellcheck disable=SC2046 # pkg-config's output is words
    cc -std=c99 -Wall -Wextra -Wpedantic -Werror "$root/usr/share/doc/libencore-dev/examples/example.c" \
        $(pkg-config --cflags --libs encore) -o "$dir/example"
    out=$("$dir/example" "$dir/export.bin")
    grep -q "region 222, batch 1 of 1, 3 keys" <<<"$out" || { echo "test-deb: the example printed: $out" >&2; exit 1; }
    echo "deb: the C example, built with pkg-config --cflags --libs encore ($(pkg-config --modversion encore)), runs: ok"
    # The manual as installed: its jquery.js is libjs-jquery's (a Depends:
    # when the packages are only extracted, this system's copy stands in).
    if [[ -n $root && ! -e $root/usr/share/javascript ]]; then ln -s /usr/share/javascript "$root/usr/share/javascript"; fi
    out=$(python3 "$dir/check-links.py" "$root/usr/share/doc/libencore-dev/html") \
        || { echo "test-deb: the installed reference manual: $out" >&2; exit 1; }
    echo "deb: the reference manual as installed, $out"
    out=$(cd "$dir" && "$root/usr/bin/encore" demo 2>&1) || { echo "test-deb: encore demo failed: $out" >&2; exit 1; }
    echo "deb: encore demo from $root/usr/bin/encore: ok ($(wc -l <<<"$out") lines)"
    check_bash_completion "$root/usr/share/bash-completion/completions/encore" "$root/usr/bin"
    echo "deb: bash completion of 'encore <TAB>' from the installed script: ok"
    if [[ -z $root ]]; then
        out=$(MANWIDTH=100 man encore-sync 2>&1)
    else
        out=$(MANWIDTH=100 man -l "$root/usr/share/man/man1/encore-sync.1.gz" 2>&1)
    fi
    check_man_sync "$out"
    echo "deb: man encore-sync shows the sync options: ok"
    out=$("$root/usr/bin/encore-pushd" --help 2>&1) || { echo "test-deb: encore-pushd --help failed: $out" >&2; exit 1; }
    grep -q 'serve' <<<"$out" || { echo "test-deb: encore-pushd --help names no serve: $out" >&2; exit 1; }
    local tools_version pushd_version
    tools_version=$("$root/usr/bin/encore" --version)
    pushd_version=$("$root/usr/bin/encore-pushd" --version)
    [[ $pushd_version == "$tools_version" ]] \
        || { echo "test-deb: encore-pushd --version says '$pushd_version', encore --version '$tools_version'" >&2; exit 1; }
    if [[ -z $root ]]; then
        out=$(MANWIDTH=100 man 8 encore-pushd 2>&1)
    else
        out=$(MANWIDTH=100 man -l "$root/usr/share/man/man8/encore-pushd.8.gz" 2>&1)
    fi
    grep -E 'ENCORE-PUSHD SERVE' <<<"$out" > /dev/null && grep -E -- '--listen' <<<"$out" > /dev/null \
        || { echo "test-deb: man 8 encore-pushd shows no serve section with --listen: $out" >&2; exit 1; }
    echo "deb: encore-pushd --help, --version ($pushd_version, as encore's), man 8 encore-pushd: ok"
    out=$("$root/usr/bin/encored" --help 2>&1) || { echo "test-deb: encored --help failed: $out" >&2; exit 1; }
    grep -q -- '--distribution' <<<"$out" && grep -q -- '--adapter' <<<"$out" \
        || { echo "test-deb: encored --help names no --distribution or --adapter: $out" >&2; exit 1; }
    [[ $("$root/usr/bin/encored" --version) == "$tools_version" && $("$root/usr/bin/encore-notify" --version) == "$tools_version" ]] \
        || { echo "test-deb: encored or encore-notify --version is not encore's ($tools_version)" >&2; exit 1; }
    if [[ -z $root ]]; then
        out=$(MANWIDTH=100 man 8 encored 2>&1)
    else
        out=$(MANWIDTH=100 man -l "$root/usr/share/man/man8/encored.8.gz" 2>&1)
    fi
    grep -E -- '--test-clock-file' <<<"$out" > /dev/null && grep -E 'polkit' <<<"$out" > /dev/null \
        && grep -E -- '--rssi-correction' <<<"$out" > /dev/null \
        || { echo "test-deb: man 8 encored shows no --test-clock-file, --rssi-correction or polkit: $out" >&2; exit 1; }
    # The bus policy (the encored user owns the name, everyone may call it:
    # polkit decides; it may call BlueZ, and takes other method calls only
    # from BlueZ) and polkit's four actions.
    python3 - "$root/usr/share/dbus-1/system.d/org.encore.Exposure.conf" "$root/usr/share/polkit-1/actions/org.encore.Exposure.policy" <<'PY' \
        || { echo "test-deb: encored's D-Bus policy or polkit actions are wrong" >&2; exit 1; }
import sys
import xml.etree.ElementTree as ET
policies = ET.parse(sys.argv[1]).getroot().findall("policy")
assert [(p.get("user"), p.get("context")) for p in policies] == [("encored", None), (None, "default")]
assert [(a.tag, a.attrib) for a in policies[0]] == [("allow", {"own": "org.encore.Exposure"}),
                                                    ("allow", {"send_destination": "org.bluez"}),
                                                    ("deny", {"receive_type": "method_call"}),
                                                    ("allow", {"receive_type": "method_call", "receive_sender": "org.bluez"}),
                                                    ("allow", {"receive_type": "method_call", "receive_path": "/org/encore/Exposure"})]
actions = {a.get("id"): a.find("defaults/allow_active").text for a in ET.parse(sys.argv[2]).getroot().findall("action")}
assert actions == {"org.encore.Exposure.read": "yes", "org.encore.Exposure.manage": "yes",
                   "org.encore.Exposure.submit-keys": "auth_self", "org.encore.Exposure.delete-data": "auth_admin_keep"}, actions
PY
    echo "deb: encored --help, --version, man 8 encored, its D-Bus policy and polkit actions; encore-notify --version: ok"
}

# Inside the chroot: dpkg -i, the system state dpkg leaves, the use, the purge.
inside() {
    local dir=$1 pkgs=(libencore1 libencore-dev encore-tools encore-pushd encored) p
    export PATH=/usr/sbin:/usr/bin:/sbin:/bin LC_ALL=C.UTF-8 DEBIAN_FRONTEND=noninteractive
    dpkg -i "$dir"/*.deb > "$dir/dpkg.log" 2>&1 || { cat "$dir/dpkg.log" >&2; echo "test-deb: dpkg -i failed" >&2; exit 1; }
    for p in "${pkgs[@]}"; do
        [[ $(dpkg-query -W -f='${Status}' "$p") == "install ok installed" ]] || { echo "test-deb: $p is not installed" >&2; exit 1; }
    done
    echo "deb: dpkg -i of the ${#pkgs[@]} packages (their Depends met by this system): ok"
    ldconfig -p | grep 'libencore.so.1 ' >/dev/null || { echo "test-deb: ldconfig does not know libencore.so.1 (the trigger)" >&2; exit 1; }
    local user
    user=$(getent passwd encore-pushd) || { echo "test-deb: postinst made no encore-pushd user" >&2; exit 1; }
    (( $(cut -d: -f3 <<<"$user") < 1000 )) || { echo "test-deb: encore-pushd is not a system user: $user" >&2; exit 1; }
    [[ $(stat -c '%U %a' /var/lib/encore-pushd) == "encore-pushd 700" ]] || { echo "test-deb: /var/lib/encore-pushd is $(stat -c '%U %a' /var/lib/encore-pushd)" >&2; exit 1; }
    local unit out
    for unit in encore-pushd.service encore-pushd-send.service; do
        [[ -f /lib/systemd/system/$unit ]] || { echo "test-deb: $unit is not installed" >&2; exit 1; }
        if compgen -G "/etc/systemd/system/*.wants/$unit" > /dev/null; then
            echo "test-deb: installing the package enabled $unit" >&2; exit 1
        fi
    done
    # The units as systemd reads them, with the binary and the man page they
    # name installed: not a word (an unknown key or a bad value is only a
    # warning to it, with exit status 0).
    if command -v systemd-analyze > /dev/null; then
        out=$(systemd-analyze verify /lib/systemd/system/encore-pushd.service /lib/systemd/system/encore-pushd-send.service 2>&1) \
            && [[ -z $out ]] || { echo "test-deb: systemd-analyze verify: $out" >&2; exit 1; }
    fi
    dpkg-query -W -f='${Conffiles}\n' encore-pushd | grep '^ /etc/encore-pushd/encore-pushd.conf ' >/dev/null \
        || { echo "test-deb: /etc/encore-pushd/encore-pushd.conf is not a conffile" >&2; exit 1; }
    echo "deb: encore-pushd: system user, state directory 0700, serve and send units installed, valid and not enabled, conffile: ok"
    user=$(getent passwd encored) || { echo "test-deb: postinst made no encored user" >&2; exit 1; }
    (( $(cut -d: -f3 <<<"$user") < 1000 )) || { echo "test-deb: encored is not a system user: $user" >&2; exit 1; }
    [[ $(stat -c '%U %a' /var/lib/encored) == "encored 700" ]] || { echo "test-deb: /var/lib/encored is $(stat -c '%U %a' /var/lib/encored)" >&2; exit 1; }
    ! compgen -G "/etc/systemd/system/*.wants/encored.service" > /dev/null \
        || { echo "test-deb: installing the package enabled encored.service" >&2; exit 1; }
    if command -v systemd-analyze > /dev/null; then
        out=$(systemd-analyze verify /lib/systemd/system/encored.service 2>&1) && [[ -z $out ]] \
            || { echo "test-deb: systemd-analyze verify encored.service: $out" >&2; exit 1; }
    fi
    dpkg-query -W -f='${Conffiles}\n' encored | grep '^ /etc/encored/encored.conf ' >/dev/null \
        || { echo "test-deb: /etc/encored/encored.conf is not a conffile" >&2; exit 1; }
    echo "deb: encored: system user, state directory 0700, unit installed, valid and not enabled, conffile: ok"
    use_installed "" "$dir"
    dpkg --purge "${pkgs[@]}" > "$dir/dpkg.log" 2>&1 || { cat "$dir/dpkg.log" >&2; echo "test-deb: dpkg --purge failed" >&2; exit 1; }
    for p in /usr/bin/encore /usr/include/encore.h /etc/encore-pushd /var/lib/encore-pushd \
        /etc/encored /var/lib/encored /usr/share/dbus-1/system.d/org.encore.Exposure.conf \
        /etc/xdg/autostart/encore-notify.desktop; do
        [[ ! -e $p ]] || { echo "test-deb: $p is left after the purge" >&2; exit 1; }
    done
    ! ldconfig -p | grep 'libencore.so.1 ' >/dev/null || { echo "test-deb: ldconfig still lists libencore.so.1 after the purge" >&2; exit 1; }
    echo "deb: dpkg --purge leaves nothing of them: ok"
}

case ${1:-} in
    --inside) inside "$2"; exit 0 ;;
    --use) use_installed "$2" "$3"; exit 0 ;;
esac

cd "$(dirname "$0")/.."
header=Sources/CEncoreTypes/include/encore_types.h
version=$(sed -n 's/^#define ENCORE_VERSION_STRING "\(.*\)"/\1/p' "$header")
major=$(sed -n 's/^#define ENCORE_VERSION_MAJOR //p' "$header")
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
debversion=$(dpkg-parsechangelog -l support/deb/changelog -S Version)
libpkg=libencore$major
deb() { echo "dist/${1}_${debversion}_${arch}.deb"; }
for p in "$libpkg" libencore-dev encore-tools encore-pushd encored; do
    [[ -f $(deb "$p") ]] || { echo "test-deb: $(deb "$p") is missing (make deb)" >&2; exit 1; }
done

# field PACKAGE FIELD REGEX: a control field matches.
field() {
    local got
    got=$(dpkg-deb -f "$(deb "$1")" "$2")
    grep -qE -- "$3" <<<"$got" || { echo "test-deb: $1's $2 is '$got', expected /$3/" >&2; exit 1; }
}
# holds PACKAGE PATH...: the package's contents list each path (./path, or ./path -> target).
holds() {
    local p=$1 list path
    shift
    list=$(dpkg-deb -c "$(deb "$p")" | awk '{ $1 = $2 = $3 = $4 = $5 = ""; sub(/^ +/, ""); print }')
    for path in "$@"; do
        grep -qxE -- "\./${path}( -> .*)?" <<<"$list" || { echo "test-deb: $p does not hold $path; it holds:"$'\n'"$list" >&2; exit 1; }
    done
}
for p in "$libpkg" libencore-dev encore-tools encore-pushd encored; do
    field "$p" Package "^$p\$"
    field "$p" Version "^$debversion\$"
    field "$p" Architecture "^$arch\$"
    holds "$p" "usr/share/doc/$p/copyright"
done
lib=usr/lib/$multiarch
field "$libpkg" Depends 'libc6 \(>= [^)]+\)'
field "$libpkg" Depends 'libcurl4'
field "$libpkg" Depends 'libsqlcipher0'
field "$libpkg" Multi-Arch '^same$'
holds "$libpkg" "$lib/libencore.so.$version" "$lib/libencore.so.$major"
[[ $(dpkg-deb --ctrl-tarfile "$(deb "$libpkg")" | tar -xO ./shlibs) == "libencore $major $libpkg (>= $version)" ]] \
    || { echo "test-deb: $libpkg's shlibs is not 'libencore $major $libpkg (>= $version)'" >&2; exit 1; }
symbols=$(dpkg-deb --ctrl-tarfile "$(deb "$libpkg")" | tar -xO ./symbols)
[[ $(head -n 1 <<<"$symbols") == "libencore.so.$major $libpkg #MINVER#" ]] && grep -E '^ encore_version@[^ ]+ [0-9.]+$' <<<"$symbols" > /dev/null \
    || { echo "test-deb: $libpkg's symbols file is not the record of libencore.so.$major's functions" >&2; exit 1; }
dpkg-deb --ctrl-tarfile "$(deb "$libpkg")" | tar -xO ./triggers | grep -x 'activate-noawait ldconfig' >/dev/null \
    || { echo "test-deb: $libpkg does not trigger ldconfig" >&2; exit 1; }
field libencore-dev Depends "^$libpkg \\(= $debversion\\), libjs-jquery\$"
holds libencore-dev usr/include/encore.h "$lib/libencore.so" "$lib/pkgconfig/encore.pc" usr/share/doc/libencore-dev/examples/example.c \
    usr/share/doc/libencore-dev/html/index.html usr/share/doc/libencore-dev/html/group__section__general.html \
    usr/share/doc-base/libencore-reference
field encore-tools Depends 'libc6'
field encore-tools Depends 'libsqlcipher0'
# Loaded with dlopen (libcurl on the first request, libsystemd by `encore
# device`): named by build-deb.sh, since dpkg-shlibdeps cannot see them.
field encore-tools Depends 'libcurl4'
field encore-tools Depends 'libsystemd0'
holds encore-tools usr/bin/encore usr/share/bash-completion/completions/encore usr/share/zsh/vendor-completions/_encore \
    usr/share/fish/vendor_completions.d/encore.fish usr/share/man/man1/encore.1.gz usr/share/man/man1/encore-sync.1.gz
field encore-pushd Depends 'libc6'
field encore-pushd Depends 'adduser'
holds encore-pushd usr/bin/encore-pushd lib/systemd/system/encore-pushd.service lib/systemd/system/encore-pushd-send.service \
    etc/encore-pushd/encore-pushd.conf
dpkg-deb --ctrl-tarfile "$(deb encore-pushd)" | tar -xO ./conffiles | grep -x /etc/encore-pushd/encore-pushd.conf >/dev/null \
    || { echo "test-deb: encore-pushd's conffiles does not list its configuration" >&2; exit 1; }
for p in "$libpkg" libencore-dev encore-tools encore-pushd encored; do
    holds "$p" "usr/share/doc/$p/changelog.Debian.gz"
done
holds encore-pushd usr/share/man/man8/encore-pushd.8.gz
field encored Depends 'libsystemd0'
field encored Depends 'polkitd'
field encored Recommends '^bluez$'
field encored Breaks "^encore-tracingd \\(<< $version\\)\$"
field encored Replaces "^encore-tracingd \\(<< $version\\)\$"
field encored Provides '^encore-tracingd$'
holds encored usr/bin/encored usr/bin/encore-notify lib/systemd/system/encored.service usr/share/dbus-1/system.d/org.encore.Exposure.conf \
    usr/share/dbus-1/interfaces/org.encore.Exposure1.xml usr/share/polkit-1/actions/org.encore.Exposure.policy usr/lib/sysusers.d/encored.conf \
    usr/lib/systemd/user/encore-notify.service etc/xdg/autostart/encore-notify.desktop etc/encored/encored.conf \
    usr/share/man/man8/encored.8.gz usr/share/man/man1/encore-notify.1.gz usr/share/doc/encored/device.md \
    usr/share/doc/encored/radio.md
[[ $(dpkg-deb --ctrl-tarfile "$(deb encored)" | tar -xO ./conffiles) == $'/etc/encored/encored.conf\n/etc/xdg/autostart/encore-notify.desktop' ]] \
    || { echo "test-deb: encored's conffiles are not its options and the autostart entry" >&2; exit 1; }
echo "deb: control fields (versions $debversion, $arch, Depends from dpkg-shlibdeps), contents, shlibs, symbols, triggers, conffiles: ok"

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# Every library the shipped binaries load (ldd, with the packages' own
# library directory first) is one of the packages' files or a file of an
# installed Debian package: a library found only through a run path into the
# Swift toolchain (what a build without the static runtime gets) fails here.
owned_by_a_package() {
    local path=$1 alt
    dpkg -S "$path" > /dev/null 2>&1 && return 0
    # merged /usr: dpkg knows a file under the path its package ships it at
    case $path in /usr/*) alt=${path#/usr} ;; *) alt=/usr$path ;; esac
    dpkg -S "$alt" > /dev/null 2>&1 || dpkg -S "$(readlink -f "$path")" > /dev/null 2>&1
}
# (The packages extracted once: these checks read them, and so does the use
# below when it cannot install them.)
mkdir -p "$tmp/extracted"
for p in "$libpkg" libencore-dev encore-tools encore-pushd encored; do dpkg-deb -x "$(deb "$p")" "$tmp/extracted"; done
elves=0
while IFS= read -r -d '' f; do
    [[ $(head -c 4 "$f" | od -An -tx1 | tr -d ' \n') == 7f454c46 ]] || continue # ELF's magic
    elves=$((elves + 1))
    # Hardened as Debian's build flags harden: full RELRO (a read-only GOT
    # after load) and glibc's checked string functions in our C code.
    readelf -lW "$f" | grep -w GNU_RELRO > /dev/null && readelf -dW "$f" | grep -E 'FLAGS.*\bNOW\b' > /dev/null \
        || { echo "test-deb: ${f#"$tmp/extracted"} is not linked with -z relro -z now" >&2; exit 1; }
    nm -D --undefined-only "$f" | grep -E '__[a-z_]+_chk\b' > /dev/null \
        || { echo "test-deb: ${f#"$tmp/extracted"} calls none of glibc's checked functions (_FORTIFY_SOURCE)" >&2; exit 1; }
    while read -r name path; do
        [[ $path == "$tmp/extracted/"* ]] && continue
        [[ $path != "not found" ]] && owned_by_a_package "$path" && continue
        echo "test-deb: ${f#"$tmp/extracted"} loads $name from ${path:-?}, which no Debian package holds (the Swift runtime not linked in?)" >&2
        exit 1
    done < <(LD_LIBRARY_PATH=$tmp/extracted/$lib ldd "$f" | sed -n 's/^[[:space:]]*\([^ ]*\) => \(.*\) (0x[0-9a-f]*)$/\1 \2/p; s/^[[:space:]]*\([^ ]*\) => not found$/\1 not found/p')
done < <(find "$tmp/extracted" -type f -print0)
((elves == 5)) || { echo "test-deb: $elves binaries in the packages, expected 5 (the library, encore, encore-pushd, encored, encore-notify)" >&2; exit 1; }
# sd-bus is the daemons' and the tool's: the library needs no libsystemd.
! readelf -dW "$tmp/extracted/$lib/libencore.so.$version" | grep libsystemd > /dev/null \
    || { echo "test-deb: libencore.so needs libsystemd" >&2; exit 1; }
echo "deb: the library, encore, encore-pushd, encored and encore-notify load only their own and Debian packages' libraries, have full RELRO and fortified C: ok"

# The service's two units (serve, send) have one sandbox, which systemd
# rates at an exposure of 2 or less out of 10.
sandbox() { sed -n '/^# The sandbox/,/^SystemCallErrorNumber=/p' "$tmp/extracted/lib/systemd/system/$1"; }
[[ -n $(sandbox encore-pushd.service) && $(sandbox encore-pushd.service) == "$(sandbox encore-pushd-send.service)" ]] \
    || { echo "test-deb: encore-pushd.service and encore-pushd-send.service differ in their sandbox" >&2; exit 1; }
if command -v systemd-analyze > /dev/null; then
    for unit in encore-pushd.service encore-pushd-send.service; do
        exposure=$(systemd-analyze security --offline=true "$tmp/extracted/lib/systemd/system/$unit" 2>&1 \
            | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
        awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 2.0) }' \
            || { echo "test-deb: systemd-analyze security rates $unit's exposure ${exposure:-?} (at most 2.0 expected)" >&2; exit 1; }
    done
    echo "deb: encore-pushd's serve and send units: one sandbox, exposure $exposure of 10 (systemd-analyze security): ok"
    exposure=$(systemd-analyze security --offline=true "$tmp/extracted/lib/systemd/system/encored.service" 2>&1 \
        | sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\) .*/\1/p')
    awk -v e="$exposure" 'BEGIN { exit !(e != "" && e <= 2.5) }' \
        || { echo "test-deb: systemd-analyze security rates encored.service's exposure ${exposure:-?} (at most 2.5 expected)" >&2; exit 1; }
    echo "deb: encored's unit: exposure $exposure of 10 (systemd-analyze security): ok"
else
    echo "deb: systemd-analyze is missing: the units' exposure is not rated"
fi

if command -v lintian > /dev/null; then
    # Errors and warnings both fail; informational tags and the overrides'
    # (each explained in its file) do not.
    report=$(lintian --tag-display-limit 0 dist/*.deb 2>&1 | grep -E '^[EW]: ' || true)
    [[ -z $report ]] || { echo "test-deb: lintian:"$'\n'"$report" >&2; exit 1; }
    echo "deb: lintian $(lintian --version | awk '{print $2}'): no errors, no warnings: ok"
else
    echo "deb: lintian is not installed (scripts/deps.sh installs it where apt can): not run"
fi
# What the use needs, outside the repository.
stage() {
    mkdir -p "$1"
    cp "$(deb "$libpkg")" "$(deb libencore-dev)" "$(deb encore-tools)" "$(deb encore-pushd)" "$(deb encored)" "$1/"
    cp scripts/test-deb.sh scripts/share-checks.sh scripts/check-links.py "$1/"
    cp Tests/data/exports/immuni/export.bin "$1/export.bin"
}
overlay_ok() {
    # ENCORE_DEB_TEST_ROOT=extract: the extraction even where the overlay would work.
    [[ ${ENCORE_DEB_TEST_ROOT:-} != extract ]] || return 1
    [[ $(id -u) -eq 0 ]] && command -v unshare > /dev/null || return 1
    mkdir -p "$tmp/probe/u" "$tmp/probe/w" "$tmp/probe/m"
    unshare -m sh -c "mount -t overlay overlay -o lowerdir=/,upperdir=$tmp/probe/u,workdir=$tmp/probe/w $tmp/probe/m" 2> /dev/null
}
# Where the toolchain keeps libswiftCore.so and its neighbours.
swift_runtime=$(dirname "$(readlink -f "$(command -v swiftc)")")/../lib/swift
swift_runtime=$(readlink -f "$swift_runtime")
if overlay_ok; then
    [[ -f $swift_runtime/linux/libswiftCore.so ]] || { echo "test-deb: no libswiftCore.so under $swift_runtime/linux" >&2; exit 1; }
    echo "deb: throw-away root: a chroot of this system on an overlay (writes go to $tmp/upper, dropped at the end), without $swift_runtime"
    mkdir -p "$tmp/upper" "$tmp/work" "$tmp/root"
    stage "$tmp/upper/tmp/encore-deb-test"
    unshare -m bash -c '
        set -e
        mount --make-rprivate /
        mount -t overlay overlay -o lowerdir=/,upperdir="$1/upper",workdir="$1/work" "$1/root"
        mount -t proc proc "$1/root/proc"
        mount --rbind /dev "$1/root/dev"
        mount -t tmpfs tmpfs "$1/root/run"
        # The toolchain'"'"'s run-time libraries hidden: the packages must run without them.
        mount -t tmpfs tmpfs "$1/root$2"
        exec chroot "$1/root" /bin/bash /tmp/encore-deb-test/test-deb.sh --inside /tmp/encore-deb-test' _ "$tmp" "$swift_runtime"
else
    echo "deb: throw-away root: not root, no overlay mount here or ENCORE_DEB_TEST_ROOT=extract, so the packages are used as extracted (dpkg-deb -x) into $tmp/extracted; maintainer scripts not run"
    stage "$tmp/files"
    # The postinst's work as far as it can be read: it makes a system user.
    dpkg-deb --ctrl-tarfile "$(deb encore-pushd)" | tar -xO ./postinst | grep 'adduser --system' >/dev/null \
        || { echo "test-deb: encore-pushd's postinst makes no system user" >&2; exit 1; }
    dpkg-deb --ctrl-tarfile "$(deb encored)" | tar -xO ./postinst | grep 'systemd-sysusers encored.conf' >/dev/null \
        || { echo "test-deb: encored's postinst makes no system user" >&2; exit 1; }
    scripts/test-deb.sh --use "$tmp/extracted" "$tmp/files"
fi
