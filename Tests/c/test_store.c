/* C tests of the encrypted store through the C API: creating and opening
 * with a passphrase and a raw key, refusals that leave the files
 * byte-identical (wrong key, not a store, creation forbidden), bulk insert,
 * counting and range copies, duplicates, all-or-nothing batches, rekey,
 * purge counts, argument checks, and eight threads inserting through one
 * handle. Built with -Werror and run under valgrind by scripts/test-c.sh.
 * Crashes, plaintext at rest, other processes and the sqlcipher tool are
 * tested in Tests/store (scripts/test-store.sh). */
#include "check.h"
#include "client.h"
#include "scratch.h"

#include <dirent.h>
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>


/* ---- files ---------------------------------------------------------------- */

static char dir[4096];

static const char *path_in_dir(const char *name) {
    static char path[2][8192];
    static int which = 0;
    which ^= 1;
    snprintf(path[which], sizeof path[which], "%s/%s", dir, name);
    return path[which];
}

static int exists(const char *path) {
    struct stat st;
    return stat(path, &st) == 0;
}

/* The whole file, or NULL (with *len 0) when it does not exist. */
static unsigned char *slurp(const char *path, size_t *len) {
    *len = 0;
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static void spit(const char *path, const void *data, size_t len) {
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f == NULL) return;
    CHECK(fwrite(data, 1, len, f) == len);
    fclose(f);
}

/* The bytes of a store and of its -wal, -shm and -journal companions. */
#define COMPANIONS 4
static const char *const suffixes[COMPANIONS] = {"", "-wal", "-shm", "-journal"};

struct snapshot {
    int present[COMPANIONS];
    unsigned char *bytes[COMPANIONS];
    size_t len[COMPANIONS];
};

static void take_snapshot(const char *db, struct snapshot *s) {
    for (int i = 0; i < COMPANIONS; i++) {
        char p[8300];
        snprintf(p, sizeof p, "%s%s", db, suffixes[i]);
        s->present[i] = exists(p);
        s->bytes[i] = s->present[i] ? slurp(p, &s->len[i]) : NULL;
        s->len[i] = s->present[i] ? s->len[i] : 0;
    }
}

static void free_snapshot(struct snapshot *s) {
    for (int i = 0; i < COMPANIONS; i++) free(s->bytes[i]);
}

/* Bytes 100..119 of the -shm file are the WAL read marks
 * (WalCkptInfo.aReadMark[0..4]): every connection that reads, with any key,
 * records there how much of the WAL it sees. They hold no data and are
 * not durable; every other byte must stay. */
#define READ_MARKS_START 100
#define READ_MARKS_END 120

static int same_bytes(int companion, const unsigned char *a, const unsigned char *b, size_t len) {
    for (size_t i = 0; i < len; i++) {
        if (companion == 2 && i >= READ_MARKS_START && i < READ_MARKS_END) continue;
        if (a[i] != b[i]) return 0;
    }
    return 1;
}

/* Whether every file is as it was: same presence, same bytes. */
static int same_as(const char *db, const struct snapshot *before) {
    struct snapshot now;
    take_snapshot(db, &now);
    int same = 1;
    for (int i = 0; i < COMPANIONS; i++) {
        if (now.present[i] != before->present[i] || now.len[i] != before->len[i] ||
            !same_bytes(i, now.bytes[i], before->bytes[i], now.len[i])) {
            fprintf(stderr, "  %s%s changed (present %d -> %d, %zu -> %zu bytes)\n", db, suffixes[i],
                    before->present[i], now.present[i], before->len[i], now.len[i]);
            same = 0;
        }
    }
    free_snapshot(&now);
    return same;
}

/* ---- keys, options, sightings ---------------------------------------- */

static const uint8_t raw_a[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                  17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};
static const uint8_t raw_b[32] = {0xa0, 0xa1, 0xa2, 0xa3, 0xa4, 0xa5, 0xa6, 0xa7, 0xa8, 0xa9, 0xaa,
                                  0xab, 0xac, 0xad, 0xae, 0xaf, 0xb0, 0xb1, 0xb2, 0xb3, 0xb4, 0xb5,
                                  0xb6, 0xb7, 0xb8, 0xb9, 0xba, 0xbb, 0xbc, 0xbd, 0xbe, 0xbf};

static encore_store_key passphrase(const char *text) {
    encore_store_key k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    k.kind = ENCORE_KEY_PASSPHRASE;
    k.data = (const uint8_t *)text;
    k.length = strlen(text);
    return k;
}

static encore_store_key raw(const uint8_t *bytes, size_t length) {
    encore_store_key k;
    memset(&k, 0, sizeof k);
    k.struct_size = sizeof k;
    k.kind = ENCORE_KEY_RAW;
    k.data = bytes;
    k.length = length;
    return k;
}

static encore_store_options options(int create, int busy_timeout_ms) {
    encore_store_options o;
    CHECK(encore_store_options_init(&o, sizeof o) == ENCORE_OK);
    o.create = (uint32_t)create;
    o.busy_timeout_ms = busy_timeout_ms;
    return o;
}

static encore_store *open_ok(const char *db, encore_store_key key) {
    encore_store *s = NULL;
    CHECK(encore_store_open(db, &key, NULL, &s) == ENCORE_OK);
    CHECK(s != NULL);
    return s;
}

