/* C tests of results as structs: the sync's items and configuration (from
 * encore_sync_run() and from an operation's result), the push status, and
 * the check-in reports a submission would send. Each struct's struct_size,
 * a too-small one refused with ENCORE_ERR_INVALID_ARGUMENT (nothing
 * written, nothing to free), the library's bytes in them freed (valgrind
 * says so), and the JSON view saying the same. Built with -Werror, run
 * under valgrind. */
#include "check.h"
#include "client.h"
#include "scratch.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define NOW 1795500000LL
#define DIST "https://distribution.example"
#define DP3T "https://dp3t.example"
#define TAG "1795496400000"

static const char pem[] =
    "-----BEGIN PUBLIC KEY-----\n"
    "MFkwEwYHKoZIzj0CAQYIKoZIzj0DAQcDQgAEml59itec9qzwVojreLXdPNRsUWzf\n"
    "YHc1cKvIIi6/H56AJS/kZEYQnfDpxrgyGhdAm+pNN2GAJ3XdnQZ1Sk4amg==\n"
    "-----END PUBLIC KEY-----\n";

/* A real CWA QR code (the iOS app's scanner tests), as in test_checkins.c. */
static const char *REAL_QR =
    "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURh"
    "OIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA";

/* The servers: no configuration (404), an empty day index, nothing else
 * (404), and a DP-3T backend with nothing new since TAG (204). */
static int32_t serve(void *context, const encore_http_request *r, encore_http_response *response) {
    (void)context;
    int status = 404;
    const char *body = "";
    if (strstr(r->url, "/date") != NULL && strstr(r->url, "/date/") == NULL) {
        status = 200;
        body = "[]";
    } else if (strstr(r->url, "/v2/gaen/exposed") != NULL) {
        status = 204;
        encore_http_response_add_header(response, "x-key-bundle-tag", TAG);
    }
    encore_http_response_set_status(response, status);
    encore_http_response_append_body(response, (const uint8_t *)body, strlen(body));
    return 0;
}

static char dir[4096];

static int contains(const encore_bytes *b, const char *text) {
    return b->data != NULL && strstr((const char *)b->data, text) != NULL;
}

/* The result of the sync against serve(): two items (the configuration,
 * failed; the DP-3T bundle, cached) and the built-in configuration. */
