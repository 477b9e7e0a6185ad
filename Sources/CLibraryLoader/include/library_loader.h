/*
 * A library loaded on first use instead of linked (as systemd loads its
 * optional libraries): a program that does not need it then neither maps
 * it nor relocates it and the libraries it brings. Used for libcurl (the
 * built-in transport's first request) and libsystemd (`encore device`).
 * A missing or unusable library is an error naming the Debian package to
 * install, never a crash; packages name such a library in their Depends,
 * since dpkg-shlibdeps cannot see a dlopen.
 */
#ifndef ENCORE_LIBRARY_LOADER_H
#define ENCORE_LIBRARY_LOADER_H

#include <stddef.h>

/* dlopen(soname, RTLD_NOW | RTLD_LOCAL), then dlsym of each of the `count`
 * `names` into `functions`: `count` function pointers in a row (a struct
 * of them, in the order of `names`). Returns the handle, to be kept for
 * the life of the process; NULL when the library cannot be loaded or lacks
 * a function, with `functions` zeroed and `error` saying why (`what`:
 * "libcurl", `package`: "libcurl4"). */
void *enc_library_load(const char *soname, const char *what, const char *package, const char *const *names, size_t count,
                       void *functions, char *error, size_t error_size);

#endif /* ENCORE_LIBRARY_LOADER_H */