/* Sighting number `n`: every field derived from n, so rows can be checked. */
static encore_sighting obs(int64_t time, uint32_t n) {
    encore_sighting o;
    memset(&o, 0, sizeof o);
    ENCORE_OUTPUT_INIT(o);
    o.time = time;
    for (int i = 0; i < 16; i++) o.rpi[i] = (uint8_t)((n >> (8 * (i % 4))) ^ (uint8_t)(i * 37));
    for (int i = 0; i < 4; i++) o.aem[i] = (uint8_t)(n * 7 + (uint32_t)i);
    o.rssi = (int8_t)(-30 - (int)(n % 70));
    if (n % 3 == 0) {
        o.has_prev_scan = 1;
        o.prev_scan = time - 300;
    }
    return o;
}

static int same_obs(const encore_sighting *a, const encore_sighting *b) {
    return a->time == b->time && memcmp(a->rpi, b->rpi, 16) == 0 && memcmp(a->aem, b->aem, 4) == 0 &&
           a->rssi == b->rssi && a->has_prev_scan == b->has_prev_scan &&
           (a->has_prev_scan == 0 || a->prev_scan == b->prev_scan) && a->reserved[0] == 0 && a->reserved[1] == 0;
}

static uint64_t count_all(encore_client *client) {
    uint64_t n = 0xdead;
    CHECK(encore_sighting_count(client, INT64_MIN, INT64_MAX, &n) == ENCORE_OK);
    return n;
}

#define T0 1600000000

/* ---- tests ---------------------------------------------------------------- */

static void test_create_and_reopen(void) {
    const char *db = path_in_dir("pass.db");
    encore_store *s = open_ok(db, passphrase("correct horse"));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    uint32_t version = 0;
    CHECK(encore_store_get_schema_version(s, &version) == ENCORE_OK && version >= 1);
    encore_sighting o[3] = {obs(T0, 1), obs(T0 + 1, 2), obs(T0 + 2, 3)};
    size_t added = 99;
    CHECK(encore_sighting_add(client, o, sizeof(encore_sighting), 3, &added) == ENCORE_OK && added == 3);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);
    CHECK(exists(db));

    encore_store_options no_create = options(0, 5000);
    encore_store_key k = passphrase("correct horse");
    s = NULL;
    CHECK(encore_store_open(db, &k, &no_create, &s) == ENCORE_OK);
    client = clocked_client(s, &clock_now);
    CHECK(count_all(client) == 3);
    uint32_t again = 0;
    CHECK(encore_store_get_schema_version(s, &again) == ENCORE_OK && again == version);
    encore_client_free(client);
    encore_store_close(s);

    const char *rdb = path_in_dir("raw.db");
    s = open_ok(rdb, raw(raw_a, 32));
    client = clocked_client(s, &clock_now);
    CHECK(encore_sighting_add(client, o, sizeof(encore_sighting), 2, NULL) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);
    s = open_ok(rdb, raw(raw_a, 32));
    client = clocked_client(s, &clock_now);
    CHECK(count_all(client) == 2);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);

    /* The raw key's bytes as a passphrase are another key. */
    encore_store *w = NULL;
    encore_store_key as_text = raw(raw_a, 32);
    as_text.kind = ENCORE_KEY_PASSPHRASE;
    CHECK(encore_store_open(rdb, &as_text, NULL, &w) == ENCORE_ERR_STORE_WRONG_KEY && w == NULL);
    /* A passphrase that is 0 bytes long is refused, not used. */
    encore_store_key empty = passphrase("");
    CHECK(encore_store_open(path_in_dir("empty-pass.db"), &empty, NULL, &w) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(!exists(path_in_dir("empty-pass.db")));
    /* Nor is one longer than 1 MiB (a mistake, and SQLCipher takes an int length). */
    const size_t long_length = ((size_t)1 << 20) + 1;
    uint8_t *long_bytes = malloc(long_length);
    if (long_bytes != NULL) {
        memset(long_bytes, 'a', long_length);
        encore_store_key long_key = raw(long_bytes, long_length);
        long_key.kind = ENCORE_KEY_PASSPHRASE;
        CHECK(encore_store_open(path_in_dir("long-pass.db"), &long_key, NULL, &w) == ENCORE_ERR_INVALID_ARGUMENT && w == NULL);
        CHECK(!exists(path_in_dir("long-pass.db")));
        free(long_bytes);
    }
    /* A passphrase may hold any bytes, NUL too. */
    static const uint8_t odd[5] = {0, 0xff, 'a', 0, 0x80};
    encore_store_key odd_key = raw(odd, sizeof odd);
    odd_key.kind = ENCORE_KEY_PASSPHRASE;
    const char *odb = path_in_dir("odd.db");
    CHECK(encore_store_open(odb, &odd_key, NULL, &w) == ENCORE_OK);
    encore_store_close(w);
    w = NULL;
    odd_key.length = 4; /* a prefix is another passphrase */
    CHECK(encore_store_open(odb, &odd_key, NULL, &w) == ENCORE_ERR_STORE_WRONG_KEY && w == NULL);
}

