/* C tests of the store tables: own keys, the key file cache, tracing
 * history, risk results and settings, with the library-owned memory
 * (encore_bytes, encore_string_list), argument checks, status codes,
 * reopening and threads. Built with -Werror and run under valgrind by
 * scripts/test-c.sh. */
#include "check.h"
#include "client.h"
#include "scratch.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>


static char dir[256];
static char db_path[512];
static const uint8_t raw_key_bytes[32] = {1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16,
                                          17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32};

/* A raw key: no key derivation, which would be slow under valgrind. */
static encore_store *open_store(void) {
    encore_store_key key = {sizeof(encore_store_key), ENCORE_KEY_RAW, raw_key_bytes, sizeof raw_key_bytes};
    encore_store *store = NULL;
    CHECK(encore_store_open(db_path, &key, NULL, &store) == ENCORE_OK);
    return store;
}

static encore_own_key own_key(int i, int32_t start, int32_t period, int64_t created) {
    encore_own_key k;
    memset(&k, 0, sizeof k);
    ENCORE_OUTPUT_INIT(k);
    for (int j = 0; j < 16; j++) k.key_data[j] = (uint8_t)(i * 31 + j);
    k.rolling_start_interval_number = start;
    k.rolling_period = period;
    k.created = created;
    return k;
}

