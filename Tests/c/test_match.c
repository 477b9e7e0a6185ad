/* C tests of own keys, matching, the risk calculation and the exposure check
 * through the C API: device A advertises, device B hears it, A's keys are
 * published in an export.bin written here by hand, B finds the encounter.
 * The expected windows are computed from the scenario in this file. Also the
 * argument checks and status codes, out-parameters left alone on failure,
 * progress and cancelling, chunked copying and matching from several
 * threads. Built with -Werror and run under valgrind by scripts/test-c.sh. */
#include "check.h"
#include "client.h"
#include "scratch.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DAY 86400
/* 09:00 UTC of day 19 000 since the epoch. */
static const int64_t T0 = (int64_t)19000 * DAY + 9 * 3600;
#define SCANS 5
#define SCAN_GAP 300
#define TX_POWER (-10)
#define RSSI (-70)

static char dir[256];
static char path_a[512];
static char path_b[512];

static encore_store *open_store(const char *path, uint8_t seed) {
    uint8_t raw[32];
    for (int i = 0; i < 32; i++) raw[i] = (uint8_t)(seed + i);
    encore_store_key key = {sizeof(encore_store_key), ENCORE_KEY_RAW, raw, sizeof raw};
    encore_store *store = NULL;
    CHECK(encore_store_open(path, &key, NULL, &store) == ENCORE_OK);
    return store;
}

/* ---- export.bin by hand (protobuf wire format) ---- */

typedef struct {
    uint8_t bytes[4096];
    size_t length;
} buffer;

static void put_byte(buffer *b, uint8_t v) {
    if (b->length < sizeof b->bytes) b->bytes[b->length++] = v;
}

static void put_varint(buffer *b, uint64_t v) {
    while (v >= 0x80) {
        put_byte(b, (uint8_t)(v | 0x80));
        v >>= 7;
    }
    put_byte(b, (uint8_t)v);
}

static void put_varint_field(buffer *b, unsigned field, uint64_t v) {
    put_varint(b, (uint64_t)field << 3);
    put_varint(b, v);
}

static void put_bytes_field(buffer *b, unsigned field, const uint8_t *data, size_t length) {
    put_varint(b, (uint64_t)field << 3 | 2);
    put_varint(b, length);
    for (size_t i = 0; i < length; i++) put_byte(b, data[i]);
}

static void put_fixed64_field(buffer *b, unsigned field, uint64_t v) {
    put_varint(b, (uint64_t)field << 3 | 1);
    for (int i = 0; i < 8; i++) put_byte(b, (uint8_t)(v >> (8 * i)));
}

/* A TemporaryExposureKey: TRL 6, days since onset 2 (zigzag 4). */
static void put_key(buffer *file, const uint8_t data[16], int32_t start, int32_t period, int32_t report_type) {
    buffer key = {{0}, 0};
    put_bytes_field(&key, 1, data, 16);
    put_varint_field(&key, 2, 6);
    put_varint_field(&key, 3, (uint64_t)start);
    put_varint_field(&key, 4, (uint64_t)period);
    put_varint_field(&key, 5, (uint64_t)report_type);
    put_varint_field(&key, 6, 4);
    put_bytes_field(file, 7, key.bytes, key.length);
}

/* A's published key plus two keys that must not cost any crypto: one with
 * no sighting near its validity, one REVOKED. */
static buffer published_file(const encore_key *a_key) {
    static const uint8_t other[16] = {0xA5, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15};
    buffer b = {{0}, 0};
    memcpy(b.bytes, "EK Export v1    ", 16);
    b.length = 16;
    put_fixed64_field(&b, 1, (uint64_t)(T0 - DAY));
    put_fixed64_field(&b, 2, (uint64_t)(T0 + DAY));
    put_bytes_field(&b, 3, (const uint8_t *)"DE", 2);
    put_varint_field(&b, 4, 1);
    put_varint_field(&b, 5, 1);
    put_key(&b, a_key->key_data, a_key->rolling_start_interval_number, a_key->rolling_period, ENCORE_REPORT_CONFIRMED_TEST);
    put_key(&b, other, a_key->rolling_start_interval_number - 3 * 144, 144, ENCORE_REPORT_CONFIRMED_TEST);
    put_key(&b, other, a_key->rolling_start_interval_number, 144, ENCORE_REPORT_REVOKED);
    return b;
}

/* ---- the scenario ---- */

