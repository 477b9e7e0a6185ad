#!/usr/bin/env bash
# Builds the Debian packages into dist/ from what `make lib cli share` and
# the release build of encore-pushd left in build/ and server/.build/
# (`make deb` runs those first):
#   libencore<MAJOR>  the library with its SONAME link, shlibs and ldconfig trigger
#   libencore-dev     encore.h, the libencore.so link, encore.pc, the C example,
#                     the C reference manual (make docs) in /usr/share/doc/libencore-dev/html
#   encore-tools      the encore tool, bash/zsh/fish completions, man pages
#   encore-pushd      the push registry service, its systemd unit (not enabled),
#                     a default configuration (a conffile), a system user
#   encored           the device service (tracing over BlueZ included: it
#                     replaces encore-tracingd) and its session agent encore-notify:
#                     the service's unit (not enabled), its D-Bus policy, polkit
#                     actions and interface XML, options (a conffile), a system
#                     user (sysusers.d); the agent's user unit and autostart entry
# Each package is a staged tree under build/deb/<package> made into a .deb
# by dpkg-deb --build (owner root through --root-owner-group; no debhelper).
# Versions come from ENCORE_VERSION_* in encore_types.h, and the Debian
# revision, the maintainer and each package's changelog.Debian from
# support/deb/changelog, whose newest entry must be this version's; Depends
# from dpkg-shlibdeps on the binaries, plus what they dlopen ($dlopened:
# SQLCipher and libcurl; libsystemd for the tool's `encore device`).
# Binaries are stripped as dh_strip strips them. lintian has nothing to say
# about the packages but the overrides under support/deb/ (scripts/test-deb.sh).
set -euo pipefail
cd "$(dirname "$0")/.."
repo=$PWD
header=Sources/CEncoreTypes/include/encore_types.h
# What every binary loads with dlopen, which dpkg-shlibdeps cannot see:
# SQLCipher (CEncoreSQL) and libcurl (CEncoreHTTP, on the first request).
dlopened="libsqlcipher0, libcurl4"
version=$(sed -n 's/^#define ENCORE_VERSION_STRING "\(.*\)"/\1/p' "$header")
major=$(sed -n 's/^#define ENCORE_VERSION_MAJOR //p' "$header")
[[ -n $version && -n $major ]] || { echo "build-deb: no ENCORE_VERSION_* in $header" >&2; exit 1; }
# The Debian version (upstream version and revision) and the maintainer are
# the changelog's newest entry's: a new version, or a packaging-only change
# (a new revision), is a new entry there.
changelog=support/deb/changelog
debversion=$(dpkg-parsechangelog -l "$changelog" -S Version)
maintainer=$(dpkg-parsechangelog -l "$changelog" -S Maintainer)
[[ ${debversion%-*} == "$version" ]] \
    || { echo "build-deb: $changelog's newest entry is $debversion, not version $version (encore_types.h): add an entry" >&2; exit 1; }
arch=$(dpkg --print-architecture)
multiarch=$(dpkg-architecture -qDEB_HOST_MULTIARCH)
libpkg=libencore$major
lib=build/lib/libencore.so.$version
cli=build/bin/encore
share=build/share
pushd_bin=server/.build/release/encore-pushd
docs_html=build/docs/html
encored_bin=build/bin/encored
notify_bin=build/bin/encore-notify
for f in "$lib" "$cli" "$share/man/man1/encore.1" "$pushd_bin" "$encored_bin" "$notify_bin" include/encore.h "$docs_html/index.html"; do
    [[ -e $f ]] || { echo "build-deb: $f is missing (make lib cli encored share docs, make pushd PUSHD_CONFIG=release)" >&2; exit 1; }
done
command -v dpkg-shlibdeps >/dev/null || { echo "build-deb: dpkg-shlibdeps is missing (apt-get install dpkg-dev; scripts/deps.sh installs it)" >&2; exit 1; }

