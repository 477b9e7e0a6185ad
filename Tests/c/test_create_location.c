/* C tests of the organizer side (issue 25): a CWA event or place created
 * through the .so (encore_trace_location_spec_init, _create, _get_url,
 * _qr_image), what the app refuses with ENCORE_ERR_LOCATION_INVALID, every
 * argument check, and a check-in at the created location from its URL, as
 * a guest's phone makes it.
 * Built with -Werror and run under valgrind by scripts/test-c.sh. */
#include "check.h"
#include "fresh_store.h"
#include "client.h"

#include <stdio.h>
#include <string.h>

#define NOW 1764000000LL /* 2025-11-24T16:00:00Z */

static encore_trace_location_spec place(void) {
    encore_trace_location_spec s;
    CHECK(encore_trace_location_spec_init(&s, sizeof s) == ENCORE_OK);
    s.location_type = 4;
    s.description = "Café Müller";
    s.address = "Main Street 1";
    return s;
}

static void test_create_and_read_back(void) {
    encore_trace_location_spec s = place();
    CHECK(s.struct_size == sizeof s && s.default_check_in_length_minutes == -1 && s.start_timestamp == 0);
    encore_trace_location *a = NULL, *b = NULL;
    CHECK(encore_trace_location_create(&s, &a) == ENCORE_OK && a != NULL);
    CHECK(encore_trace_location_create(&s, &b) == ENCORE_OK && b != NULL);
    encore_trace_location_info ia, ib;
    ENCORE_OUTPUT_INIT(ia);
    ENCORE_OUTPUT_INIT(ib);
    CHECK(encore_trace_location_get_info(a, &ia) == ENCORE_OK && encore_trace_location_get_info(b, &ib) == ENCORE_OK);
    CHECK(strcmp(ia.description, "Café Müller") == 0 && strcmp(ia.address, "Main Street 1") == 0);
    CHECK(ia.location_type == 4 && ia.default_check_in_length_minutes == 120 && ia.automatic_length_seconds == 120 * 60);
    CHECK(ia.start_timestamp == 0 && ia.end_timestamp == 0 && ia.version == 1);
    /* A fresh seed each time: another location. */
    CHECK(memcmp(ia.location_id, ib.location_id, 32) != 0);

    encore_bytes url = {0};
    CHECK(encore_trace_location_get_url(a, &url) == ENCORE_OK && url.data != NULL);
    CHECK(strncmp((const char *)url.data, "https://e.coronawarn.app?v=1#", 29) == 0 && strlen((const char *)url.data) == url.length);
    /* The URL parses back to the same location id. */
    encore_trace_location *parsed = NULL;
    CHECK(encore_trace_location_parse((const char *)url.data, &parsed) == ENCORE_OK);
    encore_trace_location_info ip;
    ENCORE_OUTPUT_INIT(ip);
    CHECK(encore_trace_location_get_info(parsed, &ip) == ENCORE_OK && memcmp(ip.location_id, ia.location_id, 32) == 0);
    encore_trace_location_free(parsed);

    encore_bytes png = {0}, svg = {0};
    CHECK(encore_trace_location_get_qr_image(a, ENCORE_QR_IMAGE_PNG, 0, &png) == ENCORE_OK);
    CHECK(png.length > 64 && memcmp(png.data, "\x89PNG\r\n\x1a\n", 8) == 0);
    CHECK(encore_trace_location_get_qr_image(a, ENCORE_QR_IMAGE_SVG, 0, &svg) == ENCORE_OK);
    CHECK(strstr((const char *)svg.data, "<svg") != NULL);
    encore_bytes left = {0};
    CHECK(encore_trace_location_get_qr_image(a, ENCORE_QR_IMAGE_SVG, 2, &left) == ENCORE_ERR_INVALID_ARGUMENT && left.data == NULL);
    CHECK(encore_trace_location_get_qr_image(a, ENCORE_QR_IMAGE_PNG, 17, &left) == ENCORE_ERR_INVALID_ARGUMENT && left.data == NULL);
    CHECK(encore_trace_location_get_qr_image(a, 3, 0, &left) == ENCORE_ERR_INVALID_ARGUMENT && left.data == NULL);
    CHECK(encore_trace_location_get_qr_image(NULL, ENCORE_QR_IMAGE_PNG, 0, &left) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trace_location_get_qr_image(a, ENCORE_QR_IMAGE_PNG, 0, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trace_location_get_url(NULL, &left) == ENCORE_ERR_INVALID_ARGUMENT && left.data == NULL);
    CHECK(encore_trace_location_get_url(a, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_bytes_free(&url);
    encore_bytes_free(&png);
    encore_bytes_free(&svg);
    encore_trace_location_free(a);
    encore_trace_location_free(b);
}

static void expect_refused(encore_trace_location_spec s, encore_status status, const char *words) {
    encore_trace_location *none = NULL;
    CHECK(encore_trace_location_create(&s, &none) == status && none == NULL);
    if (strstr(encore_last_error_message(), words) == NULL) {
        fprintf(stderr, "message \"%s\" lacks \"%s\"\n", encore_last_error_message(), words);
        CHECK(0);
    }
}

static void test_refusals(void) {
    char long_text[300];
    memset(long_text, 'x', 256);
    long_text[256] = 0;
    encore_trace_location_spec s = place();
    s.location_type = 0;
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "location type 0");
    s.location_type = 13;
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "location type 13");
    s = place();
    s.description = "  ";
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "description is blank");
    s = place();
    s.address = long_text;
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "address has 256 characters");
    long_text[255] = 0;
    encore_trace_location *ok = NULL;
    CHECK(encore_trace_location_create(&s, &ok) == ENCORE_OK);
    encore_trace_location_free(ok);
    s = place();
    s.description = "two\nlines";
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "description spans several lines");
    s = place();
    s.start_timestamp = NOW;
    s.end_timestamp = NOW + 3600;
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "a place (type 4) has no start or end");
    s.location_type = 9;
    s.end_timestamp = 0;
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "needs a start and an end");
    s.end_timestamp = NOW;
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "is not after its start");
    s = place();
    s.default_check_in_length_minutes = 1426;
    expect_refused(s, ENCORE_ERR_LOCATION_INVALID, "1426 minutes");
    s.default_check_in_length_minutes = -2;
    expect_refused(s, ENCORE_ERR_INVALID_ARGUMENT, "default_check_in_length_minutes");
    s = place();
    s.reserved = 1;
    expect_refused(s, ENCORE_ERR_INVALID_ARGUMENT, "reserved");
    s = place();
    s.address = NULL;
    expect_refused(s, ENCORE_ERR_INVALID_ARGUMENT, "spec->address");
    s = place();
    s.description = "\xff";
    expect_refused(s, ENCORE_ERR_INVALID_ARGUMENT, "UTF-8");
    s = place();
    s.struct_size = 8;
    expect_refused(s, ENCORE_ERR_INVALID_ARGUMENT, "struct_size");
    CHECK(encore_trace_location_create(NULL, &ok) == ENCORE_ERR_INVALID_ARGUMENT);
    s = place();
    CHECK(encore_trace_location_create(&s, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trace_location_spec_init(NULL, sizeof s) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trace_location_spec_init(&s, 4) == ENCORE_ERR_INVALID_ARGUMENT);
}