static void test_wrong_key_leaves_files_alone(void) {
    /* Passphrases cost a key derivation per open (seconds under valgrind):
     * one store with a passphrase, tried with a wrong passphrase and a wrong
     * raw key, is enough. */
    const char *db = path_in_dir("wrong.db");
    encore_store *s = open_ok(db, passphrase("right"));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    encore_sighting o[50];
    for (uint32_t i = 0; i < 50; i++) o[i] = obs(T0 + i, i);
    CHECK(encore_sighting_add(client, o, sizeof(encore_sighting), 50, NULL) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);

    struct snapshot before;
    take_snapshot(db, &before);
    CHECK(before.present[0] && before.len[0] > 0);
    encore_store_key wrong_keys[2] = {passphrase("righ"), raw(raw_b, 32)};
    for (int i = 0; i < 2; i++) {
        s = NULL;
        CHECK(encore_store_open(db, &wrong_keys[i], NULL, &s) == ENCORE_ERR_STORE_WRONG_KEY);
        CHECK(s == NULL);
        CHECK(strlen(encore_last_error_message()) > 0);
        CHECK(same_as(db, &before));
    }
    free_snapshot(&before);

    /* While the right key has the store open (WAL and its index present). */
    s = open_ok(db, passphrase("right"));
    client = clocked_client(s, &clock_now);
    CHECK(encore_sighting_add(client, o, sizeof(encore_sighting), 1, NULL) == ENCORE_OK); /* duplicate: a write transaction all the same */
    encore_sighting more = obs(T0 + 1000, 1000);
    CHECK(encore_sighting_add(client, &more, sizeof(encore_sighting), 1, NULL) == ENCORE_OK);
    take_snapshot(db, &before);
    CHECK(before.present[1]); /* the -wal file */
    for (int i = 0; i < 2; i++) {
        encore_store *w = NULL;
        CHECK(encore_store_open(db, &wrong_keys[i], NULL, &w) == ENCORE_ERR_STORE_WRONG_KEY);
        CHECK(w == NULL);
        CHECK(same_as(db, &before));
    }
    free_snapshot(&before);
    CHECK(count_all(client) == 51);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);
}

static void test_not_a_database(void) {
    encore_store_key k = raw(raw_b, 32);
    encore_store *s = NULL;
    struct snapshot before;

    const char *text = path_in_dir("notes.txt");
    static const char words[] = "these are my notes, not an encore store\n";
    spit(text, words, sizeof words - 1);
    take_snapshot(text, &before);
    CHECK(encore_store_open(text, &k, NULL, &s) == ENCORE_ERR_STORE_NOT_DATABASE && s == NULL);
    CHECK(same_as(text, &before));
    free_snapshot(&before);

    /* A plain (unencrypted) SQLite header. */
    const char *plain = path_in_dir("plain.db");
    unsigned char page[4096];
    memset(page, 0, sizeof page);
    memcpy(page, "SQLite format 3", 16);
    spit(plain, page, sizeof page);
    take_snapshot(plain, &before);
    encore_store_key rk = raw(raw_a, 32);
    CHECK(encore_store_open(plain, &rk, NULL, &s) == ENCORE_ERR_STORE_NOT_DATABASE && s == NULL);
    CHECK(same_as(plain, &before));
    free_snapshot(&before);

    /* Damaged: a store cut short in the middle of a page. */
    const char *cut = path_in_dir("cut.db");
    encore_store *good = open_ok(cut, raw(raw_b, 32));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *good_client = clocked_client(good, &clock_now);
    encore_sighting o = obs(T0, 1);
    CHECK(encore_sighting_add(good_client, &o, sizeof(encore_sighting), 1, NULL) == ENCORE_OK);
    encore_client_free(good_client);
    encore_store_close(good);
    size_t n = 0;
    unsigned char *bytes = slurp(cut, &n);
    CHECK(bytes != NULL && n >= 2048);
    if (bytes != NULL && n >= 2048) spit(cut, bytes, n - 100);
    free(bytes);
    take_snapshot(cut, &before);
    /* The key opens its first page: damaged, not "not a store". */
    CHECK(encore_store_open(cut, &k, NULL, &s) == ENCORE_ERR_STORE_CORRUPT && s == NULL);
    encore_store_key other = raw(raw_a, 32);
    CHECK(encore_store_open(cut, &other, NULL, &s) == ENCORE_ERR_STORE_NOT_DATABASE && s == NULL);
    CHECK(same_as(cut, &before));
    free_snapshot(&before);

    /* A directory is not a file. */
    const char *sub = path_in_dir("a-directory");
    CHECK(mkdir(sub, 0700) == 0);
    CHECK(encore_store_open(sub, &k, NULL, &s) != ENCORE_OK && s == NULL);
}

/* Issue 48: an empty file is no store (with create or without) and is
 * left empty; a store with a zeroed page is damaged, its check names the
 * table, and a salvage copies the rest into a new store. */
