/* C tests of CWA event check-ins (issue 16) through the .so: the spec's
 * known answers (location id hash, AES-256-CBC + HMAC reports both ways,
 * the ten time derivations), every argument check (NULL, lengths, struct
 * sizes, out-parameters left alone on failure), the QR statuses, check-ins
 * kept, edited and deleted in a store, a trace warning package written here
 * (protobuf and a stored zip by hand) matched with a forged report skipped,
 * the risk read back, and the exposure check's combined result (HIGH from
 * a check-in alone; FAILED when the check-ins' parameters map to no level).
 * Built with -Werror and run under valgrind by scripts/test-c.sh. */
#include "check.h"
#include "fresh_store.h"
#include "client.h"

#include <openssl/evp.h>
#include <openssl/x509.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define DAY 86400
#define NOW (20400LL * DAY + 20 * 3600) /* 2025-11-08 20:00 UTC */
#define MIDNIGHT (20400LL * DAY)

/* A real CWA QR code (the iOS app's scanner tests): "Agway Inc.", a
 * permanent place with a default check-in length of 28 minutes. */
static const char *REAL_QR =
    "https://e.coronawarn.app?v=1#CAESJQgBEgpBZ3dheSBJbmMuGhExNTk0IERlZmZlIEF2ZW51ZSgAMAAadggBEmA4xNrp5hKJoO_yVbXfF1gS8Yc5nURh"
    "OIVLG3nUcSg8IPsI2e8JSIhg-FrHUymQ3RR80KUKb1lZjLQkfTUINUP16r6-jFDURwUlCQQi6NXCgI0rQw0a4MrVrKMbF4NzhQMaEPXDJZ2XSeO0SY43-KCQlQciBggBEAQYHA";

/* ---- known answers (Tests/data/cwa/android-presence-tracing-crypto-kat.json,
 * base64 turned into bytes) ---- */

typedef struct kat {
    const char *location_id, *iv, *sealed, *mac;
    uint32_t start, period, trl;
} kat;

/* "encrypt": record {start minutes / 10, end / 10 - start / 10, trl}. */
static const kat ENCRYPT[] = {
    {"\x9b\xaf\x3a\x40\x31\x2f\x39\x84\x9f\x46\xda\xd1\x04\x0f\x2f\x03\x9f\x1c\xff\xa1\x23\x8c\x41\xe9\xdb\x67\x53\x15\xcf\xad\x39\xb6",
     "\xf9\x53\x4b\x64\x4a\xfe\x8f\xaa\xa8\xb6\x4b\xfc\xbf\x50\x12\x95",
     "\xee\xff\x5e\x43\xd4\x76\x26\xd0\xe7\x53\xbd\x20\x9f\x87\x22\x75",
     "\x83\xa2\x94\xf4\x58\xf3\x6b\x0c\x86\x03\x96\x4f\x89\x9c\x5f\x83\x1b\x7c\x3a\xee\x69\x49\x55\xaa\xab\x20\x1a\x06\x44\x04\x03\x89",
     2710445 / 10, 2710473 / 10 - 2710445 / 10, 7},
    {"\x03\xad\x6b\x33\x3d\x44\x50\x99\xc7\xdf\xe0\xff\x74\x5e\xc5\xcc\x13\x30\xd1\x49\xef\x75\x2f\x36\xc3\xae\xd4\xef\xea\x13\xf7\x25",
     "\x48\xce\xa7\xd8\x0a\x4c\x9b\x05\x82\x11\x5c\x1e\xc7\xdc\xab\x98",
     "\x5e\x93\xf6\xb4\xe9\x2d\x4f\xe4\x6a\x28\xdb\x6f\xbf\x7a\x9b\xc6",
     "\x4b\xad\xa5\xf6\xf7\x0c\x7a\x2b\x1a\x14\x8b\x40\x0d\x33\x60\x4c\x2f\x5a\xea\xe1\x06\x62\x42\x04\x2f\xd2\x12\xc7\x9d\x0b\x65\x2a",
     2710117 / 10, 2710127 / 10 - 2710117 / 10, 8},
};

/* "decrypt": the expected record. */
static const kat DECRYPT[] = {
    {"\x9b\xaf\x3a\x40\x31\x2f\x39\x84\x9f\x46\xda\xd1\x04\x0f\x2f\x03\x9f\x1c\xff\xa1\x23\x8c\x41\xe9\xdb\x67\x53\x15\xcf\xad\x39\xb6",
     "\xf9\x53\x4b\x64\x4a\xfe\x8f\xaa\xa8\xb6\x4b\xfc\xbf\x50\x12\x95",
     "\xb7\x94\xd6\x61\x87\x3f\x92\x7e\x2f\x6d\x64\x5d\xeb\xbe\xcb\xde",
     "\x04\x95\xff\x2b\x00\x17\xa3\x7b\xd0\x04\xc9\x72\x70\xcc\x4d\xc6\x2c\x25\xac\xdc\xb3\x59\xd0\xf6\x2d\xe1\x7d\x28\x2a\xf3\xb7\xf2",
     2710445, 28, 7},
    {"\x03\xad\x6b\x33\x3d\x44\x50\x99\xc7\xdf\xe0\xff\x74\x5e\xc5\xcc\x13\x30\xd1\x49\xef\x75\x2f\x36\xc3\xae\xd4\xef\xea\x13\xf7\x25",
     "\x48\xce\xa7\xd8\x0a\x4c\x9b\x05\x82\x11\x5c\x1e\xc7\xdc\xab\x98",
     "\x6b\x17\xc4\xc2\x70\xc6\xcf\xba\xf8\x73\xf9\xfa\xe4\x35\x43\x6b",
     "\xbd\xf8\xc6\xaf\xca\x49\xd8\x5f\x88\x84\x67\xc7\x97\x80\x2e\x75\xca\xe3\x86\x17\x20\xaf\xda\x89\xf6\x19\x75\xef\xa4\xbf\x22\x5f",
     2710117, 10, 8},
};