static void test_memory_helpers(void) {
    encore_bytes zero = {NULL, 0};
    encore_bytes_free(NULL);
    encore_bytes_free(&zero);
    encore_bytes_free(&zero); /* a zeroed struct may be passed again */
    encore_string_list_free(NULL);
    size_t n = 0, copied = 0;
    encore_bytes item = {NULL, 0};
    CHECK(encore_string_list_count(NULL, &n) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_string_list_copy(NULL, 0, &item, sizeof item, 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
}

static void test_own_keys(encore_store *s) {
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock, which it moves */
    encore_client *client = clocked_client(s, &clock_now);
    encore_own_key k, out[4];
    ENCORE_OUTPUT_INIT(k);
    size_t copied = 99;
    uint64_t count = 99;
    CHECK(encore_own_key_get_latest(client, &k) == ENCORE_ERR_NOT_FOUND);
    CHECK(encore_own_key_count(client, INT32_MIN, &count) == ENCORE_OK && count == 0);

    encore_own_key a = own_key(1, 2650288, 144, 1600000000);
    encore_own_key b = own_key(2, 2650000, 144, 1600000000);
    encore_own_key c = own_key(3, 2650144, 100, 1600000100);
    CHECK(encore_own_key_put(client, &a) == ENCORE_OK);
    CHECK(encore_own_key_put(client, &b) == ENCORE_OK);
    CHECK(encore_own_key_put(client, &c) == ENCORE_OK);
    CHECK(encore_own_key_count(client, 0, &count) == ENCORE_OK && count == 3);
    CHECK(encore_own_key_count(client, 2650100, &count) == ENCORE_OK && count == 2);

    /* In chunks, ordered by rolling start. */
    CHECK(encore_own_key_copy(client, INT32_MIN, 0, out, sizeof(encore_own_key), 2, &copied) == ENCORE_OK && copied == 2);
    CHECK(memcmp(&out[0], &b, sizeof b) == 0 && memcmp(&out[1], &c, sizeof c) == 0);
    CHECK(encore_own_key_copy(client, INT32_MIN, 2, out, sizeof(encore_own_key), 2, &copied) == ENCORE_OK && copied == 1);
    CHECK(memcmp(&out[0], &a, sizeof a) == 0);
    CHECK(encore_own_key_copy(client, INT32_MIN, 3, out, sizeof(encore_own_key), 2, &copied) == ENCORE_OK && copied == 0);
    CHECK(encore_own_key_copy(client, INT32_MIN, 4, out, sizeof(encore_own_key), 2, &copied) == ENCORE_ERR_OUT_OF_RANGE);
    CHECK(encore_own_key_copy(client, 2650200, 0, out, sizeof(encore_own_key), 4, &copied) == ENCORE_OK && copied == 1);
    CHECK(encore_own_key_copy(client, 0, 0, NULL, sizeof(encore_own_key), 0, &copied) == ENCORE_OK && copied == 0);
    CHECK(encore_own_key_get_latest(client, &k) == ENCORE_OK && memcmp(&k, &a, sizeof a) == 0);

    /* The same key bytes replace the stored key. */
    encore_own_key b2 = own_key(2, 2650432, 12, 1600000900);
    CHECK(encore_own_key_put(client, &b2) == ENCORE_OK);
    CHECK(encore_own_key_count(client, 0, &count) == ENCORE_OK && count == 3);
    CHECK(encore_own_key_get_latest(client, &k) == ENCORE_OK && memcmp(&k, &b2, sizeof b2) == 0);

    /* Bad input: refused, nothing written. */
    encore_own_key bad = own_key(9, 2650000, 145, 0);
    CHECK(encore_own_key_put(client, &bad) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "rolling period") != NULL);
    bad = own_key(9, -1, 144, 0);
    CHECK(encore_own_key_put(client, &bad) == ENCORE_ERR_INVALID_ARGUMENT);
    bad = own_key(9, 0, 144, -1);
    CHECK(encore_own_key_put(client, &bad) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_own_key_put(client, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_own_key_put(NULL, &a) == ENCORE_ERR_INVALID_ARGUMENT);
    copied = 77;
    CHECK(encore_own_key_copy(client, 0, 0, NULL, sizeof(encore_own_key), 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT && copied == 77);
    CHECK(encore_own_key_copy(client, 0, 0, out, sizeof(encore_own_key), (size_t)-1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_own_key_copy(client, 0, 0, out, sizeof(encore_own_key), 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_own_key_get_latest(client, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_own_key_count(client, 0, &count) == ENCORE_OK && count == 3);
    encore_client_free(client);
}

/* Whether a string list holds `expected`, read in pages of two. */
static int list_equals(encore_string_list *list, const char *const *expected, size_t n) {
    size_t count = 0, copied = 0;
    if (encore_string_list_count(list, &count) != ENCORE_OK || count != n) return 0;
    int same = 1;
    for (size_t first = 0; first < n; first += copied) {
        encore_bytes page[2];
        if (encore_string_list_copy(list, first, page, sizeof page[0], 2, &copied) != ENCORE_OK || copied == 0) return 0;
        for (size_t i = 0; i < copied; i++) {
            same = same && page[i].length == strlen(expected[first + i]) && strcmp((const char *)page[i].data, expected[first + i]) == 0;
            encore_bytes_free(&page[i]);
        }
    }
    return same;
}

/* The google sample key file and its key: the one package the tests import. */
static uint8_t *sample;
static size_t sample_length;
static encore_trust *trust;

static uint8_t *read_data(const char *name, size_t *length) {
    const char *data = getenv("ENCORE_TEST_DATA");
    char path[1024];
    snprintf(path, sizeof path, "%s/exports/google-sample/%s", data != NULL ? data : "Tests/data", name);
    FILE *f = fopen(path, "rb");
    if (f == NULL) return NULL;
    uint8_t *bytes = malloc(1 << 20);
    *length = bytes == NULL ? 0 : fread(bytes, 1, 1 << 20, f);
    fclose(f);
    return bytes;
}

static int load_sample(void) {
    size_t pem_length = 0;
    uint8_t *pem = read_data("public_310-v1.pem", &pem_length);
    sample = read_data("sample_diagnosis_key_file.zip", &sample_length);
    int ok = pem != NULL && sample != NULL && encore_trust_new(&trust) == ENCORE_OK &&
             encore_trust_add_key(trust, "310", "v1", pem, pem_length) == ENCORE_OK;
    free(pem);
    CHECK(ok);
    return ok;
}

static int has(encore_client *client, const char *region, const char *identifier) {
    int32_t yes = 99;
    CHECK(encore_keyfile_cache_has(client, region, identifier, NULL, &yes) == ENCORE_OK);
    return yes;
}

/* A host clock in June 2020, when the sample key file was current. */
static int64_t june_2020(void *context) {
    (void)context;
    return 1591000000;
}

static void test_packages(encore_store *s) {
    int64_t clock_now = 1591000000;  /* the test's clock (June 2020, when the sample was current), which it moves */
    encore_client *client = clocked_client(s, &clock_now);
    int32_t yes = 99, removed = 99;
    uint64_t keys = 0;
    encore_bytes content = {NULL, 0}, etag = {NULL, 0};
    encore_cached_keyfile_info info;
    ENCORE_OUTPUT_INIT(info);
    static const uint8_t zeros[32] = {0};

    CHECK(encore_keyfile_cache_get(client, "DE", "2020-06-01", &content) == ENCORE_ERR_NOT_FOUND);
    CHECK(content.data == NULL);
    CHECK(encore_keyfile_cache_get_info(client, "DE", "2020-06-01", &info, NULL) == ENCORE_ERR_NOT_FOUND);
    CHECK(!has(client, "DE", "2020-06-01"));

    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-01", "\"v1\"", sample, sample_length, trust, &keys) == ENCORE_OK);
    CHECK(keys > 0);
    CHECK(has(client, "DE", "2020-06-01"));
    CHECK(encore_keyfile_cache_has(client, "DE", "2020-06-01", "\"v1\"", &yes) == ENCORE_OK && yes == 1);
    CHECK(encore_keyfile_cache_has(client, "DE", "2020-06-01", "\"v2\"", &yes) == ENCORE_OK && yes == 0);
    CHECK(!has(client, "AT", "2020-06-01"));

    CHECK(encore_keyfile_cache_get(client, "DE", "2020-06-01", &content) == ENCORE_OK);
    CHECK(content.data != NULL && content.length == sample_length && memcmp(content.data, sample, sample_length) == 0);
    CHECK(content.data != NULL && content.data[sample_length] == 0); /* NUL after the bytes */
    encore_bytes_free(&content);
    CHECK(content.data == NULL && content.length == 0);

    CHECK(encore_keyfile_cache_get_info(client, "DE", "2020-06-01", &info, &etag) == ENCORE_OK);
    CHECK(info.size == sample_length && info.downloaded == 1591000000 && info.has_etag == 1 && info.struct_size == sizeof info);
    CHECK(memcmp(info.sha256, zeros, 32) != 0);
    CHECK(etag.length == 4 && strcmp((const char *)etag.data, "\"v1\"") == 0);
    encore_bytes_free(&etag);

    /* Re-published with a new ETag: replaced. */
    clock_now = 1591100000;
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-01", "\"v2\"", sample, sample_length, trust, NULL) == ENCORE_OK);
    CHECK(encore_keyfile_cache_has(client, "DE", "2020-06-01", "\"v1\"", &yes) == ENCORE_OK && yes == 0);
    CHECK(encore_keyfile_cache_get_info(client, "DE", "2020-06-01", &info, NULL) == ENCORE_OK && info.downloaded == 1591100000);

    /* Nothing unverified gets in: a damaged copy, an untrusted signer, bytes that are no key file. */
    uint8_t *damaged = malloc(sample_length);
    CHECK(damaged != NULL);
    if (damaged == NULL) return;
    memcpy(damaged, sample, sample_length);
    damaged[sample_length / 2] ^= 0x40;
    clock_now = 1591000000;
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-05", NULL, damaged, sample_length, trust, NULL) != ENCORE_OK);
    free(damaged);
    encore_trust *nobody = NULL;
    CHECK(encore_trust_new(&nobody) == ENCORE_OK);
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-05", NULL, sample, sample_length, nobody, NULL) == ENCORE_ERR_SIGNATURE_UNTRUSTED);
    encore_trust_free(nobody);
    static const uint8_t abc[] = {'a', 'b', 'c'};
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-05", NULL, abc, sizeof abc, trust, NULL) == ENCORE_ERR_ZIP_NOT_ZIP);
    CHECK(!has(client, "DE", "2020-06-05"));

    /* No ETag; an hour. A day replaces the cached hours of that day. */
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-01/hour/13", NULL, sample, sample_length, trust, NULL) == ENCORE_OK);
    CHECK(encore_keyfile_cache_has(client, "DE", "2020-06-01/hour/13", "", &yes) == ENCORE_OK && yes == 0);
    CHECK(encore_keyfile_cache_get_info(client, "DE", "2020-06-01/hour/13", &info, &etag) == ENCORE_OK);
    CHECK(info.has_etag == 0 && etag.data != NULL && etag.length == 0);
    encore_bytes_free(&etag);
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-02/hour/5", NULL, sample, sample_length, trust, NULL) == ENCORE_OK);
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-02", NULL, sample, sample_length, trust, NULL) == ENCORE_OK);
    CHECK(!has(client, "DE", "2020-06-02/hour/5") && has(client, "DE", "2020-06-01/hour/13"));
    CHECK(encore_keyfile_cache_import(client, "EUR", "2020-06-03", NULL, sample, sample_length, trust, NULL) == ENCORE_OK);

    /* Listing, and what is missing. */
    encore_string_list *list = NULL;
    CHECK(encore_keyfile_cache_list(client, "DE", &list) == ENCORE_OK);
    static const char *const de[] = {"2020-06-01", "2020-06-01/hour/13", "2020-06-02"};
    CHECK(list_equals(list, de, 3));
    encore_bytes item = {NULL, 0};
    size_t copied = 77;
    CHECK(encore_string_list_copy(list, 4, &item, sizeof item, 1, &copied) == ENCORE_ERR_OUT_OF_RANGE && item.data == NULL && copied == 77);
    CHECK(encore_string_list_copy(list, 3, &item, sizeof item, 1, &copied) == ENCORE_OK && copied == 0 && item.data == NULL);
    CHECK(encore_string_list_copy(list, UINT64_MAX, &item, sizeof item, 1, &copied) == ENCORE_ERR_OUT_OF_RANGE);
    CHECK(encore_string_list_copy(list, 0, NULL, sizeof item, 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_string_list_copy(list, 0, &item, sizeof item - 1, 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT && item.data == NULL);
    CHECK(encore_string_list_copy(list, 0, &item, sizeof item, 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    /* The strings are the caller's: they outlive the list. */
    CHECK(encore_string_list_copy(list, 1, &item, sizeof item, 1, &copied) == ENCORE_OK && copied == 1);
    encore_string_list_free(list);
    CHECK(strcmp((const char *)item.data, "2020-06-01/hour/13") == 0 && item.length == 18);
    encore_bytes_free(&item);
    list = NULL;
    CHECK(encore_keyfile_cache_list(client, "FR", &list) == ENCORE_OK && list_equals(list, NULL, 0));
    encore_string_list_free(list);

    const char *available[] = {"2020-06-04", "2020-06-01", "2020-06-03", "2020-06-04", "2020-06-02"};
    list = NULL;
    CHECK(encore_keyfile_cache_list_missing(client, "DE", available, 5, &list) == ENCORE_OK);
    static const char *const missing[] = {"2020-06-04", "2020-06-03"};
    CHECK(list_equals(list, missing, 2));
    encore_string_list_free(list);
    list = NULL;
    CHECK(encore_keyfile_cache_list_missing(client, "DE", NULL, 0, &list) == ENCORE_OK && list_equals(list, NULL, 0));
    encore_string_list_free(list);

    /* Removing. */
    CHECK(encore_keyfile_cache_remove(client, "DE", "2020-06-02", &removed) == ENCORE_OK && removed == 1);
    CHECK(encore_keyfile_cache_remove(client, "DE", "2020-06-02", &removed) == ENCORE_OK && removed == 0);
    CHECK(encore_keyfile_cache_remove(client, "DE", "2020-06-02", NULL) == ENCORE_OK);
    CHECK(encore_keyfile_cache_get(client, "DE", "2020-06-02", &content) == ENCORE_ERR_NOT_FOUND);

    /* Bad input: nothing is kept. */
    list = NULL;
    clock_now = 0;
    CHECK(encore_keyfile_cache_import(client, "", "2020-06-09", NULL, sample, sample_length, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_import(client, "DE", NULL, NULL, sample, sample_length, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_import(client, "D\xff", "2020-06-09", NULL, sample, sample_length, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "UTF-8") != NULL);
    CHECK(encore_keyfile_cache_import(client, "DE", "x", NULL, sample, sample_length, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-09/hour/24", NULL, sample, sample_length, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_import(client, "DP3T", "2020-06-09", NULL, sample, sample_length, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_import(client, "TWP-DE", "2020-06-09", NULL, sample, sample_length, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-09", NULL, NULL, 3, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-09", NULL, sample, (size_t)-1, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    clock_now = -1;
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-09", NULL, sample, sample_length, trust, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    clock_now = 0;
    CHECK(encore_keyfile_cache_import(client, "DE", "2020-06-09", NULL, sample, sample_length, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "trust list") != NULL);
    CHECK(!has(client, "DE", "2020-06-09"));
    /* A NULL trust is the client's trust list. */
    encore_client_options trusting_options;
    CHECK(encore_client_options_init(&trusting_options, sizeof trusting_options) == ENCORE_OK);
    trusting_options.trust = trust;
    trusting_options.clock = june_2020;
    encore_client *trusting = NULL;
    CHECK(encore_client_new(s, &trusting_options, &trusting) == ENCORE_OK);
    CHECK(encore_keyfile_cache_import(trusting, "DE", "2020-06-09", NULL, sample, sample_length, NULL, NULL) == ENCORE_OK);
    CHECK(has(client, "DE", "2020-06-09"));
    CHECK(encore_keyfile_cache_remove(trusting, "DE", "2020-06-09", NULL) == ENCORE_OK);
    encore_client_free(trusting);
    CHECK(encore_keyfile_cache_has(client, "DE", "x", NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_get(client, "DE", "2020-06-01", NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_get_info(client, "DE", "2020-06-01", NULL, &etag) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_list_missing(client, "DE", NULL, 2, &list) == ENCORE_ERR_INVALID_ARGUMENT);
    const char *with_null[] = {"2020-06-09", NULL};
    CHECK(encore_keyfile_cache_list_missing(client, "DE", with_null, 2, &list) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_list_missing(client, "DE", available, (size_t)-1, &list) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_list_missing(client, "DE", available, 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(list == NULL);
    CHECK(encore_keyfile_cache_list(client, "DE", NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_keyfile_cache_list(NULL, "DE", &list) == ENCORE_ERR_INVALID_ARGUMENT && list == NULL);
    encore_client_free(client);
}

static void test_tracing(encore_store *s) {
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock, which it moves */
    encore_client *client = clocked_client(s, &clock_now);
    int64_t seconds = -1;
    uint64_t count = 0;
    CHECK(encore_tracing_get_active_seconds(client, 0, 1000, &seconds) == ENCORE_OK && seconds == 0);
    CHECK(encore_tracing_event_add(client, 100, 1) == ENCORE_OK);
    CHECK(encore_tracing_event_add(client, 200, 0) == ENCORE_OK);
    CHECK(encore_tracing_event_add(client, 300, 1) == ENCORE_OK);
    CHECK(encore_tracing_event_add(client, 350, 1) == ENCORE_OK);
    CHECK(encore_tracing_event_add(client, 500, 0) == ENCORE_OK);
    CHECK(encore_tracing_event_add(client, 900, 1) == ENCORE_OK);
    CHECK(encore_tracing_get_active_seconds(client, 0, 1000, &seconds) == ENCORE_OK && seconds == 100 + 200 + 100);
    CHECK(encore_tracing_get_active_seconds(client, 150, 400, &seconds) == ENCORE_OK && seconds == 50 + 100);
    CHECK(encore_tracing_get_active_seconds(client, 950, 2000, &seconds) == ENCORE_OK && seconds == 1050);
    CHECK(encore_tracing_get_active_seconds(client, 7, 7, &seconds) == ENCORE_OK && seconds == 0);
    seconds = -1;
    CHECK(encore_tracing_get_active_seconds(client, 10, 5, &seconds) == ENCORE_ERR_INVALID_ARGUMENT && seconds == -1);
    CHECK(encore_tracing_get_active_seconds(client, 0, 5, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_tracing_event_add(client, 1000, 2) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_tracing_event_add(client, -1, 1) == ENCORE_ERR_INVALID_ARGUMENT);

    CHECK(encore_tracing_event_count(client, INT64_MIN, INT64_MAX, &count) == ENCORE_OK && count == 6);
    CHECK(encore_tracing_event_count(client, 300, 500, &count) == ENCORE_OK && count == 2);
    encore_tracing_event events[4];
    size_t copied = 0;
    CHECK(encore_tracing_event_copy(client, INT64_MIN, INT64_MAX, 0, events, sizeof(encore_tracing_event), 4, &copied) == ENCORE_OK && copied == 4);
    CHECK(events[0].time == 100 && events[0].active == 1 && events[1].time == 200 && events[1].active == 0);
    CHECK(events[3].time == 350 && events[3].struct_size == sizeof events[3]);
    CHECK(encore_tracing_event_copy(client, INT64_MIN, INT64_MAX, 4, events, sizeof(encore_tracing_event), 4, &copied) == ENCORE_OK && copied == 2);
    CHECK(events[1].time == 900 && events[1].active == 1);
    CHECK(encore_tracing_event_copy(client, 0, 1000, 0, NULL, sizeof(encore_tracing_event), 3, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(client);
}

/* Risk results are what the exposure check computed and stored: there is
 * no other way in. A check without key files at the client's time. */
static int64_t check(encore_client *client) {
    encore_risk_config *config = NULL;
    CHECK(encore_risk_config_new_cwa(&config) == ENCORE_OK);
    encore_match_options mo;
    CHECK(encore_match_options_init(&mo, sizeof mo, 0) == ENCORE_OK);
    encore_check_result *result = NULL;
    CHECK(encore_exposure_check(client, NULL, sizeof(encore_key_source), 0, config, &mo, NULL, &result) == ENCORE_OK);
    encore_check_summary summary;
    ENCORE_OUTPUT_INIT(summary);
    summary.stored_result_id = -1;
    CHECK(encore_check_result_get_summary(result, &summary) == ENCORE_OK);
    encore_check_result_free(result);
    encore_risk_config_free(config);
    return summary.stored_result_id;
}

static int64_t last_result_id;

static void test_risk_results(encore_store *s) {
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock, which it moves */
    encore_client *client = clocked_client(s, &clock_now);
    encore_risk_result r;
    ENCORE_OUTPUT_INIT(r);
    encore_bytes doc = {NULL, 0};
    uint64_t count = 0;
    CHECK(encore_risk_result_get_last(client, &r, &doc) == ENCORE_ERR_NOT_FOUND && doc.data == NULL);
    clock_now = 1000;
    int64_t id1 = check(client);
    clock_now = 2000;
    int64_t id2 = check(client);
    CHECK(id1 > 0 && id2 > id1);
    CHECK(encore_risk_result_get_last(client, &r, &doc) == ENCORE_OK);
    CHECK(r.id == id2 && r.time == 2000 && r.document_length == doc.length);
    CHECK(doc.data != NULL && doc.data[0] == '{' && strstr((const char *)doc.data, "\"status\"") != NULL);
    encore_bytes_free(&doc);
    /* The clock went back: nothing stored. The same time again: stored. */
    clock_now = 500;
    CHECK(check(client) == 0);
    clock_now = 2000;
    int64_t id3 = check(client);
    CHECK(encore_risk_result_get_last(client, &r, NULL) == ENCORE_OK && r.id == id3);
    CHECK(encore_risk_result_get_last(client, NULL, &doc) == ENCORE_OK && doc.length > 0 && doc.data != NULL);
    encore_bytes_free(&doc);
    CHECK(encore_risk_result_get(client, id1, &r, &doc) == ENCORE_OK && r.time == 1000);
    encore_bytes_free(&doc);
    CHECK(encore_risk_result_get(client, 999999, &r, &doc) == ENCORE_ERR_NOT_FOUND);
    last_result_id = id3;

    CHECK(encore_risk_result_count(client, INT64_MIN, INT64_MAX, &count) == ENCORE_OK && count == 3);
    CHECK(encore_risk_result_count(client, 1500, 3000, &count) == ENCORE_OK && count == 2);
    encore_risk_result list[4];
    size_t copied = 0;
    CHECK(encore_risk_result_copy(client, INT64_MIN, INT64_MAX, 0, list, sizeof(encore_risk_result), 4, &copied) == ENCORE_OK && copied == 3);
    CHECK(list[0].id == id1 && list[1].id == id2 && list[2].id == id3);
    CHECK(encore_risk_result_copy(client, INT64_MIN, INT64_MAX, 1, list, sizeof(encore_risk_result), 1, &copied) == ENCORE_OK && copied == 1 && list[0].id == id2);
    encore_client_free(client);
}

/* A setting's value to set: an integer, a double, or text or blob bytes. */
static encore_setting_value setting_int(int64_t v) {
    encore_setting_value x = {sizeof x, ENCORE_SETTING_INTEGER, v, 0, NULL, 0};
    return x;
}

static encore_setting_value setting_real(double v) {
    encore_setting_value x = {sizeof x, ENCORE_SETTING_DOUBLE, 0, v, NULL, 0};
    return x;
}

static encore_setting_value setting_bytes(int32_t type, const void *data, size_t length) {
    encore_setting_value x = {sizeof x, type, 0, 0, data, length};
    return x;
}

static encore_status set_int(encore_store *s, const char *name, int64_t v) {
    encore_setting_value x = setting_int(v);
    return encore_store_set_setting(s, name, &x);
}

static encore_status set_text(encore_store *s, const char *name, const char *text) {
    encore_setting_value x = setting_bytes(ENCORE_SETTING_TEXT, text, text ? strlen(text) : 0);
    return encore_store_set_setting(s, name, &x);
}

static encore_status set_blob(encore_store *s, const char *name, const void *data, size_t length) {
    encore_setting_value x = setting_bytes(ENCORE_SETTING_BLOB, data, length);
    return encore_store_set_setting(s, name, &x);
}

static encore_status set_real(encore_store *s, const char *name, double v) {
    encore_setting_value x = setting_real(v);
    return encore_store_set_setting(s, name, &x);
}

/* Reads a setting into *v (and its bytes into *b when b is not NULL). */
static encore_status get(encore_store *s, const char *name, encore_setting_value *v, encore_bytes *b) {
    memset(v, 0, sizeof *v);
    v->struct_size = sizeof *v;
    return encore_store_get_setting(s, name, v, b);
}

static void test_settings(encore_store *s) {
    int64_t clock_now = 1000;  /* the test's clock, which it moves */
    encore_client *client = clocked_client(s, &clock_now);
    int32_t deleted = 0;
    encore_setting_value v;
    encore_bytes b = {NULL, 0};
    static const uint8_t blob[] = {0, 1, 2, 255};

    CHECK(set_int(s, "count", INT64_MIN) == ENCORE_OK);
    CHECK(set_real(s, "ratio", 0.25) == ENCORE_OK);
    CHECK(set_text(s, "name", "gr\xc3\xbc\xc3\x9f") == ENCORE_OK);
    CHECK(set_blob(s, "token", blob, sizeof blob) == ENCORE_OK);
    CHECK(set_blob(s, "empty", NULL, 0) == ENCORE_OK);

    CHECK(get(s, "count", &v, NULL) == ENCORE_OK && v.type == ENCORE_SETTING_INTEGER && v.integer == INT64_MIN);
    CHECK(get(s, "ratio", &v, NULL) == ENCORE_OK && v.type == ENCORE_SETTING_DOUBLE && v.real == 0.25);
    CHECK(get(s, "name", &v, &b) == ENCORE_OK && v.type == ENCORE_SETTING_TEXT && v.length == 6 && v.data == NULL &&
          strcmp((const char *)b.data, "gr\xc3\xbc\xc3\x9f") == 0);
    encore_bytes_free(&b);
    CHECK(get(s, "token", &v, &b) == ENCORE_OK && v.type == ENCORE_SETTING_BLOB && b.length == 4 && memcmp(b.data, blob, 4) == 0);
    encore_bytes_free(&b);
    CHECK(get(s, "empty", &v, &b) == ENCORE_OK && v.type == ENCORE_SETTING_BLOB && b.length == 0 && b.data != NULL);
    encore_bytes_free(&b);
    /* Without bytes: the type and the length only. */
    CHECK(get(s, "token", &v, NULL) == ENCORE_OK && v.type == ENCORE_SETTING_BLOB && v.length == 4);

    /* Missing: NOT_FOUND, nothing written. */
    v.type = 77;
    CHECK(encore_store_get_setting(s, "nope", &v, &b) == ENCORE_ERR_NOT_FOUND && v.type == 77 && b.data == NULL);

    /* Replacing changes the type; deleting. */
    CHECK(set_real(s, "count", 1.5) == ENCORE_OK);
    CHECK(get(s, "count", &v, NULL) == ENCORE_OK && v.type == ENCORE_SETTING_DOUBLE && v.real == 1.5);
    CHECK(encore_store_delete_setting(s, "count", &deleted) == ENCORE_OK && deleted == 1);
    CHECK(encore_store_delete_setting(s, "count", &deleted) == ENCORE_OK && deleted == 0);
    CHECK(encore_store_delete_setting(s, "count", NULL) == ENCORE_OK);

    encore_string_list *names = NULL;
    CHECK(encore_store_list_settings(s, &names) == ENCORE_OK);
    static const char *const expected[] = {"empty", "name", "ratio", "token"};
    CHECK(list_equals(names, expected, 4));
    encore_string_list_free(names);

    /* The library's own settings are neither written nor read nor listed. */
    CHECK(set_text(s, "sync.config", "{}") == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "the library's own") != NULL);
    CHECK(set_blob(s, "sync.config", blob, sizeof blob) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(set_int(s, "push.registered-at", 1) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(get(s, "push.instance-token", &v, &b) == ENCORE_ERR_INVALID_ARGUMENT && b.data == NULL);
    CHECK(get(s, "sync.last-success", &v, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_delete_setting(s, "encore.anything", NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_bytes reason = {NULL, 0};
    encore_push_decision decision;
    ENCORE_OUTPUT_INIT(decision);
    CHECK(encore_push_decide(client, ENCORE_PUSH_EVENT_APP_START, &decision, &reason) == ENCORE_OK); /* makes no setting */
    encore_bytes_free(&reason);
    CHECK(encore_push_set_state(client, ENCORE_PUSH_KEEP, 1) == ENCORE_OK);               /* stores push.isolated */
    names = NULL;
    CHECK(encore_store_list_settings(s, &names) == ENCORE_OK && list_equals(names, expected, 4));
    encore_string_list_free(names);

    /* Bad input. */
    CHECK(set_real(s, "nan", NAN) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(set_int(s, "", 1) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(set_int(s, NULL, 1) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_set_setting(s, "t", NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(set_text(s, "t", "\xc3") == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(set_blob(s, "b", NULL, 1) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(set_blob(s, "b", blob, (size_t)-1) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_setting_value unknown = setting_int(1);
    unknown.type = 9;
    CHECK(encore_store_set_setting(s, "u", &unknown) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_setting_value small = setting_int(1);
    small.struct_size = 4;
    CHECK(encore_store_set_setting(s, "u", &small) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_store_get_setting(s, "name", NULL, &b) == ENCORE_ERR_INVALID_ARGUMENT && b.data == NULL);
    char long_name[1100];
    memset(long_name, 'n', sizeof long_name - 1);
    long_name[sizeof long_name - 1] = 0;
    CHECK(set_int(s, long_name, 1) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(get(s, "nan", &v, NULL) == ENCORE_ERR_NOT_FOUND);
    CHECK(get(s, "u", &v, NULL) == ENCORE_ERR_NOT_FOUND);
    encore_client_free(client);
}

static void test_reopen_and_purge(encore_store **s) {
    encore_store_close(*s);
    *s = open_store();
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(*s, &clock_now);
    uint64_t count = 0;
    encore_setting_value v;
    encore_risk_result r;
    ENCORE_OUTPUT_INIT(r);
    CHECK(encore_own_key_count(client, 0, &count) == ENCORE_OK && count == 3);
    CHECK(get(*s, "ratio", &v, NULL) == ENCORE_OK && v.real == 0.25);
    CHECK(encore_risk_result_get_last(client, &r, NULL) == ENCORE_OK && r.id == last_result_id);

    encore_purge_counts n;
    ENCORE_OUTPUT_INIT(n);
    CHECK(encore_store_purge(*s, 2000000000, 1209600, &n) == ENCORE_OK);
    CHECK(n.own_keys == 3 && n.keyfiles == 3 && n.risk_results == 2 && n.tracing_events == 6);
    int64_t seconds = 0;
    /* Tracing was on at the cut-off: the state is kept. */
    CHECK(encore_tracing_get_active_seconds(client, 2000000000 - 1209600, 2000000000, &seconds) == ENCORE_OK && seconds == 1209600);
    CHECK(encore_risk_result_get_last(client, &r, NULL) == ENCORE_OK && r.id == last_result_id);
    CHECK(get(*s, "ratio", &v, NULL) == ENCORE_OK && v.real == 0.25);
    CHECK(encore_store_check_integrity(*s) == ENCORE_OK);
    encore_client_free(client);
}

/* A thread's work on the store, through the client all threads share. */
struct job { encore_store *store; encore_client *client; int index; int ok; };

static void *work(void *arg) {
    struct job *job = arg;
    char name[64], region[16];
    job->ok = 1;
    snprintf(region, sizeof region, "R%d", job->index);
    for (int i = 0; i < 20; i++) {
        snprintf(name, sizeof name, "k%d", job->index);
        if (set_int(job->store, name, i) != ENCORE_OK) job->ok = 0;
        if (encore_tracing_event_add(job->client, 3000000000 + i, i % 2) != ENCORE_OK) job->ok = 0;
        snprintf(name, sizeof name, "2030-01-%02d", i + 1);
        if (encore_keyfile_cache_import(job->client, region, name, NULL, sample, sample_length, trust, NULL) != ENCORE_OK) job->ok = 0;
        encore_bytes b = {NULL, 0};
        if (encore_keyfile_cache_get(job->client, region, name, &b) != ENCORE_OK || b.length != sample_length) job->ok = 0;
        encore_bytes_free(&b);
        /* The clock stands still while they run: a check at an earlier time than another's would store nothing. */
        if (i % 5 == 0 && check(job->client) <= 0) job->ok = 0;
    }
    return NULL;
}

static void test_threads(encore_store *s) {
    int64_t clock_now = 3000000100;  /* the test's clock, set before the threads start */
    encore_client *client = clocked_client(s, &clock_now);
    enum { N = 4 };
    struct job jobs[N];
    pthread_t threads[N];
    for (int i = 0; i < N; i++) {
        jobs[i].store = s;
        jobs[i].client = client;
        jobs[i].index = i;
        CHECK(pthread_create(&threads[i], NULL, work, &jobs[i]) == 0);
    }
    for (int i = 0; i < N; i++) pthread_join(threads[i], NULL);
    uint64_t count = 0;
    for (int i = 0; i < N; i++) {
        CHECK(jobs[i].ok);
        char region[16], name[16];
        snprintf(region, sizeof region, "R%d", i);
        snprintf(name, sizeof name, "k%d", i);
        encore_string_list *list = NULL;
        size_t n = 0;
        CHECK(encore_keyfile_cache_list(client, region, &list) == ENCORE_OK && encore_string_list_count(list, &n) == ENCORE_OK && n == 20);
        encore_string_list_free(list);
        encore_setting_value v;
        CHECK(get(s, name, &v, NULL) == ENCORE_OK && v.integer == 19);
    }
    CHECK(encore_risk_result_count(client, 3000000000, INT64_MAX, &count) == ENCORE_OK && count == N * 4);
    CHECK(encore_tracing_event_count(client, 3000000000, INT64_MAX, &count) == ENCORE_OK && count == N * 20);
    encore_client_free(client);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "c-store") != 0) return 1;
    snprintf(db_path, sizeof db_path, "%s/store.db", dir);
    test_memory_helpers();
    encore_store *s = load_sample() ? open_store() : NULL;
    if (s != NULL) {
        test_own_keys(s);
        test_packages(s);
        test_tracing(s);
        test_risk_results(s);
        test_settings(s);
        test_reopen_and_purge(&s);
        test_threads(s);
    }
    encore_store_close(s);
    encore_trust_free(trust);
    free(sample);
    scratch_dir_remove(dir);
    return check_report();
}
