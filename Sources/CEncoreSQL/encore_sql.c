/* SQLCipher, loaded privately: see include/encore_sql.h for why. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define SQLITE_HAS_CODEC 1
#include <sqlcipher/sqlite3.h>

#include "include/encore_sql.h"

/* The header's constants are SQLite's. */
_Static_assert(ENC_SQL_OK == SQLITE_OK && ENC_SQL_BUSY == SQLITE_BUSY && ENC_SQL_LOCKED == SQLITE_LOCKED &&
               ENC_SQL_NOMEM == SQLITE_NOMEM && ENC_SQL_CORRUPT == SQLITE_CORRUPT && ENC_SQL_TOOBIG == SQLITE_TOOBIG &&
               ENC_SQL_CONSTRAINT == SQLITE_CONSTRAINT && ENC_SQL_MISMATCH == SQLITE_MISMATCH &&
               ENC_SQL_RANGE == SQLITE_RANGE && ENC_SQL_NOTADB == SQLITE_NOTADB && ENC_SQL_ROW == SQLITE_ROW &&
               ENC_SQL_DONE == SQLITE_DONE, "result codes");
_Static_assert(ENC_SQL_LIMIT_LENGTH == SQLITE_LIMIT_LENGTH, "limits");
_Static_assert(ENC_SQL_OPEN_READONLY == SQLITE_OPEN_READONLY && ENC_SQL_OPEN_READWRITE == SQLITE_OPEN_READWRITE &&
               ENC_SQL_OPEN_CREATE == SQLITE_OPEN_CREATE && ENC_SQL_OPEN_NOMUTEX == SQLITE_OPEN_NOMUTEX &&
               ENC_SQL_OPEN_URI == SQLITE_OPEN_URI, "open flags");
_Static_assert(ENC_SQL_INTEGER == SQLITE_INTEGER && ENC_SQL_FLOAT == SQLITE_FLOAT && ENC_SQL_TEXT == SQLITE_TEXT &&
               ENC_SQL_BLOB == SQLITE_BLOB && ENC_SQL_NULL == SQLITE_NULL, "column types");

#define ENC_SQL_SONAME "libsqlcipher.so.0"

/* Every SQLCipher function encore calls. Their types come from sqlite3.h
 * through __typeof__, which takes no address: this file references no
 * sqlite3_* symbol, so none can be bound by the dynamic linker. */
#define ENC_SQL_FUNCTIONS(X)                                                                         \
    X(sqlite3_libversion) X(sqlite3_open_v2) X(sqlite3_close_v2) X(sqlite3_key) X(sqlite3_rekey)     \
    X(sqlite3_exec) X(sqlite3_errmsg) X(sqlite3_extended_result_codes) X(sqlite3_busy_timeout)       \
    X(sqlite3_changes) X(sqlite3_last_insert_rowid) X(sqlite3_prepare_v2) X(sqlite3_finalize)        \
    X(sqlite3_reset) X(sqlite3_clear_bindings) X(sqlite3_step) X(sqlite3_sql) X(sqlite3_bind_int64)  \
    X(sqlite3_bind_double) X(sqlite3_bind_null) X(sqlite3_bind_text64) X(sqlite3_bind_blob64)        \
    X(sqlite3_column_type) X(sqlite3_column_int64) X(sqlite3_column_double) X(sqlite3_column_text)   \
    X(sqlite3_column_blob) X(sqlite3_column_bytes) X(sqlite3_limit)

static struct {
#define ENC_SQL_FIELD(name) __typeof__(name) *name;
    ENC_SQL_FUNCTIONS(ENC_SQL_FIELD)
#undef ENC_SQL_FIELD
} api;

static pthread_once_t load_once = PTHREAD_ONCE_INIT;
static int load_status = -1;
static int shared = 0;
static char load_error[768] = "SQLCipher was not loaded";
static char library_path[512];

/* Whether `address` lies in the object named `path` (dladdr's file name is
 * the link map's name of the object that holds the address). */
static int inside(const void *address, const char *path) {
    Dl_info info;
    return address != NULL && dladdr(address, &info) != 0 && info.dli_fname != NULL && strcmp(info.dli_fname, path) == 0;
}

