/* See include/library_loader.h. */
#include <dlfcn.h>
#include <stdio.h>
#include <string.h>

#include "include/library_loader.h"

void *enc_library_load(const char *soname, const char *what, const char *package, const char *const *names, size_t count,
                       void *functions, char *error, size_t error_size) {
    void *handle = dlopen(soname, RTLD_NOW | RTLD_LOCAL);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(error, error_size, "cannot load %s (%s): %s; install Debian's %s", what, soname, why ? why : "unknown error",
                 package);
        return NULL;
    }
    for (size_t i = 0; i < count; i++) {
        void *raw = dlsym(handle, names[i]);
        if (raw == NULL) {
            snprintf(error, error_size, "%s has no %s: install Debian's %s", soname, names[i], package);
            memset(functions, 0, count * sizeof raw);
            dlclose(handle);
            return NULL;
        }
        /* dlsym gives an object pointer; memcpy turns it into the function
         * pointer it is (POSIX guarantees they are alike; ISO C has no cast). */
        memcpy((char *)functions + i * sizeof raw, &raw, sizeof raw);
    }
    return handle;
}
