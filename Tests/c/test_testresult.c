/* C tests of test results and key submission through the .so, with a host
 * transport (encore_transport_new_callback) that plays CWA's verification
 * and submission servers in a few lines: the GUID and teleTAN paths, every
 * result value, the servers' error answers, hostile answers, keys refused
 * before any request, the TAN kept across a failed upload, and argument
 * checks. Built with -Werror and run under valgrind by scripts/test-c.sh. */
#include "check.h"
#include "client.h"
#include "fresh_store.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY 86400
#define NOW (20400LL * DAY + 9 * 3600)
#define GUID "3D6D08-3567F3F2-4DCF-43A3-8737-4CD1F87D6FDA"
#define VERIFY "https://verification.example"
#define SUBMIT "https://submission.example"

/* The pretend servers: what they answer, and what they saw. */
typedef struct server {
    int result_code;          /* the testresult answered */
    int status_override;      /* nonzero: answer this status to every real request */
    int fail_transport;       /* nonzero: no answer at all */
    int no_status;            /* answer without a status */
    int huge_body;            /* answer with a body over the limit */
    int submission_status;    /* the upload's status (200 by default) */
    int requests;
    int real_tans;
    int real_uploads;
    int fake_uploads;
    size_t upload_size;
} server;

static const char *header(const encore_http_request *r, const char *name) {
    for (size_t i = 0; i < r->header_count; i++) {
        if (strcmp(r->headers[i].name, name) == 0) return r->headers[i].value;
    }
    return NULL;
}

static int ends_with(const char *s, const char *tail) {
    size_t n = strlen(s), m = strlen(tail);
    return n >= m && strcmp(s + n - m, tail) == 0;
}

static int32_t serve(void *context, const encore_http_request *r, encore_http_response *response) {
    server *s = context;
    s->requests++;
    if (s->fail_transport) return 1;
    if (s->no_status) return 0;
    const char *fake = header(r, "cwa-fake");
    int real = fake != NULL && strcmp(fake, "0") == 0;
    if (s->huge_body) {
        static uint8_t chunk[4096];
        for (int i = 0; i < 1000; i++) {
            if (encore_http_response_append_body(response, chunk, sizeof chunk) != ENCORE_OK) break;
        }
        encore_http_response_set_status(response, 200);
        return 0;
    }
    if (real && s->status_override) {
        encore_http_response_set_status(response, s->status_override);
        return 0;
    }
    char body[256] = "";
    int status = 200;
    if (ends_with(r->url, "/registrationToken")) {
        status = 201;
        snprintf(body, sizeof body, "{\"registrationToken\": \"2f1d2c44-39a6-4b51-9d0c-9a0b1d8e0c55\"}");
    } else if (ends_with(r->url, "/testresult")) {
        snprintf(body, sizeof body, "{\"testResult\": %d, \"sc\": 1700000000}", s->result_code);
    } else if (ends_with(r->url, "/tan")) {
        status = 201;
        if (real) s->real_tans++;
        snprintf(body, sizeof body, "{\"tan\": \"6d1c3a0e-1b2c-4d5e-8f90-123456789abc\"}");
    } else if (ends_with(r->url, "/diagnosis-keys")) {
        if (real) {
            s->real_uploads++;
            s->upload_size = r->body_length;
            status = s->submission_status ? s->submission_status : 200;
        } else {
            s->fake_uploads++;
        }
    }
    encore_http_response_set_status(response, status);
    encore_http_response_add_header(response, "Content-Type", "application/json");
    encore_http_response_append_body(response, (const uint8_t *)body, strlen(body));
    return 0;
}

/* A fresh store with the own keys of the last 16 days. */
static encore_store *store_with_own_keys(void) {
    encore_store *store = fresh_store();
    int64_t clock_now = NOW;
    encore_client *client = clocked_client(store, &clock_now);
    for (int age = 0; age < 16; age++) {
        encore_own_key k;
        memset(&k, 0, sizeof k);
        ENCORE_OUTPUT_INIT(k);
        k.key_data[0] = (uint8_t)age;
        k.key_data[1] = 0x42;
        k.rolling_start_interval_number = (int32_t)((NOW / DAY - age) * 144);
        k.rolling_period = 144;
        k.created = (NOW / DAY - age) * DAY;
        CHECK(encore_own_key_put(client, &k) == ENCORE_OK);
    }
    encore_client_free(client);
    return store;
}