/* "locationIdHash". */
static const char *HASH_ID = "\xaf\xa2\x7b\x44\xd4\x3b\x02\xa9\xfe\xa4\x1d\x13\xce\xdc\x2e\x40\x16\xcf\xcf\x87\xc5\xdb\xf9\x90\xe5\x93\x66\x9a\xa8\xce\x28\x6d";
static const char *HASH_EXPECTED = "\x0f\x37\xda\xc1\x1d\x1b\x81\x18\xea\x0b\x44\x30\x34\x00\xfa\xa5\xe3\xb8\x76\xda\x9d\x75\x80\x58\xb5\xff\x7d\xc2\xe5\xda\x82\x30";

/* ios-checkin-timeinterval-derivation.json's ten cases in unix seconds
 * (the file's local times with their offsets); -1: dropped. */
static const int64_t DERIVATIONS[10][4] = {
    {1614835260, 1614835740, -1, -1},
    {1614838800, 1614839400, 1614838800, 1614840000},
    {1614842460, 1614843060, 1614842400, 1614843600},
    {1614846360, 1614846960, 1614846600, 1614847800},
    {1614849660, 1614850380, 1614849600, 1614850800},
    {1614853440, 1614854160, 1614853800, 1614855000},
    {1614857100, 1614857940, 1614856800, 1614858600},
    {1614860880, 1614861720, 1614861000, 1614862800},
    {1614864300, 1614865200, 1614864000, 1614865800},
    {1614867720, 1614870720, 1614867600, 1614872400},
};

static const uint8_t *u8(const char *s) { return (const uint8_t *)s; }

static encore_checkin_report report_of(const kat *k) {
    encore_checkin_report r;
    memset(&r, 0, sizeof r);
    ENCORE_OUTPUT_INIT(r);
    memcpy(r.iv, k->iv, 16);
    memcpy(r.mac, k->mac, 32);
    memcpy(r.encrypted_record, k->sealed, 16);
    r.encrypted_record_length = 16;
    return r;
}

static void test_known_answers(void) {
    for (size_t i = 0; i < sizeof ENCRYPT / sizeof ENCRYPT[0]; i++) {
        const kat *k = &ENCRYPT[i];
        encore_checkin_record record = {sizeof(encore_checkin_record), k->start, k->period, k->trl};
        encore_checkin_report out;
        ENCORE_OUTPUT_INIT(out);
        CHECK(encore_checkin_report_encrypt(u8(k->location_id), 32, &record, u8(k->iv), 16, &out) == ENCORE_OK);
        CHECK(out.encrypted_record_length == 16 && memcmp(out.encrypted_record, k->sealed, 16) == 0);
        CHECK(memcmp(out.mac, k->mac, 32) == 0 && memcmp(out.iv, k->iv, 16) == 0);
        encore_checkin_record back;
        ENCORE_OUTPUT_INIT(back);
        CHECK(encore_checkin_report_decrypt(u8(k->location_id), 32, &out, &back) == ENCORE_OK);
        CHECK(back.start_interval_number == k->start && back.period == k->period && back.transmission_risk_level == k->trl);
    }
    for (size_t i = 0; i < sizeof DECRYPT / sizeof DECRYPT[0]; i++) {
        const kat *k = &DECRYPT[i];
        encore_checkin_report r = report_of(k);
        encore_checkin_record out = {sizeof(encore_checkin_record), 0, 0, 0};
        CHECK(encore_checkin_report_decrypt(u8(k->location_id), 32, &r, &out) == ENCORE_OK);
        CHECK(out.start_interval_number == k->start && out.period == k->period && out.transmission_risk_level == k->trl);
        /* One flipped bit of the IV, the ciphertext or the MAC: the MAC fails
         * and *out is left alone. */
        for (int which = 0; which < 3; which++) {
            encore_checkin_report bad = report_of(k);
            uint8_t *byte = which == 0 ? &bad.iv[15] : which == 1 ? &bad.encrypted_record[15] : &bad.mac[31];
            *byte ^= 1;
            encore_checkin_record untouched = {sizeof(encore_checkin_record), 11, 22, 33};
            CHECK(encore_checkin_report_decrypt(u8(k->location_id), 32, &bad, &untouched) == ENCORE_ERR_REPORT_MAC);
            CHECK(untouched.start_interval_number == 11 && untouched.transmission_risk_level == 33);
        }
        /* Not whole AES blocks, no ciphertext, more than the struct holds. */
        encore_checkin_report cut = report_of(k);
        cut.encrypted_record_length = 15;
        CHECK(encore_checkin_report_decrypt(u8(k->location_id), 32, &cut, &out) == ENCORE_ERR_REPORT_INVALID);
        cut.encrypted_record_length = 0;
        CHECK(encore_checkin_report_decrypt(u8(k->location_id), 32, &cut, &out) == ENCORE_ERR_REPORT_INVALID);
        cut.encrypted_record_length = 33;
        CHECK(encore_checkin_report_decrypt(u8(k->location_id), 32, &cut, &out) == ENCORE_ERR_REPORT_INVALID);
    }
    encore_checkin_record any = {sizeof(encore_checkin_record), 1, 2, 3};
    encore_checkin_report named;
    ENCORE_OUTPUT_INIT(named);
    CHECK(encore_checkin_report_encrypt(u8(HASH_ID), 32, &any, NULL, 0, &named) == ENCORE_OK);
    CHECK(memcmp(named.location_id_hash, HASH_EXPECTED, 32) == 0);

    /* A NULL IV is a random one: two reports of one record differ. */
    encore_checkin_report again;
    ENCORE_OUTPUT_INIT(again);
    CHECK(encore_checkin_report_encrypt(u8(HASH_ID), 32, &any, NULL, 0, &again) == ENCORE_OK);
    CHECK(memcmp(named.iv, again.iv, 16) != 0 && memcmp(named.mac, again.mac, 32) != 0);

    for (int i = 0; i < 10; i++) {
        const int64_t *c = DERIVATIONS[i];
        int64_t start = -7, end = -7;
        int32_t reported = -1;
        CHECK(encore_checkin_derive_times(c[0], c[1], &start, &end, &reported) == ENCORE_OK);
        if (c[2] < 0) {
            CHECK(reported == 0 && start == -7 && end == -7);
        } else {
            CHECK(reported == 1 && start == c[2] && end == c[3]);
        }
    }
}

