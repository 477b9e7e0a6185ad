/* C tests of tracing through the .so: a tracer over a store (options,
 * start/stop and the tracing history), the advertisement and its rotation
 * (10 to 20 minutes, the day's end), the scan schedule, one scan's reports
 * in (one sighting per RPI, the maximal corrected RSSI, the previous scan,
 * own RPIs dropped), the calibration, the adapter, the status, and the
 * refusals (tracing off, bad structs, NULL pointers). Built with -Werror,
 * run under valgrind. */
#include "check.h"
#include "fresh_store.h"
#include "client.h"

#include <stddef.h>
#include <stdio.h>
#include <string.h>

#define MIDNIGHT (19000LL * 86400LL)

static encore_scan_report report(uint8_t id, int16_t rssi, int64_t time) {
    encore_scan_report r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    r.rssi = rssi;
    r.time = time;
    memset(r.rpi, id, sizeof r.rpi);
    r.aem[3] = id;
    return r;
}

static void test_advertisement_and_rotation(void) {
    encore_store *store = fresh_store();
    int64_t clock_now = TEST_CLOCK_START;  /* the test's clock */
    encore_client *client = clocked_client(store, &clock_now);
    encore_tracer_options o;
    CHECK(encore_tracer_options_init(&o, sizeof o) == ENCORE_OK);
    CHECK(o.scan_window_seconds == 4 && o.scan_period_seconds == 300 && o.rotation_min_seconds == 600 && o.rotation_max_seconds == 1200);
    o.has_random_seed = 1;
    o.random_seed = 42;
    encore_tracer *t = NULL;
    CHECK(encore_tracer_new(client, &o, &t) == ENCORE_OK && t != NULL);

    encore_advertisement a = {sizeof a, 0, 0, 0, {0}, 0};
    CHECK(encore_tracer_get_advertisement(t, MIDNIGHT, &a) == ENCORE_ERR_TRACING_INACTIVE);
    CHECK(encore_tracer_start(t, MIDNIGHT + 3600) == ENCORE_OK);
    CHECK(encore_tracer_get_advertisement(t, MIDNIGHT + 3600, &a) == ENCORE_OK);
    CHECK(a.since == MIDNIGHT + 3600 && a.valid_until - a.since >= 600 && a.valid_until - a.since <= 1200);
    CHECK(a.interval == (uint32_t)((MIDNIGHT + 3600) / 600));
    CHECK((a.payload[16] != 0 || a.payload[17] != 0 || a.payload[18] != 0 || a.payload[19] != 0));
    encore_advertisement same = {sizeof same, 0, 0, 0, {0}, 0};
    CHECK(encore_tracer_get_advertisement(t, a.valid_until - 1, &same) == ENCORE_OK && memcmp(&same, &a, sizeof a) == 0);
    encore_advertisement next = {sizeof next, 0, 0, 0, {0}, 0};
    CHECK(encore_tracer_get_advertisement(t, a.valid_until, &next) == ENCORE_OK);
    CHECK(next.since == a.valid_until && memcmp(next.payload, a.payload, 16) != 0);
    encore_advertisement forced = {sizeof forced, 0, 0, 0, {0}, 0};
    CHECK(encore_tracer_rotate(t, next.since + 5, &forced) == ENCORE_OK && forced.since == next.since + 5);
    /* Near midnight the payload ends at the day's end. */
    CHECK(encore_tracer_rotate(t, MIDNIGHT + 86400 - 601, &forced) == ENCORE_OK && forced.valid_until <= MIDNIGHT + 86400);
    /* A struct_size too small is refused and nothing is written. */
    encore_advertisement small = {4, 0, 0, 0, {0}, 0};
    CHECK(encore_tracer_get_advertisement(t, MIDNIGHT + 3600, &small) == ENCORE_ERR_INVALID_ARGUMENT && small.since == 0);
    CHECK(encore_tracer_get_advertisement(NULL, MIDNIGHT, &a) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_tracer_get_advertisement(t, MIDNIGHT, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_tracer_free(t);
    encore_tracer_free(NULL);
    encore_client_free(client);
    encore_store_close(store);
}

static void test_scans_and_history(void) {
    encore_store *store = fresh_store();
    int64_t clock_now = MIDNIGHT + 500;  /* the test's clock */
    encore_client *client = clocked_client(store, &clock_now);
    encore_tracer *t = NULL;
    CHECK(encore_tracer_new(client, NULL, &t) == ENCORE_OK);
    encore_tracing_calibration c;
    memset(&c, 0, sizeof c);
    c.struct_size = sizeof c;
    c.has_tx_power = 1;
    c.tx_power = -19;
    c.has_rssi_correction = 1;
    c.rssi_correction = 3;
    CHECK(encore_tracer_set_calibration(t, &c) == ENCORE_OK);
    CHECK(encore_tracing_set_adapter(client, "hci0") == ENCORE_OK);

    encore_scan_window w = {sizeof w, 0, 0, 0};
    CHECK(encore_tracer_next_scan(t, MIDNIGHT, &w) == ENCORE_ERR_TRACING_INACTIVE);
    CHECK(encore_tracer_start(t, MIDNIGHT) == ENCORE_OK);
    CHECK(encore_tracer_next_scan(t, MIDNIGHT, &w) == ENCORE_OK && w.start == MIDNIGHT && w.end == MIDNIGHT + 4);

    encore_advertisement own = {sizeof own, 0, 0, 0, {0}, 0};
    CHECK(encore_tracer_get_advertisement(t, MIDNIGHT, &own) == ENCORE_OK);
    encore_scan_report reports[4] = {report(1, -70, MIDNIGHT + 1), report(1, -60, MIDNIGHT + 2), report(2, 127, MIDNIGHT + 2),
                                     report(0, -40, MIDNIGHT + 3)};
    memcpy(reports[3].rpi, own.payload, 16);
    memcpy(reports[3].aem, own.payload + 16, 4);
    encore_scan_result r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    CHECK(encore_tracer_ingest_scan(t, &w, reports, sizeof reports[0], 4, &r) == ENCORE_OK);
    CHECK(r.reports == 4 && r.sightings_added == 1 && r.repeated_reports == 1 && r.invalid_reports == 1 && r.own_reports == 1);

    CHECK(encore_tracer_next_scan(t, MIDNIGHT + 4, &w) == ENCORE_OK && w.start == MIDNIGHT + 300);
    encore_scan_report later = report(3, -50, MIDNIGHT + 301);
    CHECK(encore_tracer_ingest_scan(t, &w, &later, sizeof later, 1, NULL) == ENCORE_OK);
    CHECK(encore_tracer_stop(t, MIDNIGHT + 400) == ENCORE_OK);

    encore_sighting rows[3];
    size_t copied = 0;
    CHECK(encore_sighting_copy(client, 0, INT64_MAX, 0, rows, sizeof rows[0], 3, &copied) == ENCORE_OK && copied == 2);
    CHECK(rows[0].time == MIDNIGHT + 1 && rows[0].rssi == -60 + 3 && rows[0].has_prev_scan == 0);
    /* The mean of the two reports beside the strongest; one report: typical = rssi. */
    CHECK(rows[0].has_typical_rssi == 1 && rows[0].typical_rssi == -65 + 3 && rows[1].has_typical_rssi == 0);
    CHECK(rows[1].time == MIDNIGHT + 301 && rows[1].has_prev_scan == 1 && rows[1].prev_scan == MIDNIGHT);

    encore_tracing_status st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    CHECK(encore_tracing_get_status(client, &st) == ENCORE_OK);
    CHECK(st.active == 0 && st.has_since == 1 && st.since == MIDNIGHT + 400 && st.has_last_scan == 1 && st.last_scan == MIDNIGHT + 304);
    CHECK(st.rpis_last_hour == 2 && st.rpis_last_14_days == 2 && st.active_seconds_last_14_days == 400);
    CHECK(st.sightings_today == 2 && st.sightings_dropped_today == 0 && st.sightings_dropped_last_14_days == 0);
    encore_tracing_calibration got;
    memset(&got, 0, sizeof got);
    got.struct_size = sizeof got;
    CHECK(encore_tracing_get_calibration(client, &got) == ENCORE_OK);
    CHECK(got.has_tx_power == 1 && got.tx_power == -19 && got.has_confidence == 0 && got.effective_confidence == 2 &&
          got.effective_rssi_correction == 3);
    encore_bytes name = {0};
    CHECK(encore_tracing_get_adapter(client, &name) == ENCORE_OK && name.length == 4 && memcmp(name.data, "hci0", 4) == 0);
    encore_bytes_free(&name);
    CHECK(encore_tracing_set_adapter(client, NULL) == ENCORE_OK);
    CHECK(encore_tracing_get_adapter(client, &name) == ENCORE_ERR_NOT_FOUND);

    /* Refusals: tracing off, reserved fields, a bad calibration, negative times. */
    CHECK(encore_tracer_ingest_scan(t, &w, &later, sizeof later, 1, NULL) == ENCORE_ERR_TRACING_INACTIVE);
    CHECK(encore_tracer_start(t, MIDNIGHT + 1000) == ENCORE_OK);
    later.reserved = 1;
    CHECK(encore_tracer_ingest_scan(t, &w, &later, sizeof later, 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    later.reserved = 0;
    later.time = -1;
    CHECK(encore_tracer_ingest_scan(t, &w, &later, sizeof later, 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_tracer_ingest_scan(t, NULL, &later, sizeof later, 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_tracer_ingest_scan(t, &w, NULL, sizeof later, 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_tracer_ingest_scan(t, &w, &later, 8, 1, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    c.confidence = 4;
    c.has_confidence = 1;
    CHECK(encore_tracer_set_calibration(t, &c) == ENCORE_ERR_INVALID_ARGUMENT);
    c.has_confidence = 0;
    c.tx_power = 300;
    CHECK(encore_tracer_set_calibration(t, &c) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_tracing_set_adapter(client, "") == ENCORE_ERR_INVALID_ARGUMENT);
    uint64_t count = 0;
    CHECK(encore_sighting_count(client, 0, INT64_MAX, &count) == ENCORE_OK && count == 2);

    encore_tracer_options o;
    CHECK(encore_tracer_options_init(&o, sizeof o) == ENCORE_OK);
    o.scan_period_seconds = 301;
    encore_tracer *bad = NULL;
    CHECK(encore_tracer_new(client, &o, &bad) == ENCORE_ERR_INVALID_ARGUMENT && bad == NULL);
    CHECK(encore_tracer_new(NULL, NULL, &bad) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_tracer_free(t);
    encore_client_free(client);
    encore_store_close(store);
}

/* The cap on a day's sightings: 10 keeps 9 new RPIs (a tenth is held back
 * for those kept), drops and counts the rest; a 1.0 options struct gets the
 * default cap; a cap below 10 is refused. */
static void test_the_cap(void) {
    encore_store *store = fresh_store();
    int64_t clock_now = MIDNIGHT;  /* the test's clock */
    encore_client *client = clocked_client(store, &clock_now);
    encore_tracer_options o;
    CHECK(encore_tracer_options_init(&o, sizeof o) == ENCORE_OK && o.max_sightings_per_day == 200000);
    o.max_sightings_per_day = 9;
    encore_tracer *t = NULL;
    CHECK(encore_tracer_new(client, &o, &t) == ENCORE_ERR_INVALID_ARGUMENT && t == NULL);
    o.struct_size = (uint32_t)offsetof(encore_tracer_options, max_sightings_per_day);
    CHECK(encore_tracer_new(client, &o, &t) == ENCORE_OK);
    encore_tracer_free(t);
    o.struct_size = sizeof o;
    o.max_sightings_per_day = 10;
    CHECK(encore_tracer_new(client, &o, &t) == ENCORE_OK);
    CHECK(encore_tracer_start(t, MIDNIGHT) == ENCORE_OK);
    encore_scan_report heard[12];
    for (int i = 0; i < 12; i++) heard[i] = report((uint8_t)(i + 1), (int16_t)(-40 - i), MIDNIGHT + 1);
    encore_scan_window w = {sizeof w, 0, MIDNIGHT, MIDNIGHT + 4};
    encore_scan_result r;
    memset(&r, 0, sizeof r);
    r.struct_size = sizeof r;
    CHECK(encore_tracer_ingest_scan(t, &w, heard, sizeof heard[0], 12, &r) == ENCORE_OK);
    CHECK(r.sightings_added == 9 && r.sightings_over_cap == 3);
    encore_tracing_status st;
    memset(&st, 0, sizeof st);
    st.struct_size = sizeof st;
    clock_now = MIDNIGHT + 10;
    CHECK(encore_tracing_get_status(client, &st) == ENCORE_OK);
    CHECK(st.sightings_today == 9 && st.sightings_dropped_today == 3 && st.sightings_dropped_last_14_days == 3);
    encore_tracer_free(t);
    encore_client_free(client);
    encore_store_close(store);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "tracing") != 0) return 1;
    test_advertisement_and_rotation();
    test_scans_and_history();
    test_the_cap();
    scratch_dir_remove(dir);
    return check_report();
}
