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

#endif