static void check_sync_result(encore_sync_result *r) {
    encore_sync_summary sum;
    memset(&sum, 0, sizeof sum);
    ENCORE_OUTPUT_INIT(sum);
    CHECK(encore_sync_result_get_summary(r, &sum) == ENCORE_OK);
    CHECK(sum.item_count == 2 && sum.fetched == 0);
    /* A caller built before the items gets the fields it has, no more. */
    memset(&sum, 0x55, sizeof sum);
    sum.struct_size = (uint32_t)offsetof(encore_sync_summary, item_count);
    CHECK(encore_sync_result_get_summary(r, &sum) == ENCORE_OK);
    CHECK(sum.config_failures == 1 && sum.item_count == 0x55555555u && sum.struct_size == offsetof(encore_sync_summary, item_count));

    /* The items, one page at a time, the same as in one call. */
    encore_sync_item items[3];
    memset(items, 0x55, sizeof items);
    size_t copied = 9;
    CHECK(encore_sync_result_copy_items(r, 0, items, sizeof items[0], 1, &copied) == ENCORE_OK && copied == 1);
    CHECK(encore_sync_result_copy_items(r, 1, items + 1, sizeof items[0], 2, &copied) == ENCORE_OK && copied == 1);
    CHECK(items[0].struct_size == sizeof(encore_sync_item) && items[1].struct_size == sizeof(encore_sync_item));
    CHECK(items[0].kind == ENCORE_SYNC_ITEM_CONFIG && items[0].outcome == ENCORE_SYNC_OUTCOME_FAILED);
    CHECK(items[0].status != ENCORE_OK && encore_status_name(items[0].status) != NULL);
    CHECK(items[0].day == -1 && items[0].hour == -1 && items[0].interval == -1 && items[0].bytes == 0);
    CHECK(items[0].tag.data != NULL && items[0].tag.length == 0);
    CHECK(items[1].kind == ENCORE_SYNC_ITEM_DP3T && items[1].outcome == ENCORE_SYNC_OUTCOME_CACHED && items[1].status == ENCORE_OK);
    CHECK(items[1].keys == 0 && items[1].matches == 0 && items[1].reserved == 0);
    CHECK(items[1].tag.length == strlen(TAG) && memcmp(items[1].tag.data, TAG, strlen(TAG)) == 0);
    for (int i = 0; i < 2; i++) encore_bytes_free(&items[i].tag);
    /* The end of the list copies nothing; past it is out of range. */
    CHECK(encore_sync_result_copy_items(r, 2, items, sizeof items[0], 3, &copied) == ENCORE_OK && copied == 0);
    CHECK(encore_sync_result_copy_items(r, 3, items, sizeof items[0], 3, &copied) == ENCORE_ERR_OUT_OF_RANGE);
    /* An element smaller than the struct is refused, nothing written. */
    memset(items, 0, sizeof items);
    CHECK(encore_sync_result_copy_items(r, 0, items, sizeof items[0] - 8, 2, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(items[0].tag.data == NULL && items[0].struct_size == 0);
    /* A larger element (a newer caller) gets struct_size and zeros after it. */
    unsigned char wide[2][sizeof(encore_sync_item) + 16];
    memset(wide, 0x55, sizeof wide);
    CHECK(encore_sync_result_copy_items(r, 0, (encore_sync_item *)(void *)wide, sizeof wide[0], 2, &copied) == ENCORE_OK && copied == 2);
    for (int i = 0; i < 2; i++) {
        encore_sync_item item;
        memcpy(&item, wide[i], sizeof item);
        CHECK(item.struct_size == sizeof(encore_sync_item));
        CHECK(wide[i][sizeof(encore_sync_item)] == 0 && wide[i][sizeof wide[i] - 1] == 0);
        encore_bytes_free(&item.tag);
    }
    CHECK(encore_sync_result_copy_items(NULL, 0, items, sizeof items[0], 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_sync_result_copy_items(r, 0, items, sizeof items[0], 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);

    /* The configuration and why. */
    encore_sync_configuration config;
    memset(&config, 0, sizeof config);
    config.struct_size = 8;
    CHECK(encore_sync_result_get_configuration(r, &config) == ENCORE_ERR_INVALID_ARGUMENT && config.reason.data == NULL);
    ENCORE_OUTPUT_INIT(config);
    CHECK(encore_sync_result_get_configuration(r, &config) == ENCORE_OK);
    CHECK(config.struct_size == sizeof config && config.used == ENCORE_SYNC_CONFIG_BUILT_IN && config.failures == 1);
    CHECK(contains(&config.reason, "404"));
    encore_bytes_free(&config.reason);
    CHECK(encore_sync_result_get_configuration(r, NULL) == ENCORE_ERR_INVALID_ARGUMENT);

    /* No warnings (the servers send no Date: no clock to compare). */
    encore_string_list *warnings = NULL;
    size_t count = 9;
    CHECK(encore_sync_result_get_warnings(r, &warnings) == ENCORE_OK && warnings != NULL);
    CHECK(encore_string_list_count(warnings, &count) == ENCORE_OK && count == 0);
    encore_string_list_free(warnings);
    CHECK(encore_sync_result_get_warnings(r, NULL) == ENCORE_ERR_INVALID_ARGUMENT);

    /* The JSON says the same. */
    encore_bytes json = {0};
    CHECK(encore_sync_result_get_json(r, &json) == ENCORE_OK);
    CHECK(contains(&json, "\"items\":[{\"kind\":\"config\",\"outcome\":\"failed\""));
    CHECK(contains(&json, "{\"kind\":\"dp3t\",\"outcome\":\"cached\""));
    CHECK(contains(&json, "\"etag\":\"" TAG "\"") && contains(&json, "\"fetched\":[]"));
    CHECK(contains(&json, "\"used\":\"built-in\""));
    encore_bytes_free(&json);
}

static encore_client *sync_client(encore_store *store, encore_transport *t, int64_t *now) {
    encore_client_options co = test_client_options(t, now);
    co.distribution_url = DIST;
    co.dp3t_url = DP3T;
    co.dp3t_public_key = (const uint8_t *)pem;
    co.dp3t_public_key_length = sizeof pem - 1;
    return test_client(store, &co);
}

static void test_sync_items(void) {
    encore_transport *t = NULL;
    CHECK(encore_transport_new_callback(serve, NULL, NULL, &t) == ENCORE_OK);
    int64_t now = NOW;

    /* From encore_sync_run(). */
    encore_store *store = scratch_store_open(dir);
    encore_client *client = sync_client(store, t, &now);
    encore_sync_result *r = NULL;
    CHECK(encore_sync_run(client, NULL, &r) == ENCORE_OK && r != NULL);
    if (r != NULL) check_sync_result(r);
    encore_sync_result_free(r);
    encore_client_free(client);
    encore_store_close(store);

    /* From an operation's result, on a store of its own: the same. */
    store = scratch_store_open(dir);
    client = sync_client(store, t, &now);
    encore_operation *op = NULL;
    CHECK(encore_sync_start(client, NULL, &op) == ENCORE_OK && op != NULL);
    CHECK(encore_operation_run(op, t, NOW, NULL, NULL) == ENCORE_OK);
    r = NULL;
    CHECK(encore_operation_get_sync_result(op, &r) == ENCORE_OK && r != NULL);
    if (r != NULL) check_sync_result(r);
    encore_sync_result_free(r);
    encore_operation_free(op);
    encore_client_free(client);
    encore_store_close(store);
    encore_transport_free(t);
}

/* A fresh store, and a client on it whose clock stands at NOW. */
static encore_client *client_at_now(encore_store **store) {
    static int64_t now = NOW;
    *store = scratch_store_open(dir);
    encore_client_options co = test_client_options(NULL, &now);
    return test_client(*store, &co);
}

static void finish(encore_client *client, encore_store *store) {
    encore_client_free(client);
    encore_store_close(store);
}

static void test_push_status(void) {
    encore_store *store = NULL;
    encore_client *client = client_at_now(&store);
    encore_push_status s;
    memset(&s, 0x55, sizeof s);
    ENCORE_OUTPUT_INIT(s);
    CHECK(encore_push_get_status(client, &s) == ENCORE_OK);
    CHECK(s.struct_size == sizeof s && s.registered == 0 && s.has_registered_at == 0 && s.api == -1 && s.push_type == -1);
    CHECK(s.has_push_token == 0 && s.exposure_notifications == 0 && s.check_ins == 0 && s.isolated == 0 && s.reserved == 0);
    CHECK(s.server.data != NULL && s.server.length == 0);
    encore_bytes_free(&s.server);

    CHECK(encore_push_set_state(client, 1, 1) == ENCORE_OK);
    CHECK(encore_checkin_add(client, REAL_QR, NOW - 3600, NOW - 600, ENCORE_CHECKIN_MODE_DIARY, NULL) == ENCORE_OK);
    CHECK(encore_push_get_status(client, &s) == ENCORE_OK);
    CHECK(s.exposure_notifications == 1 && s.isolated == 1 && s.check_ins == 1 && s.registered == 0);
    encore_bytes_free(&s.server);

    /* The JSON says the same. */
    encore_bytes json = {0};
    CHECK(encore_push_get_status_json(client, &json) == ENCORE_OK);
    CHECK(contains(&json, "\"registered\":false") && contains(&json, "\"exposureNotifications\":true"));
    CHECK(contains(&json, "\"checkIns\":true") && contains(&json, "\"isolated\":true") && contains(&json, "\"server\":null"));
    encore_bytes_free(&json);

    /* A too-small struct is refused, nothing written. */
    memset(&s, 0, sizeof s);
    s.struct_size = 4;
    CHECK(encore_push_get_status(client, &s) == ENCORE_ERR_INVALID_ARGUMENT && s.server.data == NULL && s.isolated == 0);
    CHECK(encore_push_get_status(client, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    ENCORE_OUTPUT_INIT(s);
    CHECK(encore_push_get_status(NULL, &s) == ENCORE_ERR_INVALID_ARGUMENT);
    finish(client, store);
}

static void test_checkin_reports(void) {
    encore_store *store = NULL;
    encore_client *client = client_at_now(&store);
    int64_t id = 0;
    CHECK(encore_checkin_add(client, REAL_QR, NOW - 2 * 3600, NOW - 3600, ENCORE_CHECKIN_MODE_DIARY, &id) == ENCORE_OK);

    encore_checkin_report_list *list = NULL;
    CHECK(encore_checkin_report_list_open(client, NULL, &list) == ENCORE_OK && list != NULL);
    size_t count = 0;
    CHECK(encore_checkin_report_list_count(list, &count) == ENCORE_OK && count == 1);
    encore_checkin_report_info info[2];
    memset(info, 0x55, sizeof info);
    size_t copied = 0;
    CHECK(encore_checkin_report_list_copy(list, 0, info, sizeof info[0], 2, &copied) == ENCORE_OK && copied == 1);
    CHECK(info[0].struct_size == sizeof info[0] && info[0].checkin == id);
    CHECK(info[0].start == (int64_t)info[0].start_interval_number * 600 && info[0].period > 0);
    CHECK(info[0].transmission_risk_level >= 1 && info[0].transmission_risk_level <= 8);
    CHECK(info[0].report.struct_size == sizeof(encore_checkin_report) && info[0].report.encrypted_record_length == 16);
    /* The report opens with the location's id to the record it says. */
    encore_trace_location *loc = NULL;
    encore_trace_location_info li;
    memset(&li, 0, sizeof li);
    ENCORE_OUTPUT_INIT(li);
    CHECK(encore_trace_location_parse(REAL_QR, &loc) == ENCORE_OK && encore_trace_location_get_info(loc, &li) == ENCORE_OK);
    CHECK(memcmp(li.location_id_hash, info[0].report.location_id_hash, 32) == 0);
    encore_checkin_record record;
    memset(&record, 0, sizeof record);
    ENCORE_OUTPUT_INIT(record);
    CHECK(encore_checkin_report_decrypt(li.location_id, sizeof li.location_id, &info[0].report, &record) == ENCORE_OK);
    CHECK(record.start_interval_number == info[0].start_interval_number && record.period == info[0].period);
    CHECK(record.transmission_risk_level == info[0].transmission_risk_level);
    encore_trace_location_free(loc);

    /* A too-small element is refused; past the end is out of range. */
    CHECK(encore_checkin_report_list_copy(list, 0, info, 8, 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_list_copy(list, 2, info, sizeof info[0], 1, &copied) == ENCORE_ERR_OUT_OF_RANGE);

    /* The JSON view: the same report. */
    encore_bytes json = {0};
    char expect[64];
    CHECK(encore_checkin_report_list_get_json(list, &json) == ENCORE_OK);
    snprintf(expect, sizeof expect, "\"checkin\":%lld", (long long)id);
    CHECK(contains(&json, expect));
    snprintf(expect, sizeof expect, "\"startIntervalNumber\":%u", (unsigned)info[0].start_interval_number);
    CHECK(contains(&json, expect));
    encore_bytes_free(&json);
    encore_checkin_report_list_free(list);
    encore_checkin_report_list_free(NULL);

    CHECK(encore_checkin_report_list_open(NULL, NULL, &list) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_list_open(client, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_list_count(NULL, &count) == ENCORE_ERR_INVALID_ARGUMENT);
    finish(client, store);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "results") != 0) return 1;
    test_sync_items();
    test_push_status();
    test_checkin_reports();
    scratch_dir_remove(dir);
    return check_report();
}
