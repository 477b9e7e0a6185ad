/* A host that has its own SQLite and links encore (issue: embedding).
 *
 * scripts/test-c.sh builds this file three times, with the host's SQLite
 * ahead of encore in the link order (-lsqlite3 -lencore), after it
 * (-lencore -lsqlite3), and with the host using SQLCipher itself
 * (-lsqlcipher -lencore, HOST_SQLCIPHER). In each, one thread of the host
 * works on its own plain database through its own SQLite while another
 * opens, writes and reads an encore store, at the same time; afterwards the
 * store must be encrypted on disk and the host's database plain, and the
 * host's SQLite must still be the one its symbols resolve to. */
#define _GNU_SOURCE
#include "../check.h"
#include "../scratch.h"

#include <dlfcn.h>
#include <pthread.h>
#include <string.h>

#ifdef HOST_SQLCIPHER
#include <sqlcipher/sqlite3.h>
#define HOST_LIBRARY "libsqlcipher.so"
#else
#include <sqlite3.h>
#define HOST_LIBRARY "libsqlite3.so"
#endif

static char dir[4096];
static char host_db[4200];
static char store_db[4200];

/* The first 16 bytes of a file: "SQLite format 3\0" for a plain database. */
static int has_plain_header(const char *path) {
    unsigned char head[16] = {0};
    FILE *f = fopen(path, "rb");
    if (f == NULL) return -1;
    size_t n = fread(head, 1, sizeof head, f);
    fclose(f);
    return n == sizeof head && memcmp(head, "SQLite format 3", 16) == 0;
}

/* Whether a symbol of the global scope lies in a file whose name holds `what`. */
static int global_symbol_in(const char *symbol, const char *what) {
    Dl_info info;
    void *p = dlsym(RTLD_DEFAULT, symbol);
    return p != NULL && dladdr(p, &info) != 0 && info.dli_fname != NULL && strstr(info.dli_fname, what) != NULL;
}

static int host_failures = 0;

/* The host's own work: rows in and out of its plain database, in many
 * small transactions, so that it overlaps the store's work. */
static void *host_thread(void *arg) {
    (void)arg;
    sqlite3 *db = NULL;
    if (sqlite3_open(host_db, &db) != SQLITE_OK) { host_failures++; sqlite3_close(db); return NULL; }
    if (sqlite3_exec(db, "CREATE TABLE t (n INTEGER)", NULL, NULL, NULL) != SQLITE_OK) host_failures++;
    for (int round = 0; round < 50; round++) {
        char sql[128];
        snprintf(sql, sizeof sql, "BEGIN; INSERT INTO t VALUES (%d); INSERT INTO t VALUES (%d); COMMIT", round, -round);
        if (sqlite3_exec(db, sql, NULL, NULL, NULL) != SQLITE_OK) host_failures++;
    }
    sqlite3_stmt *s = NULL;
    if (sqlite3_prepare_v2(db, "SELECT count(*), sum(n) FROM t", -1, &s, NULL) != SQLITE_OK || sqlite3_step(s) != SQLITE_ROW ||
        sqlite3_column_int(s, 0) != 100 || sqlite3_column_int(s, 1) != 0) {
        host_failures++;
    }
    sqlite3_finalize(s);
    sqlite3_close(db);
    return NULL;
}

/* encore's work: a store opened, written, read, closed and opened again. */
static void store_work(void) {
    static const uint8_t raw[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                    17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
    encore_store_key key = {sizeof(encore_store_key), ENCORE_KEY_RAW, raw, sizeof raw};
    for (int round = 0; round < 3; round++) {
        encore_store *store = NULL;
        CHECK(encore_store_open(store_db, &key, NULL, &store) == ENCORE_OK);
        if (store == NULL) return;
        encore_sighting o[20];
        memset(o, 0, sizeof o);
        for (int i = 0; i < 20; i++) {
            o[i].struct_size = sizeof o[i];
            o[i].time = 1700000000 + round * 1000 + i;
            o[i].rpi[0] = (uint8_t)i;
            o[i].rpi[1] = (uint8_t)round;
            o[i].rssi = -60;
        }
        encore_client *client = NULL;
        CHECK(encore_client_new(store, NULL, &client) == ENCORE_OK);
        size_t added = 0;
        CHECK(encore_sighting_add(client, o, sizeof(encore_sighting), 20, &added) == ENCORE_OK);
        CHECK(added == 20);
        uint64_t count = 0;
        CHECK(encore_sighting_count(client, 0, INT64_MAX, &count) == ENCORE_OK);
        CHECK(count == (uint64_t)(20 * (round + 1)));
        encore_client_free(client);
        encore_store_close(store);
    }
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "embed") != 0) return 1;
    snprintf(host_db, sizeof host_db, "%s/host.db", dir);
    snprintf(store_db, sizeof store_db, "%s/store.db", dir);
    const char *host_version = sqlite3_libversion();

    pthread_t host;
    CHECK(pthread_create(&host, NULL, host_thread, NULL) == 0);
    store_work();
    pthread_join(host, NULL);
    CHECK(host_failures == 0);

    /* The store is encrypted, the host's database plain. */
    CHECK(has_plain_header(store_db) == 0);
    CHECK(has_plain_header(host_db) == 1);
    /* The host's SQLite is still what its symbols resolve to, and encore
     * added no SQLite to the global scope. */
    CHECK(strcmp(sqlite3_libversion(), host_version) == 0);
    CHECK(global_symbol_in("sqlite3_open_v2", HOST_LIBRARY));
#ifndef HOST_SQLCIPHER
    CHECK(dlsym(RTLD_DEFAULT, "sqlite3_key") == NULL);
#endif
    scratch_dir_remove(dir);
    return check_report();
}
