/* C tests of libencore: the sample files' facts through the C API, the
 * argument checks and status codes, chunked copying, thread safety, and the
 * version macros against the run-time version. Built with -Werror and run
 * under valgrind by scripts/test-c.sh. */
#include "check.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static char data_dir[4096];

static const char *data_path(const char *relative) {
    static char path[8192];
    snprintf(path, sizeof path, "%s/%s", data_dir, relative);
    return path;
}

static unsigned char *read_file(const char *relative, size_t *len) {
    FILE *f = fopen(data_path(relative), "rb");
    if (f == NULL) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc(n > 0 ? (size_t)n : 1);
    if (buf != NULL && fread(buf, 1, (size_t)n, f) != (size_t)n) { free(buf); buf = NULL; }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static encore_trust *sample_trust(void) {
    encore_trust *trust = NULL;
    CHECK(encore_trust_new(&trust) == ENCORE_OK);
    size_t n = 0;
    unsigned char *pem = read_file("exports/google-sample/public_310-v1.pem", &n);
    CHECK(pem != NULL);
    CHECK(encore_trust_add_key(trust, "310", "v1", pem, n) == ENCORE_OK);
    free(pem);
    pem = read_file("exports/en-server/public.pem", &n);
    CHECK(encore_trust_add_key(trust, "some_id", "1", pem, n) == ENCORE_OK);
    free(pem);
    size_t count = 0;
    CHECK(encore_trust_count(trust, &count) == ENCORE_OK && count == 2);
    return trust;
}

static encore_status open_path(const char *relative, const encore_trust *trust, int verify, encore_keyfile **out) {
    encore_keyfile_options o;
    CHECK(encore_keyfile_options_init(&o, sizeof o) == ENCORE_OK);
    o.trust = trust;
    o.verify = (uint32_t)verify;
    return encore_keyfile_open_path(data_path(relative), &o, out);
}

static void test_version(void) {
    CHECK(strcmp(encore_version(), ENCORE_VERSION_STRING) == 0);
    CHECK(encore_version_number() == ENCORE_VERSION_NUMBER);
    char expected[64];
    snprintf(expected, sizeof expected, "%d.%d.%d", ENCORE_VERSION_MAJOR, ENCORE_VERSION_MINOR, ENCORE_VERSION_PATCH);
    CHECK(strcmp(encore_version(), expected) == 0);
    CHECK(strcmp(encore_status_name(ENCORE_ERR_ZIP_CRC), "ENCORE_ERR_ZIP_CRC") == 0);
    CHECK(strcmp(encore_status_name(ENCORE_OK), "ENCORE_OK") == 0);
    CHECK(encore_status_name(12345) == NULL);
}

static void test_samples(encore_trust *trust) {
    encore_keyfile *f = NULL;
    encore_keyfile_info info;
    ENCORE_OUTPUT_INIT(info);

    CHECK(open_path("exports/google-sample/sample_diagnosis_key_file.zip", trust, 1, &f) == ENCORE_OK);
    CHECK(encore_keyfile_get_info(f, &info) == ENCORE_OK);
    CHECK(strcmp(info.region, "US") == 0);
    CHECK(info.batch_num == 1 && info.batch_size == 1);
    CHECK(info.key_count == 140 && info.revised_key_count == 0 && info.invalid_key_count == 0);
    CHECK(info.signature_status == ENCORE_SIGNATURE_VERIFIED);
    CHECK(strcmp(info.signature_key_id, "310") == 0 && strcmp(info.signature_key_version, "v1") == 0);
    CHECK(info.is_zip == 1);
    encore_keyfile_free(f);

    f = NULL;
    CHECK(open_path("exports/en-server/testExport-2-records-1-of-1.zip", trust, 1, &f) == ENCORE_OK);
    CHECK(encore_keyfile_get_info(f, &info) == ENCORE_OK);
    CHECK(info.key_count == 2 && strcmp(info.signature_key_id, "some_id") == 0);
    encore_key keys[4];
    size_t copied = 99;
    CHECK(encore_keyfile_copy_keys(f, ENCORE_KEYS, 0, keys, sizeof(encore_key), 4, &copied) == ENCORE_OK && copied == 2);
    CHECK(keys[0].rolling_period == 1 && keys[0].rolling_start_interval_number == 2649980 && keys[0].transmission_risk_level == 8);
    CHECK(keys[1].rolling_period == 114 && keys[1].rolling_start_interval_number == 2649866 && keys[1].transmission_risk_level == 1);
    /* keys.json: "Fy/EgOWYSQw0F3YEM5sVQw==" */
    static const uint8_t first_key[16] = {0x17, 0x2f, 0xc4, 0x80, 0xe5, 0x98, 0x49, 0x0c,
                                          0x34, 0x17, 0x76, 0x04, 0x33, 0x9b, 0x15, 0x43};
    CHECK(memcmp(keys[0].key_data, first_key, 16) == 0);
    encore_keyfile_free(f);

    f = NULL;
    CHECK(open_path("exports/contrac/sample_diagnosis_key_file.zip", trust, 1, &f) == ENCORE_ERR_SIGNATURE_UNTRUSTED);
    CHECK(f == NULL); /* out-params are written only on success */
    CHECK(strlen(encore_last_error_message()) > 0);
    CHECK(open_path("exports/contrac/sample_diagnosis_key_file.zip", trust, 0, &f) == ENCORE_OK);
    CHECK(encore_keyfile_get_info(f, &info) == ENCORE_OK);
    CHECK(info.key_count == 110 && info.signature_status == ENCORE_SIGNATURE_SKIPPED);
    encore_keyfile_free(f);

    f = NULL;
    CHECK(open_path("exports/companion/demo_dks.zip", trust, 1, &f) == ENCORE_ERR_SIGNATURE_MISSING);
    CHECK(open_path("exports/companion/demo_dks.zip", trust, 0, &f) == ENCORE_OK);
    CHECK(encore_keyfile_get_info(f, &info) == ENCORE_OK);
    CHECK(info.key_count == 2392 && info.region == NULL && info.batch_num == 0);
    encore_keyfile_free(f);

    f = NULL;
    CHECK(open_path("exports/immuni/export.bin", NULL, 0, &f) == ENCORE_OK);
    CHECK(encore_keyfile_get_info(f, &info) == ENCORE_OK);
    CHECK(strcmp(info.region, "222") == 0 && info.key_count == 3 && info.is_zip == 0);
    encore_keyfile_free(f);

    f = NULL;
    CHECK(open_path("exports/google-cpp/export.bin", NULL, 0, &f) == ENCORE_OK);
    CHECK(encore_keyfile_get_info(f, &info) == ENCORE_OK);
    CHECK(strcmp(info.region, "US") == 0 && info.key_count == 200);
    encore_keyfile_free(f);
}

static void test_chunks(void) {
    encore_keyfile *f = NULL;
    CHECK(open_path("exports/companion/demo_dks.zip", NULL, 0, &f) == ENCORE_OK);
    encore_key *all = calloc(2392, sizeof(encore_key));
    encore_key *chunked = calloc(2392, sizeof(encore_key));
    size_t copied = 0;
    CHECK(encore_keyfile_copy_keys(f, ENCORE_KEYS, 0, all, sizeof(encore_key), 2392, &copied) == ENCORE_OK && copied == 2392);
    size_t total = 0;
    while (total < 2392) {
        CHECK(encore_keyfile_copy_keys(f, ENCORE_KEYS, total, chunked + total, sizeof(encore_key), 100, &copied) == ENCORE_OK);
        if (copied == 0) break;
        total += copied;
    }
    CHECK(total == 2392);
    CHECK(memcmp(all, chunked, 2392 * sizeof(encore_key)) == 0);
    /* Random access backwards works too. */
    encore_key one;
    ENCORE_OUTPUT_INIT(one);
    CHECK(encore_keyfile_copy_keys(f, ENCORE_KEYS, 5, &one, sizeof(encore_key), 1, &copied) == ENCORE_OK && copied == 1);
    CHECK(memcmp(&one, &all[5], sizeof one) == 0);
    CHECK(encore_keyfile_copy_keys(f, ENCORE_KEYS, 2392, &one, sizeof(encore_key), 1, &copied) == ENCORE_OK && copied == 0);
    CHECK(encore_keyfile_copy_keys(f, ENCORE_KEYS, 2393, &one, sizeof(encore_key), 1, &copied) == ENCORE_ERR_OUT_OF_RANGE);
    CHECK(encore_keyfile_copy_keys(f, ENCORE_REVISED_KEYS, 0, &one, sizeof(encore_key), 1, &copied) == ENCORE_OK && copied == 0);
    free(all);
    free(chunked);
    encore_keyfile_free(f);
}

/* Output structs that may grow: struct_size decides what the library
 * writes. A caller built against a newer header (a larger struct) gets the
 * fields this library knows and zeros after them; a struct_size below the
 * first version's is refused and nothing is written. */
static void test_output_struct_size(void) {
    encore_keyfile *f = NULL;
    CHECK(open_path("exports/immuni/export.bin", NULL, 0, &f) == ENCORE_OK);
    struct {
        encore_keyfile_info info;
        unsigned char newer[24];
    } big;
    memset(&big, 0xAB, sizeof big);
    big.info.struct_size = (uint32_t)sizeof big;
    CHECK(encore_keyfile_get_info(f, &big.info) == ENCORE_OK);
    CHECK(big.info.struct_size == sizeof big && big.info.key_count == 3 && big.info.reserved == 0);
    int zeros = 1;
    for (size_t i = 0; i < sizeof big.newer; i++) zeros &= big.newer[i] == 0;
    CHECK(zeros);

    encore_keyfile_info small;
    memset(&small, 0xAB, sizeof small);
    small.struct_size = 0;
    CHECK(encore_keyfile_get_info(f, &small) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "struct_size") != NULL);
    small.struct_size = (uint32_t)sizeof small - 8;
    CHECK(encore_keyfile_get_info(f, &small) == ENCORE_ERR_INVALID_ARGUMENT && small.key_count != 3);
    encore_keyfile_free(f);
}