static void test_arguments(void) {
    encore_checkin_record record = {sizeof(encore_checkin_record), 1, 2, 3};
    encore_checkin_report report;
    memset(&report, 0, sizeof report);
    ENCORE_OUTPUT_INIT(report);
    uint8_t id[32] = {0};
    CHECK(encore_checkin_report_encrypt(NULL, 32, &record, NULL, 0, &report) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_encrypt(id, 31, &record, NULL, 0, &report) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_encrypt(id, 32, NULL, NULL, 0, &report) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_encrypt(id, 32, &record, id, 15, &report) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_encrypt(id, 32, &record, NULL, 16, &report) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_encrypt(id, 32, &record, NULL, 0, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_encrypt(id, (size_t)-1, &record, NULL, 0, &report) == ENCORE_ERR_INVALID_ARGUMENT);
    /* struct_size 0 (a caller that did not set it), and a newer caller's
     * field this library does not know. */
    encore_checkin_record unsized = {0, 1, 2, 3};
    CHECK(encore_checkin_report_encrypt(id, 32, &unsized, NULL, 0, &report) == ENCORE_ERR_INVALID_ARGUMENT);
    struct { encore_checkin_record known; uint32_t newer; } grown = {{sizeof grown, 1, 2, 3}, 1};
    CHECK(encore_checkin_report_encrypt(id, 32, &grown.known, NULL, 0, &report) == ENCORE_ERR_INVALID_ARGUMENT);
    grown.newer = 0;
    CHECK(encore_checkin_report_encrypt(id, 32, &grown.known, NULL, 0, &report) == ENCORE_OK);
    encore_checkin_report unsized_out = report;
    unsized_out.struct_size = 8;
    CHECK(encore_checkin_report_encrypt(id, 32, &record, NULL, 0, &unsized_out) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_decrypt(id, 32, NULL, &record) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_decrypt(NULL, 0, &report, &record) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_report_encrypt(id, 32, &record, NULL, 0, &report) == ENCORE_OK);
    CHECK(encore_checkin_report_decrypt(id, 32, &report, NULL) == ENCORE_ERR_INVALID_ARGUMENT);

    int64_t s = 0, e = 0;
    int32_t reported = 0;
    CHECK(encore_checkin_derive_times(0, 3600, NULL, &e, &reported) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_derive_times(0, 3600, &s, NULL, &reported) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_derive_times(0, 3600, &s, &e, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    /* Extreme times are refused or dropped, never wrapped. */
    encore_status extreme = encore_checkin_derive_times(INT64_MAX - 10, INT64_MAX, &s, &e, &reported);
    CHECK(extreme != ENCORE_OK || reported == 0 || (s <= e && s >= 0));

    encore_trace_location *loc = (encore_trace_location *)&s; /* must stay as it is on failure */
    CHECK(encore_trace_location_parse(NULL, &loc) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trace_location_parse(REAL_QR, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trace_location_parse("https://e.coronawarn.app?v=1#\xff\xfe", &loc) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_trace_location_parse_payload(NULL, 3, &loc) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(loc == (encore_trace_location *)&s);
    CHECK(encore_trace_location_get_info(NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_trace_location_free(NULL);
    encore_checkin_list_free(NULL);
    encore_checkin_assessment_free(NULL);
    encore_checkin_risk_config_free(NULL);
    size_t none = 7;
    CHECK(encore_checkin_list_count(NULL, &none) == ENCORE_ERR_INVALID_ARGUMENT && none == 7);

    encore_checkin_risk_config *config = NULL;
    CHECK(encore_checkin_risk_config_new_cwa(NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_risk_config_new_json(u8("{"), 1, &config) != ENCORE_OK && config == NULL);
    CHECK(encore_checkin_risk_config_new_json(NULL, 5, &config) == ENCORE_ERR_INVALID_ARGUMENT && config == NULL);
    const char *negative = "{\"transmissionRiskValueMapping\":[{\"transmissionRiskLevel\":1,\"transmissionRiskValue\":-1}],"
                           "\"normalizedTimePerCheckInToRiskLevelMapping\":[],\"normalizedTimePerDayToRiskLevelMapping\":[]}";
    CHECK(encore_checkin_risk_config_new_json(u8(negative), strlen(negative), &config) == ENCORE_ERR_INVALID_ARGUMENT && config == NULL);
    CHECK(strstr(encore_last_error_message(), "transmissionRiskValue") != NULL);
}

/* QRCodePayload {1: 1, 2: TraceLocation {1: 1, 2: "x" * n, 3: "a"},
 * 3: CrowdNotifierData {3: 16 bytes}} (n < 16384). */
static size_t put_varint(uint8_t *p, size_t v) {
    size_t i = 0;
    while (v > 127) {
        p[i++] = (uint8_t)(0x80 | (v & 0x7f));
        v >>= 7;
    }
    p[i++] = (uint8_t)v;
    return i;
}

static size_t text_payload(uint8_t *p, size_t n) {
    size_t i = 0;
    uint8_t tmp[4];
    size_t location = 2 + 1 + put_varint(tmp, n) + n + 3;
    p[i++] = 0x08;
    p[i++] = 0x01;
    p[i++] = 0x12;
    i += put_varint(p + i, location);
    p[i++] = 0x08;
    p[i++] = 0x01;
    p[i++] = 0x12;
    i += put_varint(p + i, n);
    memset(p + i, 'x', n);
    i += n;
    p[i++] = 0x1a;
    p[i++] = 0x01;
    p[i++] = 'a';
    p[i++] = 0x1a;
    p[i++] = 18;
    p[i++] = 0x1a;
    p[i++] = 16;
    memset(p + i, 7, 16);
    return i + 16;
}

static void test_qr_codes(void) {
    encore_trace_location *loc = NULL;
    CHECK(encore_trace_location_parse(REAL_QR, &loc) == ENCORE_OK && loc != NULL);
    encore_trace_location_info info;
    ENCORE_OUTPUT_INIT(info);
    CHECK(encore_trace_location_get_info(loc, &info) == ENCORE_OK);
    CHECK(info.version == 1 && strcmp(info.description, "Agway Inc.") == 0 && strcmp(info.address, "1594 Deffe Avenue") == 0);
    CHECK(info.location_type == 4 && info.default_check_in_length_minutes == 28 && info.automatic_length_seconds == 30 * 60);
    CHECK(info.start_timestamp == 0 && info.end_timestamp == 0 && info.payload_length == 169);
    /* The hash is SHA-256 of the id: the report of a record says so. */
    encore_checkin_record record = {sizeof(encore_checkin_record), 1, 1, 1};
    encore_checkin_report r;
    ENCORE_OUTPUT_INIT(r);
    CHECK(encore_checkin_report_encrypt(info.location_id, 32, &record, NULL, 0, &r) == ENCORE_OK);
    CHECK(memcmp(r.location_id_hash, info.location_id_hash, 32) == 0);
    encore_trace_location_info small;
    small.struct_size = 8;
    CHECK(encore_trace_location_get_info(loc, &small) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_trace_location_free(loc);

    char longer[5200];
    memset(longer, 'A', sizeof longer - 1);
    longer[sizeof longer - 1] = '\0';
    memcpy(longer, "https://e.coronawarn.app?v=1#", 29);
    char other_version[400];
    snprintf(other_version, sizeof other_version, "https://e.coronawarn.app?v=3#%s", strchr(REAL_QR, '#') + 1);
    struct { const char *qr; encore_status status; } cases[] = {
        {"https://example.com/?v=1#CAES", ENCORE_ERR_QR_NOT_CWA},
        {"https://e.coronawarn.app#CAES", ENCORE_ERR_QR_NOT_CWA},
        {other_version, ENCORE_ERR_QR_VERSION},
        {"https://e.coronawarn.app?v=1#***", ENCORE_ERR_QR_ENCODING},
        {"https://e.coronawarn.app?v=1#AAAA", ENCORE_ERR_QR_MALFORMED},
        {"https://e.coronawarn.app?v=1#", ENCORE_ERR_QR_MALFORMED},
        {longer, ENCORE_ERR_QR_TOO_LARGE},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        encore_trace_location *none = NULL;
        CHECK(encore_trace_location_parse(cases[i].qr, &none) == cases[i].status && none == NULL);
    }
    /* What the app accepts: 255 characters, not 256 (the address and the
     * seed are needed too). */
    uint8_t payload[400];
    encore_trace_location *none = NULL;
    CHECK(encore_trace_location_parse_payload(payload, text_payload(payload, 256), &none) == ENCORE_ERR_QR_INVALID && none == NULL);
    CHECK(strstr(encore_last_error_message(), "description has 256 characters") != NULL);
    CHECK(encore_trace_location_parse_payload(payload, text_payload(payload, 255), &none) == ENCORE_OK && none != NULL);
    encore_trace_location_free(none);
}

/* ---- a trace warning package, written by hand ---- */

typedef struct buf {
    uint8_t *data;
    size_t length, capacity;
} buf;

static void put(buf *b, const void *data, size_t n) {
    if (b->length + n > b->capacity) {
        b->capacity = (b->length + n) * 2 + 64;
        b->data = realloc(b->data, b->capacity);
        if (b->data == NULL) abort();
    }
    memcpy(b->data + b->length, data, n);
    b->length += n;
}

static void varint(buf *b, uint64_t v) {
    while (v >= 0x80) {
        uint8_t byte = (uint8_t)(v & 0x7F) | 0x80;
        put(b, &byte, 1);
        v >>= 7;
    }
    uint8_t last = (uint8_t)v;
    put(b, &last, 1);
}

static void bytes_field(buf *b, uint32_t number, const void *data, size_t n) {
    varint(b, number << 3 | 2);
    varint(b, n);
    put(b, data, n);
}

static void report_field(buf *pkg, const encore_checkin_report *r) {
    buf m = {0};
    bytes_field(&m, 1, r->location_id_hash, 32);
    bytes_field(&m, 2, r->iv, 16);
    bytes_field(&m, 3, r->encrypted_record, r->encrypted_record_length);
    bytes_field(&m, 4, r->mac, 32);
    bytes_field(pkg, 4, m.data, m.length);
    free(m.data);
}

static uint32_t crc32_of(const uint8_t *p, size_t n) {
    uint32_t crc = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        crc ^= p[i];
        for (int k = 0; k < 8; k++) crc = (crc >> 1) ^ (0xEDB88320u & (0u - (crc & 1u)));
    }
    return ~crc;
}

static void le16(buf *b, uint32_t v) {
    uint8_t x[2] = {(uint8_t)v, (uint8_t)(v >> 8)};
    put(b, x, 2);
}

static void le32(buf *b, uint32_t v) {
    uint8_t x[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
    put(b, x, 4);
}

/* A zip of stored members (name, bytes). */
static buf zip_of_members(const char *const *names, const buf *const *members, size_t count) {
    buf z = {0}, directory = {0};
    for (size_t i = 0; i < count; i++) {
        uint32_t crc = crc32_of(members[i]->data, members[i]->length), n = (uint32_t)members[i]->length;
        uint16_t name_length = (uint16_t)strlen(names[i]);
        uint32_t offset = (uint32_t)z.length;
        le32(&z, 0x04034b50); le16(&z, 20); le16(&z, 0); le16(&z, 0); le16(&z, 0); le16(&z, 0);
        le32(&z, crc); le32(&z, n); le32(&z, n); le16(&z, name_length); le16(&z, 0);
        put(&z, names[i], name_length);
        put(&z, members[i]->data, members[i]->length);
        le32(&directory, 0x02014b50); le16(&directory, 20); le16(&directory, 20); le16(&directory, 0); le16(&directory, 0);
        le16(&directory, 0); le16(&directory, 0);
        le32(&directory, crc); le32(&directory, n); le32(&directory, n); le16(&directory, name_length); le16(&directory, 0);
        le16(&directory, 0); le16(&directory, 0); le16(&directory, 0); le32(&directory, 0); le32(&directory, offset);
        put(&directory, names[i], name_length);
    }
    uint32_t start = (uint32_t)z.length;
    put(&z, directory.data, directory.length);
    le32(&z, 0x06054b50); le16(&z, 0); le16(&z, 0); le16(&z, (uint32_t)count); le16(&z, (uint32_t)count);
    le32(&z, (uint32_t)directory.length); le32(&z, start); le16(&z, 0);
    free(directory.data);
    return z;
}

/* A zip holding export.bin = `bin` alone (unsigned). */
static buf zip_of(const buf *bin) {
    const char *names[] = {"export.bin"};
    const buf *members[] = {bin};
    return zip_of_members(names, members, 1);
}

/* The package's signer: an ECDSA P-256 key of the test's own, trusted as
 * ("warnings", "v1"). */
typedef struct signer {
    EVP_PKEY *key;
    encore_trust *trust;
} signer;

static signer signer_new(void) {
    signer s = {EVP_EC_gen("P-256"), NULL};
    CHECK(s.key != NULL);
    unsigned char *der = NULL;
    int der_length = i2d_PUBKEY(s.key, &der);
    CHECK(der_length > 0);
    CHECK(encore_trust_new(&s.trust) == ENCORE_OK);
    CHECK(encore_trust_add_key(s.trust, "warnings", "v1", der, (size_t)der_length) == ENCORE_OK);
    OPENSSL_free(der);
    return s;
}

static void signer_free(signer *s) {
    EVP_PKEY_free(s->key);
    encore_trust_free(s->trust);
}

/* A zip of export.bin = `bin` and its export.sig (a TEKSignatureList with
 * one signature by `s`), as CWA publishes warning packages. */
static buf signed_zip_of(const buf *bin, const signer *s) {
    EVP_MD_CTX *ctx = EVP_MD_CTX_new();
    size_t length = 0;
    CHECK(ctx != NULL && EVP_DigestSignInit(ctx, NULL, EVP_sha256(), NULL, s->key) == 1);
    CHECK(EVP_DigestSign(ctx, NULL, &length, bin->data, bin->length) == 1);
    unsigned char *der = malloc(length);
    CHECK(der != NULL && EVP_DigestSign(ctx, der, &length, bin->data, bin->length) == 1);
    EVP_MD_CTX_free(ctx);
    buf info = {0}, signature = {0}, list = {0};
    bytes_field(&info, 3, "v1", 2);
    bytes_field(&info, 4, "warnings", 8);
    bytes_field(&info, 5, "1.2.840.10045.4.3.2", 19);
    bytes_field(&signature, 1, info.data, info.length);
    varint(&signature, 2 << 3); varint(&signature, 1);  /* batch_num */
    varint(&signature, 3 << 3); varint(&signature, 1);  /* batch_size */
    bytes_field(&signature, 4, der, length);
    bytes_field(&list, 1, signature.data, signature.length);
    const char *names[] = {"export.bin", "export.sig"};
    const buf *members[] = {bin, &list};
    buf z = zip_of_members(names, members, 2);
    free(der);
    free(info.data);
    free(signature.data);
    free(list.data);
    return z;
}

static const char *FAILING_CONFIG =
    "{\"transmissionRiskValueMapping\":[{\"transmissionRiskLevel\":7,\"transmissionRiskValue\":1.4}],"
    "\"normalizedTimePerCheckInToRiskLevelMapping\":[{\"normalizedTimeRange\":{\"min\":100,\"max\":999999},\"riskLevel\":2}],"
    "\"normalizedTimePerDayToRiskLevelMapping\":[{\"normalizedTimeRange\":{\"min\":100,\"max\":999999},\"riskLevel\":2}]}";

static void test_store_match_and_check(void) {
    encore_store *store = fresh_store();
    if (store == NULL) return;
    int64_t clock_now = NOW;  /* the test's clock */
    encore_client *client = clocked_client(store, &clock_now);

    int64_t visit = -1, other = -1, open_id = -1;
    CHECK(encore_checkin_add(NULL, REAL_QR, NOW - 8 * 3600, NOW - 6 * 3600, ENCORE_CHECKIN_MODE_DIARY, &visit) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_add(client, NULL, NOW - 8 * 3600, NOW - 6 * 3600, ENCORE_CHECKIN_MODE_DIARY, &visit) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_add(client, "https://e.coronawarn.app?v=1#AAAA", NOW - 3600, -1, ENCORE_CHECKIN_MODE_DIARY, &visit) == ENCORE_ERR_QR_MALFORMED);
    CHECK(encore_checkin_add(client, REAL_QR, NOW - 3600, NOW - 7200, ENCORE_CHECKIN_MODE_DIARY, &visit) == ENCORE_ERR_CHECKIN_TIMES);
    CHECK(encore_checkin_add(client, REAL_QR, NOW - 3600, -2, ENCORE_CHECKIN_MODE_DIARY, &visit) == ENCORE_ERR_CHECKIN_TIMES);
    CHECK(visit == -1);
    CHECK(encore_checkin_add(client, REAL_QR, NOW - 8 * 3600, NOW - 6 * 3600, ENCORE_CHECKIN_MODE_DIARY, &visit) == ENCORE_OK && visit > 0);
    CHECK(encore_checkin_add(client, REAL_QR, NOW - 30 * 60, -1, ENCORE_CHECKIN_MODE_DIARY, &open_id) == ENCORE_OK && open_id > visit);
    CHECK(encore_checkin_add(client, REAL_QR, NOW - 5 * 3600, NOW - 4 * 3600, ENCORE_CHECKIN_MODE_DIARY, NULL) == ENCORE_OK);
    CHECK(encore_checkin_add(client, REAL_QR, NOW - 5 * 3600, NOW - 4 * 3600, ENCORE_CHECKIN_MODE_DIARY, &other) == ENCORE_OK);

    /* Edit, check out, delete. */
    CHECK(encore_checkin_end(client, 9999, NOW) == ENCORE_ERR_NOT_FOUND);
    CHECK(encore_checkin_end(client, open_id, NOW - 3600) == ENCORE_ERR_CHECKIN_TIMES);
    CHECK(encore_checkin_end(client, open_id, NOW - 10 * 60) == ENCORE_OK);
    CHECK(encore_checkin_edit(client, other, NOW - 5 * 3600, -3) == ENCORE_ERR_CHECKIN_TIMES);
    CHECK(encore_checkin_edit(client, other, NOW - 4 * 3600, -1) == ENCORE_OK);
    int32_t existed = -1;
    CHECK(encore_checkin_delete(client, other, &existed) == ENCORE_OK && existed == 1);
    CHECK(encore_checkin_delete(client, other, &existed) == ENCORE_OK && existed == 0);
    CHECK(encore_checkin_delete(NULL, other, &existed) == ENCORE_ERR_INVALID_ARGUMENT);

    encore_checkin_list *list = NULL;
    CHECK(encore_checkin_list_open(client, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_list_open(client, &list) == ENCORE_OK && list != NULL);
    size_t n = 0, copied = 99;
    CHECK(encore_checkin_list_count(list, &n) == ENCORE_OK && n == 3);
    CHECK(encore_checkin_list_count(list, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_checkin_info all[4];
    CHECK(encore_checkin_list_copy(list, 4, all, sizeof all[0], 4, &copied) == ENCORE_ERR_OUT_OF_RANGE && copied == 99);
    CHECK(encore_checkin_list_copy(list, 3, all, sizeof all[0], 4, &copied) == ENCORE_OK && copied == 0);
    CHECK(encore_checkin_list_copy(list, 0, NULL, sizeof all[0], 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_list_copy(list, 0, all, sizeof all[0] / 2, 1, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_list_copy(list, 0, all, sizeof all[0], 4, &copied) == ENCORE_OK && copied == 3);
    encore_checkin_info ci = all[0];
    CHECK(ci.struct_size == sizeof ci && ci.kind == ENCORE_CHECKIN_KIND_CWA && ci.created == NOW);
    CHECK(ci.id == visit && ci.start == NOW - 8 * 3600 && ci.end == NOW - 6 * 3600 && ci.submitted == 0);
    CHECK(strcmp((const char *)ci.description.data, "Agway Inc.") == 0 && ci.description.length == 10);
    CHECK(strcmp((const char *)ci.address.data, "1594 Deffe Avenue") == 0);
    uint8_t hash[32];
    memcpy(hash, ci.location_id_hash, 32);
    int found_open = 0;
    for (size_t i = 0; i < copied; i++) {
        if (all[i].id == open_id) found_open = all[i].end == NOW - 10 * 60 && all[i].auto_end == NOW - 30 * 60 + 30 * 60; /* 28 minutes rounded to 30 */
        encore_bytes_free(&all[i].description);
        encore_bytes_free(&all[i].address);
    }
    CHECK(found_open);

    /* Paged (one at a time) gives the same check-ins. */
    for (size_t i = 0; i < n; i++) {
        encore_checkin_info one;
        CHECK(encore_checkin_list_copy(list, i, &one, sizeof one, 1, &copied) == ENCORE_OK && copied == 1);
        CHECK(one.id == all[i].id && one.start == all[i].start && memcmp(one.location_id_hash, all[i].location_id_hash, 32) == 0);
        encore_bytes_free(&one.description);
        encore_bytes_free(&one.address);
    }

    /* A caller built against the first version of encore_checkin_info
     * (up to location_id_hash, without kind and created) gets the fields
     * it has, and elements that far apart. */
    typedef struct {
        uint32_t struct_size;
        int32_t submitted;
        int64_t id, start, end, auto_end;
        encore_bytes description, address;
        uint8_t location_id_hash[32];
    } checkin_info_v1;
    checkin_info_v1 old[3];
    memset(old, 0xAB, sizeof old);
    CHECK(encore_checkin_list_copy(list, 0, (encore_checkin_info *)(void *)old, sizeof old[0], 3, &copied) == ENCORE_OK && copied == 3);
    for (size_t i = 0; i < 3; i++) {
        CHECK(old[i].struct_size == sizeof old[0] && old[i].id == all[i].id && old[i].end == all[i].end);
        CHECK(memcmp(old[i].location_id_hash, all[i].location_id_hash, 32) == 0 && old[i].address.data != NULL && strlen((const char *)old[i].address.data) == old[i].address.length);
        encore_bytes_free(&old[i].description);
        encore_bytes_free(&old[i].address);
    }
    encore_checkin_list_free(list);

    /* The package: a report for the visit (13:00-15:00, TRL 7: 60 minutes
     * with the 12:00-14:00 visit), a forged one, a plain warning for
     * another place, and a report for another place. */
    encore_trace_location *loc = NULL;
    encore_trace_location_info info;
    ENCORE_OUTPUT_INIT(info);
    CHECK(encore_trace_location_parse(REAL_QR, &loc) == ENCORE_OK && encore_trace_location_get_info(loc, &info) == ENCORE_OK);
    CHECK(memcmp(info.location_id_hash, hash, 32) == 0);
    encore_trace_location_free(loc);
    encore_checkin_record record = {sizeof(encore_checkin_record), (uint32_t)((NOW - 7 * 3600) / 600), 12, 7};
    encore_checkin_report good, forged, elsewhere;
    ENCORE_OUTPUT_INIT(good);
    ENCORE_OUTPUT_INIT(forged);
    ENCORE_OUTPUT_INIT(elsewhere);
    CHECK(encore_checkin_report_encrypt(info.location_id, 32, &record, NULL, 0, &good) == ENCORE_OK);
    forged = good;
    forged.mac[0] ^= 0x80;
    uint8_t another[32];
    memset(another, 0x77, sizeof another);
    CHECK(encore_checkin_report_encrypt(another, 32, &record, NULL, 0, &elsewhere) == ENCORE_OK);
    buf bin = {0};
    varint(&bin, 1 << 3);
    varint(&bin, (uint64_t)(NOW / 3600));
    bytes_field(&bin, 2, "DE", 2);
    buf plain = {0};
    bytes_field(&plain, 1, elsewhere.location_id_hash, 32);
    varint(&plain, 2 << 3);
    varint(&plain, record.start_interval_number);
    varint(&plain, 3 << 3);
    varint(&plain, 6);
    varint(&plain, 4 << 3);
    varint(&plain, 8);
    bytes_field(&bin, 3, plain.data, plain.length);
    free(plain.data);
    report_field(&bin, &good);
    report_field(&bin, &forged);
    report_field(&bin, &elsewhere);
    buf zip = zip_of(&bin);

    encore_keyfile_options options;
    CHECK(encore_keyfile_options_init(&options, sizeof options) == ENCORE_OK);
    encore_warning_match_summary summary;
    ENCORE_OUTPUT_INIT(summary);
    /* Verification on with no trusted key: unsigned is refused. */
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, NULL, &summary) == ENCORE_ERR_SIGNATURE_MISSING);
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, &options, &summary) == ENCORE_ERR_SIGNATURE_MISSING);
    /* Nothing unverified is stored, not even on request. */
    options.verify = ENCORE_VERIFY_SKIP;
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, &options, &summary) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(strstr(encore_last_error_message(), "ENCORE_VERIFY_REQUIRE") != NULL);
    options.verify = ENCORE_VERIFY_REPORT;
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, &options, &summary) == ENCORE_ERR_INVALID_ARGUMENT);
    /* Signed by a key the trust list holds. */
    signer signer = signer_new();
    free(zip.data);
    zip = signed_zip_of(&bin, &signer);
    options.verify = ENCORE_VERIFY_REQUIRE;
    options.trust = signer.trust;
    CHECK(encore_checkin_match_package(client, NULL, 10, &options, &summary) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_match_package(NULL, zip.data, zip.length, &options, &summary) == ENCORE_ERR_INVALID_ARGUMENT);
    /* A summary too small for the library is refused before anything is stored. */
    encore_warning_match_summary tiny_summary;
    tiny_summary.struct_size = 8;
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, &options, &tiny_summary) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, &options, &summary) == ENCORE_OK);
    CHECK(summary.signature_status == ENCORE_SIGNATURE_VERIFIED && summary.interval_number == (uint32_t)(NOW / 3600));
    /* One report for the place is stored for each of its three check-ins
     * (the risk then finds that only the 12:00-14:00 visit overlaps: the
     * 15:00-16:00 one starts when the warning ends). */
    CHECK(summary.warnings == 1 && summary.reports == 3 && summary.matches == 1 && summary.added == 3 && summary.skipped == 1);
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, &options, NULL) == ENCORE_OK);
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, &options, &summary) == ENCORE_OK && summary.added == 0);
    /* The empty package, and an export.bin that is no TraceWarningPackage. */
    CHECK(encore_checkin_match_package(client, NULL, 0, &options, &summary) == ENCORE_OK && summary.reports == 0);
    buf junk = {0};
    put(&junk, "\x0a\xff\xff\xff\x0f", 5);
    buf junk_zip = signed_zip_of(&junk, &signer);
    CHECK(encore_checkin_match_package(client, junk_zip.data, junk_zip.length, &options, &summary) == ENCORE_ERR_WARNING_MALFORMED);
    free(junk.data);
    free(junk_zip.data);
    zip.data[zip.length / 2] ^= 0xFF; /* a damaged zip */
    CHECK(encore_checkin_match_package(client, zip.data, zip.length, &options, &summary) != ENCORE_OK);
    free(zip.data);
    free(bin.data);
    signer_free(&signer);

    /* The risk. */
    encore_checkin_assessment *a = NULL;
    CHECK(encore_checkin_assess(client, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_assess(NULL, NULL, &a) == ENCORE_ERR_INVALID_ARGUMENT && a == NULL);
    CHECK(encore_checkin_assess(client, NULL, &a) == ENCORE_OK && a != NULL);
    encore_checkin_risk_summary risk;
    ENCORE_OUTPUT_INIT(risk);
    CHECK(encore_checkin_assessment_get_summary(a, &risk) == ENCORE_OK);
    CHECK(risk.total_risk_level == ENCORE_CHECKIN_RISK_HIGH && risk.match_count == 1 && risk.day_count == 1);
    encore_checkin_match matches[4];
    copied = 99;
    CHECK(encore_checkin_assessment_copy_matches(a, 0, matches, sizeof(encore_checkin_match), 4, &copied) == ENCORE_OK && copied == 1);
    CHECK(matches[0].check_in == visit && matches[0].date == MIDNIGHT && matches[0].overlap_seconds == 3600);
    CHECK(matches[0].overlap_minutes == 60 && matches[0].transmission_risk_level == 7);
    CHECK(matches[0].normalized_time > 83.999 && matches[0].normalized_time < 84.001);
    CHECK(memcmp(matches[0].location_id_hash, hash, 32) == 0);
    CHECK(encore_checkin_assessment_copy_matches(a, 1, matches, sizeof(encore_checkin_match), 4, &copied) == ENCORE_OK && copied == 0);
    CHECK(encore_checkin_assessment_copy_matches(a, 2, matches, sizeof(encore_checkin_match), 4, &copied) == ENCORE_ERR_OUT_OF_RANGE);
    CHECK(encore_checkin_assessment_copy_matches(a, 0, NULL, sizeof(encore_checkin_match), 4, &copied) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_checkin_day days[2];
    CHECK(encore_checkin_assessment_copy_days(a, 0, days, sizeof(encore_checkin_day), 2, &copied) == ENCORE_OK && copied == 1);
    CHECK(days[0].date == MIDNIGHT && days[0].risk_level == ENCORE_CHECKIN_RISK_HIGH);
    encore_bytes json = {NULL, 0};
    CHECK(encore_checkin_assessment_get_json(a, &json) == ENCORE_OK && json.data != NULL);
    if (json.data != NULL) {
        char *text = calloc(json.length + 1, 1);
        if (text != NULL) {
            memcpy(text, json.data, json.length);
            CHECK(strstr(text, "\"overlapMinutes\":60") != NULL && strstr(text, "\"totalRiskLevel\":\"HIGH\"") != NULL);
            CHECK(strstr(text, "\"date\":\"2025-11-08\"") != NULL);
            free(text);
        }
        encore_bytes_free(&json);
    }
    encore_checkin_risk_summary tiny;
    tiny.struct_size = 4;
    CHECK(encore_checkin_assessment_get_summary(a, &tiny) == ENCORE_ERR_INVALID_ARGUMENT);
    encore_checkin_assessment_free(a);

    encore_checkin_risk_config *failing = NULL;
    CHECK(encore_checkin_risk_config_new_json(u8(FAILING_CONFIG), strlen(FAILING_CONFIG), &failing) == ENCORE_OK);
    a = NULL;
    CHECK(encore_checkin_assess(client, failing, &a) == ENCORE_OK);
    CHECK(encore_checkin_assessment_get_summary(a, &risk) == ENCORE_OK && risk.total_risk_level == ENCORE_CHECKIN_RISK_FAILED);
    encore_checkin_assessment_free(a);

    /* The exposure check without key files: no exposure windows, the
     * check-in makes the day HIGH. */
    encore_risk_config *config = NULL;
    CHECK(encore_risk_config_new_cwa(&config) == ENCORE_OK);
    encore_match_options mo;
    CHECK(encore_match_options_init(&mo, sizeof mo, 0) == ENCORE_OK);
    encore_check_result *check = NULL;
    CHECK(encore_exposure_check(client, NULL, sizeof(encore_key_source), 0, config, &mo, NULL, &check) == ENCORE_OK && check != NULL);
    encore_check_summary cs;
    ENCORE_OUTPUT_INIT(cs);
    CHECK(encore_check_result_get_summary(check, &cs) == ENCORE_OK);
    CHECK(cs.status == ENCORE_CHECK_HIGH && cs.window_count == 0);
    a = NULL;
    CHECK(encore_check_result_get_checkin_assessment(check, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_check_result_get_checkin_assessment(NULL, &a) == ENCORE_ERR_INVALID_ARGUMENT && a == NULL);
    CHECK(encore_check_result_get_checkin_assessment(check, &a) == ENCORE_OK && a != NULL);
    CHECK(encore_checkin_assessment_get_summary(a, &risk) == ENCORE_OK && risk.total_risk_level == ENCORE_CHECKIN_RISK_HIGH);
    CHECK(encore_checkin_assessment_copy_matches(a, 0, matches, sizeof(encore_checkin_match), 4, &copied) == ENCORE_OK && copied == 1 && matches[0].overlap_minutes == 60);
    encore_checkin_assessment_free(a);
    encore_check_result_free(check);

    /* With parameters that map 84 to no level the check FAILED. */
    encore_check_options co;
    CHECK(encore_check_options_init(&co, sizeof co) == ENCORE_OK);
    co.checkin_risk = failing;
    check = NULL;
    CHECK(encore_exposure_check(client, NULL, sizeof(encore_key_source), 0, config, &mo, &co, &check) == ENCORE_OK && check != NULL);
    CHECK(encore_check_result_get_summary(check, &cs) == ENCORE_OK && cs.status == ENCORE_CHECK_FAILED);
    encore_check_result_free(check);

    /* Deleting the check-in deletes its warnings: LOW again. */
    CHECK(encore_checkin_delete(client, visit, &existed) == ENCORE_OK && existed == 1);
    check = NULL;
    CHECK(encore_exposure_check(client, NULL, sizeof(encore_key_source), 0, config, &mo, &co, &check) == ENCORE_OK && check != NULL);
    CHECK(encore_check_result_get_summary(check, &cs) == ENCORE_OK && cs.status != ENCORE_CHECK_HIGH && cs.status != ENCORE_CHECK_FAILED);
    encore_check_result_free(check);

    encore_checkin_risk_config_free(failing);
    encore_risk_config_free(config);

    /* What a submission would send: JSON with the remaining check-in's report. */
    encore_bytes reports = {NULL, 0};
    CHECK(encore_checkin_get_reports_json(client, NULL, NULL) == ENCORE_ERR_INVALID_ARGUMENT);
    CHECK(encore_checkin_get_reports_json(client, NULL, &reports) == ENCORE_OK && reports.data != NULL);
    if (reports.data != NULL) {
        CHECK(reports.length > 12 && memcmp(reports.data, "{\"reports\":[", 12) == 0);
        encore_bytes_free(&reports);
    }
    encore_client_free(client);
    encore_store_close(store);
}

int main(void) {
    if (scratch_dir_make(dir, sizeof dir, "checkins") != 0) return 1;
    test_known_answers();
    test_arguments();
    test_qr_codes();
    test_store_match_and_check();
    scratch_dir_remove(dir);
    return check_report();
}