/* An event created here, checked in at from its URL. */
static void test_event_checks_in(void) {
    encore_trace_location_spec s = place();
    s.location_type = 11;
    s.description = "Birthday party";
    s.start_timestamp = NOW - 5 * 3600;
    s.end_timestamp = NOW - 2 * 3600;
    s.default_check_in_length_minutes = 0; /* the app's picker makes it 15 */
    encore_trace_location *event = NULL;
    CHECK(encore_trace_location_create(&s, &event) == ENCORE_OK);
    encore_trace_location_info info;
    ENCORE_OUTPUT_INIT(info);
    CHECK(encore_trace_location_get_info(event, &info) == ENCORE_OK && info.default_check_in_length_minutes == 15);
    encore_bytes url = {0};
    CHECK(encore_trace_location_get_url(event, &url) == ENCORE_OK);

    encore_store *store = fresh_store();
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client *client = clocked_client(store, &clock_now);
    int64_t visit = -1;
    CHECK(encore_checkin_add(client, (const char *)url.data, NOW - 4 * 3600, NOW - 3 * 3600, ENCORE_CHECKIN_MODE_DIARY, &visit) == ENCORE_OK && visit > 0);

    /* The stored check-in is at the created location (its hash is what
     * warnings are matched by: Tests/cli and the Python tests match one). */
    encore_checkin_list *list = NULL;
    size_t n = 0, copied = 0;
    CHECK(encore_checkin_list_open(client, &list) == ENCORE_OK && encore_checkin_list_count(list, &n) == ENCORE_OK && n == 1);
    encore_checkin_info ci;
    CHECK(encore_checkin_list_copy(list, 0, &ci, sizeof ci, 1, &copied) == ENCORE_OK && copied == 1 && ci.id == visit);
    CHECK(memcmp(ci.location_id_hash, info.location_id_hash, 32) == 0 && strcmp((const char *)ci.description.data, "Birthday party") == 0);
    encore_bytes_free(&ci.description);
    encore_bytes_free(&ci.address);
    encore_checkin_list_free(list);
    encore_store_close(store);
    encore_bytes_free(&url);
    encore_trace_location_free(event);
    encore_client_free(client);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "organizer") != 0) return 1;
    test_create_and_read_back();
    test_refusals();
    test_event_checks_in();
    scratch_dir_remove(dir);
    return check_report();
}
