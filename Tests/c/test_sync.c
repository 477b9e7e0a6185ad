/* C tests of background sync through the .so, with a host transport that
 * plays the servers in a few lines: the plan before and after a sync, a
 * DP-3T sync with nothing new (204) and its bundle tag, the statuses of
 * failing and hostile answers (503, a broken index, an unsigned package, a
 * package without an ETag) and the backoff they start, cancellation through
 * progress, the check on an empty cache, argument checks, and the host's
 * callback called on the thread of the encore call only. Signed
 * packages and whole syncs are tested from Python (Tests/cli/test_cli_sync.py)
 * against the stand-in servers. Built with -Werror, run under valgrind. */
#include "check.h"
#include "client.h"
#include "fresh_store.h"

#include <pthread.h>
#include <stddef.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>

#define NOW 1795500000LL
#define DIST "https://distribution.example"
#define DP3T "https://dp3t.example"

static const char pem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEml59itec9qzwVojreLXdPNRsUWzf\n"
    "YHc1cKvIIi6/H56AJS/kZEYQnfDpxrgyGhdAm+pNN2GAJ3XdnQZ1Sk4amg==\n"
    "-----END PUBLIC KEY-----\n";

typedef enum { CONFIG_503, INDEX_BROKEN, DAY_UNSIGNED, DAY_NO_ETAG, DP3T_204, CONFIG_404_NOTHING_ELSE } scenario;

typedef struct server {
    scenario scenario;
    int requests;
    char last_url[512];
    pthread_t caller;     /* the thread that calls encore */
    int other_thread;     /* a request came on another thread */
    int64_t now;          /* the clients' clock (encore_client_options.clock) */
} server;

static int32_t serve(void *context, const encore_http_request *r, encore_http_response *response) {
    server *s = context;
    s->requests++;
    if (!pthread_equal(pthread_self(), s->caller)) s->other_thread = 1;
    snprintf(s->last_url, sizeof s->last_url, "%s", r->url);
    const char *body = "";
    int status = 200;
    if (s->scenario == CONFIG_404_NOTHING_ELSE) {
        /* No configuration, an empty day index, no hours, no warnings. */
        int index = strstr(r->url, "/date") != NULL && strstr(r->url, "/date/") == NULL;
        status = index ? 200 : 404;
        body = index ? "[]" : "";
    } else if (strstr(r->url, "/app_config_android") != NULL) {
        status = s->scenario == CONFIG_503 ? 503 : 304;
    } else if (strstr(r->url, "/date/") == NULL && strstr(r->url, "/date") != NULL) {
        /* Two days: the second is fetched while the first is verified. */
        body = s->scenario == INDEX_BROKEN ? "[\"2026-13-40\"]" : "[\"2026-11-22\",\"2026-11-23\"]";
    } else if (strstr(r->url, "/date/") != NULL) {
        body = "PK not really a zip";
        if (s->scenario != DAY_NO_ETAG) encore_http_response_add_header(response, "ETag", "\"abc\"");
    } else if (strstr(r->url, "/v2/gaen/exposed") != NULL) {
        status = 204;
        encore_http_response_add_header(response, "x-key-bundle-tag", "1795496400000");
    }
    encore_http_response_set_status(response, status);
    encore_http_response_append_body(response, (const uint8_t *)body, strlen(body));
    return 0;
}

/* *s set to play `scenario` to the calling thread at NOW, and a transport to it. */
static encore_transport *serving(server *s, scenario scenario) {
    server fresh = {scenario, 0, "", pthread_self(), 0, NOW};
    *s = fresh;
    encore_transport *t = NULL;
    CHECK(encore_transport_new_callback(serve, s, NULL, &t) == ENCORE_OK);
    return t;
}

/* Frees what a test made (client may be NULL). */
static void finish(encore_client *client, encore_transport *t, encore_store *store) {
    encore_client_free(client);
    encore_transport_free(t);
    encore_store_close(store);
}

static encore_sync_options sync_options(void) {
    encore_sync_options o;
    CHECK(encore_sync_options_init(&o, sizeof o) == ENCORE_OK);
    return o;
}