#define DAMAGE_ROWS 4000
static void test_damage(void) {
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = NULL;  /* the client of s while it is open */
    encore_store_key k = raw(raw_b, 32);
    encore_store *s = NULL;
    const char *empty = path_in_dir("empty.db");
    spit(empty, "", 0);
    encore_store_options with_create = options(1, 5000);
    CHECK(encore_store_open(empty, &k, &with_create, &s) == ENCORE_ERR_STORE_MISSING && s == NULL);
    CHECK(strstr(encore_last_error_message(), "empty") != NULL);
    CHECK(encore_store_open(empty, &k, NULL, &s) == ENCORE_ERR_STORE_MISSING && s == NULL);
    size_t n = 1;
    unsigned char *bytes = slurp(empty, &n);
    CHECK(n == 0);
    free(bytes);

    /* Copies: path_in_dir() reuses two buffers. */
    char db[8192], rescued[8192], never[8192];
    snprintf(db, sizeof db, "%s", path_in_dir("damaged.db"));
    snprintf(rescued, sizeof rescued, "%s", path_in_dir("rescued.db"));
    snprintf(never, sizeof never, "%s", path_in_dir("never-salvaged.db"));
    encore_store *good = open_ok(db, k);
    encore_client *good_client = clocked_client(good, &clock_now);
    static encore_sighting in[DAMAGE_ROWS];
    for (uint32_t i = 0; i < DAMAGE_ROWS; i++) in[i] = obs(T0 + i, i);
    CHECK(encore_sighting_add(good_client, in, sizeof(encore_sighting), DAMAGE_ROWS, NULL) == ENCORE_OK);
    encore_client_free(good_client);
    encore_store_close(good);
    bytes = slurp(db, &n);
    CHECK(bytes != NULL && n % 4096 == 0 && n >= 40 * 4096);
    if (bytes == NULL || n < 40 * 4096) return;
    /* Four pages in the middle zeroed: which page holds what moves as the
     * features' tables grow (a single middle page once turned out to be one
     * no table reads), and four always hit the sightings' rows (about 110 a
     * page) without taking more than a few hundred of them. */
    memset(bytes + (n / 4096 / 2 - 2) * 4096, 0, 4 * 4096);
    spit(db, bytes, n);
    free(bytes);

    s = open_ok(db, k);
    client = clocked_client(s, &clock_now);
    CHECK(encore_store_check_integrity(s) == ENCORE_ERR_STORE_CORRUPT);
    CHECK(strstr(encore_last_error_message(), "sightings") != NULL);
    CHECK(strstr(encore_last_error_message(), "SELECT") == NULL);
    static encore_sighting out[DAMAGE_ROWS];
    size_t copied = 0;
    CHECK(encore_sighting_copy(client, INT64_MIN, INT64_MAX, 0, out, sizeof(encore_sighting), DAMAGE_ROWS, &copied)
          == ENCORE_ERR_STORE_CORRUPT);
    encore_client_free(client);
    encore_store_close(s);

    encore_store_key new_key = raw(raw_a, 32);
    encore_bytes report = {NULL, 0};
    CHECK(encore_store_salvage(db, &k, rescued, &new_key, &report) == ENCORE_OK);
    CHECK(report.data != NULL && report.length > 0);
    if (report.data != NULL) CHECK(strstr((const char *)report.data, "\"complete\":false") != NULL);
    encore_bytes_free(&report);
    s = open_ok(rescued, new_key);
    client = clocked_client(s, &clock_now);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    uint64_t kept = count_all(client);
    CHECK(kept > DAMAGE_ROWS - 4 * 125 && kept < DAMAGE_ROWS);
    encore_client_free(client);
    encore_store_close(s);
    /* The target must not exist; nothing of it is touched or left. */
    CHECK(encore_store_salvage(db, &k, rescued, &new_key, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_salvage(db, &new_key, never, &k, NULL) == ENCORE_ERR_STORE_WRONG_KEY);
    CHECK(!exists(never));
    CHECK(strcmp(encore_status_name(ENCORE_ERR_STORE_CORRUPT), "ENCORE_ERR_STORE_CORRUPT") == 0);
}

static void test_create_forbidden(void) {
    const char *db = path_in_dir("never.db");
    encore_store_options o = options(0, 5000);
    encore_store_key k = passphrase("x");
    encore_store *s = NULL;
    CHECK(encore_store_open(db, &k, &o, &s) == ENCORE_ERR_STORE_MISSING && s == NULL);
    for (int i = 0; i < COMPANIONS; i++) {
        char p[8300];
        snprintf(p, sizeof p, "%s%s", db, suffixes[i]);
        CHECK(!exists(p));
    }
    encore_store_key r = raw(raw_a, 32);
    CHECK(encore_store_open(db, &r, &o, &s) == ENCORE_ERR_STORE_MISSING && s == NULL);
    CHECK(!exists(db));
    /* In a directory that does not exist, with creation allowed. */
    CHECK(encore_store_open(path_in_dir("no/such/dir.db"), &k, NULL, &s) != ENCORE_OK && s == NULL);
    /* A path that is not UTF-8 is refused, not repaired into another
     * file's name (U+FFFD for the stray byte). */
    char latin1[8300], repaired[8300];
    snprintf(latin1, sizeof latin1, "%s", path_in_dir("caf\xe9.db"));
    snprintf(repaired, sizeof repaired, "%s", path_in_dir("caf\xef\xbf\xbd.db"));
    CHECK(encore_store_open(latin1, &k, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == NULL);
    CHECK(strstr(encore_last_error_message(), "UTF-8") != NULL);
    CHECK(!exists(latin1) && !exists(repaired));
}

#define BULK 8000

static void test_bulk_count_copy(void) {
    const char *db = path_in_dir("bulk.db");
    encore_store *s = open_ok(db, raw(raw_a, 32));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    static encore_sighting in[BULK];
    /* Inserted out of time order; times T0 .. T0 + BULK - 1. */
    for (uint32_t i = 0; i < BULK; i++) {
        uint32_t n = (i * 7919u) % BULK;
        in[i] = obs(T0 + n, n);
    }
    size_t added = 0;
    CHECK(encore_sighting_add(client, in, sizeof(encore_sighting), BULK, &added) == ENCORE_OK && added == BULK);
    CHECK(count_all(client) == BULK);
    uint64_t n = 0;
    CHECK(encore_sighting_count(client, T0 + 100, T0 + 250, &n) == ENCORE_OK && n == 150);
    CHECK(encore_sighting_count(client, T0 + 250, T0 + 100, &n) == ENCORE_OK && n == 0);
    CHECK(encore_sighting_count(client, T0 + BULK, INT64_MAX, &n) == ENCORE_OK && n == 0);
    CHECK(encore_sighting_count(client, INT64_MIN, T0 + 1, &n) == ENCORE_OK && n == 1);

    /* The whole range in chunks of 777: time order, every field back. */
    static encore_sighting out[BULK];
    memset(out, 0xee, sizeof out);
    size_t total = 0, copied = 0;
    int chunks = 0;
    for (;;) {
        size_t cap = BULK - total < 777 ? BULK - total + 1 : 777;
        CHECK(encore_sighting_copy(client, INT64_MIN, INT64_MAX, total, out + total, sizeof(encore_sighting), cap, &copied) == ENCORE_OK);
        total += copied;
        chunks++;
        if (copied < cap || chunks > 100) break;
    }
    CHECK(total == BULK);
    int good = 1;
    for (uint32_t i = 0; i < BULK && good; i++) {
        encore_sighting want = obs(T0 + i, i);
        good = same_obs(&out[i], &want);
        if (!good) fprintf(stderr, "  row %u differs\n", i);
    }
    CHECK(good);

    /* A range with an offset. */
    encore_sighting part[10];
    CHECK(encore_sighting_copy(client, T0 + 500, T0 + 600, 95, part, sizeof(encore_sighting), 10, &copied) == ENCORE_OK && copied == 5);
    encore_sighting want = obs(T0 + 595, 595);
    CHECK(same_obs(&part[0], &want));
    CHECK(encore_sighting_copy(client, T0 + 500, T0 + 600, 100, part, sizeof(encore_sighting), 10, &copied) == ENCORE_OK && copied == 0);
    /* One rule for every _copy_ function: first equal to the count copies
     * nothing, past it is ENCORE_ERR_OUT_OF_RANGE (and *copied is untouched). */
    copied = 99;
    CHECK(encore_sighting_copy(client, T0, T0 + 10, 11, part, sizeof(encore_sighting), 10, &copied) == ENCORE_ERR_OUT_OF_RANGE && copied == 99);
    CHECK(encore_sighting_copy(client, T0, T0 + 10, 11, NULL, sizeof(encore_sighting), 0, &copied) == ENCORE_ERR_OUT_OF_RANGE && copied == 99);
    CHECK(encore_sighting_copy(client, T0, T0 + 10, UINT64_MAX, part, sizeof(encore_sighting), 10, &copied) == ENCORE_ERR_OUT_OF_RANGE && copied == 99);
    CHECK(encore_sighting_copy(client, T0, T0 + 10, 10, part, sizeof(encore_sighting), 10, &copied) == ENCORE_OK && copied == 0);
    copied = 99;
    CHECK(encore_sighting_copy(client, T0, T0 + 10, 0, NULL, sizeof(encore_sighting), 0, &copied) == ENCORE_OK && copied == 0);
    encore_client_free(client);
    encore_store_close(s);

    s = open_ok(db, raw(raw_a, 32));
    client = clocked_client(s, &clock_now);
    CHECK(count_all(client) == BULK);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);
}

static void test_duplicates(void) {
    encore_store *s = open_ok(path_in_dir("dup.db"), raw(raw_b, 32));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    encore_sighting a = obs(T0, 1), b = obs(T0, 2);
    encore_sighting batch[4] = {a, a, b, a};
    size_t added = 99;
    CHECK(encore_sighting_add(client, batch, sizeof(encore_sighting), 4, &added) == ENCORE_OK && added == 2);
    CHECK(encore_sighting_add(client, batch, sizeof(encore_sighting), 4, &added) == ENCORE_OK && added == 0);
    CHECK(count_all(client) == 2);

    /* prev_scan unknown vs known: different sightings; prev_scan ignored when unknown. */
    encore_sighting unknown = obs(T0 + 10, 5), zero = obs(T0 + 10, 5), ignored = obs(T0 + 10, 5);
    unknown.has_prev_scan = 0;
    unknown.prev_scan = 0;
    zero.has_prev_scan = 1;
    zero.prev_scan = 0;
    ignored.has_prev_scan = 0;
    ignored.prev_scan = 12345;
    CHECK(encore_sighting_add(client, &unknown, sizeof(encore_sighting), 1, &added) == ENCORE_OK && added == 1);
    CHECK(encore_sighting_add(client, &zero, sizeof(encore_sighting), 1, &added) == ENCORE_OK && added == 1);
    CHECK(encore_sighting_add(client, &ignored, sizeof(encore_sighting), 1, &added) == ENCORE_OK && added == 0);
    /* One field apart: a new sighting each. */
    encore_sighting d = a;
    d.rssi = (int8_t)(d.rssi + 1);
    encore_sighting e = a;
    e.aem[3] ^= 1;
    encore_sighting f = a;
    f.rpi[15] ^= 1;
    encore_sighting g = a;
    g.time += 1;
    encore_sighting four[4] = {d, e, f, g};
    CHECK(encore_sighting_add(client, four, sizeof(encore_sighting), 4, &added) == ENCORE_OK && added == 4);
    CHECK(count_all(client) == 8);
    CHECK(encore_sighting_add(client, NULL, sizeof(encore_sighting), 0, &added) == ENCORE_OK && added == 0);
    encore_client_free(client);
    encore_store_close(s);
}

static void test_all_or_nothing(void) {
    encore_store *s = open_ok(path_in_dir("atomic.db"), raw(raw_a, 32));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    enum { N = 1000 };
    static encore_sighting batch[N];
    for (uint32_t i = 0; i < N; i++) batch[i] = obs(T0 + i, i);
    CHECK(encore_sighting_add(client, batch, sizeof(encore_sighting), 10, NULL) == ENCORE_OK);
    for (uint32_t i = 0; i < N; i++) batch[i] = obs(T0 + 100000 + i, i);
    size_t added = 4242;
    struct {
        const char *what;
        size_t row;
        int field;
    } bad[] = {{"has_prev_scan = 2", N - 1, 0}, {"negative time", N / 2, 1},  {"negative prev_scan", 0, 2},
               {"reserved[0] set", 1, 3},       {"reserved[1] set", 998, 4}, {"has_prev_scan = 255", 500, 5}};
    for (size_t k = 0; k < sizeof bad / sizeof bad[0]; k++) {
        encore_sighting keep = batch[bad[k].row];
        encore_sighting *o = &batch[bad[k].row];
        switch (bad[k].field) {
        case 0: o->has_prev_scan = 2; break;
        case 1: o->time = -1; break;
        case 2: o->has_prev_scan = 1; o->prev_scan = -5; break;
        case 3: o->reserved[0] = 1; break;
        case 4: o->reserved[1] = 0x80; break;
        default: o->has_prev_scan = 255; break;
        }
        CHECK(encore_sighting_add(client, batch, sizeof(encore_sighting), N, &added) == ENCORE_ERR_INVALID_ARGUMENT);
        CHECK(added == 4242);
        if (count_all(client) != 10) fprintf(stderr, "  %s: rows were added\n", bad[k].what);
        CHECK(count_all(client) == 10);
        batch[bad[k].row] = keep;
    }
    CHECK(encore_sighting_add(client, batch, sizeof(encore_sighting), N, &added) == ENCORE_OK && added == N);
    CHECK(count_all(client) == 10 + N);
    encore_client_free(client);
    encore_store_close(s);
}

static void test_rekey(void) {
    const char *db = path_in_dir("rekey.db");
    encore_store *s = open_ok(db, raw(raw_a, 32));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    encore_sighting o[100];
    for (uint32_t i = 0; i < 100; i++) o[i] = obs(T0 + i, i);
    CHECK(encore_sighting_add(client, o, sizeof(encore_sighting), 100, NULL) == ENCORE_OK);
    encore_store_key to_pass = passphrase("new passphrase");
    CHECK(encore_store_rekey(s, &to_pass) == ENCORE_OK);
    CHECK(count_all(client) == 100); /* the handle goes on working */
    encore_sighting more = obs(T0 + 500, 500);
    CHECK(encore_sighting_add(client, &more, sizeof(encore_sighting), 1, NULL) == ENCORE_OK);
    /* A bad new key changes nothing. */
    encore_store_key short_raw = raw(raw_b, 31);
    CHECK(encore_store_rekey(s, &short_raw) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_rekey(s, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(client);
    encore_store_close(s);

    encore_store *w = NULL;
    encore_store_key old = raw(raw_a, 32);
    CHECK(encore_store_open(db, &old, NULL, &w) == ENCORE_ERR_STORE_WRONG_KEY && w == NULL);
    s = open_ok(db, passphrase("new passphrase"));
    client = clocked_client(s, &clock_now);
    CHECK(count_all(client) == 101);
    encore_store_key to_raw = raw(raw_b, 32);
    CHECK(encore_store_rekey(s, &to_raw) == ENCORE_OK);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);
    encore_store_key pass = passphrase("new passphrase");
    CHECK(encore_store_open(db, &pass, NULL, &w) == ENCORE_ERR_STORE_WRONG_KEY && w == NULL);
    s = open_ok(db, raw(raw_b, 32));
    client = clocked_client(s, &clock_now);
    CHECK(count_all(client) == 101);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    uint32_t version = 0;
    CHECK(encore_store_get_schema_version(s, &version) == ENCORE_OK && version >= 1);
    encore_client_free(client);
    encore_store_close(s);
}

static void test_purge(void) {
    const int64_t day = 86400, now = 1700000000, keep = 1209600;
    encore_store *s = open_ok(path_in_dir("purge.db"), raw(raw_a, 32));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    enum { OLD = 300, NEW = 200 };
    static encore_sighting o[OLD + NEW];
    for (uint32_t i = 0; i < OLD; i++) o[i] = obs(now - 20 * day + i, i);
    for (uint32_t i = 0; i < NEW; i++) o[OLD + i] = obs(now - day + i, OLD + i);
    o[0].time = now - keep - 1; /* just past the cut-off: goes */
    o[OLD].time = now - keep;   /* at the cut-off: stays */
    CHECK(encore_sighting_add(client, o, sizeof(encore_sighting), OLD + NEW, NULL) == ENCORE_OK);

    encore_purge_counts c;

    memset(&c, 0xff, sizeof c);

    ENCORE_OUTPUT_INIT(c);
    CHECK(encore_store_purge(s, now, keep, &c) == ENCORE_OK);
    CHECK(c.sightings == OLD);
    CHECK(c.own_keys == 0 && c.keyfiles == 0 && c.tracing_events == 0 && c.risk_results == 0);
    CHECK(count_all(client) == NEW);
    uint64_t n = 0;
    CHECK(encore_sighting_count(client, INT64_MIN, now - keep, &n) == ENCORE_OK && n == 0);
    /* Again: nothing left to remove; counts may be NULL. */
    CHECK(encore_store_purge(s, now, keep, &c) == ENCORE_OK && c.sightings == 0);
    CHECK(encore_store_purge(s, now, keep, NULL) == ENCORE_OK);
    /* Bad arguments remove nothing and leave counts alone. */
    memset(&c, 0x5a, sizeof c);
    ENCORE_OUTPUT_INIT(c);
    CHECK(encore_store_purge(s, now, -1, &c) == ENCORE_ERR_INVALID_ARGUMENT && c.sightings == 0x5a5a5a5a5a5a5a5aULL);
    CHECK(encore_store_purge(s, INT64_MIN, 1, &c) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_purge(NULL, now, keep, &c) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(count_all(client) == NEW);
    /* max age 0: everything before now. */
    CHECK(encore_store_purge(s, now, 0, &c) == ENCORE_OK && c.sightings == NEW);
    CHECK(count_all(client) == 0);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);
}

static void test_bad_arguments(void) {
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = NULL;  /* the client of s while it is open */
    const char *db = path_in_dir("args.db");
    encore_store_key good = raw(raw_a, 32);
    encore_store *s = (encore_store *)&s; /* a sentinel: must stay untouched */
    encore_store *const sentinel = s;
    encore_store_options o = options(1, 5000);

    CHECK(encore_store_open(NULL, &good, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    CHECK(encore_store_open(db, NULL, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    CHECK(encore_store_open(db, &good, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(!exists(db));

    encore_store_key k = good;
    k.kind = 7;
    CHECK(encore_store_open(db, &k, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    k = good;
    k.struct_size = 0;
    CHECK(encore_store_open(db, &k, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    k = good;
    k.length = 31;
    CHECK(encore_store_open(db, &k, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    k.length = 33;
    CHECK(encore_store_open(db, &k, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    k = good;
    k.data = NULL;
    CHECK(encore_store_open(db, &k, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    k.length = 0;
    CHECK(encore_store_open(db, &k, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    k.kind = ENCORE_KEY_PASSPHRASE;
    CHECK(encore_store_open(db, &k, NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    CHECK(!exists(db));

    encore_store_options bad = o;
    bad.create = 2;
    CHECK(encore_store_open(db, &good, &bad, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    bad = o;
    bad.busy_timeout_ms = -1;
    CHECK(encore_store_open(db, &good, &bad, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    bad = o;
    bad.reserved = 1;
    CHECK(encore_store_open(db, &good, &bad, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    bad = o;
    bad.struct_size = 4;
    CHECK(encore_store_open(db, &good, &bad, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);
    CHECK(!exists(db));

    CHECK(encore_store_options_init(NULL, sizeof o) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_options_init(&o, 0) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_options_init(&o, sizeof o - 1) == ENCORE_ERR_INVALID_ARGUMENT);
    /* A newer caller's larger struct: the tail is zeroed. */
    struct {
        encore_store_options known;
        uint32_t future[2];
    } bigger;
    memset(&bigger, 0xff, sizeof bigger);
    CHECK(encore_store_options_init(&bigger.known, sizeof bigger) == ENCORE_OK);
    CHECK(bigger.known.struct_size == sizeof bigger && bigger.known.create == 1 && bigger.known.busy_timeout_ms == 5000);
    CHECK(bigger.known.reserved == 0 && bigger.future[0] == 0 && bigger.future[1] == 0);
    CHECK(encore_store_open(db, &good, &bigger.known, &s) == ENCORE_OK && s != sentinel);
    client = clocked_client(s, &clock_now);
    encore_client_free(client);
    encore_store_close(s);
    s = sentinel;
    bigger.future[1] = 1; /* a field this library does not know */
    CHECK(encore_store_open(db, &good, &bigger.known, &s) == ENCORE_ERR_INVALID_ARGUMENT && s == sentinel);

    s = open_ok(db, good);
    client = clocked_client(s, &clock_now);
    encore_sighting one = obs(T0, 1);
    size_t added = 77;
    uint64_t n = 77;
    size_t copied = 77;
    uint32_t version = 77;
    CHECK(encore_sighting_add(NULL, &one, sizeof(encore_sighting), 1, &added) == ENCORE_ERR_INVALID_ARGUMENT && added == 77);
    CHECK(encore_sighting_add(client, NULL, sizeof(encore_sighting), 1, &added) == ENCORE_ERR_INVALID_ARGUMENT && added == 77);
    CHECK(encore_sighting_add(client, &one, sizeof(encore_sighting), SIZE_MAX, &added) == ENCORE_ERR_INVALID_ARGUMENT && added == 77);
    CHECK(encore_sighting_add(client, &one, sizeof(encore_sighting), SIZE_MAX / 2, &added) == ENCORE_ERR_INVALID_ARGUMENT && added == 77);
    CHECK(encore_sighting_count(NULL, 0, 1, &n) == ENCORE_ERR_INVALID_ARGUMENT && n == 77);
    CHECK(encore_sighting_count(client, 0, 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_sighting_copy(NULL, 0, 1, 0, &one, sizeof(encore_sighting), 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT && copied == 77);
    CHECK(encore_sighting_copy(client, 0, 1, 0, &one, sizeof(encore_sighting), 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_sighting_copy(client, 0, 1, 0, NULL, sizeof(encore_sighting), 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT && copied == 77);
    CHECK(encore_sighting_copy(client, 0, 1, 0, &one, sizeof(encore_sighting), SIZE_MAX, &copied) == ENCORE_ERR_INVALID_ARGUMENT && copied == 77);
    CHECK(encore_store_get_schema_version(NULL, &version) == ENCORE_ERR_INVALID_ARGUMENT && version == 77);
    CHECK(encore_store_get_schema_version(s, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_check_integrity(NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_rekey(NULL, &good) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(count_all(client) == 0);
    CHECK(strcmp(encore_status_name(ENCORE_ERR_STORE_WRONG_KEY), "ENCORE_ERR_STORE_WRONG_KEY") == 0);
    CHECK(strcmp(encore_status_name(ENCORE_ERR_STORE_BUSY), "ENCORE_ERR_STORE_BUSY") == 0);
    CHECK(strcmp(encore_status_name(ENCORE_ERR_STORE_MISSING), "ENCORE_ERR_STORE_MISSING") == 0);
    encore_client_free(client);
    encore_store_close(s);
    encore_store_close(NULL);
}

/* Eight threads insert distinct batches through one handle, and count and
 * read meanwhile. */
enum { THREADS = 8, BATCHES = 20, PER_BATCH = 100 };

struct job {
    encore_client *client;  /* the one client all threads share */
    uint32_t id;
    size_t added;
    int errors;
};

static void *insert_many(void *arg) {
    struct job *j = arg;
    encore_sighting batch[PER_BATCH];
    for (uint32_t b = 0; b < BATCHES; b++) {
        for (uint32_t i = 0; i < PER_BATCH; i++) {
            uint32_t n = (j->id * BATCHES + b) * PER_BATCH + i;
            batch[i] = obs(T0 + n, n);
        }
        size_t added = 0;
        if (encore_sighting_add(j->client, batch, sizeof(encore_sighting), PER_BATCH, &added) != ENCORE_OK) {
            fprintf(stderr, "  thread %u: %s\n", j->id, encore_last_error_message());
            j->errors++;
        }
        j->added += added;
        uint64_t n = 0;
        if (encore_sighting_count(j->client, INT64_MIN, INT64_MAX, &n) != ENCORE_OK || n < j->added) j->errors++;
        encore_sighting back[5];
        size_t copied = 0;
        if (encore_sighting_copy(j->client, T0, INT64_MAX, 0, back, sizeof(encore_sighting), 5, &copied) != ENCORE_OK || copied == 0) j->errors++;
    }
    return NULL;
}

static void test_threads(void) {
    encore_store *s = open_ok(path_in_dir("threads.db"), raw(raw_b, 32));
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    static struct job jobs[THREADS];
    pthread_t threads[THREADS];
    for (uint32_t t = 0; t < THREADS; t++) {
        jobs[t] = (struct job){client, t, 0, 0};
        CHECK(pthread_create(&threads[t], NULL, insert_many, &jobs[t]) == 0);
    }
    size_t sum = 0;
    int errors = 0;
    for (int t = 0; t < THREADS; t++) {
        pthread_join(threads[t], NULL);
        sum += jobs[t].added;
        errors += jobs[t].errors;
    }
    CHECK(errors == 0);
    CHECK(sum == (size_t)THREADS * BATCHES * PER_BATCH);
    CHECK(count_all(client) == sum);
    CHECK(encore_store_check_integrity(s) == ENCORE_OK);
    encore_client_free(client);
    encore_store_close(s);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "test-store") != 0) return 1;
    test_create_and_reopen();
    test_wrong_key_leaves_files_alone();
    test_not_a_database();
    test_damage();
    test_create_forbidden();
    test_bulk_count_copy();
    test_duplicates();
    test_all_or_nothing();
    test_rekey();
    test_purge();
    test_bad_arguments();
    test_threads();
    scratch_dir_remove(dir);
    return check_report();
}