/* B hears A's advertisement SCANS times, SCAN_GAP seconds apart. */
static void hear(encore_store *a, encore_store *b) {
    int64_t clock_now = T0;  /* the clock of both devices, which the scan moves */
    encore_client *a_client = clocked_client(a, &clock_now);
    encore_client *b_client = clocked_client(b, &clock_now);
    encore_sighting heard[SCANS];
    memset(heard, 0, sizeof heard);
    for (int i = 0; i < SCANS; i++) {
        uint8_t payload[20];
        int64_t t = T0 + (int64_t)i * SCAN_GAP;
        clock_now = t;
        CHECK(encore_advertisement_make(a_client, TX_POWER, 0, payload, sizeof payload) == ENCORE_OK);
        heard[i].struct_size = sizeof heard[i];
        heard[i].time = t;
        heard[i].prev_scan = t - SCAN_GAP;
        heard[i].has_prev_scan = 1;
        heard[i].rssi = RSSI;
        memcpy(heard[i].rpi, payload, 16);
        memcpy(heard[i].aem, payload + 16, 4);
    }
    size_t added = 0;
    CHECK(encore_sighting_add(b_client, heard, sizeof(encore_sighting), SCANS, &added) == ENCORE_OK && added == SCANS);
    encore_client_free(a_client);
    encore_client_free(b_client);
}

static encore_key a_published_key(encore_store *a) {
    int64_t clock_now = T0;  /* the test's clock */
    encore_client *a_client = clocked_client(a, &clock_now);
    encore_key keys[2];
    size_t copied = 0;
    memset(keys, 0, sizeof keys);
    CHECK(encore_own_key_copy_history(a_client, 14, 0, keys, sizeof(encore_key), 2, &copied) == ENCORE_OK && copied == 1);
    CHECK(keys[0].rolling_start_interval_number == (int32_t)((T0 - T0 % DAY) / 600));
    encore_client_free(a_client);
    return keys[0];
}

/* Options that skip verification (the options carry no time: the match's
 * time is the client's clock). */
static encore_match_options unverified_options(encore_keyfile_options *keyfile) {
    encore_match_options o;
    CHECK(encore_keyfile_options_init(keyfile, sizeof *keyfile) == ENCORE_OK);
    keyfile->verify = ENCORE_VERIFY_SKIP;
    CHECK(encore_match_options_init(&o, sizeof o, 0) == ENCORE_OK);
    o.keyfile_options = keyfile;
    return o;
}

/* The one window the scenario makes, and its v1 exposure. */
static void check_result(encore_match_result *r) {
    encore_match_stats s;
    ENCORE_OUTPUT_INIT(s);
    CHECK(encore_match_result_get_stats(r, &s) == ENCORE_OK);
    CHECK(s.files == 1 && s.keys == 3 && s.matched_keys == 1 && s.derived == 1);
    CHECK(s.skipped_no_sightings == 1 && s.skipped_revoked == 1 && s.skipped_old == 0);
    CHECK(s.windows == 1 && s.scan_instances == SCANS && s.exposures_v1 == 1);

    encore_exposure_window w[2];
    size_t copied = 99;
    CHECK(encore_match_result_copy_windows(r, 0, w, sizeof(encore_exposure_window), 2, &copied) == ENCORE_OK && copied == 1);
    CHECK(w[0].date == T0 - T0 % DAY);
    CHECK(w[0].report_type == ENCORE_REPORT_CONFIRMED_TEST);
    CHECK(w[0].infectiousness == ENCORE_INFECTIOUSNESS_HIGH); /* CWA: dsos 2 is HIGH */
    CHECK(w[0].calibration_confidence == 0);
    CHECK(w[0].first_scan_instance == 0 && w[0].scan_instance_count == SCANS);

    encore_scan_instance si[SCANS];
    CHECK(encore_match_result_copy_scan_instances(r, 0, si, sizeof(encore_scan_instance), SCANS, &copied) == ENCORE_OK && copied == SCANS);
    for (int i = 0; i < SCANS; i++) {
        CHECK(si[i].min_attenuation == TX_POWER - RSSI && si[i].typical_attenuation == TX_POWER - RSSI);
        CHECK(si[i].seconds_since_last_scan == SCAN_GAP);
    }

    encore_exposure_v1 e;
    ENCORE_OUTPUT_INIT(e);
    CHECK(encore_match_result_copy_exposures_v1(r, 0, &e, sizeof(encore_exposure_v1), 1, &copied) == ENCORE_OK && copied == 1);
    CHECK(e.date == T0 - T0 % DAY && e.transmission_risk_level == 6);
    CHECK(e.duration_seconds == SCANS * SCAN_GAP);
    encore_summary_v1 v1;
    ENCORE_OUTPUT_INIT(v1);
    CHECK(encore_match_result_get_summary_v1(r, &v1) == ENCORE_OK);
    CHECK(v1.matched_key_count == 1 && v1.days_since_last_exposure == 1);
    CHECK(v1.maximum_risk_score == e.total_risk_score);
}