/* The plan of a periodic sync (o's trigger set to it) a minute after NOW. */
static encore_sync_plan_info periodic_plan_a_minute_later(encore_client *client, encore_sync_options *o, server *s) {
    encore_sync_plan_info plan;
    memset(&plan, 0, sizeof plan);
    ENCORE_OUTPUT_INIT(plan);
    o->trigger = ENCORE_SYNC_PERIODIC;
    s->now = NOW + 60;
    CHECK(encore_sync_plan(client, o, &plan) == ENCORE_OK);
    return plan;
}

/* A client of `store` syncing from the CWA distribution server through `t`. */
static encore_client *cwa_client(encore_store *store, encore_transport *t, int64_t *now) {
    encore_client_options o = test_client_options(t, now);
    o.distribution_url = DIST;
    return test_client(store, &o);
}

static void test_failures_and_their_statuses(void) {
    static const struct { scenario scenario; encore_status status; } cases[] = {
        /* The configuration's 503 does not stop the sync: the day packages
         * are fetched all the same (and these are refused). */
        {CONFIG_503, ENCORE_ERR_ZIP_NOT_ZIP},
        {INDEX_BROKEN, ENCORE_ERR_PROTOCOL},
        {DAY_UNSIGNED, ENCORE_ERR_ZIP_NOT_ZIP},
        {DAY_NO_ETAG, ENCORE_ERR_PROTOCOL},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        encore_store *store = fresh_store();
        server s;
        encore_transport *t = serving(&s, cases[i].scenario);
        encore_client *client = cwa_client(store, t, &s.now);
        encore_sync_options o = sync_options();
        encore_sync_result *r = (encore_sync_result *)&s; /* must stay as it is on failure */
        CHECK(encore_sync_run(client, &o, &r) == cases[i].status);
        CHECK(r == (encore_sync_result *)&s);
        CHECK(strlen(encore_last_error_message()) > 0);
        CHECK(s.other_thread == 0);
        /* Nothing was kept, and a periodic sync now backs off. */
        encore_string_list *ids = NULL;
        CHECK(encore_keyfile_cache_list(client, "EUR", &ids) == ENCORE_OK);
        size_t count = 1;
        CHECK(encore_string_list_count(ids, &count) == ENCORE_OK && count == 0);
        encore_string_list_free(ids);
        encore_sync_plan_info plan = periodic_plan_a_minute_later(client, &o, &s);
        CHECK(plan.steps == 0 && plan.has_next_due && plan.next_due_at >= NOW + 240 && plan.next_due_at <= NOW + 360);
        /* A user sync goes anyway. */
        o.trigger = ENCORE_SYNC_USER;
        CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_OK);
        CHECK(plan.steps == (ENCORE_SYNC_STEP_CONFIG | ENCORE_SYNC_STEP_DAYS | ENCORE_SYNC_STEP_HOURS | ENCORE_SYNC_STEP_WARNINGS));
        finish(client, t, store);
    }
}

static int32_t stop_after_first(void *context, uint64_t done, uint64_t total) {
    (void)context;
    (void)total;
    return done >= 1;
}

/* A configuration answering 404 does not fail the sync: it goes on with
 * the built-in configuration and says so; the failure counts for the
 * configuration's own backoff (not the sync's). */
static void test_a_configuration_outage_degrades(void) {
    encore_store *store = fresh_store();
    server s;
    encore_transport *t = serving(&s, CONFIG_404_NOTHING_ELSE);
    encore_client *client = cwa_client(store, t, &s.now);
    encore_sync_options o = sync_options();
    for (uint32_t n = 1; n <= 2; n++) {
        encore_sync_result *r = NULL;
        CHECK(encore_sync_run(client, &o, &r) == ENCORE_OK && r != NULL);
        encore_sync_summary sum;
        memset(&sum, 0, sizeof sum);
        ENCORE_OUTPUT_INIT(sum);
        CHECK(encore_sync_result_get_summary(r, &sum) == ENCORE_OK);
        CHECK(sum.configuration == ENCORE_SYNC_CONFIG_BUILT_IN && sum.config_failures == n);
        encore_bytes json = {0};
        CHECK(encore_sync_result_get_json(r, &json) == ENCORE_OK);
        CHECK(strstr((const char *)json.data, "\"used\":\"built-in\"") != NULL);
        CHECK(strstr((const char *)json.data, "404") != NULL);
        encore_bytes_free(&json);
        encore_sync_result_free(r);
    }
    /* The sync itself succeeded: a periodic one is due in an hour, not backing off. */
    encore_sync_plan_info plan = periodic_plan_a_minute_later(client, &o, &s);
    CHECK(plan.steps == 0 && plan.has_next_due && plan.next_due_at == NOW + 3600);
    finish(client, t, store);
}

