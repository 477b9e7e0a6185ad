# encore: build, test, install. `make help` lists the targets.
SHELL := /bin/bash
PREFIX ?= /usr/local
CC ?= cc
MAJOR := $(shell sed -n 's/^\#define ENCORE_VERSION_MAJOR //p' Sources/CEncoreTypes/include/encore_types.h)
VERSION := $(shell sed -n 's/^\#define ENCORE_VERSION_STRING "\(.*\)"/\1/p' Sources/CEncoreTypes/include/encore_types.h)
BUILD := build
LIB := $(BUILD)/lib/libencore.so.$(VERSION)
CLI := $(BUILD)/bin/encore
ENCORED := $(BUILD)/bin/encored
NOTIFY := $(BUILD)/bin/encore-notify
SHARE := $(BUILD)/share
# The push service's build: release, shared by test-pushd, bench-pushd and
# the package (make test-pushd PUSHD_CONFIG=debug for a debug one).
PUSHD_CONFIG ?= release
PUSHD := server/.build/$(PUSHD_CONFIG)/encore-pushd
# The suites of `make test`, in order (scripts/test-all.sh): NAME runs make test-NAME.
# The library package's: they build and resolve nothing of the push service's
# package (server/), whose stack alone takes longer to compile than all of
# them take to run; `make test-server` tests it, `make test-all` runs both.
# The suites of `make test`. The binding tests run once, in the wheel suite,
# against the installed wheel (`make test-python` runs them on the checkout).
# TEST_BESIDE_SUITES mostly wait (buses, servers, clocks) and run in a second
# lane beside the others (scripts/test-all.sh).
TEST_SUITES := swift tsan check-abi c typecheck cli store pairing crowdnotifier fuzz install wheel docs
TEST_BESIDE_SUITES := standins tracing device
CFLAGS_STRICT := -std=c99 -Wall -Wextra -Wpedantic -Werror
# pytest-xdist workers of the Python suites: one per core for the ones that
# compute; more for the push service's, whose tests mostly wait on clocks.
PYTEST_JOBS ?= auto
PYTEST_WAIT_JOBS ?= 4

.PHONY: help deps venv lib cli encored all demo test test-server test-all test-packages test-deb deb test-swift test-tsan test-c test-python test-typecheck test-cli test-store test-standins test-pairing test-crowdnotifier test-tracing test-device test-fuzz test-pushd test-pushd-tsan test-install test-wheel test-docs docs check-abi header share wheel bench bench-tracing bench-sync bench-check bench-device bench-crowdnotifier bench-pushd pushd fuzz install clean

help:
	@echo "make demo      the exposure check on a simulated user, start to end (encore demo)"
	@echo "make test      the library package's suites, one line each (logs in build/logs/), then a summary table:"
	@echo "               $(TEST_SUITES)"
	@echo "               beside them: $(TEST_BESIDE_SUITES)"
	@echo "make test-NAME one suite, its whole output on the terminal (e.g. make test-cli, make check-abi)"
	@echo "make test-server    the push service's package (server/): encore-pushd built, then its suite (make test-pushd)"
	@echo "make test-pushd-tsan the push service's suite against encore-pushd built with ThreadSanitizer (5 min build; not in test-all)"
	@echo "make test-packages  the Debian packages built, inspected, installed into a temporary root and used (make test-deb)"
	@echo "make test-all  every test: make test, make test-server, make test-packages (what .ci/run runs)"
	@echo "make lib cli   build $(LIB) and $(CLI)"
	@echo "make encored   build $(ENCORED), the device service (tracing included), and $(NOTIFY), its session agent (docs/device.md)"
	@echo "make bench     parse + verify benchmark"
	@echo "make bench-tracing  a crowded day of tracing scans into the store, against its insert rate"
	@echo "make fuzz      run the libFuzzer target for a while (FUZZ_SECONDS=60)"
	@echo "make wheel     dist/encore-$(VERSION)-py3-none-<platform>.whl, the Python package with libencore.so inside"
	@echo "make share     shell completions (bash, zsh, fish) and man pages in $(SHARE)"
	@echo "make docs      the C reference manual (Doxygen over include/encore.h) in $(BUILD)/docs/html"
	@echo "make deb       dist/*.deb: libencore$(MAJOR), libencore-dev, encore-tools, encore-pushd, encored ($(VERSION))"
	@echo "make pushd     the push registry service, $(PUSHD)"
	@echo "make install PREFIX=/usr/local"