static encore_transport *transport_for(server *s) {
    encore_transport_options o;
    CHECK(encore_transport_options_init(&o, sizeof o) == ENCORE_OK);
    o.max_response_bytes = 64 * 1024;
    encore_transport *t = NULL;
    CHECK(encore_transport_new_callback(serve, s, &o, &t) == ENCORE_OK && t != NULL);
    return t;
}

/* What every test here starts from: the servers `s` (answering as its
 * fields say), the transport `t` to them, a store with own keys `store`,
 * the app's client `app` of both servers on the test's clock `clock_now`
 * (at NOW; the test moves it) and a status `st` to read results into.
 * finish(app, store, t) frees them. */
#define SERVERS_STORE_AND_STATUS                                             \
    server s = {0};                                                          \
    encore_transport *t = transport_for(&s);                                 \
    encore_store *store = store_with_own_keys();                             \
    int64_t clock_now = NOW;                                                 \
    encore_client *app = tests_client(store, t, VERIFY, SUBMIT, &clock_now); \
    encore_test_status st;                                                   \
    ENCORE_OUTPUT_INIT(st)

/* Frees what a test made: the app's client, the store and the transport. */
static void finish(encore_client *app, encore_store *store, encore_transport *t) {
    encore_client_free(app);
    encore_store_close(store);
    encore_transport_free(t);
}

static void test_guid_path(void) {
    SERVERS_STORE_AND_STATUS;
    encore_test_key key = {sizeof(encore_test_key), ENCORE_TEST_KEY_QR_CODE, 0, 0, "https://localhost/?" GUID, NULL};
    CHECK(encore_test_register_run(app, &key, &st) == ENCORE_OK);
    CHECK(st.registered == 1 && st.key_type == ENCORE_TEST_KEY_GUID && st.result == ENCORE_TEST_RESULT_PENDING);
    CHECK(st.notify == 0 && TIME_NEAR(st.next_poll_at, NOW + 7200) && st.sample_collected_at == 1700000000 && st.submitted == 0);
    CHECK(s.requests == 3 && s.fake_uploads == 1);
    CHECK(encore_test_register_run(app, &key, &st) == ENCORE_ERR_ALREADY_REGISTERED);

    encore_submit_summary sum;
    ENCORE_OUTPUT_INIT(sum);
    CHECK(encore_submit_run(app, NULL, &sum) == ENCORE_ERR_NOT_POSITIVE);
    /* Polled by a client without the submission server. */
    encore_client *poller = tests_client(store, t, VERIFY, NULL, &clock_now);
    s.result_code = 2;
    clock_now = NOW + 7200;
    CHECK(encore_test_poll_run(poller, &st) == ENCORE_OK);
    CHECK(st.result == ENCORE_TEST_RESULT_POSITIVE && st.notify == 1 && st.next_poll_at == -1);
    clock_now = NOW + 7300;
    CHECK(encore_test_poll_run(poller, &st) == ENCORE_OK && st.notify == 0);
    encore_client_free(poller);

    encore_submit_options so;
    CHECK(encore_submit_options_init(&so, sizeof so) == ENCORE_OK);
    so.symptoms = ENCORE_SYMPTOMS_ONSET_DATE;
    so.onset = (NOW / DAY - 3) * DAY;
    const char *visited[] = {"FR", "NL"};
    so.visited_countries = visited;
    so.visited_country_count = 2;
    so.consent_to_federation = 1;
    clock_now = NOW + 8000;
    CHECK(encore_submit_run(app, &so, &sum) == ENCORE_OK);
    CHECK(sum.keys == 14 && sum.check_ins == 0 && TIME_NEAR(sum.submitted_at, NOW + 8000) && s.upload_size == 1000);
    CHECK(s.real_tans == 1 && s.real_uploads == 1);
    CHECK(encore_test_get_status(app, &st) == ENCORE_OK && st.submitted == 1 && st.submitted_keys == 14 && st.has_tan == 0);
    clock_now = NOW + 9000;
    CHECK(encore_submit_run(app, &so, &sum) == ENCORE_ERR_ALREADY_SUBMITTED);

    int32_t existed = -1;
    CHECK(encore_test_forget(app, &existed) == ENCORE_OK && existed == 1);
    CHECK(encore_test_get_status(app, &st) == ENCORE_OK && st.registered == 0 && st.result == ENCORE_TEST_RESULT_NONE);
    CHECK(encore_test_forget(app, &existed) == ENCORE_OK && existed == 0);
    finish(app, store, t);
}