static void test_bad_arguments(void) {
    encore_keyfile *f = NULL;
    encore_keyfile_options o;
    CHECK(encore_keyfile_options_init(NULL, sizeof(encore_keyfile_options)) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_open_bytes(NULL, 10, NULL, &f) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "data") != NULL);
    CHECK(encore_keyfile_open_bytes((const uint8_t *)"x", 1, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_open_bytes(NULL, 0, NULL, &f) == ENCORE_ERR_ZIP_NOT_ZIP);
    CHECK(encore_keyfile_open_bytes((const uint8_t *)"x", (size_t)-1, NULL, &f) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_open_path(NULL, NULL, &f) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_open_path("/nonexistent/file.zip", NULL, &f) == ENCORE_ERR_IO);
    CHECK(encore_keyfile_open_path("/", NULL, &f) == ENCORE_ERR_IO);
    CHECK(encore_keyfile_open_path("/tmp/caf\xe9.zip", NULL, &f) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(f == NULL);
    const uint8_t junk[] = "this is not a key file at all";
    CHECK(encore_keyfile_open_bytes(junk, sizeof junk, NULL, &f) == ENCORE_ERR_ZIP_NOT_ZIP);
    const uint8_t wrong_version[] = "EK Export v2    \x0a\x02US";
    CHECK(encore_keyfile_open_bytes(wrong_version, sizeof wrong_version - 1, NULL, &f) == ENCORE_ERR_EXPORT_HEADER);
    const uint8_t past_end[] = "EK Export v1    \x1a\x7fUS";
    encore_keyfile_options_init(&o, sizeof o);
    o.verify = 0;
    CHECK(encore_keyfile_open_bytes(past_end, sizeof past_end - 1, &o, &f) == ENCORE_ERR_EXPORT_MALFORMED);

    /* Options must come from _init. */
    memset(&o, 0, sizeof o);
    CHECK(encore_keyfile_open_bytes(junk, sizeof junk, &o, &f) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_keyfile_options_init(&o, sizeof o);
    o.verify = 7;
    CHECK(encore_keyfile_open_bytes(junk, sizeof junk, &o, &f) == ENCORE_ERR_INVALID_ARGUMENT);

    encore_trust *trust = NULL;
    CHECK(encore_trust_new(&trust) == ENCORE_OK);
    CHECK(encore_trust_add_key(trust, "a", "1", (const uint8_t *)"garbage", 7) == ENCORE_ERR_KEY_FORMAT);
    CHECK(encore_trust_add_key(trust, NULL, "1", (const uint8_t *)"garbage", 7) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trust_add_key(NULL, "a", "1", (const uint8_t *)"garbage", 7) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trust_add_key(trust, "a", "\xff", (const uint8_t *)"garbage", 7) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "key_version is not valid UTF-8") != NULL);
    encore_trust_free(trust);

    /* Freeing NULL does nothing. */
    encore_trust_free(NULL);
    encore_keyfile_free(NULL);
    encore_keyfile_info info;
    ENCORE_OUTPUT_INIT(info);
    CHECK(encore_keyfile_get_info(NULL, &info) == ENCORE_ERR_INVALID_ARGUMENT);
}

/* A limit small enough that the google sample's export.bin exceeds it. */
static void test_limits(void) {
    encore_keyfile *f = NULL;
    encore_keyfile_options o;
    encore_keyfile_options_init(&o, sizeof o);
    o.verify = 0;
    o.max_member_size = 1000;
    CHECK(encore_keyfile_open_path(data_path("exports/google-sample/sample_diagnosis_key_file.zip"), &o, &f) == ENCORE_ERR_ZIP_LIMIT);
    CHECK(f == NULL);
}

struct progress_log { int calls; uint64_t last_done, last_total; int cancel; };

static int32_t on_progress(void *context, uint64_t done, uint64_t total) {
    struct progress_log *log = context;
    log->calls++;
    log->last_done = done;
    log->last_total = total;
    return log->cancel;
}

static void test_progress(void) {
    encore_keyfile *f = NULL;
    encore_keyfile_options o;
    struct progress_log log = {0, 0, 0, 0};
    encore_keyfile_options_init(&o, sizeof o);
    o.verify = 0;
    o.progress = on_progress;
    o.progress_context = &log;
    CHECK(encore_keyfile_open_path(data_path("exports/companion/demo_dks.zip"), &o, &f) == ENCORE_OK);
    CHECK(log.calls >= 1 && log.last_done == log.last_total && log.last_total > 0);
    encore_keyfile_free(f);
    f = NULL;
    log.cancel = 1;
    CHECK(encore_keyfile_open_path(data_path("exports/companion/demo_dks.zip"), &o, &f) == ENCORE_ERR_CANCELLED);
    CHECK(f == NULL);
}

struct thread_job { encore_keyfile *file; encore_key keys[140]; int ok; };

static void *read_all(void *arg) {
    struct thread_job *job = arg;
    size_t copied = 0, total = 0;
    job->ok = 1;
    for (int round = 0; round < 50; round++) {
        total = 0;
        while (total < 140) {
            if (encore_keyfile_copy_keys(job->file, ENCORE_KEYS, total, job->keys + total, sizeof(encore_key), 7, &copied) != ENCORE_OK) job->ok = 0;
            if (copied == 0) break;
            total += copied;
        }
        if (total != 140) job->ok = 0;
        encore_keyfile_info info;
        ENCORE_OUTPUT_INIT(info);
        if (encore_keyfile_get_info(job->file, &info) != ENCORE_OK || info.key_count != 140) job->ok = 0;
    }
    return NULL;
}

static void test_threads(encore_trust *trust) {
    encore_keyfile *f = NULL;
    CHECK(open_path("exports/google-sample/sample_diagnosis_key_file.zip", trust, 1, &f) == ENCORE_OK);
    enum { N = 8 };
    static struct thread_job jobs[N];
    pthread_t threads[N];
    for (int i = 0; i < N; i++) {
        jobs[i].file = f;
        CHECK(pthread_create(&threads[i], NULL, read_all, &jobs[i]) == 0);
    }
    for (int i = 0; i < N; i++) pthread_join(threads[i], NULL);
    for (int i = 0; i < N; i++) {
        CHECK(jobs[i].ok);
        CHECK(memcmp(jobs[i].keys, jobs[0].keys, sizeof jobs[0].keys) == 0);
    }
    encore_keyfile_free(f);
}

/* The error message is per thread: a failure on another thread leaves ours alone. */
static void *fail_elsewhere(void *arg) {
    (void)arg;
    encore_keyfile *f = NULL;
    encore_keyfile_open_path("/nonexistent/other-thread", NULL, &f);
    return NULL;
}

static void test_thread_local_error(void) {
    encore_keyfile *f = NULL;
    CHECK(encore_keyfile_open_bytes((const uint8_t *)"zz", 2, NULL, &f) == ENCORE_ERR_ZIP_NOT_ZIP);
    char mine[512];
    snprintf(mine, sizeof mine, "%s", encore_last_error_message());
    pthread_t t;
    pthread_create(&t, NULL, fail_elsewhere, NULL);
    pthread_join(t, NULL);
    CHECK(strcmp(mine, encore_last_error_message()) == 0);
}

int main(void) {
    const char *dir = getenv("ENCORE_TEST_DATA");
    snprintf(data_dir, sizeof data_dir, "%s", dir != NULL ? dir : "Tests/data");
    encore_trust *trust = sample_trust();
    test_version();
    test_samples(trust);
    test_chunks();
    test_output_struct_size();
    test_bad_arguments();
    test_limits();
    test_progress();
    test_threads(trust);
    test_thread_local_error();
    encore_trust_free(trust);
    return check_report();
}
