#!/usr/bin/env bash
# Installs the system packages encore needs when any is missing (Debian/apt).
# dpkg-dev: dpkg-shlibdeps for make deb; man-db: the man page tests;
# doxygen: the C reference manual (make docs); libjs-jquery: the jQuery
# libencore-dev's manual links to (its Depends, met when make test-deb installs it).
# abigail-tools: abidw and abidiff, the ABI baseline of make check-abi.
# libsystemd-dev: sd-bus for encored (its radio), encore-notify and encore device; dbus-daemon and systemd (busctl):
# the private bus and the look at BlueZ's objects of the tracing tests.
# python3-dbus, python3-gi: what python-dbusmock (the polkit and notification
# stand-ins of the device tests) runs on, in the system's Python;
# libglib2.0-bin: gdbus, whose calls name the D-Bus error they get.
# Optional: lintian, the package checks of make test-deb, which skips them
# (and says so) where it cannot be installed.
# Safe to run repeatedly: it does nothing when everything is there.
set -euo pipefail
required=(abigail-tools libsqlcipher-dev sqlcipher libsqlite3-dev libcurl4-openssl-dev libsodium-dev libqrencode-dev libzbar0
          libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libssl-dev pkg-config python3 python3-venv postgresql
          valgrind strace gcc g++ dpkg-dev man-db doxygen libjs-jquery libsystemd-dev dbus-daemon systemd python3-dbus python3-gi libglib2.0-bin)
optional=(lintian)
# The ones of "$@" not installed.
# (grep without -q below: it reads to the end, so under pipefail the command
# before it cannot die of SIGPIPE and turn a match into a failure.)
missing() {
    local p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || echo "$p"
    done
}
mapfile -t need < <(missing "${required[@]}")
mapfile -t want < <(missing "${optional[@]}")
sudo_cmd=""
[ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
updated=0
apt_install() {
    ((updated)) || { $sudo_cmd apt-get update -qq && updated=1; }
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "$@" >/dev/null
}
if ((${#need[@]})); then
    echo "deps: installing ${need[*]}"
    apt_install "${need[@]}"
fi
if ((${#want[@]})); then
    echo "deps: installing ${want[*]} (optional)"
    apt_install "${want[@]}" || echo "deps: ${want[*]} could not be installed: make test-deb skips its lintian check" >&2
fi
command -v swift >/dev/null || { echo "deps: swift (6.1 or newer) must be on the PATH" >&2; exit 1; }