static void test_teletan_and_every_result(void) {
    SERVERS_STORE_AND_STATUS;
    /* "3FTQ6N3PV" + its check character. */
    encore_test_key bad = {sizeof(encore_test_key), ENCORE_TEST_KEY_TELETAN, 0, 0, "3FTQ6N3PVA", NULL};
    int before = s.requests;
    int rc = encore_test_register_run(app, &bad, &st);
    /* Either the check character was A, or the teleTAN is refused before any request. */
    CHECK(rc == ENCORE_OK || (rc == ENCORE_ERR_TEST_KEY && s.requests == before));
    encore_client_free(app);
    encore_store_close(store);

    for (int code = 0; code < 10; code++) {
        store = store_with_own_keys();
        app = tests_client(store, t, VERIFY, SUBMIT, &clock_now);
        s.result_code = code;
        encore_test_key key = {sizeof(encore_test_key), ENCORE_TEST_KEY_GUID, code >= 5, 0, GUID, "1990-03-15"};
        if (code % 5 == 4) {
            /* Redeemed at registration: discarded, as the app does. */
            CHECK(encore_test_register_run(app, &key, &st) == ENCORE_ERR_TEST_REDEEMED);
            CHECK(encore_test_get_status(app, &st) == ENCORE_OK && st.registered == 0);
        } else {
            CHECK(encore_test_register_run(app, &key, &st) == ENCORE_OK);
            CHECK(st.result == code % 5 && st.rapid == (code >= 5) && st.notify == (code % 5 != 0));
            CHECK(st.test_type == (code >= 5 ? ENCORE_TEST_TYPE_RAPID_ANTIGEN : ENCORE_TEST_TYPE_PCR));
        }
        encore_client_free(app);
        encore_store_close(store);
    }
    /* The other kind's codes are INVALID: a PCR verdict for a rapid antigen
     * test, a rapid antigen verdict for a PCR test. */
    for (int rapid = 0; rapid <= 1; rapid++) {
        store = store_with_own_keys();
        app = tests_client(store, t, VERIFY, SUBMIT, &clock_now);
        s.result_code = rapid ? 2 : 7;
        encore_test_key key = {sizeof(encore_test_key), ENCORE_TEST_KEY_GUID, (uint32_t)rapid, 0, GUID, NULL};
        CHECK(encore_test_register_run(app, &key, &st) == ENCORE_OK);
        CHECK(st.result == ENCORE_TEST_RESULT_INVALID && st.rapid == rapid);
        encore_client_free(app);
        encore_store_close(store);
    }
    encore_transport_free(t);
}