# ENCORE_SKIP_BUILD=1 (set by `make test` for its suites, after building
# everything once): the build targets below do nothing, and each suite uses
# what is already built instead of asking SwiftPM again.
ifeq ($(ENCORE_SKIP_BUILD),1)
deps venv lib cli encored share wheel pushd deb:
	@:
else
deps:
	@scripts/deps.sh

# The test-only Python packages (Tests/requirements.txt, and
# Tests/requirements-nodeps.txt without their dependencies) in build/venv.
venv:
	@scripts/venv.sh >/dev/null

# The shared library, with its SONAME link and development link.
lib: deps
	@# No flags of its own (the Swift runtime's static link is in Package.swift):
	@# the tool, the bench and the Swift tests then share its compiled modules.
	@scripts/build.sh encore
	@mkdir -p $(BUILD)/lib
	@# Debug sections stripped: DWARF 5 from the Swift toolchain defeats valgrind 3.19.
	@objcopy --strip-debug .build/release/libencore.so $(LIB)
	@ln -sf libencore.so.$(VERSION) $(BUILD)/lib/libencore.so.$(MAJOR)
	@ln -sf libencore.so.$(MAJOR) $(BUILD)/lib/libencore.so

cli: deps
	@# The Swift runtime linked in, like the library's (Package.swift): the tool runs without the toolchain.
	@scripts/build.sh encore-cli
	@mkdir -p $(BUILD)/bin
	@cp .build/release/encore-cli $(CLI)

# The device service (docs/device.md): the store's one host, tracing over
# BlueZ (encore-tracingd folded into it), its D-Bus API
# over sd-bus (libsystemd linked into it, never into the library), its
# runtime linked in; and its session agent, encore-notify.
encored: deps
	@scripts/build.sh encored
	@mkdir -p $(BUILD)/bin
	@cp .build/release/encored $(ENCORED)
	@scripts/build.sh encore-notify
	@cp .build/release/encore-notify $(NOTIFY)

# Shell completions and man pages, generated from the CLI's own definitions
# (swift-argument-parser's completion scripts and dump of its help), laid out
# as under PREFIX/share.
share: cli
	@rm -rf $(SHARE)
	@mkdir -p $(SHARE)/bash-completion/completions $(SHARE)/zsh/site-functions $(SHARE)/fish/vendor_completions.d
	@# bash sources its completions: without the generator's #! line (Debian's lintian asks the same).
	@set -o pipefail; $(CLI) --generate-completion-script bash | sed '1{/^#!/d}' > $(SHARE)/bash-completion/completions/encore
	@$(CLI) --generate-completion-script zsh > $(SHARE)/zsh/site-functions/_encore
	@$(CLI) --generate-completion-script fish > $(SHARE)/fish/vendor_completions.d/encore.fish
	@scripts/gen-manpages.py $(CLI) $(SHARE)/man/man1

# The Python package with the library inside (scripts/build-wheel.py), offline.
wheel: lib
	@scripts/build-wheel.py $(LIB) dist

# The push registry service (docs/pushd.md). The Swift runtime and Foundation
# linked in statically, as the library's and the tool's: the service (and its
# package) then runs without the toolchain. Unlike the core, the server's
# package can take the compiler's flag: no other product shares its build.
pushd: deps
	@ENCORE_BUILD_CONFIG=$(PUSHD_CONFIG) scripts/build.sh --package-path server encore-pushd --static-swift-stdlib

# The Debian packages in dist/ (scripts/build-deb.sh): the library, its
# development files, the tools and the push service, a release build of each.
deb: lib cli encored share docs
	@$(MAKE) --no-print-directory pushd PUSHD_CONFIG=release
	@scripts/build-deb.sh
endif

all: lib cli

header:
	scripts/gen-header.py

# The C reference manual, one page per section of the header (scripts/docs.sh).
docs: deps
	@scripts/docs.sh

# The manual documents every export (scripts/check-docs.py) and has no broken link.
test-docs: docs
	@echo "== the reference manual: every exported function and struct documented"
	@scripts/check-docs.py
	@echo "== the reference manual's links"
	@scripts/check-links.py

demo: cli
	@$(CLI) demo

# Quiet: one line per suite, the end of a failing suite's log, a summary table.
test: deps
	@scripts/test-all.sh "lib cli encored share venv wheel" $(TEST_SUITES) --beside $(TEST_BESIDE_SUITES)

# The push service's package (server/), the same way: its build, then its suite.
test-server: deps
	@scripts/test-all.sh "lib cli venv pushd" pushd

# The Debian packages, the same way.
test-packages: deps
	@scripts/test-all.sh "deb" deb

