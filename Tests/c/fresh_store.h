/* The C tests' stores: each fresh_store() is a new store file of its own in
 * the test program's scratch directory `dir` (main makes it with
 * scratch_dir_make and removes it with scratch_dir_remove), under a raw key:
 * no key derivation, which would be slow under valgrind. Included by the
 * test programs that need a store and nothing particular about its file. */
#ifndef ENCORE_TEST_FRESH_STORE_H
#define ENCORE_TEST_FRESH_STORE_H

#include <stdio.h>

#include "check.h"
#include "scratch.h"

static char dir[4096];

/* A new, empty store; NULL (and a failed check) when it cannot be opened. */
static encore_store *fresh_store(void) {
    return scratch_store_open(dir);
}

#endif
