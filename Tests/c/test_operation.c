/* C tests of network operations through the .so, driven by hand as a host
 * with its own I/O would (no transport at all): the steps of a push
 * registration, a test result poll and a sync, answers and failures fed back,
 * retries as WAIT steps, the store written only when the answer that brings
 * it is fed (a key file: in the compute step after it), and every misuse (out of turn, wrong id, bad status, small
 * struct) refused with its status. Built with -Werror, run under valgrind. */
#include "check.h"
#include "client.h"
#include "fresh_store.h"

#include <stdio.h>
#include <string.h>

#define NOW 1795500000LL
#define PUSH "https://push.example"
#define VERIFY "https://verification.example"
#define SUBMIT "https://submission.example"
#define APNS "abababababababababababababababababababababababababababababababab"
#define GUID "3D6D08-3567F3F2-4DCF-43A3-8737-4CD1F87D6FDA"

static int push_registered(encore_client *client) {
    encore_bytes json = {0};
    CHECK(encore_push_get_status_json(client, &json) == ENCORE_OK);
    int yes = json.data != NULL && strstr((const char *)json.data, "\"registered\":true") != NULL;
    encore_bytes_free(&json);
    return yes;
}

static encore_operation_step next(encore_operation *op, int64_t now) {
    encore_operation_step s;
    memset(&s, 0, sizeof s);
    ENCORE_OUTPUT_INIT(s);
    CHECK(encore_operation_next(op, now, &s) == ENCORE_OK);
    return s;
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

static void test_push_registration_step_by_step(void) {
    encore_store *store = fresh_store();
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client *app = push_client(store, NULL, PUSH, ENCORE_PUSH_API_SWISSCOVID, &clock_now);
    encore_operation *op = NULL;
    CHECK(encore_push_register_start(app, APNS, ENCORE_PUSH_TYPE_IOS, NULL, &op) == ENCORE_OK);
    CHECK(encore_operation_get_status(op) == ENCORE_ERR_OPERATION_STATE);

    encore_operation_step s = next(op, NOW);
    CHECK(s.kind == ENCORE_STEP_REQUEST);
    CHECK(s.method != NULL && strcmp(s.method, "POST") == 0);
    CHECK(s.url != NULL && strcmp(s.url, PUSH "/v3/register") == 0);
    CHECK(s.body != NULL && s.body_length > 64);
    CHECK(s.header_count == 1 && strcmp(s.headers[0].name, "Content-Type") == 0);
    uint64_t first = s.request_id;

    /* Out of turn: another step while the request waits, an unknown id. */
    encore_operation_step again;
    ENCORE_OUTPUT_INIT(again);
    CHECK(encore_operation_next(op, NOW, &again) == ENCORE_ERR_OPERATION_STATE);
    CHECK(encore_operation_feed_answer(op, first + 1, 200, NULL, 0, NULL, 0, NOW) == ENCORE_ERR_OPERATION_STATE);
    CHECK(encore_operation_feed_answer(op, first, 42, NULL, 0, NULL, 0, NOW) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_operation_feed_answer(op, first, 200, NULL, 3, NULL, 0, NOW) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_operation_feed_failure(op, first, ENCORE_ERR_SERVER_REFUSED, NOW) == ENCORE_ERR_INVALID_ARGUMENT);

    /* 503: retried after the default delay, as a WAIT step. Nothing stored. */
    encore_http_header retry_after = {"Retry-After", "1"};
    CHECK(encore_operation_feed_answer(op, first, 503, &retry_after, 1, NULL, 0, NOW) == ENCORE_OK);
    CHECK(!push_registered(app));
    s = next(op, NOW);
    CHECK(s.kind == ENCORE_STEP_WAIT && s.wait_ms == 1000);
    CHECK(s.method == NULL && s.url == NULL);
    s = next(op, NOW + 1);
    CHECK(s.kind == ENCORE_STEP_REQUEST && s.request_id != first);

    /* The yes: stored when it is fed, at the time fed with it. */
    CHECK(encore_operation_feed_answer(op, s.request_id, 200, NULL, 0, NULL, 0, NOW + 2) == ENCORE_OK);
    CHECK(push_registered(app));
    s = next(op, NOW + 2);
    CHECK(s.kind == ENCORE_STEP_DONE);
    CHECK(encore_operation_get_status(op) == ENCORE_OK);
    encore_bytes json = {0};
    CHECK(encore_operation_get_result_json(op, &json) == ENCORE_OK);
    CHECK(json.data != NULL && strstr((const char *)json.data, "\"registeredAt\":1795500002") != NULL);
    encore_bytes_free(&json);
    /* Not a test operation. */
    encore_test_status st;
    ENCORE_OUTPUT_INIT(st);
    CHECK(encore_operation_get_test_status(op, &st) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_operation_free(op);

    /* Deregistration: 400 is final, nothing forgotten. */
    encore_client *serverless = push_client(store, NULL, NULL, ENCORE_PUSH_API_SWISSCOVID, &clock_now);
    CHECK(encore_push_deregister_start(serverless, NULL, &op) == ENCORE_OK);
    s = next(op, NOW);
    CHECK(s.kind == ENCORE_STEP_REQUEST);
    CHECK(encore_operation_feed_answer(op, s.request_id, 400, NULL, 0, (const uint8_t *)"no", 2, NOW) == ENCORE_OK);
    CHECK(next(op, NOW).kind == ENCORE_STEP_DONE);
    CHECK(encore_operation_get_status(op) == ENCORE_ERR_SERVER_REFUSED);
    CHECK(encore_operation_get_result_json(op, &json) == ENCORE_ERR_SERVER_REFUSED);
    CHECK(json.data == NULL);
    CHECK(push_registered(app));
    encore_operation_free(op);
    encore_client_free(serverless);
    encore_client_free(app);
    encore_store_close(store);
}

static void test_push_registration_without_answers(void) {
    encore_store *store = fresh_store();
    encore_push_options o;
    CHECK(encore_push_options_init(&o, sizeof o) == ENCORE_OK);
    o.attempts = 3;
    o.retry_delay_ms = 200;
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client *app = push_client(store, NULL, PUSH, ENCORE_PUSH_API_SWISSCOVID, &clock_now);
    encore_operation *op = NULL;
    CHECK(encore_push_register_start(app, APNS, ENCORE_PUSH_TYPE_IOS, &o, &op) == ENCORE_OK);
    int64_t waits[2] = {0, 0};
    int requests = 0, w = 0;
    for (int guard = 0; guard < 20; guard++) {
        encore_operation_step s = next(op, NOW);
        if (s.kind == ENCORE_STEP_DONE) break;
        if (s.kind == ENCORE_STEP_WAIT) {
            if (w < 2) waits[w] = s.wait_ms;
            w++;
            continue;
        }
        requests++;
        CHECK(encore_operation_feed_failure(op, s.request_id, ENCORE_ERR_NETWORK, NOW) == ENCORE_OK);
    }
    CHECK(requests == 3);
    CHECK(w == 2 && waits[0] == 200 && waits[1] == 400);
    CHECK(encore_operation_get_status(op) == ENCORE_ERR_NETWORK);
    CHECK(!push_registered(app));
    encore_operation_free(op);

    /* A token of the wrong form is refused before any operation exists. */
    op = NULL;
    CHECK(encore_push_register_start(app, "abc", ENCORE_PUSH_TYPE_IOS, NULL, &op) == ENCORE_ERR_PUSH_TOKEN);
    CHECK(op == NULL);
    CHECK(encore_push_register_start(app, APNS, ENCORE_PUSH_TYPE_IOS, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(app);
    encore_store_close(store);
}

/* A registered GUID test, through the blocking API and a host transport. */
static int32_t registration_server(void *context, const encore_http_request *r, encore_http_response *response) {
    (void)context;
    const char *body = "{}";
    int status = 200;
    if (ends_with(r->url, "/registrationToken")) {
        status = 201;
        body = "{\"registrationToken\": \"2f1d2c44-39a6-4b51-9d0c-9a0b1d8e0c55\"}";
    } else if (ends_with(r->url, "/testresult")) {
        body = "{\"testResult\": 0}";
    }
    encore_http_response_set_status(response, status);
    encore_http_response_append_body(response, (const uint8_t *)body, strlen(body));
    return 0;
}

static void test_result_poll_step_by_step(void) {
    encore_store *store = fresh_store();
    int64_t clock_now = NOW;  /* the test's clock, which it moves */
    encore_client *app = tests_client(store, NULL, VERIFY, SUBMIT, &clock_now);
    encore_operation *op = NULL;
    CHECK(encore_test_poll_start(app, &op) == ENCORE_ERR_NOT_REGISTERED);
    CHECK(op == NULL);

    encore_transport *t = NULL;
    CHECK(encore_transport_new_callback(registration_server, NULL, NULL, &t) == ENCORE_OK);
    encore_test_key key = {sizeof(encore_test_key), ENCORE_TEST_KEY_GUID, 0, 0, GUID, NULL};
    encore_test_status st;
    ENCORE_OUTPUT_INIT(st);
    encore_client *registering = tests_client(store, t, VERIFY, SUBMIT, &clock_now);
    CHECK(encore_test_register_run(registering, &key, &st) == ENCORE_OK);
    CHECK(st.result == ENCORE_TEST_RESULT_PENDING);
    encore_client_free(registering);
    encore_transport_free(t);

    clock_now = NOW + 3600;
    CHECK(encore_test_poll_start(app, &op) == ENCORE_OK);
    /* The real request, then a fake TAN request and a fake upload. */
    encore_operation_step s = next(op, NOW + 3600);
    CHECK(s.kind == ENCORE_STEP_REQUEST && ends_with(s.url, "/version/v1/testresult"));
    const char *positive = "{\"testResult\": 2, \"sc\": 1795400000}";
    CHECK(encore_operation_feed_answer(op, s.request_id, 200, NULL, 0, (const uint8_t *)positive, strlen(positive), NOW + 3600) == ENCORE_OK);
    /* Stored as it was fed, before the fakes. */
    encore_test_status stored;
    ENCORE_OUTPUT_INIT(stored);
    CHECK(encore_test_get_status(app, &stored) == ENCORE_OK);
    CHECK(stored.result == ENCORE_TEST_RESULT_POSITIVE && stored.sample_collected_at == 1795400000);
    CHECK(encore_operation_get_test_status(op, &st) == ENCORE_ERR_OPERATION_STATE);

    s = next(op, NOW + 3600);
    CHECK(s.kind == ENCORE_STEP_REQUEST && ends_with(s.url, "/version/v1/tan"));
    size_t fake_tan_size = s.body_length;
    /* A fake request's failure does not matter. */
    CHECK(encore_operation_feed_failure(op, s.request_id, ENCORE_ERR_TIMEOUT, NOW + 3600) == ENCORE_OK);
    s = next(op, NOW + 3600);
    CHECK(s.kind == ENCORE_STEP_REQUEST && ends_with(s.url, "/version/v1/diagnosis-keys"));
    CHECK(fake_tan_size > 0);
    CHECK(encore_operation_feed_answer(op, s.request_id, 500, NULL, 0, NULL, 0, NOW + 3600) == ENCORE_OK);
    CHECK(next(op, NOW + 3600).kind == ENCORE_STEP_DONE);
    CHECK(encore_operation_get_status(op) == ENCORE_OK);

    /* The typed result, with the one-time notification. */
    memset(&st, 0, sizeof st);
    ENCORE_OUTPUT_INIT(st);
    CHECK(encore_operation_get_test_status(op, &st) == ENCORE_OK);
    CHECK(st.registered == 1 && st.result == ENCORE_TEST_RESULT_POSITIVE && st.notify == 1);
    encore_operation_step small;
    small.struct_size = 8;
    CHECK(encore_operation_next(op, NOW, &small) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_operation_free(op);

    /* A refusal of the real request ends the poll, with no fakes after it. */
    clock_now = NOW + 7200;
    CHECK(encore_test_poll_start(app, &op) == ENCORE_OK);
    s = next(op, NOW + 7200);
    CHECK(encore_operation_feed_answer(op, s.request_id, 400, NULL, 0, NULL, 0, NOW + 7200) == ENCORE_OK);
    CHECK(next(op, NOW + 7200).kind == ENCORE_STEP_DONE);
    CHECK(encore_operation_get_status(op) == ENCORE_ERR_SERVER_REFUSED);
    encore_operation_free(op);

    encore_operation_free(NULL);
    CHECK(encore_operation_get_status(NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(app);
    encore_store_close(store);
}

/* A CWA sync driven by hand with canned answers: the configuration gets no
 * answer (the sync goes on with the built-in one), the day index lists no
 * day, the hour index no hour, the warning index nothing; the result is
 * the sync's summary. Out of turn is refused; nothing to sync is an error
 * before any request. */
static void test_sync_step_by_step(void) {
    encore_store *store = fresh_store();
    encore_trust *trust = NULL;
    CHECK(encore_trust_new(&trust) == ENCORE_OK);
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client_options co = test_client_options(NULL, &clock_now);
    co.trust = trust;
    encore_client *client = test_client(store, &co);
    encore_operation *op = NULL;
    CHECK(encore_sync_start(client, NULL, &op) == ENCORE_ERR_INVALID_ARGUMENT && op == NULL);  /* nothing to sync */
    encore_client_free(client);
    co.distribution_url = "https://distribution.example";
    client = test_client(store, &co);
    CHECK(encore_sync_start(client, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_sync_start(client, NULL, &op) == ENCORE_OK);
    encore_client_free(client);
    encore_trust_free(trust); /* the operation keeps what it needs */

    encore_operation_step s = next(op, NOW);
    CHECK(s.kind == ENCORE_STEP_REQUEST && ends_with(s.url, "/version/v2/app_config_android"));
    encore_operation_step again;
    ENCORE_OUTPUT_INIT(again);
    CHECK(encore_operation_next(op, NOW, &again) == ENCORE_ERR_OPERATION_STATE);
    CHECK(encore_operation_feed_failure(op, s.request_id, ENCORE_ERR_NETWORK, NOW) == ENCORE_OK);
    const char *empty = "[]";
    const char *tails[] = {"/country/EUR/date", "/hour", "/DE/"};
    for (size_t i = 0; i < sizeof tails / sizeof *tails; i++) {
        s = next(op, NOW);
        CHECK(s.kind == ENCORE_STEP_REQUEST);
        if (s.kind != ENCORE_STEP_REQUEST) break;
        CHECK(strstr(s.url, "/version/v") != NULL && strstr(s.url, tails[i]) != NULL);
        if (i == 2) { /* no warnings announced */
            CHECK(encore_operation_feed_answer(op, s.request_id, 404, NULL, 0, NULL, 0, NOW) == ENCORE_OK);
        } else {
            CHECK(encore_operation_feed_answer(op, s.request_id, 200, NULL, 0, (const uint8_t *)empty, 2, NOW) == ENCORE_OK);
        }
    }
    CHECK(next(op, NOW).kind == ENCORE_STEP_DONE);
    CHECK(encore_operation_get_status(op) == ENCORE_OK);
    encore_sync_result *result = NULL;
    CHECK(encore_operation_get_test_status(op, &(encore_test_status){.struct_size = sizeof(encore_test_status)}) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_operation_get_sync_result(op, &result) == ENCORE_OK);
    encore_sync_summary summary;
    ENCORE_OUTPUT_INIT(summary);
    CHECK(encore_sync_result_get_summary(result, &summary) == ENCORE_OK);
    CHECK(summary.fetched == 0 && summary.configuration == ENCORE_SYNC_CONFIG_BUILT_IN && summary.config_failures == 1);
    CHECK(summary.has_check == 0 && summary.stopped_early == 0);
    encore_sync_result_free(result);
    encore_operation_free(op);
    encore_store_close(store);
}

/* A key file's answer is kept as it came when it is fed: the feed reads its
 * status and ETag only, verifies nothing and stores nothing (feeding stays
 * light for the host's loop); the ENCORE_STEP_COMPUTE that follows verifies
 * it, and one that fails verification is never stored and ends the sync. */
static int day_cached(encore_client *client, const char *day) {
    int32_t has = -1;
    CHECK(encore_keyfile_cache_has(client, "EUR", day, NULL, &has) == ENCORE_OK);
    return has;
}

static void test_sync_verifies_a_key_file_in_its_compute_step(void) {
    encore_store *store = fresh_store();
    encore_trust *trust = NULL;
    CHECK(encore_trust_new(&trust) == ENCORE_OK);
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client_options co = test_client_options(NULL, &clock_now);
    co.trust = trust;
    co.distribution_url = "https://distribution.example";
    encore_client *client = test_client(store, &co);
    encore_operation *op = NULL;
    CHECK(encore_sync_start(client, NULL, &op) == ENCORE_OK);
    encore_trust_free(trust);

    encore_operation_step s = next(op, NOW);
    CHECK(s.kind == ENCORE_STEP_REQUEST && ends_with(s.url, "/version/v2/app_config_android"));
    CHECK(encore_operation_feed_failure(op, s.request_id, ENCORE_ERR_NETWORK, NOW) == ENCORE_OK);
    s = next(op, NOW);
    CHECK(s.kind == ENCORE_STEP_REQUEST && ends_with(s.url, "/country/EUR/date"));
    const char *index = "[\"2026-11-23\"]";
    CHECK(encore_operation_feed_answer(op, s.request_id, 200, NULL, 0, (const uint8_t *)index, strlen(index), NOW) == ENCORE_OK);
    s = next(op, NOW);
    CHECK(s.kind == ENCORE_STEP_REQUEST && ends_with(s.url, "/country/EUR/date/2026-11-23"));
    /* Not a key file at all: the feed takes it, the operation goes on. */
    const char *junk = "PK\003\004 not a zip, not signed";
    encore_http_header etag = {"ETag", "\"day-1\""};
    CHECK(encore_operation_feed_answer(op, s.request_id, 200, &etag, 1, (const uint8_t *)junk, strlen(junk), NOW) == ENCORE_OK);
    CHECK(encore_operation_get_status(op) == ENCORE_ERR_OPERATION_STATE);
    CHECK(day_cached(client, "2026-11-23") == 0);
    CHECK(next(op, NOW).kind == ENCORE_STEP_COMPUTE);
    CHECK(encore_operation_compute(op, NOW, NULL, NULL) == ENCORE_OK);
    encore_status failed = encore_operation_get_status(op);
    CHECK(failed != ENCORE_OK && failed != ENCORE_ERR_OPERATION_STATE);
    CHECK(next(op, NOW).kind == ENCORE_STEP_DONE);
    CHECK(day_cached(client, "2026-11-23") == 0);
    encore_operation_free(op);
    encore_client_free(client);
    encore_store_close(store);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "operation") != 0) return 1;
    test_push_registration_step_by_step();
    test_push_registration_without_answers();
    test_result_poll_step_by_step();
    test_sync_step_by_step();
    test_sync_verifies_a_key_file_in_its_compute_step();
    scratch_dir_remove(dir);
    return check_report();
}