/* CWA Android's test codes (TestQrCodes.kt raQrCode3, raQrAnonymousInvalidHash, raPcrCode1). */
#define RA_QR_CODE_3 "https://s.coronawarn.app?v=1#eyJ0aW1lc3RhbXAiOjE2MTk2MTgzNTIsInNhbHQiOiJDRjBDNTQ3RkY2RDMwOTlBMkIwNkMxQzRFNEYwOEFGOSIsInRlc3RpZCI6ImY0N2VmODA0LTZmMGMtNDhiMy1hODY5LWUyZjg4NmIxMjU0ZiIsImhhc2giOiI3ZGNlMDhkYjBkNGFiZDVhYzFkMjQ5OGI1NzFhZmIyMjFjYTk0N2M3NWM4NDdkMDU0NjZiNGNmZTlkOTVkYzY2IiwiZm4iOiJKYWNvYiIsImxuIjoiVHlsZXIiLCJkb2IiOiIxOTYzLTAzLTE3In0="
#define RA_QR_INVALID_HASH "https://s.coronawarn.app?v=1#eyJ0aW1lc3RhbXAiOjE2Mjc0MDM2NzUsInNhbHQiOiJGQjRDMzZENDVFMjBBMkMwNzExNUFDMzIwMkI5OThBMiIsInRlc3RpZCI6IjlhYTNmMDM3LWM3MjgtNDRmNy1iMGVmLWVmMWM4MjdiYjAzNSIsImhhc2giOiI3MmQyYmJkNmMwM2QwMGFkMWRlZWQxYjE0Y2MzYjk4ZTVmMTQ1M2U5MDEzYTNiNWE1NTc2MDY1NmYzMWU4YmQ5In0"
#define RA_PCR_CODE_1 "https://p.coronawarn.app?v=1#eyJ0aW1lc3RhbXAiOjE2NDQyNzQ5MjAsInNhbHQiOiIzMjg0QzRGODUzNjgyQkI2MTBFMzAxQzY3QTUxOEZFOSIsInRlc3RpZCI6IjU4Y2E2OThmLTFmNmUtNDU3Zi1hMzcwLWU1OTVlY2IzNGZkNSIsImhhc2giOiJlNmRjZDVlNmZiMjgwMmYwODhmOTMxMDA2ZjQzNDYwZjBiMTYwNGRhNTRkNzgyOTljMDEwZTQxMTljYTA4ODJlIiwiZm4iOiJJc2FhYyIsImxuIjoiRHVwdXkiLCJkb2IiOiIxOTY1LTEyLTA4In0"

static void test_rapid_codes(void) {
    SERVERS_STORE_AND_STATUS;
    /* A hash that does not match: refused before any request. */
    encore_test_key wrong = {sizeof(encore_test_key), ENCORE_TEST_KEY_QR_CODE, 0, 0, RA_QR_INVALID_HASH, NULL};
    CHECK(encore_test_register_run(app, &wrong, &st) == ENCORE_ERR_TEST_CODE_HASH && s.requests == 0);
    /* A date of birth never goes with a rapid code. */
    encore_test_key with_dob = {sizeof(encore_test_key), ENCORE_TEST_KEY_QR_CODE, 0, 0, RA_QR_CODE_3, "1963-03-17"};
    CHECK(encore_test_register_run(app, &with_dob, &st) == ENCORE_ERR_TEST_KEY && s.requests == 0);
    /* A rapid antigen code: the code says it is one (rapid 0), positive, submitted as a rapid test. */
    s.result_code = 7;
    encore_test_key rat = {sizeof(encore_test_key), ENCORE_TEST_KEY_QR_CODE, 0, 0, RA_QR_CODE_3, NULL};
    CHECK(encore_test_register_run(app, &rat, &st) == ENCORE_OK);
    CHECK(st.test_type == ENCORE_TEST_TYPE_RAPID_ANTIGEN && st.rapid == 1 && st.result == ENCORE_TEST_RESULT_POSITIVE);
    CHECK(st.tested_at == 1700000000 && st.sample_collected_at == 1700000000 && st.outdated == 0);
    CHECK(encore_test_forget(app, NULL) == ENCORE_OK);
    /* A rapid PCR code is a PCR test: rapid 1 with it is an error; its results are 0-4. */
    encore_test_key pcr = {sizeof(encore_test_key), ENCORE_TEST_KEY_QR_CODE, 1, 0, RA_PCR_CODE_1, NULL};
    CHECK(encore_test_register_run(app, &pcr, &st) == ENCORE_ERR_INVALID_ARGUMENT);
    pcr.rapid = 0;
    s.result_code = 1;
    CHECK(encore_test_register_run(app, &pcr, &st) == ENCORE_OK);
    CHECK(st.test_type == ENCORE_TEST_TYPE_RAPID_PCR && st.rapid == 0 && st.result == ENCORE_TEST_RESULT_NEGATIVE);
    finish(app, store, t);
}

