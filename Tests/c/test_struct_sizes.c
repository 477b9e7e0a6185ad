/* The struct_size rule and the one list idiom, across the API: old callers
 * (smaller structs) and new ones (larger structs) keep working, sizes below
 * a struct's first version are clear errors, and a list read in pages gives
 * the same items as one call. */
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "check.h"
#include "client.h"
#include "scratch.h"

#define NOW 1700000000

static encore_sighting sighting(int64_t time, uint8_t n) {
    encore_sighting o;
    memset(&o, 0, sizeof o);
    o.struct_size = sizeof o;
    o.time = time;
    memset(o.rpi, n, sizeof o.rpi);
    o.aem[0] = n;
    o.rssi = (int8_t)(-40 - n);
    return o;
}

/* An output struct of an older version (encore_test_status before rapid
 * tests) gets only the fields it has; below the first version, or 0, is an
 * error that names the struct. */
static void test_old_output(encore_store *s) {
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    struct {
        encore_test_status status;
        uint8_t after[64];
    } old;
    const size_t v1 = offsetof(encore_test_status, test_type);
    memset(&old, 0xAB, sizeof old);
    old.status.struct_size = (uint32_t)v1;
    CHECK(encore_test_get_status(client, &old.status) == ENCORE_OK);
    CHECK(old.status.struct_size == v1 && old.status.registered == 0 && old.status.result == ENCORE_TEST_RESULT_NONE);
    /* Nothing past the caller's struct is written. */
    const uint8_t *bytes = (const uint8_t *)&old.status;
    int untouched = 1;
    for (size_t i = v1; i < sizeof old; i++) untouched = untouched && bytes[i] == 0xAB;
    CHECK(untouched);

    old.status.struct_size = (uint32_t)v1 - 4;
    CHECK(encore_test_get_status(client, &old.status) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "struct_size") != NULL);
    old.status.struct_size = 0;
    CHECK(encore_test_get_status(client, &old.status) == ENCORE_ERR_INVALID_ARGUMENT);

    /* A struct without versions before this one: below its size is an error. */
    encore_purge_counts counts;
    counts.struct_size = sizeof counts - 8;
    CHECK(encore_store_purge(s, NOW, 1209600, &counts) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "counts->struct_size") != NULL);
    encore_client_free(client);
}

/* A newer caller's larger output struct: the fields this library does not
 * know are zeroed, struct_size stays as the caller set it. */
static void test_new_output(encore_store *s) {
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    struct {
        encore_own_key key;
        uint64_t newer[2];
    } big;
    memset(&big, 0xAB, sizeof big);
    big.key.struct_size = sizeof big;
    CHECK(encore_own_key_get_current(client, &big.key) == ENCORE_OK);
    CHECK(big.key.struct_size == sizeof big && big.key.rolling_period == 144 && big.newer[0] == 0 && big.newer[1] == 0);
    encore_client_free(client);
}

/* Input structs: a newer caller's struct with unknown fields zero is read;
 * with one set, refused; an array's stride is its element_size. */
static void test_inputs(encore_store *s) {
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    struct wide {
        encore_sighting o;
        uint64_t newer;
    } rows[3];
    for (int i = 0; i < 3; i++) {
        rows[i].o = sighting(NOW - 100 + i, (uint8_t)(i + 1));
        rows[i].o.struct_size = sizeof rows[i];
        rows[i].newer = 0;
    }
    size_t added = 0;
    CHECK(encore_sighting_add(client, &rows[0].o, sizeof rows[0], 3, &added) == ENCORE_OK && added == 3);
    rows[1].newer = 5;
    CHECK(encore_sighting_add(client, &rows[0].o, sizeof rows[0], 3, &added) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "sightings[1]") != NULL);
    /* element_size smaller than an element says it is. */
    rows[1].newer = 0;
    CHECK(encore_sighting_add(client, &rows[0].o, sizeof(encore_sighting), 3, &added) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_sighting zero;
    memset(&zero, 0, sizeof zero);
    CHECK(encore_sighting_add(client, &zero, sizeof zero, 1, &added) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "struct_size is 0") != NULL);
    encore_client_free(client);
}

/* An options struct with an _init: the defaults (all zero here), and read
 * as inputs are: struct_size 0 refused, a newer caller's unknown fields
 * read when zero and refused when set (before anything else is done). */
static void test_options(encore_store *s) {
    encore_trace_key_match_options o;
    memset(&o, 0xAB, sizeof o);
    CHECK(encore_trace_key_match_options_init(&o, sizeof o) == ENCORE_OK);
    CHECK(o.struct_size == sizeof o && o.threads == 0 && o.progress == NULL && o.progress_context == NULL);
    CHECK(encore_trace_key_match_options_init(&o, 4) == ENCORE_ERR_INVALID_ARGUMENT);

    encore_client_options co;
    CHECK(encore_client_options_init(&co, sizeof co) == ENCORE_OK);
    encore_client *client = NULL;
    CHECK(encore_client_new(s, &co, &client) == ENCORE_OK);
    static const uint8_t body[1] = {0};
    struct {
        encore_trace_key_match_options o;
        uint64_t newer;
    } wide;
    memset(&wide, 0, sizeof wide);
    wide.o.struct_size = 0;
    CHECK(encore_crowdnotifier_match_trace_keys_with_options(client, body, 1, "x.y.z", NULL, &wide.o, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "options.struct_size is 0") != NULL);
    wide.o.struct_size = sizeof wide;
    wide.newer = 1;
    CHECK(encore_crowdnotifier_match_trace_keys_with_options(client, body, 1, "x.y.z", NULL, &wide.o, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "does not know") != NULL);
    /* Read when zero: the call goes on, to the client's missing key. */
    wide.newer = 0;
    CHECK(encore_crowdnotifier_match_trace_keys_with_options(client, body, 1, "x.y.z", NULL, &wide.o, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "CrowdNotifier key") != NULL);
    encore_client_free(client);
}