static void test_dp3t_nothing_new_and_cancel(void) {
    encore_store *store = fresh_store();
    server s;
    encore_transport *t = serving(&s, DP3T_204);
    encore_client_options co = test_client_options(t, &s.now);
    co.dp3t_url = DP3T;
    co.dp3t_public_key = (const uint8_t *)pem;
    co.dp3t_public_key_length = sizeof pem - 1;
    encore_client *client = test_client(store, &co);
    encore_sync_options o = sync_options();
    encore_sync_plan_info plan;
    memset(&plan, 0, sizeof plan);
    ENCORE_OUTPUT_INIT(plan);
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_OK && plan.steps == ENCORE_SYNC_STEP_DP3T);

    encore_sync_result *r = NULL;
    CHECK(encore_sync_run(client, &o, &r) == ENCORE_OK && r != NULL);
    CHECK(strstr(s.last_url, "lastKeyBundleTag") == NULL);
    encore_sync_summary sum;
    memset(&sum, 0, sizeof sum);
    ENCORE_OUTPUT_INIT(sum);
    CHECK(encore_sync_result_get_summary(r, &sum) == ENCORE_OK);
    CHECK(sum.fetched == 0 && sum.has_check == 0 && sum.stopped_early == 0 && sum.has_next_due && TIME_NEAR(sum.next_due_at, NOW + 4 * 3600));
    encore_check_result *check = NULL;
    CHECK(encore_sync_result_get_check(r, &check) == ENCORE_ERR_NOT_FOUND && check == NULL);
    encore_bytes json = {0};
    CHECK(encore_sync_result_get_json(r, &json) == ENCORE_OK && json.length > 0);
    CHECK(strstr((const char *)json.data, "\"fetched\"") != NULL);
    encore_bytes_free(&json);
    encore_sync_result_free(r);
    encore_sync_result_free(NULL);

    /* The tag of the 204 goes with the next request. */
    CHECK(encore_sync_run(client, NULL, &r) == ENCORE_OK);
    CHECK(strstr(s.last_url, "lastKeyBundleTag=1795496400000") != NULL);
    encore_sync_result_free(r);

    /* Progress that says stop: cancelled after the first request. */
    int before = s.requests;
    encore_client *cwa = cwa_client(store, t, &s.now);
    o.progress = stop_after_first;
    CHECK(encore_sync_run(cwa, &o, &r) == ENCORE_ERR_CANCELLED);
    CHECK(s.requests == before + 1);
    encore_client_free(cwa);

    /* The check on an empty cache runs (OUTDATED: no keys). */
    encore_match_options m;
    CHECK(encore_match_options_init(&m, sizeof m, 0) == ENCORE_OK);  /* the time: the client's clock */
    CHECK(encore_exposure_check_cached(client, NULL, &m, NULL, &check) == ENCORE_OK && check != NULL);
    encore_check_summary cs;
    memset(&cs, 0, sizeof cs);
    ENCORE_OUTPUT_INIT(cs);
    CHECK(encore_check_result_get_summary(check, &cs) == ENCORE_OK && cs.status == ENCORE_CHECK_OUTDATED);
    encore_check_result_free(check);

    /* check_options->full: the stored document says which kind of check ran;
     * a caller built before the field (its smaller struct_size) gets the
     * incremental check; full is 0 or 1. */
    encore_check_options checko;
    CHECK(encore_check_options_init(&checko, sizeof checko) == ENCORE_OK && checko.full == 0);
    const char *kinds[] = {"\"kind\":\"incremental\"", "\"kind\":\"full\""};
    for (int full = 0; full <= 1; full++) {
        checko.full = full;
        check = NULL;
        CHECK(encore_exposure_check_cached(client, NULL, &m, &checko, &check) == ENCORE_OK && check != NULL);
        encore_check_result_free(check);
        encore_risk_result last;
        memset(&last, 0, sizeof last);
        ENCORE_OUTPUT_INIT(last);
        encore_bytes doc = {0};
        CHECK(encore_risk_result_get_last(client, &last, &doc) == ENCORE_OK && doc.data != NULL);
        char *text = calloc(doc.length + 1, 1);
        CHECK(text != NULL);
        memcpy(text, doc.data, doc.length);
        CHECK(strstr(text, kinds[full]) != NULL);
        free(text);
        encore_bytes_free(&doc);
    }
    checko.struct_size = (uint32_t)offsetof(encore_check_options, full);
    CHECK(encore_exposure_check_cached(client, NULL, &m, &checko, &check) == ENCORE_OK);
    encore_check_result_free(check);
    checko.struct_size = sizeof checko;
    checko.full = 2;
    CHECK(encore_exposure_check_cached(client, NULL, &m, &checko, &check) == ENCORE_ERR_INVALID_ARGUMENT);
    finish(client, t, store);
}