stage=build/deb
rm -rf "$stage"
mkdir -p "$stage" dist
rm -f dist/*.deb
# (awk reads to the end: a head quitting early would kill git with SIGPIPE, which pipefail reports)
first_year=$(git log --reverse --format=%ad --date=format:%Y 2>/dev/null | awk 'NR == 1')
last_year=$(date -u -d "@$(dpkg-parsechangelog -l "$changelog" -S Timestamp)" +%Y)
years=${first_year:-$last_year}
[[ $years == "$last_year" ]] || years=$years-$last_year

# What every package carries in /usr/share/doc/PACKAGE: the copyright file
# (Debian policy 12.5) and the Debian changelog (12.7; gzip -n: no name or
# time stamp, so the same tree makes the same package).
docs() {
    local dir=$1/usr/share/doc/$2
    mkdir -p "$dir"
    cat > "$dir/copyright" <<EOF
Format: https://www.debian.org/doc/packaging-manuals/copyright-format/1.0/
Upstream-Name: encore
Upstream-Contact: $maintainer
Copyright: $years the encore developers
Comment: Built from the encore source tree by scripts/build-deb.sh.
 The source tree states no license; this file names none.
EOF
    gzip -9nc "$changelog" > "$dir/changelog.Debian.gz"
}

# strip_binary library|executable SOURCE DEST, as dh_strip strips: a shared
# library keeps only the symbols programs link against (.dynsym: its
# exports), an executable loses its symbol table; both their comment and
# note sections.
strip_binary() {
    local what=--strip-all
    [[ $1 == library ]] && what=--strip-unneeded
    objcopy "$what" --remove-section=.comment --remove-section=.note "$2" "$3"
}

# A package's lintian overrides: those of every package
# (support/deb/lintian-overrides), then its own (support/deb/PACKAGE.lintian-overrides).
overrides() {
    local own=support/deb/$2.lintian-overrides
    mkdir -p "$1/usr/share/lintian/overrides"
    {
        cat support/deb/lintian-overrides
        if [[ -f $own ]]; then cat "$own"; fi
    } > "$1/usr/share/lintian/overrides/$2"
    chmod 0644 "$1/usr/share/lintian/overrides/$2"
}

# dpkg-shlibdeps and dpkg-gensymbols run in a scratch source tree: they
# want a debian/control, though they read nothing else from it.
scratch=$stage/.debian-source
mkdir -p "$scratch/debian"
printf 'Source: encore\n\nPackage: %s\nArchitecture: any\n' "$libpkg" > "$scratch/debian/control"

# A binary's or library's run-time Depends, as dpkg-shlibdeps computes them.
# Extra arguments are given to dpkg-shlibdeps first (-L: our own shlibs file).
shlibdeps() {
    (cd "$scratch" && dpkg-shlibdeps -O "$@" 2>/dev/null) | sed -n 's/^shlibs:Depends=//p'
}

# control PACKAGE "Package: NAME" FIELDS... : DEBIAN/control from "Field: value"
# lines (Description and its lines last), with the common fields after Package.
control() {
    local root=$stage/$1
    shift
    mkdir -p "$root/DEBIAN"
    local size
    size=$(du -sk --exclude=DEBIAN "$root" | cut -f1)
    {
        echo "$1"
        echo "Version: $debversion"
        echo "Architecture: $arch"
        echo "Maintainer: $maintainer"
        echo "Installed-Size: $size"
        shift
        printf '%s\n' "$@"
    } > "$root/DEBIAN/control"
}

build() {
    local root=$stage/$1
    # md5sums of every shipped file but the conffiles (dpkg records their sums itself).
    (cd "$root" && find . -path ./DEBIAN -prune -o -type f -printf '%P\0' | sort -z | xargs -0 -r md5sum \
        | { if [[ -f DEBIAN/conffiles ]]; then grep -vF -f <(sed 's|^/||' DEBIAN/conffiles); else cat; fi; } > DEBIAN/md5sums)
    dpkg-deb --root-owner-group -Zxz -z3 --build "$root" "dist/${1}_${debversion}_${arch}.deb" > /dev/null
    echo "deb: dist/${1}_${debversion}_${arch}.deb"
}

# --- libencore<MAJOR>: the library and its SONAME link.
root=$stage/$libpkg
mkdir -p "$root/usr/lib/$multiarch"
strip_binary library "$lib" "$root/usr/lib/$multiarch/libencore.so.$version"
chmod 0644 "$root/usr/lib/$multiarch/libencore.so.$version"
ln -s "libencore.so.$version" "$root/usr/lib/$multiarch/libencore.so.$major"
docs "$root" "$libpkg"
overrides "$root" "$libpkg"
# A program linked against libencore.so.MAJOR needs this package at this
# version or later: the minor versions add functions (shlibs, Debian policy 8.6.4).
echo "libencore $major $libpkg (>= $version)" > "$stage/shlibs.local"
depends=$(shlibdeps "-e$repo/$root/usr/lib/$multiarch/libencore.so.$version")
control "$libpkg" "Package: $libpkg" "Section: libs" "Priority: optional" "Multi-Arch: same" \
    "Depends: $depends, $dlopened" \
    "Description: Exposure Notification core (shared library)" \
    " libencore does what the core of a contact-tracing app does for any host" \
    " that links C: key files, encrypted storage (SQLCipher, loaded when the" \
    " first store is opened), matching, risk, test results and submission."
install -m 0644 "$stage/shlibs.local" "$root/DEBIAN/shlibs"
# The symbols file (Debian policy 8.6.3): each function with the version it
# first shipped in, from support/deb/ (which check-abi holds the library
# to), checked against the library once more (-c4: any difference fails).
(cd "$scratch" && dpkg-gensymbols -q -c4 "-p$libpkg" "-v$version" "-I$repo/support/deb/$libpkg.symbols" \
    "-P$repo/$root" "-e$repo/$root/usr/lib/$multiarch/libencore.so.$version" "-O$repo/$root/DEBIAN/symbols")
# ldconfig runs once at the end of the dpkg run that installed or removed it.
echo "activate-noawait ldconfig" > "$root/DEBIAN/triggers"
build "$libpkg"

# --- libencore-dev: header, development link, pkg-config file, the C example, the reference manual.
root=$stage/libencore-dev
mkdir -p "$root/usr/include" "$root/usr/lib/$multiarch/pkgconfig" "$root/usr/share/doc/libencore-dev/examples"
install -m 0644 include/encore.h "$root/usr/include/encore.h"
# The manual's pages as make docs wrote them, but for the copy of jQuery
# Doxygen puts beside them: a link to Debian's (libjs-jquery, Debian policy
# 4.13: no embedded copies of libraries), which is all the pages need of it
# (support/docs/Doxyfile keeps them off the plugins Doxygen's copy bundles).
html=$root/usr/share/doc/libencore-dev/html
cp -r "$docs_html" "$html"
find "$html" -type d -exec chmod 0755 {} + && find "$html" -type f -exec chmod 0644 {} +
rm "$html/jquery.js"
ln -s ../../../javascript/jquery/jquery.js "$html/jquery.js"
# Registered with doc-base, for documentation browsers (dhelp, doc-central).
install -D -m 0644 support/deb/libencore-dev.doc-base "$root/usr/share/doc-base/libencore-reference"
ln -s "libencore.so.$major" "$root/usr/lib/$multiarch/libencore.so"
sed -e 's|@PREFIX@|/usr|g' -e "s|@LIBDIR@|\${prefix}/lib/$multiarch|g" -e "s|@VERSION@|$version|g" \
    support/encore.pc.in > "$root/usr/lib/$multiarch/pkgconfig/encore.pc"
install -m 0644 bindings/c/example.c "$root/usr/share/doc/libencore-dev/examples/example.c"
docs "$root" libencore-dev
overrides "$root" libencore-dev
control libencore-dev "Package: libencore-dev" "Section: libdevel" "Priority: optional" "Multi-Arch: same" \
    "Depends: $libpkg (= $debversion), libjs-jquery" \
    "Description: Exposure Notification core (development files)" \
    " The C header encore.h, the libencore.so link, the pkg-config file" \
    " (pkg-config --cflags --libs encore), an example program and the" \
    " reference manual (/usr/share/doc/libencore-dev/html/index.html)."
build libencore-dev

# --- encore-tools: the CLI, its completions and man pages.
root=$stage/encore-tools
mkdir -p "$root/usr/bin" "$root/usr/share/bash-completion/completions" "$root/usr/share/zsh/vendor-completions" \
    "$root/usr/share/fish/vendor_completions.d" "$root/usr/share/man/man1"
strip_binary executable "$cli" "$root/usr/bin/encore"
chmod 0755 "$root/usr/bin/encore"
install -m 0644 "$share/bash-completion/completions/encore" "$root/usr/share/bash-completion/completions/encore"
install -m 0644 "$share/zsh/site-functions/_encore" "$root/usr/share/zsh/vendor-completions/_encore"
install -m 0644 "$share/fish/vendor_completions.d/encore.fish" "$root/usr/share/fish/vendor_completions.d/encore.fish"
for page in "$share"/man/man1/*.1; do
    gzip -9nc "$page" > "$root/usr/share/man/man1/$(basename "$page").gz"
done
docs "$root" encore-tools
overrides "$root" encore-tools
depends=$(shlibdeps "-L$repo/$stage/shlibs.local" "-l$repo/$stage/$libpkg/usr/lib/$multiarch" "-e$repo/$root/usr/bin/encore")
control encore-tools "Package: encore-tools" "Section: utils" "Priority: optional" \
    "Depends: $depends, $dlopened, libsystemd0" \
    "Description: Exposure Notification core (command-line tool)" \
    " The encore tool: key files, stores, the exposure check, sync, test" \
    " results, check-ins and a demo (encore demo), with bash, zsh and fish" \
    " completions and a man page per subcommand (man encore-sync)."
build encore-tools

# daemon PACKAGE BINARY DOC: what a service's package tree holds (the
# services' packages: encore-pushd, encored): the stripped binary as
# /usr/bin/PACKAGE, its page in section 8 (a daemon's) from its own --help
# definitions, its configuration /etc/PACKAGE/PACKAGE.conf (from
# support/deb/), docs/DOC, the copyright, changelog and overrides.
# daemon_scripts PACKAGE, after its control file: the configuration as its
# conffile, its maintainer scripts support/deb/PACKAGE.{postinst,prerm,postrm}.
daemon() {
    local pkg=$1 bin=$2 doc=$3 root=$stage/$1
    mkdir -p "$root/usr/bin" "$root/lib/systemd/system" "$root/etc/$pkg" "$root/usr/share/doc/$pkg" "$root/usr/share/man/man8"
    strip_binary executable "$bin" "$root/usr/bin/$pkg"
    chmod 0755 "$root/usr/bin/$pkg"
    scripts/gen-manpages.py --one-page --section 8 "$bin" "$stage/man8" > /dev/null
    gzip -9nc "$stage/man8/$pkg.8" > "$root/usr/share/man/man8/$pkg.8.gz"
    install -m 0644 "support/deb/$pkg.conf" "$root/etc/$pkg/$pkg.conf"
    install -m 0644 "docs/$doc" "$root/usr/share/doc/$pkg/$doc"
    docs "$root" "$pkg"
    overrides "$root" "$pkg"
}
daemon_scripts() {
    local script
    echo "/etc/$1/$1.conf" > "$stage/$1/DEBIAN/conffiles"
    for script in postinst prerm postrm; do
        install -m 0755 "support/deb/$1.$script" "$stage/$1/DEBIAN/$script"
    done
}

# --- encore-pushd: the service, its unit, its configuration, its user.
root=$stage/encore-pushd
daemon encore-pushd "$pushd_bin" pushd.md
for unit in encore-pushd.service encore-pushd-send.service; do
    install -m 0644 "support/deb/$unit" "$root/lib/systemd/system/$unit"
done
depends=$(shlibdeps "-e$repo/$root/usr/bin/encore-pushd")
control encore-pushd "Package: encore-pushd" "Section: net" "Priority: optional" \
    "Depends: $depends, $dlopened, adduser" \
    "Description: push registry service of the encore Exposure Notification core" \
    " encore-pushd keeps the push tokens of apps that want silent pushes and" \
    " sends those pushes to APNs, on SQLCipher or PostgreSQL. Installing it" \
    " starts nothing: see /etc/encore-pushd/encore-pushd.conf."
daemon_scripts encore-pushd
build encore-pushd

# --- encored: the device service and its session agent, their units, the
# bus's policy, polkit's actions, the interface, the options, the user.
root=$stage/encored
daemon encored "$encored_bin" device.md
install -m 0644 support/deb/encored.service "$root/lib/systemd/system/encored.service"
mkdir -p "$root/usr/share/dbus-1/system.d" "$root/usr/share/dbus-1/interfaces" "$root/usr/share/polkit-1/actions" \
    "$root/usr/lib/sysusers.d" "$root/usr/lib/systemd/user" "$root/etc/xdg/autostart" "$root/usr/share/man/man1"
install -m 0644 support/deb/encored.dbus.conf "$root/usr/share/dbus-1/system.d/org.encore.Exposure.conf"
install -m 0644 docs/org.encore.Exposure1.xml "$root/usr/share/dbus-1/interfaces/org.encore.Exposure1.xml"
install -m 0644 docs/radio.md "$root/usr/share/doc/encored/radio.md"
install -m 0644 support/deb/org.encore.Exposure.policy "$root/usr/share/polkit-1/actions/org.encore.Exposure.policy"
install -m 0644 support/deb/encored.sysusers "$root/usr/lib/sysusers.d/encored.conf"
strip_binary executable "$notify_bin" "$root/usr/bin/encore-notify"
chmod 0755 "$root/usr/bin/encore-notify"
install -m 0644 support/deb/encore-notify.service "$root/usr/lib/systemd/user/encore-notify.service"
install -m 0644 support/deb/encore-notify.desktop "$root/etc/xdg/autostart/encore-notify.desktop"
scripts/gen-manpages.py --one-page --section 1 "$notify_bin" "$stage/man1" > /dev/null
gzip -9nc "$stage/man1/encore-notify.1" > "$root/usr/share/man/man1/encore-notify.1.gz"
depends=$(shlibdeps "-e$repo/$root/usr/bin/encored" "-e$repo/$root/usr/bin/encore-notify")
control encored "Package: encored" "Section: net" "Priority: optional" \
    "Depends: $depends, $dlopened, adduser, dbus, polkitd | policykit-1" "Recommends: bluez" \
    "Breaks: encore-tracingd (<< $version)" "Replaces: encore-tracingd (<< $version)" "Provides: encore-tracingd" \
    "Description: Exposure Notification device service (encore)" \
    " encored owns the device's encore store: it traces over Bluetooth LE" \
    " through BlueZ (it replaces encore-tracingd), syncs the published keys in" \
    " the background, runs the exposure check, polls a registered test, and" \
    " serves the D-Bus API org.encore.Exposure1 on the system bus, polkit" \
    " deciding every call. encore-notify, its session agent, posts desktop" \
    " notifications. Installing it starts nothing: see" \
    " /etc/encored/encored.conf."
daemon_scripts encored
# The autostart entry is a configuration file too.
echo /etc/xdg/autostart/encore-notify.desktop >> "$stage/encored/DEBIAN/conffiles"
build encored
rm -rf "$scratch"