/* Lists: element_size too small is a clear error; a larger one (a newer
 * caller) gets each element at that stride with the library's struct_size
 * and the rest zeroed; pages give the same items as one call. */
static void test_lists(encore_store *s) {
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client *client = clocked_client(s, &clock_now);
    enum { N = 7 };
    encore_sighting in[N];
    for (int i = 0; i < N; i++) in[i] = sighting(NOW - 50 + i, (uint8_t)(10 + i));
    CHECK(encore_sighting_add(client, in, sizeof in[0], N, NULL) == ENCORE_OK);

    encore_sighting all[N + 3 + 1];
    size_t copied = 99, total = 0;
    CHECK(encore_sighting_copy(client, INT64_MIN, INT64_MAX, 0, all, sizeof all[0], N + 4, &copied) == ENCORE_OK);
    total = copied;
    CHECK(total == N + 3);

    /* Too small (below the struct's first version, before typical_rssi): an error naming element_size; nothing copied. */
    CHECK(encore_sighting_copy(client, INT64_MIN, INT64_MAX, 0, all, offsetof(encore_sighting, has_typical_rssi) - 1, 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "element_size") != NULL && copied == total);
    CHECK(encore_sighting_copy(client, INT64_MIN, INT64_MAX, 0, all, 0, 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);

    /* In pages of 3 (and of 1): the same items in the same order. */
    for (size_t page = 1; page <= 3; page += 2) {
        encore_sighting got[N + 3];
        size_t n = 0;
        for (;;) {
            CHECK(encore_sighting_copy(client, INT64_MIN, INT64_MAX, n, got + n, sizeof got[0], page, &copied) == ENCORE_OK);
            n += copied;
            if (copied < page) break;
        }
        CHECK(n == total && memcmp(got, all, total * sizeof got[0]) == 0);
    }

    /* A newer caller's larger element. */
    struct wide {
        encore_sighting o;
        uint32_t newer[3];
    } wide[N + 3];
    memset(wide, 0xAB, sizeof wide);
    CHECK(encore_sighting_copy(client, INT64_MIN, INT64_MAX, 0, &wide[0].o, sizeof wide[0], N + 3, &copied) == ENCORE_OK && copied == total);
    for (size_t i = 0; i < total; i++) {
        CHECK(wide[i].o.struct_size == sizeof(encore_sighting) && memcmp(&wide[i].o, &all[i], sizeof all[i]) == 0);
        CHECK(wide[i].newer[0] == 0 && wide[i].newer[1] == 0 && wide[i].newer[2] == 0);
    }

    /* An in-memory list (a key file's keys is one; here the own key
     * history): element_size too small and paging, the same rules. */
    encore_key keys[15];
    CHECK(encore_own_key_copy_history(client, 14, 0, keys, sizeof keys[0], 15, &copied) == ENCORE_OK && copied >= 1);
    size_t history = copied;
    CHECK(encore_own_key_copy_history(client, 14, 0, keys, 4, 15, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "element_size is 4") != NULL);
    CHECK(encore_own_key_copy_history(client, 14, history, keys, sizeof keys[0], 15, &copied) == ENCORE_OK && copied == 0);
    CHECK(encore_own_key_copy_history(client, 14, history + 1, keys, sizeof keys[0], 15, &copied) == ENCORE_ERR_OUT_OF_RANGE);
    encore_client_free(client);
}

int main(void) {
    char dir[512], path[600];
    if (scratch_dir_make(dir, sizeof dir, "c-sizes") != 0) return 1;
    snprintf(path, sizeof path, "%s/sizes.db", dir);
    static const uint8_t raw[32] = {7};
    encore_store_key key = {sizeof(encore_store_key), ENCORE_KEY_RAW, raw, sizeof raw};
    encore_store *s = NULL;
    CHECK(encore_store_open(path, &key, NULL, &s) == ENCORE_OK);
    if (s != NULL) {
        int64_t clock_now = NOW;  /* the test's clock */
        encore_client *client = clocked_client(s, &clock_now);
        /* Three sightings in the list before the tests' own. */
        encore_sighting first[3];
        for (int i = 0; i < 3; i++) first[i] = sighting(NOW - 1000 + i, (uint8_t)(100 + i));
        CHECK(encore_sighting_add(client, first, sizeof first[0], 3, NULL) == ENCORE_OK);
        encore_client_free(client);
        test_old_output(s);
        test_new_output(s);
        test_lists(s);
        test_inputs(s);
        test_options(s);
        encore_store_close(s);
    }
    scratch_dir_remove(dir);
    return check_report();
}