static void test_errors(void) {
    SERVERS_STORE_AND_STATUS;
    encore_test_key key = {sizeof(encore_test_key), ENCORE_TEST_KEY_GUID, 0, 0, GUID, NULL};
    int codes[][2] = {{400, ENCORE_ERR_SERVER_REFUSED}, {404, ENCORE_ERR_SERVER_REFUSED}, {429, ENCORE_ERR_SERVER_UNAVAILABLE},
                      {500, ENCORE_ERR_SERVER_UNAVAILABLE}, {301, ENCORE_ERR_PROTOCOL}};
    for (size_t i = 0; i < sizeof codes / sizeof codes[0]; i++) {
        s.status_override = codes[i][0];
        CHECK(encore_test_register_run(app, &key, &st) == codes[i][1]);
    }
    s.status_override = 0;
    s.fail_transport = 1;
    CHECK(encore_test_register_run(app, &key, &st) == ENCORE_ERR_NETWORK);
    s.fail_transport = 0;
    s.no_status = 1;
    CHECK(encore_test_register_run(app, &key, &st) == ENCORE_ERR_PROTOCOL);
    s.no_status = 0;
    s.huge_body = 1;
    CHECK(encore_test_register_run(app, &key, &st) == ENCORE_ERR_RESPONSE_TOO_LARGE);
    s.huge_body = 0;
    CHECK(encore_test_get_status(app, &st) == ENCORE_OK && st.registered == 0);

    /* Keys that cannot be right: refused before any request. */
    const encore_test_key bad[] = {
        {sizeof(encore_test_key), ENCORE_TEST_KEY_QR_CODE, 0, 0, "https://example.org/?" GUID, NULL},
        {sizeof(encore_test_key), ENCORE_TEST_KEY_GUID, 0, 0, "not a guid", NULL},
        {sizeof(encore_test_key), ENCORE_TEST_KEY_TELETAN, 0, 0, "0000000000", NULL},
        {sizeof(encore_test_key), ENCORE_TEST_KEY_GUID, 0, 0, GUID, "1990-02-30"},
        {sizeof(encore_test_key), ENCORE_TEST_KEY_GUID, 0, 0, GUID, "15.03.1990"},
    };
    int before = s.requests;
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        CHECK(encore_test_register_run(app, &bad[i], &st) == ENCORE_ERR_TEST_KEY);
    }
    CHECK(s.requests == before);

    /* The TAN is kept across a failed upload, then used. */
    s.result_code = 2;
    CHECK(encore_test_register_run(app, &key, &st) == ENCORE_OK);
    s.submission_status = 503;
    CHECK(encore_submit_run(app, NULL, NULL) == ENCORE_ERR_SERVER_UNAVAILABLE);
    CHECK(encore_test_get_status(app, &st) == ENCORE_OK && st.has_tan == 1);
    s.submission_status = 403;
    CHECK(encore_submit_run(app, NULL, NULL) == ENCORE_ERR_TAN_REFUSED);
    CHECK(encore_test_get_status(app, &st) == ENCORE_OK && st.has_tan == 0 && s.real_tans == 1);
    finish(app, store, t);
}

