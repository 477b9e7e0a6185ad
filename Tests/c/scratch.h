/* The C tests' scratch directory: one per test program, made under $TMPDIR
 * (or /tmp) so parallel runs do not meet, and removed with everything the
 * test left in it (store files, their -wal/-shm/-journal companions, empty
 * subdirectories). Included once by each test program that needs files. */
#ifndef ENCORE_TEST_SCRATCH_H
#define ENCORE_TEST_SCRATCH_H

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Makes "<tmp>/encore-<tag>-XXXXXX" in dir; 0 on success, -1 (with a message
 * on stderr) when it cannot. */
static int scratch_dir_make(char *dir, size_t size, const char *tag) {
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, size, "%s/encore-%s-XXXXXX", tmp != NULL && tmp[0] != '\0' ? tmp : "/tmp", tag);
    if (mkdtemp(dir) == NULL) {
        fprintf(stderr, "cannot create a directory from %s: %s\n", dir, strerror(errno));
        return -1;
    }
    return 0;
}

static void scratch_dir_remove(const char *dir) {
    DIR *d = opendir(dir);
    if (d != NULL) {
        struct dirent *e;
        char path[1024];
        while ((e = readdir(d)) != NULL) {
            if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0) continue;
            snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
            if (rmdir(path) != 0) unlink(path);
        }
        closedir(d);
    }
    rmdir(dir);
}

#ifdef ENCORE_TEST_CHECK_H
/* A new, empty store in the scratch directory `dir` (its own file each
 * call, a raw key): a test's fresh state. NULL (and a failed check) when it
 * cannot be opened. For the programs that include check.h first. */
static inline encore_store *scratch_store_open(const char *dir) {
    static int n = 0;
    char path[4200];
    snprintf(path, sizeof path, "%s/fresh%d.db", dir, n++);
    static const uint8_t raw[32] = {5};
    encore_store_key key = {sizeof(encore_store_key), ENCORE_KEY_RAW, raw, sizeof raw};
    encore_store *store = NULL;
    CHECK(encore_store_open(path, &key, NULL, &store) == ENCORE_OK);
    return store;
}
#endif

#endif