# Every test there is (what .ci/run runs): the library's, the service's, the packages'.
# A failing step's log end is repeated last (build/logs/failures.txt).
test-all: deps
	@mkdir -p build/logs; rm -f build/logs/failures.txt; export ENCORE_FAILURES=$$PWD/build/logs/failures.txt; \
	status=0; for t in test test-server test-packages; do $(MAKE) --no-print-directory $$t || status=1; echo; done; \
	if [ -s build/logs/failures.txt ]; then echo "test-all: the failures again:"; cat build/logs/failures.txt; fi; exit $$status

# Swift Testing only, built with the explicit import check (scripts/swift-test.sh).
test-swift: deps
	@echo "== Swift tests (swift test, on the release build of the core)"
	@scripts/swift-test.sh

# The Swift tests again, built with ThreadSanitizer (scripts/tsan-test.sh).
test-tsan: deps
	@echo "== Swift tests under ThreadSanitizer (debug build in build/tsan)"
	@scripts/tsan-test.sh

# cli encored: the modules whose imports scripts/check-imports.py checks.
check-abi: lib cli encored
	scripts/check-abi.sh $(LIB)

test-c: lib
	scripts/test-c.sh

test-python: lib venv
	@scripts/pytest-suite.sh "Python binding tests" bindings/python/tests -- -n $(PYTEST_JOBS)

# mypy --strict on the Python package and its examples (the test venv's
# mypy; its configuration is bindings/python/pyproject.toml's [tool.mypy]).
test-typecheck: venv
	@echo "== mypy --strict bindings/python/encore bindings/python/examples"
	@build/venv/bin/python -m mypy --strict --config-file bindings/python/pyproject.toml --cache-dir build/mypy-cache \
		bindings/python/encore bindings/python/examples

test-cli: lib cli venv
	@scripts/pytest-suite.sh "CLI tests" Tests/cli -- -n $(PYTEST_JOBS)

# Crash safety under SIGKILL, nothing in plaintext at rest, the sqlcipher
# tool on encore's stores, two processes on one store, disk full.
test-store: lib venv
	@scripts/pytest-suite.sh "store tests" Tests/store -- -n $(PYTEST_JOBS)

# BLS12-381 (Sources/CEncorePairing) against mcl (pymcl), built with the
# C compiler alone; bench: build/venv/bin/python Tests/pairing/bench_pairing.py
test-pairing: venv
	@scripts/pytest-suite.sh "pairing tests (BLS12-381 against mcl)" Tests/pairing -- -n $(PYTEST_JOBS)

# CrowdNotifier across implementations: encore's CLI and library against a
# pymcl-based server and client (Tests/crowdnotifier/cn_reference.py).
test-crowdnotifier: lib cli venv
	@scripts/pytest-suite.sh "CrowdNotifier tests (encore against pymcl)" Tests/crowdnotifier

# encored's tracing against BlueZoo (a BlueZ D-Bus mock) on a private
# dbus-daemon: two services trace each other; resilience; trust; end to end.
test-tracing: lib cli encored venv
	@ENCORE_ENCORED="$$PWD/$(ENCORED)" scripts/pytest-suite.sh "tracing tests (encored over BlueZoo)" Tests/tracing -- -n $(PYTEST_WAIT_JOBS)

# encored over its D-Bus API on a private system bus, with polkit's stand-in
# (python-dbusmock) and the CWA servers' (Tests/standins).
test-device: lib cli encored venv
	@ENCORE_ENCORED="$$PWD/$(ENCORED)" scripts/pytest-suite.sh "device service tests (encored over D-Bus)" Tests/device -- -n $(PYTEST_WAIT_JOBS)

# encore-pushd against an HTTP/2 APNs stand-in and a PostgreSQL cluster of
# the tests' own (Debian's postgresql, on loopback): the real backend's
# weaknesses, two serve instances and two senders under 10 000 operations.
test-pushd: pushd lib cli venv
	@ENCORE_PUSHD="$$PWD/$(PUSHD)" scripts/pytest-suite.sh "push registry tests (encore-pushd)" Tests/pushd -- -n $(PYTEST_WAIT_JOBS)

# Registrations/s of one instance on SQLCipher and on PostgreSQL, and
# tokens pushed/s against the stand-in (a release build).
# The same suite against encore-pushd built with ThreadSanitizer
# (scripts/tsan-pushd.sh; not part of test-all: its build takes 5 minutes).
test-pushd-tsan: lib cli venv
	@scripts/tsan-pushd.sh