static const char *object_of(const void *address) {
    Dl_info info;
    return address != NULL && dladdr(address, &info) != 0 && info.dli_fname != NULL ? info.dli_fname : "?";
}

/* The sanitizers' runtimes (Address, Thread, Memory) refuse RTLD_DEEPBIND
 * (their interceptors must come first); under one, encore loads SQLCipher
 * local only. */
static int deep_bind_flag(void) {
    static const char *const runtimes[] = {"__asan_init", "__tsan_init", "__msan_init"};
    for (size_t i = 0; i < sizeof runtimes / sizeof runtimes[0]; i++) {
        if (dlsym(RTLD_DEFAULT, runtimes[i]) != NULL) return 0;
    }
    return RTLD_DEEPBIND;
}

static void load(void) {
    /* Already in the process: another component loaded it, and encore can
     * only share that copy. Refused when another SQLite comes first in the
     * global scope, since SQLCipher's calls into itself may then reach it. */
    void *existing = dlopen(ENC_SQL_SONAME, RTLD_LAZY | RTLD_NOLOAD);
    void *handle = dlopen(ENC_SQL_SONAME, RTLD_NOW | RTLD_LOCAL | deep_bind_flag());
    if (existing != NULL) dlclose(existing);
    if (handle == NULL) {
        const char *why = dlerror();
        snprintf(load_error, sizeof load_error, "cannot load SQLCipher (%s): %s; install Debian's libsqlcipher0",
                 ENC_SQL_SONAME, why ? why : "unknown error");
        return;
    }
    struct link_map *map = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &map) != 0 || map == NULL || map->l_name == NULL) {
        snprintf(load_error, sizeof load_error, "cannot tell where %s was loaded from", ENC_SQL_SONAME);
        dlclose(handle);
        return;
    }
    snprintf(library_path, sizeof library_path, "%s", map->l_name);
/* dlsym gives an object pointer; memcpy turns it into the function
 * pointer it is (POSIX guarantees they are alike; ISO C has no cast). */
#define ENC_SQL_RESOLVE(name)                                                                                 \
    {                                                                                                         \
        void *raw = dlsym(handle, #name);                                                                     \
        if (!inside(raw, map->l_name)) {                                                                      \
            snprintf(load_error, sizeof load_error, "%s resolves outside %s (to %s): refusing to use it", #name, \
                     map->l_name, raw ? object_of(raw) : "nothing");                                          \
            memset(&api, 0, sizeof api);                                                                      \
            dlclose(handle);                                                                                  \
            return;                                                                                           \
        }                                                                                                     \
        memcpy(&api.name, &raw, sizeof raw);                                                                  \
    }
    ENC_SQL_FUNCTIONS(ENC_SQL_RESOLVE)
#undef ENC_SQL_RESOLVE
    if (existing != NULL) {
        void *global = dlsym(RTLD_DEFAULT, "sqlite3_initialize");
        if (global != NULL && !inside(global, map->l_name)) {
            snprintf(load_error, sizeof load_error,
                     "%s was loaded by another component of this process, and another SQLite (%s) comes first in "
                     "the global symbol scope: SQLCipher's calls into itself may reach that SQLite, so encore will "
                     "not use it (let encore load SQLCipher itself, or load it with RTLD_DEEPBIND)",
                     map->l_name, object_of(global));
            memset(&api, 0, sizeof api);
            dlclose(handle);
            return;
        }
        shared = 1;
    }
    /* The handle stays open for the life of the process: statements and
     * connections may outlive any one store. */
    load_status = 0;
}

int enc_sql_load(void) {
    pthread_once(&load_once, load);
    return load_status;
}

const char *enc_sql_load_error(void) { return load_status == 0 ? NULL : load_error; }
const char *enc_sql_library_path(void) { return load_status == 0 ? library_path : NULL; }
const char *enc_sql_version(void) { return load_status == 0 ? api.sqlite3_libversion() : NULL; }
int enc_sql_shared_with_host(void) { return shared; }