static void test_match(encore_store *b, const buffer *file) {
    int64_t clock_now = T0 + DAY;  /* the test's clock, which it moves */
    encore_client *b_client = clocked_client(b, &clock_now);
    encore_keyfile_options kf;
    encore_match_options o = unverified_options(&kf);
    encore_key_source src = {sizeof(encore_key_source), 0, NULL, file->bytes, file->length};
    encore_match_result *r = NULL;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_OK && r != NULL);
    if (r == NULL) {
        encore_client_free(b_client);
        return;
    }
    check_result(r);

    /* Chunked copying: the end is an empty copy, past it is out of range. */
    encore_exposure_window w;
    ENCORE_OUTPUT_INIT(w);
    size_t copied = 99;
    CHECK(encore_match_result_copy_windows(r, 1, &w, sizeof(encore_exposure_window), 1, &copied) == ENCORE_OK && copied == 0);
    copied = 99;
    CHECK(encore_match_result_copy_windows(r, 2, &w, sizeof(encore_exposure_window), 1, &copied) == ENCORE_ERR_OUT_OF_RANGE && copied == 99);
    encore_scan_instance si;
    ENCORE_OUTPUT_INIT(si);
    CHECK(encore_match_result_copy_scan_instances(r, 4, &si, sizeof(encore_scan_instance), 1, &copied) == ENCORE_OK && copied == 1);
    CHECK(si.seconds_since_last_scan == SCAN_GAP);
    CHECK(encore_match_result_copy_windows(r, 0, NULL, sizeof(encore_exposure_window), 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_match_result_copy_windows(r, 0, NULL, sizeof(encore_exposure_window), 0, &copied) == ENCORE_OK && copied == 0);
    CHECK(encore_match_result_get_stats(r, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_match_result_get_stats(NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_match_result_free(r);
    encore_match_result_free(NULL);

    /* The same file from a path. */
    char path[600];
    snprintf(path, sizeof path, "%s/export.bin", dir);
    FILE *f = fopen(path, "wb");
    CHECK(f != NULL);
    if (f != NULL) {
        CHECK(fwrite(file->bytes, 1, file->length, f) == file->length);
        fclose(f);
        encore_key_source by_path = {sizeof(encore_key_source), 0, path, NULL, 0};
        r = NULL;
        CHECK(encore_match_run(b_client, &by_path, sizeof(encore_key_source), 1, &o, &r) == ENCORE_OK && r != NULL);
        if (r != NULL) check_result(r);
        encore_match_result_free(r);
        unlink(path);
    }

    /* Keys older than 14 days take no part (the client's time decides;
     * reserved_now, the time before 1.1, is ignored). */
    clock_now = T0 + 20 * DAY;
    o.reserved_now = T0 + DAY;
    r = NULL;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_OK && r != NULL);
    encore_match_stats s;
    ENCORE_OUTPUT_INIT(s);
    if (r != NULL) {
        CHECK(encore_match_result_get_stats(r, &s) == ENCORE_OK);
        CHECK(s.keys == 3 && s.skipped_revoked == 1 && s.skipped_old == 2 && s.windows == 0 && s.matched_keys == 0);
    }
    encore_match_result_free(r);

    /* No files: an empty result. */
    clock_now = T0 + DAY;
    o.reserved_now = 0;
    r = NULL;
    CHECK(encore_match_run(b_client, NULL, sizeof(encore_key_source), 0, &o, &r) == ENCORE_OK && r != NULL);
    if (r != NULL) {
        CHECK(encore_match_result_get_stats(r, &s) == ENCORE_OK);
        CHECK(s.files == 0 && s.keys == 0 && s.windows == 0);
    }
    encore_match_result_free(r);
    encore_client_free(b_client);
}

/* Every failure has its status and leaves *out alone. */
static void test_match_errors(encore_store *b, const buffer *file) {
    int64_t clock_now = T0 + DAY;  /* the test's clock, which it moves */
    encore_client *b_client = clocked_client(b, &clock_now);
    encore_match_result *const sentinel = (encore_match_result *)&dir;
    encore_match_result *r = sentinel;
    encore_keyfile_options kf;
    encore_match_options o = unverified_options(&kf);
    encore_key_source src = {sizeof(encore_key_source), 0, NULL, file->bytes, file->length};

    CHECK(encore_match_run(NULL, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_match_run(b_client, NULL, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, NULL, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    CHECK(strlen(encore_last_error_message()) > 0);

    encore_key_source latin1 = {sizeof(encore_key_source), 0, "caf\xe9.zip", NULL, 0};
    CHECK(encore_match_run(b_client, &latin1, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    encore_key_source nothing = {sizeof(encore_key_source), 0, NULL, NULL, 5};
    CHECK(encore_match_run(b_client, &nothing, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);

    encore_match_options bad = o;
    bad.struct_size = 8;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &bad, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    bad = o;
    bad.reserved = 1;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &bad, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    bad = o;
    bad.tx_power_min = 30;
    bad.tx_power_max = 20;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &bad, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    bad = o;
    bad.infectiousness_by_dsos[3] = 7;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &bad, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    /* Times and counts at the ends of their types are refused, not trapped
     * on: a client clock before 1970. */
    const int64_t bad_nows[] = {INT64_MIN + 1, INT64_MIN + 300000, -1};
    for (size_t i = 0; i < sizeof bad_nows / sizeof bad_nows[0]; i++) {
        clock_now = bad_nows[i];
        CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    }
    clock_now = T0 + DAY;
    bad = o;
    bad.max_key_age_days = INT32_MIN;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &bad, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    bad.max_key_age_days = o.max_key_age_days;
    bad.drift_intervals = -1;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &bad, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    bad = o;
    bad.threads = UINT32_MAX;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &bad, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    bad.threads = 257;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &bad, &r) == ENCORE_ERR_INVALID_ARGUMENT && r == sentinel);
    CHECK(encore_match_options_init(&bad, 4, 0) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_match_options_init(NULL, sizeof bad, 0) == ENCORE_ERR_INVALID_ARGUMENT);

    /* By default a file must carry a trusted signature. */
    encore_match_options defaults;
    CHECK(encore_match_options_init(&defaults, sizeof defaults, 0) == ENCORE_OK);
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &defaults, &r) == ENCORE_ERR_SIGNATURE_MISSING && r == sentinel);

    /* Broken files: each has its own status. */
    encore_key_source header_only = {sizeof(encore_key_source), 0, NULL, file->bytes, 10};
    CHECK(encore_match_run(b_client, &header_only, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_EXPORT_HEADER && r == sentinel);
    buffer cut = *file;
    cut.length -= 7; /* inside the last key */
    encore_key_source truncated = {sizeof(encore_key_source), 0, NULL, cut.bytes, cut.length};
    CHECK(encore_match_run(b_client, &truncated, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_EXPORT_MALFORMED && r == sentinel);
    static const uint8_t zip_start[] = {'P', 'K', 3, 4, 0, 0};
    encore_key_source zip = {sizeof(encore_key_source), 0, NULL, zip_start, sizeof zip_start};
    CHECK(encore_match_run(b_client, &zip, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_ZIP_TRUNCATED && r == sentinel);
    char missing[600];
    snprintf(missing, sizeof missing, "%s/no-such-file.zip", dir);
    encore_key_source absent = {sizeof(encore_key_source), 0, missing, NULL, 0};
    CHECK(encore_match_run(b_client, &absent, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_IO && r == sentinel);
    /* One bad file among good ones fails the whole call. */
    encore_key_source mixed[3] = {src, absent, src};
    CHECK(encore_match_run(b_client, mixed, sizeof(encore_key_source), 3, &o, &r) == ENCORE_ERR_IO && r == sentinel);
    encore_client_free(b_client);
}

typedef struct {
    int calls;
    uint64_t last_done;
    uint64_t last_total;
    int cancel_after;
} progress_log;

static int32_t on_progress(void *context, uint64_t done, uint64_t total) {
    progress_log *log = context;
    log->calls++;
    log->last_done = done;
    log->last_total = total;
    return log->cancel_after > 0 && log->calls >= log->cancel_after;
}

static void test_progress_and_cancel(encore_store *b, const buffer *file) {
    int64_t clock_now = T0 + DAY;  /* the test's clock */
    encore_client *b_client = clocked_client(b, &clock_now);
    encore_keyfile_options kf;
    encore_match_options o = unverified_options(&kf);
    encore_key_source src = {sizeof(encore_key_source), 0, NULL, file->bytes, file->length};
    progress_log log = {0, 0, 0, 0};
    o.progress = on_progress;
    o.progress_context = &log;
    encore_match_result *r = NULL;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_OK && r != NULL);
    /* Progress counts the files' bytes as given: it ends at their total. */
    CHECK(log.calls >= 1 && log.last_done == file->length && log.last_total == file->length);
    encore_match_result_free(r);

    log = (progress_log){0, 0, 0, 1};
    encore_match_result *const sentinel = (encore_match_result *)&dir;
    r = sentinel;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_CANCELLED && r == sentinel && log.calls == 1);
    encore_client_free(b_client);
}

/* The risk of the match, and the exposure check that stores it. */
static void test_risk_and_check(encore_store *b, const buffer *file) {
    int64_t now = T0 + DAY + 3600;
    int64_t clock_now = now;  /* the test's clock, which it moves */
    encore_client *b_client = clocked_client(b, &clock_now);
    encore_risk_config *config = NULL;
    CHECK(encore_risk_config_new_cwa(&config) == ENCORE_OK && config != NULL);
    encore_keyfile_options kf;
    encore_match_options o = unverified_options(&kf);
    encore_key_source src = {sizeof(encore_key_source), 0, NULL, file->bytes, file->length};

    encore_match_result *r = NULL;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_OK);
    encore_risk_assessment *assessment = NULL;
    CHECK(encore_risk_calculate_match(config, r, now, &assessment) == ENCORE_OK);
    encore_risk_summary rs;
    ENCORE_OUTPUT_INIT(rs);
    CHECK(encore_risk_assessment_get_summary(assessment, &rs) == ENCORE_OK);
    /* 25 minutes at 60 dB, HIGH infectiousness, confirmed test: CWA's HIGH. */
    CHECK(rs.total_risk_level == ENCORE_RISK_HIGH && rs.number_of_days_with_high_risk == 1);
    CHECK(rs.has_most_recent_date_with_high_risk == 1 && rs.most_recent_date_with_high_risk == T0 - T0 % DAY);
    CHECK(rs.calculated_at == now && rs.day_count == 1);
    encore_day_risk day;
    ENCORE_OUTPUT_INIT(day);
    size_t copied = 0;
    CHECK(encore_risk_assessment_copy_days(assessment, 0, &day, sizeof(encore_day_risk), 1, &copied) == ENCORE_OK && copied == 1);
    CHECK(day.date == T0 - T0 % DAY && day.risk_level == ENCORE_RISK_HIGH);
    encore_risk_assessment_free(assessment);

    /* The same from the windows themselves; a scan instance range past the
     * instances given is refused. */
    encore_exposure_window w;
    ENCORE_OUTPUT_INIT(w);
    encore_scan_instance si[SCANS];
    CHECK(encore_match_result_copy_windows(r, 0, &w, sizeof(encore_exposure_window), 1, &copied) == ENCORE_OK && copied == 1);
    CHECK(encore_match_result_copy_scan_instances(r, 0, si, sizeof(encore_scan_instance), SCANS, &copied) == ENCORE_OK && copied == SCANS);
    assessment = NULL;
    CHECK(encore_risk_calculate(config, &w, sizeof(encore_exposure_window), 1, si, sizeof(encore_scan_instance), SCANS, now, &assessment) == ENCORE_OK);
    CHECK(encore_risk_assessment_get_summary(assessment, &rs) == ENCORE_OK && rs.total_risk_level == ENCORE_RISK_HIGH);
    encore_risk_assessment_free(assessment);
    encore_risk_assessment *const sentinel = (encore_risk_assessment *)&dir;
    assessment = sentinel;
    CHECK(encore_risk_calculate(config, &w, sizeof(encore_exposure_window), 1, si, sizeof(encore_scan_instance), SCANS - 1, now, &assessment) != ENCORE_OK && assessment == sentinel);
    CHECK(encore_risk_calculate(NULL, &w, sizeof(encore_exposure_window), 1, si, sizeof(encore_scan_instance), SCANS, now, &assessment) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_risk_calculate(config, NULL, sizeof(encore_exposure_window), 0, NULL, sizeof(encore_scan_instance), 0, INT64_MIN, &assessment) == ENCORE_ERR_INVALID_ARGUMENT && assessment == sentinel);
    CHECK(encore_risk_calculate_match(config, r, -1, &assessment) == ENCORE_ERR_INVALID_ARGUMENT && assessment == sentinel);
    static const char bad_json[] = "{\"minutesAtAttenuationFilters\": 3}";
    encore_risk_config *bad = NULL;
    CHECK(encore_risk_config_new_json((const uint8_t *)bad_json, sizeof bad_json - 1, &bad) == ENCORE_ERR_INVALID_ARGUMENT && bad == NULL);
    /* Offsets are int32 in CWA's protobuf: larger ones would overflow their sum. */
    static const char huge_offset[] = "{\"minutesAtAttenuationWeights\": [], \"normalizedTimePerEWToRiskLevelMapping\": [],"
        "\"normalizedTimePerDayToRiskLevelMapping\": [], \"transmissionRiskValueMapping\": [], \"trlEncoding\": {"
        "\"infectiousnessOffsetStandard\": 9000000000000000000, \"infectiousnessOffsetHigh\": 0, \"reportTypeOffsetRecursive\": 0,"
        "\"reportTypeOffsetSelfReport\": 0, \"reportTypeOffsetConfirmedClinicalDiagnosis\": 0,"
        "\"reportTypeOffsetConfirmedTest\": 9000000000000000000}}";
    CHECK(encore_risk_config_new_json((const uint8_t *)huge_offset, sizeof huge_offset - 1, &bad) == ENCORE_ERR_INVALID_ARGUMENT && bad == NULL);
    CHECK(strstr(encore_last_error_message(), "trlEncoding.infectiousnessOffsetStandard") != NULL);
    encore_match_result_free(r);

    /* A cancelled check stores nothing. */
    uint64_t before = 0, after = 0;
    CHECK(encore_risk_result_count(b_client, 0, INT64_MAX, &before) == ENCORE_OK);
    progress_log log = {0, 0, 0, 1};
    encore_match_options cancelling = o;
    cancelling.progress = on_progress;
    cancelling.progress_context = &log;
    encore_check_result *check = NULL;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &cancelling, NULL, &check) == ENCORE_ERR_CANCELLED && check == NULL);
    CHECK(encore_risk_result_count(b_client, 0, INT64_MAX, &after) == ENCORE_OK && after == before);

    /* With tracing switched on three days before: HIGH, stored, notified. */
    CHECK(encore_tracing_event_add(b_client, T0 - 3 * DAY, 1) == ENCORE_OK);
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, NULL, &check) == ENCORE_OK && check != NULL);
    encore_check_summary cs;
    ENCORE_OUTPUT_INIT(cs);
    CHECK(encore_check_result_get_summary(check, &cs) == ENCORE_OK);
    CHECK(cs.status == ENCORE_CHECK_HIGH && cs.notification_due == 1 && cs.window_count == 1);
    CHECK(cs.has_newest_keys == 1 && cs.newest_keys == T0 + DAY && cs.calculated_at == now);
    CHECK(cs.has_stored_result == 1);
    encore_risk_assessment *from_check = NULL;
    CHECK(encore_check_result_get_assessment(check, &from_check) == ENCORE_OK);
    CHECK(encore_risk_assessment_get_summary(from_check, &rs) == ENCORE_OK && rs.number_of_days_with_high_risk == 1);
    encore_risk_assessment_free(from_check);
    encore_risk_result last;
    ENCORE_OUTPUT_INIT(last);
    CHECK(encore_risk_result_get_last(b_client, &last, NULL) == ENCORE_OK);
    CHECK(last.id == cs.stored_result_id && last.level == ENCORE_CHECK_HIGH && last.time == now);
    encore_check_result_free(check);

    /* An hour later: still HIGH, so no new notification. */
    now += 3600;
    clock_now = now;
    check = NULL;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, NULL, &check) == ENCORE_OK);
    CHECK(encore_check_result_get_summary(check, &cs) == ENCORE_OK);
    CHECK(cs.status == ENCORE_CHECK_HIGH && cs.notification_due == 0 && cs.stored_result_id > last.id);
    encore_check_result_free(check);

    /* The check's own arguments are checked. */
    encore_check_options co;
    CHECK(encore_check_options_init(&co, sizeof co) == ENCORE_OK);
    co.reserved = 1;
    check = NULL;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    CHECK(encore_check_options_init(&co, sizeof co) == ENCORE_OK);
    co.tracing_days = INT64_MAX;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    co.tracing_days = 14;
    co.maximum_key_age_seconds = INT64_MIN;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    co.maximum_key_age_seconds = 48 * 3600;

    /* CWA's v1 model from C: the default gives the score of the CWA preset;
     * a model of the caller's decides the v1 level; bad models are refused. */
    check = NULL;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_OK);
    CHECK(encore_check_result_get_summary(check, &cs) == ENCORE_OK);
    double cwa_score = cs.v1_score;
    encore_check_result_free(check);
    encore_risk_v1_class classes[2] = {{sizeof(encore_risk_v1_class), ENCORE_RISK_LOW, 0, 1e-9},
                                        {sizeof(encore_risk_v1_class), ENCORE_RISK_HIGH, 1e-9, 1e12}};
    encore_risk_v1_config v1 = {sizeof(encore_risk_v1_config), 2, sizeof(encore_risk_v1_class), 0, 1, {1, 1, 1}, 0, classes};
    co.risk_v1 = &v1;
    check = NULL;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_OK);
    CHECK(encore_check_result_get_summary(check, &cs) == ENCORE_OK);
    CHECK(cs.v1_level == ENCORE_RISK_HIGH && cs.v1_score >= cwa_score && cs.v1_score > 0);
    encore_check_result_free(check);
    v1.normalization_divisor = 0;
    check = NULL;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    v1.normalization_divisor = 1;
    v1.class_count = 0;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    v1.class_count = 2;
    classes[1].level = 7;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    classes[1].level = ENCORE_RISK_HIGH;
    classes[0].max = classes[0].min;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    v1.classes = NULL;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, &co, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);

    clock_now = -1;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, config, &o, NULL, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    clock_now = now;
    CHECK(encore_exposure_check(b_client, &src, sizeof(encore_key_source), 1, NULL, &o, NULL, &check) == ENCORE_ERR_INVALID_ARGUMENT && check == NULL);
    encore_check_result_free(NULL);
    encore_risk_config_free(config);
    encore_risk_config_free(NULL);
    encore_client_free(b_client);
}