bench-pushd: venv
	@$(MAKE) --no-print-directory pushd PUSHD_CONFIG=release
	ENCORE_PUSHD="$$PWD/server/.build/release/encore-pushd" build/venv/bin/python Tests/pushd/bench_pushd.py

# The stand-in servers (verification, submission, distribution, DP-3T)
# the protocol tests talk to, tested on their own.
test-standins: venv
	@scripts/pytest-suite.sh "stand-in server tests" Tests/standins/tests

test-install: lib cli
	scripts/test-install.sh

# The wheel installed into a fresh venv outside the checkout, and the binding
# tests against the installed package (scripts/test-wheel.sh).
test-wheel: wheel venv
	@PYTEST_JOBS=$(PYTEST_JOBS) scripts/test-wheel.sh

# The packages' contents and control fields, then installed into a temporary
# root and used there: the C example through pkg-config, encore demo, bash
# completion, man encore-sync, encore-pushd --help (scripts/test-deb.sh).
test-deb: deb
	@scripts/test-deb.sh

bench: lib cli
	scripts/bench.sh

# Background sync: a 14-day sync of 1 000 000 keys from the loopback
# stand-in + the check, against the check alone plus the transfer; a re-sync.
# A crowded day of tracing (500 devices, 288 scans) into the store, as a
# ratio of the store's own insert rate in the same run.
bench-tracing: lib cli
	scripts/bench.sh tracing

bench-sync: lib cli venv
	build/venv/bin/python Tests/bench/bench_sync.py

# The check with kept matches (issue 49): a dense user's 14 cached and
# matched days of 1 000 000 keys; a sync bringing the next day, one bringing
# an hour, each against a full check (--full) in the same run; a check with
# nothing new.
bench-check: lib cli venv
	build/venv/bin/python Tests/bench/bench_check.py

# The device service (issue 46): GetAll every 10 ms while encored syncs 14
# days of 1 000 000 keys and checks them for 100 000 sightings (the longest
# answer <= 100 ms); tracing on, its wake-ups in the worst of 5 idle minutes (<= 60).
bench-device: lib cli encored venv
	ENCORE_ENCORED="$$PWD/$(ENCORED)" build/venv/bin/python Tests/bench/bench_device.py

# CrowdNotifier: pairings/s against pymcl; matching in both modes (diary and
# private check-ins) against the SDKs' algorithm on pymcl: a realistic day
# (14 days of visits, a day's trace keys) and 10 000 trace keys against 30 visits.
bench-crowdnotifier: lib cli venv
	build/venv/bin/python Tests/pairing/bench_pairing.py
	build/venv/bin/python Tests/crowdnotifier/bench_matching.py --rounds 3 --reference-keys 2000

fuzz: deps
	scripts/fuzz.sh

# Every libFuzzer target built and run briefly: they compile the core's
# layers on their own (scripts/fuzz.sh), so a change can break them while
# the package still builds; a few seconds also replays their seeds.
FUZZ_SMOKE_SECONDS ?= 5
test-fuzz: deps
	@for t in keyfile checkin crowdnotifier protocols; do FUZZ_TARGET=$$t scripts/fuzz.sh $(FUZZ_SMOKE_SECONDS) || exit 1; done

install: lib cli share
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -d $(DESTDIR)$(PREFIX)/share/bash-completion/completions $(DESTDIR)$(PREFIX)/share/zsh/site-functions \
		$(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libencore.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libencore.so.$(MAJOR)
	ln -sf libencore.so.$(MAJOR) $(DESTDIR)$(PREFIX)/lib/libencore.so
	install -m 0644 include/encore.h $(DESTDIR)$(PREFIX)/include/
	install -m 0755 $(CLI) $(DESTDIR)$(PREFIX)/bin/encore
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$${prefix}/lib|g' -e 's|@VERSION@|$(VERSION)|g' support/encore.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/encore.pc
	install -m 0644 $(SHARE)/bash-completion/completions/encore $(DESTDIR)$(PREFIX)/share/bash-completion/completions/encore
	install -m 0644 $(SHARE)/zsh/site-functions/_encore $(DESTDIR)$(PREFIX)/share/zsh/site-functions/_encore
	install -m 0644 $(SHARE)/fish/vendor_completions.d/encore.fish $(DESTDIR)$(PREFIX)/share/fish/vendor_completions.d/encore.fish
	install -m 0644 $(SHARE)/man/man1/*.1 $(DESTDIR)$(PREFIX)/share/man/man1/

clean:
	rm -rf $(BUILD) .build dist