int enc_sql_open(const char *path, int flags, enc_sql_db **db) {
    return api.sqlite3_open_v2(path, (sqlite3 **)db, flags, NULL);
}
int enc_sql_close(enc_sql_db *db) { return api.sqlite3_close_v2((sqlite3 *)db); }
int enc_sql_key(enc_sql_db *db, const void *key, int length) { return api.sqlite3_key((sqlite3 *)db, key, length); }
int enc_sql_rekey(enc_sql_db *db, const void *key, int length) { return api.sqlite3_rekey((sqlite3 *)db, key, length); }
int enc_sql_exec(enc_sql_db *db, const char *sql) { return api.sqlite3_exec((sqlite3 *)db, sql, NULL, NULL, NULL); }
const char *enc_sql_errmsg(enc_sql_db *db) { return api.sqlite3_errmsg((sqlite3 *)db); }
int enc_sql_extended_result_codes(enc_sql_db *db, int on) { return api.sqlite3_extended_result_codes((sqlite3 *)db, on); }
int enc_sql_busy_timeout(enc_sql_db *db, int ms) { return api.sqlite3_busy_timeout((sqlite3 *)db, ms); }
int enc_sql_changes(enc_sql_db *db) { return api.sqlite3_changes((sqlite3 *)db); }
int64_t enc_sql_last_insert_rowid(enc_sql_db *db) { return api.sqlite3_last_insert_rowid((sqlite3 *)db); }

int enc_sql_prepare(enc_sql_db *db, const char *sql, enc_sql_stmt **stmt) {
    return api.sqlite3_prepare_v2((sqlite3 *)db, sql, -1, (sqlite3_stmt **)stmt, NULL);
}
int enc_sql_finalize(enc_sql_stmt *s) { return api.sqlite3_finalize((sqlite3_stmt *)s); }
int enc_sql_reset(enc_sql_stmt *s) { return api.sqlite3_reset((sqlite3_stmt *)s); }
int enc_sql_clear_bindings(enc_sql_stmt *s) { return api.sqlite3_clear_bindings((sqlite3_stmt *)s); }
int enc_sql_step(enc_sql_stmt *s) { return api.sqlite3_step((sqlite3_stmt *)s); }
const char *enc_sql_sql(enc_sql_stmt *s) { return api.sqlite3_sql((sqlite3_stmt *)s); }

int enc_sql_bind_int64(enc_sql_stmt *s, int i, int64_t v) { return api.sqlite3_bind_int64((sqlite3_stmt *)s, i, v); }
int enc_sql_bind_double(enc_sql_stmt *s, int i, double v) { return api.sqlite3_bind_double((sqlite3_stmt *)s, i, v); }
int enc_sql_bind_null(enc_sql_stmt *s, int i) { return api.sqlite3_bind_null((sqlite3_stmt *)s, i); }
int enc_sql_bind_text(enc_sql_stmt *s, int i, const char *text, uint64_t n) {
    return api.sqlite3_bind_text64((sqlite3_stmt *)s, i, text, n, SQLITE_TRANSIENT, SQLITE_UTF8);
}
int enc_sql_bind_blob(enc_sql_stmt *s, int i, const void *data, uint64_t n) {
    return api.sqlite3_bind_blob64((sqlite3_stmt *)s, i, data, n, SQLITE_TRANSIENT);
}

int enc_sql_column_type(enc_sql_stmt *s, int c) { return api.sqlite3_column_type((sqlite3_stmt *)s, c); }
int64_t enc_sql_column_int64(enc_sql_stmt *s, int c) { return api.sqlite3_column_int64((sqlite3_stmt *)s, c); }
double enc_sql_column_double(enc_sql_stmt *s, int c) { return api.sqlite3_column_double((sqlite3_stmt *)s, c); }
const unsigned char *enc_sql_column_text(enc_sql_stmt *s, int c) { return api.sqlite3_column_text((sqlite3_stmt *)s, c); }
const void *enc_sql_column_blob(enc_sql_stmt *s, int c) { return api.sqlite3_column_blob((sqlite3_stmt *)s, c); }
int enc_sql_column_bytes(enc_sql_stmt *s, int c) { return api.sqlite3_column_bytes((sqlite3_stmt *)s, c); }
int enc_sql_limit(enc_sql_db *db, int id, int value) { return api.sqlite3_limit((sqlite3 *)db, id, value); }
