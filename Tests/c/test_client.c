/* C tests of the client (encore_client): its options and their checks, the
 * host's clock and the system's, its calls refused once the store is closed
 * (encore_store_close()), and every misuse refused with its status.
 * The flows on a client are tested in test_sync.c, test_testresult.c,
 * test_push.c and test_operation.c. Built with -Werror, run under valgrind. */
#include "check.h"
#include "client.h"
#include "fresh_store.h"

#include <stdio.h>
#include <string.h>
#include <time.h>

#define NOW 1795500000LL

static void test_options(void) {
    encore_client_options o;
    CHECK(encore_client_options_init(NULL, sizeof o) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_client_options_init(&o, 4) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_client_options_init(&o, sizeof o) == ENCORE_OK);
    CHECK(o.struct_size == sizeof o && o.push_api == ENCORE_PUSH_API_SWISSCOVID && o.transport == NULL && o.trust == NULL);
    CHECK(o.clock == NULL && o.distribution_url == NULL && o.verification_url == NULL && o.push_url == NULL);

    encore_store *store = fresh_store();
    encore_client *client = NULL;
    /* NULL options: no servers, the built-in transport, the system clock. */
    CHECK(encore_client_new(store, NULL, &client) == ENCORE_OK && client != NULL);
    int64_t now = -1;
    int64_t before = (int64_t)time(NULL);
    CHECK(encore_client_get_time(client, &now) == ENCORE_OK);
    CHECK(now >= before && now <= (int64_t)time(NULL));
    CHECK(encore_client_get_time(client, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_client_get_time(NULL, &now) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(client);
    encore_client_free(NULL);

    encore_client *untouched = (encore_client *)&o;  /* outputs are written only on success */
    CHECK(encore_client_new(NULL, NULL, &untouched) == ENCORE_ERR_INVALID_ARGUMENT && untouched == (encore_client *)&o);
    CHECK(encore_client_new(store, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    o.struct_size = 8;  /* smaller than any version */
    CHECK(encore_client_new(store, &o, &untouched) == ENCORE_ERR_INVALID_ARGUMENT && untouched == (encore_client *)&o);
    CHECK(strstr(encore_last_error_message(), "struct_size") != NULL);
    CHECK(encore_client_options_init(&o, sizeof o) == ENCORE_OK);
    o.submission_url = "https://submission.example";  /* without a verification server */
    CHECK(encore_client_new(store, &o, &untouched) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "verification_url") != NULL);
    CHECK(encore_client_options_init(&o, sizeof o) == ENCORE_OK);
    o.push_api = 2;
    CHECK(encore_client_new(store, &o, &untouched) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_client_options_init(&o, sizeof o) == ENCORE_OK);
    o.crowdnotifier_public_key = (const uint8_t *)"not a key";
    o.crowdnotifier_public_key_length = 9;
    CHECK(encore_client_new(store, &o, &untouched) == ENCORE_ERR_KEY_FORMAT && untouched == (encore_client *)&o);
    CHECK(encore_client_options_init(&o, sizeof o) == ENCORE_OK);
    static const char latin1[] = {'h', 't', 't', 'p', 's', ':', '/', '/', (char)0xE9, 0};
    o.distribution_url = latin1;  /* strings must be UTF-8 */
    CHECK(encore_client_new(store, &o, &untouched) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_store_close(store);
}

/* The host's clock is read at each flow; a clock before 1970 is refused. */
static void test_clock(void) {
    encore_store *store = fresh_store();
    int64_t now = NOW;
    encore_client_options o = test_client_options(NULL, &now);
    encore_client *client = test_client(store, &o);
    int64_t t = 0;
    CHECK(encore_client_get_time(client, &t) == ENCORE_OK && t == NOW);
    now = NOW + 3600;
    CHECK(encore_client_get_time(client, &t) == ENCORE_OK && t == NOW + 3600);
    now = -5;
    CHECK(encore_client_get_time(client, &t) == ENCORE_ERR_INVALID_ARGUMENT && t == NOW + 3600);
    CHECK(strstr(encore_last_error_message(), "-5") != NULL);
    encore_client_free(client);
    encore_store_close(store);
}

/* encore_store_close() closes the database: a client made on the store
 * stays a valid handle (to free), but every call of it that needs the
 * store fails with ENCORE_ERR_STORE_CLOSED; calls that need no store
 * (its clock) still work. */
static void test_closed_store(void) {
    encore_store *store = fresh_store();
    int64_t now = NOW;
    encore_client_options o = test_client_options(NULL, &now);
    o.distribution_url = "https://distribution.example";
    encore_client *client = test_client(store, &o);
    encore_client *second = test_client(store, NULL);
    uint64_t count = 7;
    CHECK(encore_sighting_count(client, INT64_MIN, INT64_MAX, &count) == ENCORE_OK && count == 0);
    encore_store_close(store);

    encore_sync_plan_info plan;
    memset(&plan, 0, sizeof plan);
    ENCORE_OUTPUT_INIT(plan);
    CHECK(encore_sync_plan(client, NULL, &plan) == ENCORE_ERR_STORE_CLOSED);
    CHECK(strstr(encore_last_error_message(), "closed") != NULL);
    count = 7;
    CHECK(encore_sighting_count(client, INT64_MIN, INT64_MAX, &count) == ENCORE_ERR_STORE_CLOSED && count == 7);
    CHECK(encore_tracing_event_add(second, NOW, 1) == ENCORE_ERR_STORE_CLOSED);
    CHECK(encore_own_key_count(second, 0, &count) == ENCORE_ERR_STORE_CLOSED);
    CHECK(strcmp(encore_status_name(ENCORE_ERR_STORE_CLOSED), "ENCORE_ERR_STORE_CLOSED") == 0);
    int64_t t = 0;
    CHECK(encore_client_get_time(client, &t) == ENCORE_OK && t == NOW);
    encore_client_free(client);
    encore_client_free(second);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "client") != 0) return 1;
    test_options();
    test_clock();
    test_closed_store();
    scratch_dir_remove(dir);
    return check_report();
}