static void test_arguments(void) {
    SERVERS_STORE_AND_STATUS;
    encore_test_key key = {sizeof(encore_test_key), ENCORE_TEST_KEY_GUID, 0, 0, GUID, NULL};
    CHECK(encore_test_register_run(NULL, &key, &st) == ENCORE_ERR_INVALID_ARGUMENT);
    /* A client that lacks the server, or has one it must not use. */
    const char *verification_urls[] = {NULL, "http://example.org", "ftp://127.0.0.1"};
    for (size_t i = 0; i < sizeof verification_urls / sizeof *verification_urls; i++) {
        encore_client *wrong = tests_client(store, t, verification_urls[i], i == 0 ? NULL : SUBMIT, &clock_now);
        CHECK(encore_test_register_run(wrong, &key, &st) == ENCORE_ERR_INVALID_ARGUMENT);
        if (i == 0) CHECK(strstr(encore_last_error_message(), "verification server") != NULL);
        encore_client_free(wrong);
    }
    CHECK(encore_test_register_run(app, NULL, &st) == ENCORE_ERR_INVALID_ARGUMENT);
    clock_now = -1;
    CHECK(encore_test_register_run(app, &key, &st) == ENCORE_ERR_INVALID_ARGUMENT);
    clock_now = NOW;
    encore_test_key odd = key;
    odd.kind = 9;
    CHECK(encore_test_register_run(app, &odd, &st) == ENCORE_ERR_INVALID_ARGUMENT);
    odd = key;
    odd.rapid = 2;
    CHECK(encore_test_register_run(app, &odd, &st) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(s.requests == 0);
    encore_test_status small;
    memset(&small, 0, sizeof small);
    CHECK(encore_test_get_status(app, &small) == ENCORE_ERR_INVALID_ARGUMENT);   /* struct_size 0 */
    CHECK(encore_test_poll_run(app, &st) == ENCORE_ERR_NOT_REGISTERED);
    CHECK(encore_submit_run(app, NULL, NULL) == ENCORE_ERR_NOT_REGISTERED);
    encore_submit_options so;
    CHECK(encore_submit_options_init(&so, sizeof so) == ENCORE_OK);
    so.symptoms = 42;
    CHECK(encore_submit_run(app, &so, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    so.symptoms = ENCORE_SYMPTOMS_NONE;
    so.visited_country_count = 1;
    CHECK(encore_submit_run(app, &so, NULL) == ENCORE_ERR_INVALID_ARGUMENT);  /* NULL list */

    encore_transport_options o;
    CHECK(encore_transport_options_init(&o, sizeof o) == ENCORE_OK);
    CHECK(o.timeout_ms == 60000 && o.connect_timeout_ms == 10000 && o.max_response_bytes == 16u << 20);
    encore_transport *bad = NULL;
    o.timeout_ms = 0;
    CHECK(encore_transport_new_curl(&o, &bad) == ENCORE_ERR_INVALID_ARGUMENT && bad == NULL);
    CHECK(encore_transport_new_callback(NULL, NULL, NULL, &bad) == ENCORE_ERR_INVALID_ARGUMENT && bad == NULL);
    CHECK(encore_transport_new_curl(NULL, &bad) == ENCORE_OK && bad != NULL);
    /* No server at this port: a network error, not a crash. */
    encore_client *nowhere = tests_client(store, bad, "http://127.0.0.1:1", "http://127.0.0.1:1", &clock_now);
    encore_client *nowhere_to_submit = tests_client(store, bad, "http://127.0.0.1:1", NULL, &clock_now);
    CHECK(encore_test_noise_run(nowhere) == ENCORE_OK);
    CHECK(encore_test_noise_run(nowhere_to_submit) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "submission server") != NULL);   /* fakes: failures do not matter */
    CHECK(encore_test_poll_run(nowhere_to_submit, &st) == ENCORE_ERR_NOT_REGISTERED);
    CHECK(encore_test_register_run(nowhere_to_submit, &key, &st) == ENCORE_ERR_NETWORK);
    encore_client_free(nowhere_to_submit);
    encore_client_free(nowhere);
    encore_transport_free(bad);
    encore_transport_free(NULL);
    CHECK(encore_http_response_set_status(NULL, 200) == ENCORE_ERR_INVALID_ARGUMENT);
    finish(app, store, t);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "testresult") != 0) return 1;
    test_guid_path();
    test_teletan_and_every_result();
    test_rapid_codes();
    test_errors();
    test_arguments();
    scratch_dir_remove(dir);
    return check_report();
}
