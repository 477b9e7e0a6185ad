#!/usr/bin/env bash
# Installs the system packages encore needs when any is missing (Debian/apt).
# dpkg-dev: dpkg-shlibdeps for make deb; man-db: the man page tests;
# lintian: the package checks of make test-deb.
# Safe to run repeatedly: it does nothing when everything is there.
set -euo pipefail
need=()
# (grep without -q below: it reads to the end, so under pipefail the command
# before it cannot die of SIGPIPE and turn a match into a failure.)
for p in libsqlcipher-dev sqlcipher libsqlite3-dev libcurl4-openssl-dev libsodium-dev libqrencode-dev libzbar0 libprotobuf-c-dev protobuf-c-compiler zlib1g-dev libssl-dev pkg-config python3 python3-venv postgresql valgrind strace gcc g++ dpkg-dev man-db lintian; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep "install ok installed" >/dev/null || need+=("$p")
done
if ((${#need[@]})); then
    echo "deps: installing ${need[*]}"
    sudo_cmd=""
    [ "$(id -u)" -eq 0 ] || sudo_cmd="sudo"
    $sudo_cmd apt-get update -qq
    DEBIAN_FRONTEND=noninteractive $sudo_cmd apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
command -v swift >/dev/null || { echo "deps: swift (6.1 or newer) must be on the PATH" >&2; exit 1; }
