# encore: build, test, install. `make help` lists the targets.
SHELL := /bin/bash
PREFIX ?= /usr/local
CC ?= cc
MAJOR := $(shell sed -n 's/^\#define ENCORE_VERSION_MAJOR //p' Sources/CEncoreTypes/include/encore_types.h)
VERSION := $(shell sed -n 's/^\#define ENCORE_VERSION_STRING "\(.*\)"/\1/p' Sources/CEncoreTypes/include/encore_types.h)
BUILD := build
LIB := $(BUILD)/lib/libencore.so.$(VERSION)
CLI := $(BUILD)/bin/encore
SWIFT_RELEASE := swift build -c release
CFLAGS_STRICT := -std=c99 -Wall -Wextra -Wpedantic -Werror

.PHONY: help deps lib cli all demo test test-swift test-c test-python test-store test-install check-abi header bench fuzz install clean

help:
	@echo "make demo      the exposure check on a simulated user, start to end (encore demo)"
	@echo "make test      run every test: Swift, ABI checks, C, Python"
	@echo "make lib cli   build $(LIB) and $(CLI)"
	@echo "make bench     parse + verify benchmark"
	@echo "make fuzz      run the libFuzzer target for a while (FUZZ_SECONDS=60)"
	@echo "make install PREFIX=/usr/local"

deps:
	@scripts/deps.sh

all: lib cli

# The shared library, with its SONAME link and development link.
lib: deps
	$(SWIFT_RELEASE) --product encore
	@mkdir -p $(BUILD)/lib
	# Debug sections stripped: DWARF 5 from the Swift toolchain defeats valgrind 3.19.
	objcopy --strip-debug .build/release/libencore.so $(LIB)
	ln -sf libencore.so.$(VERSION) $(BUILD)/lib/libencore.so.$(MAJOR)
	ln -sf libencore.so.$(MAJOR) $(BUILD)/lib/libencore.so

cli: deps
	# The Swift runtime linked in, like the library's: the tool runs without the toolchain.
	$(SWIFT_RELEASE) --static-swift-stdlib --product encore-cli
	@mkdir -p $(BUILD)/bin
	cp .build/release/encore-cli $(CLI)

header:
	scripts/gen-header.py

demo: cli
	$(CLI) demo

test: deps test-swift check-abi test-c test-python test-store test-install
	@echo "all tests passed"

test-swift: deps
	swift test

check-abi: lib
	scripts/check-abi.sh $(LIB)

test-c: lib
	scripts/test-c.sh

test-python: lib cli
	scripts/test-python.sh

test-store: lib
	scripts/test-store.sh

test-install: lib cli
	scripts/test-install.sh

bench: lib cli
	scripts/bench.sh

fuzz: deps
	scripts/fuzz.sh

install: lib cli
	install -d $(DESTDIR)$(PREFIX)/lib $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(PREFIX)/lib/pkgconfig $(DESTDIR)$(PREFIX)/bin
	install -m 0755 $(LIB) $(DESTDIR)$(PREFIX)/lib/
	ln -sf libencore.so.$(VERSION) $(DESTDIR)$(PREFIX)/lib/libencore.so.$(MAJOR)
	ln -sf libencore.so.$(MAJOR) $(DESTDIR)$(PREFIX)/lib/libencore.so
	install -m 0644 include/encore.h $(DESTDIR)$(PREFIX)/include/
	install -m 0755 $(CLI) $(DESTDIR)$(PREFIX)/bin/encore
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@VERSION@|$(VERSION)|g' support/encore.pc.in > $(DESTDIR)$(PREFIX)/lib/pkgconfig/encore.pc

clean:
	rm -rf $(BUILD) .build
