/* See encore_key_decode.h. */
#include "encore_key_decode.h"

#include <string.h>

/* A varint of 1..5 bytes, truncated to 32 bits as protobuf-c's int32
 * parsing does; 0 when it is longer or runs past the end. Unrolled: keys
 * hold 1-, 2- and 4-byte varints, each the same length in every key. */
static inline size_t varint32(const uint8_t *p, size_t avail, uint32_t *value) {
    if (avail >= 5) {
        uint32_t v = p[0];
        if (v < 0x80) { *value = v; return 1; }
        v = (v & 0x7f) | (uint32_t)p[1] << 7;
        if (p[1] < 0x80) { *value = v; return 2; }
        v = (v & 0x3fff) | (uint32_t)p[2] << 14;
        if (p[2] < 0x80) { *value = v; return 3; }
        v = (v & 0x1fffff) | (uint32_t)p[3] << 21;
        if (p[3] < 0x80) { *value = v; return 4; }
        v = (v & 0xfffffff) | (uint32_t)p[4] << 28;   /* the top bits of p[4] fall off, as in protobuf-c */
        if (p[4] < 0x80) { *value = v; return 5; }
        return 0;
    }
    uint64_t v = 0;
    for (size_t i = 0; i < avail; i++) {
        v |= (uint64_t)(p[i] & 0x7f) << (7 * i);
        if (!(p[i] & 0x80)) { *value = (uint32_t)v; return i + 1; }
    }
    return 0;
}

/* A length: a varint of 1..5 bytes whose value fits 32 bits, else 0. */
static inline size_t length32(const uint8_t *p, size_t avail, uint32_t *value) {
    size_t n = varint32(p, avail, value);
    return n == 5 && p[4] > 0x0f ? 0 : n;
}

/* One optional varint field with tag `tag` at p[*i], if it is there. */
static inline int field32(const uint8_t *p, size_t len, size_t *i, uint8_t tag, uint8_t *has, int32_t *value) {
    if (*i >= len || p[*i] != tag) return 1;
    uint32_t v;
    size_t n = varint32(p + *i + 1, len - *i - 1, &v);
    if (n == 0) return 0;
    *i += 1 + n;
    *has = 1;
    *value = (int32_t)v;
    return 1;
}

int enc_key_decode_plain(const uint8_t *p, size_t len, enc_key_fields *out) {
    /* The fields in ascending order, each at most once: a straight line
     * whose branches go the same way for every key of a real file. Other
     * orders are left to protobuf-c. */
    *out = (enc_key_fields){0};
    size_t i = 0;
    if (len > 0 && p[0] == (1 << 3 | 2)) {
        uint32_t n;
        size_t used = length32(p + 1, len - 1, &n);
        if (used == 0 || n > len - 1 - used) return 0;
        out->has_key_data = 1;
        out->key_data_len = n;
        if (n == 16) memcpy(out->key_data, p + 1 + used, 16);
        i = 1 + used + n;
    }
    int32_t dsos = 0;
    if (!field32(p, len, &i, 2 << 3, &out->has_transmission_risk_level, &out->transmission_risk_level) ||
        !field32(p, len, &i, 3 << 3, &out->has_rolling_start_interval_number, &out->rolling_start_interval_number) ||
        !field32(p, len, &i, 4 << 3, &out->has_rolling_period, &out->rolling_period) ||
        !field32(p, len, &i, 5 << 3, &out->has_report_type, &out->report_type) ||
        !field32(p, len, &i, 6 << 3, &out->has_days_since_onset_of_symptoms, &dsos) || i != len) {
        return 0;
    }
    uint32_t z = (uint32_t)dsos;
    out->days_since_onset_of_symptoms = (int32_t)((z >> 1) ^ (0u - (z & 1)));  /* sint32: zigzag */
    return 1;
}

int enc_key_is_valid(const enc_key_fields *k) {
    int32_t period = k->has_rolling_period ? k->rolling_period : 144;
    int32_t report = k->has_report_type ? k->report_type : 0;
    return k->has_key_data && k->key_data_len == 16 && period >= 1 && period <= 144 && report >= 0 && report <= 5;
}

/* Whether the prefilter drops a valid key: it cannot match. */
static inline int dropped(enc_key_walk *w, const enc_key_fields *k) {
    if (w->sighted == NULL || (k->has_report_type && k->report_type == 5)) return 0;  /* REVOKED: counted by the caller */
    int64_t start = k->has_rolling_start_interval_number ? k->rolling_start_interval_number : 0;
    int64_t end = start + (k->has_rolling_period ? k->rolling_period : 144);
    if (w->last_known && start == w->last_start && end == w->last_end) return w->last_dropped;
    int64_t lower, upper;
    int drop = end * 600 >= w->oldest                                                   /* too old: left to the caller */
               && !enc_sighted_range(w->sighted, start, end, w->drift, &lower, &upper);
    w->last_known = 1;
    w->last_start = start;
    w->last_end = end;
    w->last_dropped = drop;
    return drop;
}

size_t enc_export_keys(const uint8_t *body, size_t len, size_t *offset, enc_key_walk *walk, enc_key_item *items, size_t max) {
    /* Counts in locals: an increment in memory per key would chain every
     * iteration to the one before through a store and a load. */
    uint64_t stepped[2] = {0, 0}, dropped_keys = 0;
    size_t i = *offset, n = 0;
    while (i < len && n < max) {
        uint8_t tag = body[i];
        if (tag != (7 << 3 | 2) && tag != (8 << 3 | 2)) break;
        uint32_t length;
        size_t used = length32(body + i + 1, len - i - 1, &length);
        if (used == 0 || length > len - i - 1 - used) break;
        size_t payload = i + 1 + used, end = payload + length;
        unsigned list = tag >> 3;
        if (walk->lists & (1u << list)) {
            /* Decoded into the next slot, which a dropped key leaves free. */
            enc_key_item *item = &items[n];
            item->plain = (uint32_t)enc_key_decode_plain(body + payload, length, &item->fields);
            item->valid = item->plain && enc_key_is_valid(&item->fields);
            if (item->valid && list == 7 && dropped(walk, &item->fields)) {
                dropped_keys++;
            } else {
                item->list = list;
                item->payload = payload;
                item->length = length;
                item->end = end;
                n++;
            }
        } else {
            stepped[list - 7]++;
        }
        i = end;
    }
    *offset = i;
    walk->stepped[0] += stepped[0];
    walk->stepped[1] += stepped[1];
    walk->dropped += dropped_keys;
    return n;
}