static void test_arguments(void) {
    encore_store *store = fresh_store();
    server s;
    encore_transport *t = serving(&s, DP3T_204);
    encore_sync_options o;
    CHECK(encore_sync_options_init(NULL, sizeof o) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_sync_options_init(&o, 4) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_sync_options_init(&o, sizeof o) == ENCORE_OK);
    CHECK(o.trigger == ENCORE_SYNC_USER && o.network == ENCORE_NETWORK_UNMETERED && o.run_check == 1 && o.budget_seconds == 480);
    encore_sync_plan_info plan;
    memset(&plan, 0, sizeof plan);
    ENCORE_OUTPUT_INIT(plan);
    encore_client_options co = test_client_options(t, &s.now);
    encore_client *client = test_client(store, &co);
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_ERR_INVALID_ARGUMENT);  /* nothing to sync */
    encore_client_free(client);
    client = cwa_client(store, t, &s.now);
    CHECK(encore_sync_plan(NULL, &o, &plan) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_sync_plan(client, NULL, &plan) == ENCORE_OK);  /* the defaults */
    CHECK(encore_sync_plan(client, &o, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    s.now = -1;  /* a host clock before 1970 */
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "clock") != NULL);
    s.now = NOW;
    o.trigger = 99;
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_ERR_INVALID_ARGUMENT);
    o = sync_options();
    o.network = -1;
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_ERR_INVALID_ARGUMENT);
    o = sync_options();
    o.budget_seconds = 0;
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_ERR_INVALID_ARGUMENT);
    o = sync_options();
    o.network = ENCORE_NETWORK_NONE;
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_OK && plan.steps == 0 && plan.has_next_due == 0);
    encore_client_free(client);
    /* The servers' settings are checked when the client is made, or when a
     * sync is planned (a country's form, a DP-3T backend without its key). */
    co = test_client_options(t, &s.now);
    co.distribution_url = DIST;
    co.country = "eur";
    client = test_client(store, &co);
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(client);
    co = test_client_options(t, &s.now);
    co.dp3t_url = DP3T;  /* without its key */
    client = test_client(store, &co);
    CHECK(encore_sync_plan(client, &o, &plan) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(client);
    client = (encore_client *)&s;  /* must stay as it is on failure */
    co.dp3t_public_key = (const uint8_t *)"not a key";
    co.dp3t_public_key_length = 9;
    CHECK(encore_client_new(store, &co, &client) == ENCORE_ERR_KEY_FORMAT && client == (encore_client *)&s);
    co.dp3t_public_key = NULL;
    co.dp3t_public_key_length = 5;
    CHECK(encore_client_new(store, &co, &client) == ENCORE_ERR_INVALID_ARGUMENT);
    /* Plain http to another machine: refused by the transport's URL rule. */
    co = test_client_options(t, &s.now);
    co.distribution_url = "http://distribution.example";
    client = test_client(store, &co);
    o = sync_options();
    encore_sync_result *r = NULL;
    CHECK(encore_sync_run(client, &o, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == NULL);
    CHECK(encore_sync_run(NULL, &o, &r) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_sync_run(client, &o, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_client_free(client);
    encore_sync_summary sum;
    memset(&sum, 0, sizeof sum);
    ENCORE_OUTPUT_INIT(sum);
    CHECK(encore_sync_result_get_summary(NULL, &sum) == ENCORE_ERR_INVALID_ARGUMENT);
    finish(NULL, t, store);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "sync") != 0) return 1;
    test_failures_and_their_statuses();
    test_a_configuration_outage_degrades();
    test_dp3t_nothing_new_and_cancel();
    test_arguments();
    scratch_dir_remove(dir);
    return check_report();
}