/* A real signed file (Google's sample, 140 keys) through matching with
 * verification required: verified, every key read, none heard. */
static void test_signed_sample(encore_store *b) {
    const char *data = getenv("ENCORE_TEST_DATA");
    char pem_path[4096], zip_path[4096];
    snprintf(pem_path, sizeof pem_path, "%s/exports/google-sample/public_310-v1.pem", data != NULL ? data : "Tests/data");
    snprintf(zip_path, sizeof zip_path, "%s/exports/google-sample/sample_diagnosis_key_file.zip", data != NULL ? data : "Tests/data");
    uint8_t pem[4096];
    size_t pem_len = 0;
    FILE *f = fopen(pem_path, "rb");
    CHECK(f != NULL);
    if (f == NULL) return;
    pem_len = fread(pem, 1, sizeof pem, f);
    fclose(f);
    int64_t clock_now = T0;  /* the test's clock */
    encore_client *b_client = clocked_client(b, &clock_now);

    encore_trust *trust = NULL;
    CHECK(encore_trust_new(&trust) == ENCORE_OK);
    encore_keyfile_options kf;
    CHECK(encore_keyfile_options_init(&kf, sizeof kf) == ENCORE_OK);
    kf.trust = trust;
    encore_match_options o;
    CHECK(encore_match_options_init(&o, sizeof o, 0) == ENCORE_OK);
    o.keyfile_options = &kf;
    encore_key_source src = {sizeof(encore_key_source), 0, zip_path, NULL, 0};
    encore_match_result *r = NULL;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_SIGNATURE_UNTRUSTED && r == NULL);
    CHECK(encore_trust_add_key(trust, "310", "v1", pem, pem_len) == ENCORE_OK);
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_OK && r != NULL);
    encore_match_stats s;
    ENCORE_OUTPUT_INIT(s);
    CHECK(encore_match_result_get_stats(r, &s) == ENCORE_OK);
    CHECK(s.files == 1 && s.keys == 140 && s.matched_keys == 0 && s.windows == 0);
    CHECK(s.skipped_old + s.skipped_revoked + s.skipped_not_infectious + s.skipped_no_sightings + s.derived == 140);
    CHECK(s.derived == 0); /* B's sightings are years away from 2020's keys */
    encore_match_result_free(r);

    /* A NULL trust is the client's trust list: none for the test's client,
     * the key's for a client made with it; so are NULL key file options. */
    kf.trust = NULL;
    r = NULL;
    CHECK(encore_match_run(b_client, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_ERR_SIGNATURE_UNTRUSTED && r == NULL);
    encore_client_options co = test_client_options(NULL, &clock_now);
    co.trust = trust;
    encore_client *trusting = NULL;
    CHECK(encore_client_new(b, &co, &trusting) == ENCORE_OK);
    CHECK(encore_match_run(trusting, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_OK && r != NULL);
    ENCORE_OUTPUT_INIT(s);
    CHECK(r != NULL && encore_match_result_get_stats(r, &s) == ENCORE_OK && s.keys == 140);
    encore_match_result_free(r);
    o.keyfile_options = NULL;
    r = NULL;
    CHECK(encore_match_run(trusting, &src, sizeof(encore_key_source), 1, &o, &r) == ENCORE_OK && r != NULL);
    encore_match_result_free(r);
    encore_client_free(trusting);
    encore_trust_free(trust);
    encore_client_free(b_client);
}

/* Several threads match against one store at once, each seeing the whole
 * result. Each passes the file twice: a key published twice is one key
 * matched and one window. */
typedef struct {
    encore_client *client;  /* the one client all threads share */
    const buffer *file;
    int ok;
} thread_job;

static void *match_in_thread(void *arg) {
    thread_job *job = arg;
    encore_keyfile_options kf;
    encore_keyfile_options_init(&kf, sizeof kf);
    kf.verify = ENCORE_VERIFY_SKIP;
    encore_match_options o;
    encore_match_options_init(&o, sizeof o, 0);  /* the time: the client's, set before the threads start */
    o.keyfile_options = &kf;
    o.threads = 2;
    encore_key_source src[2] = {{sizeof(encore_key_source), 0, NULL, job->file->bytes, job->file->length},
                                 {sizeof(encore_key_source), 0, NULL, job->file->bytes, job->file->length}};
    job->ok = 1;
    for (int round = 0; round < 3; round++) {
        encore_match_result *r = NULL;
        encore_match_stats s;
        ENCORE_OUTPUT_INIT(s);
        if (encore_match_run(job->client, src, sizeof(encore_key_source), 2, &o, &r) != ENCORE_OK || encore_match_result_get_stats(r, &s) != ENCORE_OK ||
            s.files != 2 || s.keys != 6 || s.matched_keys != 1 || s.windows != 1)
            job->ok = 0;
        encore_match_result_free(r);
    }
    return NULL;
}

static void test_threads(encore_store *b, const buffer *file) {
    int64_t clock_now = T0 + DAY;  /* the test's clock */
    encore_client *b_client = clocked_client(b, &clock_now);
    enum { THREADS = 4 };
    pthread_t threads[THREADS];
    thread_job jobs[THREADS];
    for (int i = 0; i < THREADS; i++) {
        jobs[i] = (thread_job){b_client, file, 0};
        CHECK(pthread_create(&threads[i], NULL, match_in_thread, &jobs[i]) == 0);
    }
    for (int i = 0; i < THREADS; i++) {
        pthread_join(threads[i], NULL);
        CHECK(jobs[i].ok == 1);
    }
    encore_client_free(b_client);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "c-match") != 0) return 1;
    snprintf(path_a, sizeof path_a, "%s/a.db", dir);
    snprintf(path_b, sizeof path_b, "%s/b.db", dir);
    encore_store *a = open_store(path_a, 1);
    encore_store *b = open_store(path_b, 2);
    if (a != NULL && b != NULL) {
        hear(a, b);
        encore_key key = a_published_key(a);
        buffer file = published_file(&key);
        test_match(b, &file);
        test_match_errors(b, &file);
        test_progress_and_cancel(b, &file);
        test_signed_sample(b);
        test_threads(b, &file);
        test_risk_and_check(b, &file);
    }
    encore_store_close(a);
    encore_store_close(b);
    scratch_dir_remove(dir);
    return check_report();
}
