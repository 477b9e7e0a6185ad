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

/* Whether the prefilter drops a valid key of the given report type,
 * rolling start and period: it cannot match. */
static inline int dropped(enc_key_walk *w, int32_t report, int64_t start, int64_t period) {
    if (w->sighted == NULL || report == 5) return 0;  /* REVOKED: counted by the caller */
    int64_t end = start + period;
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

/* The same for decoded fields (absent fields take their defaults). */
static inline int dropped_key(enc_key_walk *w, const enc_key_fields *k) {
    return dropped(w, k->has_report_type ? k->report_type : 0, k->has_rolling_start_interval_number ? k->rolling_start_interval_number : 0,
                   k->has_rolling_period ? k->rolling_period : 144);
}

/* A little-endian 64-bit load: byte k at bits 8k, whatever the machine's
 * byte order, so that masks built byte by byte apply. */
static inline uint64_t load_le64(const uint8_t *p) {
    uint64_t v;
    memcpy(&v, p, 8);
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
    v = __builtin_bswap64(v);
#endif
    return v;
}

/* Whether a tail (16 bytes readable) has the shape's layout. */
static inline int shape_fits(const enc_key_shape *shape, const uint8_t *tail) {
    return (((load_le64(tail) & shape->mask[0]) ^ shape->expected[0]) |
            ((load_le64(tail + 8) & shape->mask[1]) ^ shape->expected[1])) == 0;
}

/* The value of a varint whose bytes (at most five, the last without its
 * continuation bit) are the low bytes of w, the rest zero: its 7-bit
 * groups packed together, bits past 32 falling off as in varint32. */
static inline uint32_t varint_bytes(uint64_t w) {
    return (uint32_t)((w & 0x7f) | (w >> 1 & 0x7f << 7) | (w >> 2 & 0x7f << 14) | (w >> 3 & 0x7fu << 21) |
                      (w >> 4 & (uint64_t)0x7f << 28));
}

/* Field f (2..6) of a tail that fits the shape, as a varint32 (0 when
 * absent); 8 bytes from the field's offset must be readable. */
static inline uint32_t shaped_field(const enc_key_shape *shape, const uint8_t *tail, int f) {
    return varint_bytes(load_le64(tail + shape->at[f]) & shape->bytes[f]);
}

/* The fields of a message whose tail fits a learned shape: what
 * enc_key_decode_plain would read, without deciding anything. */
static inline void read_shaped(const enc_key_shape *shape, const uint8_t *message, enc_key_fields *out) {
    uint32_t v[7];
    for (int f = 2; f <= 6; f++) v[f] = shaped_field(shape, message + 18, f);
    memcpy(out->key_data, message + 2, 16);
    out->key_data_len = 16;
    out->has_key_data = 1;
    out->has_transmission_risk_level = shape->bytes[2] != 0;
    out->transmission_risk_level = (int32_t)v[2];
    out->has_rolling_start_interval_number = shape->bytes[3] != 0;
    out->rolling_start_interval_number = (int32_t)v[3];
    out->has_rolling_period = shape->bytes[4] != 0;
    out->rolling_period = (int32_t)v[4];
    out->has_report_type = shape->bytes[5] != 0;
    out->report_type = (int32_t)v[5];
    out->has_days_since_onset_of_symptoms = shape->bytes[6] != 0;
    out->days_since_onset_of_symptoms = (int32_t)((v[6] >> 1) ^ (0u - (v[6] & 1)));  /* sint32: zigzag */
}

/* Records the layout of a message enc_key_decode_plain accepted, when its
 * key data comes first and is 16 bytes long: every decision that decoder
 * made rests on the tail's tag bytes and the continuation bits of its
 * varints, which the shape keeps. */
static void learn_shape(enc_key_shape *shape, const uint8_t *message, size_t length) {
    if (message[0] != (1 << 3 | 2) || message[1] != 16) return;
    enc_key_shape learned = {0};
    const uint8_t *tail = message + 18;
    size_t tail_len = length - 18, i = 0;
    uint8_t mask[ENC_KEY_SHAPE_TAIL] = {0}, expected[ENC_KEY_SHAPE_TAIL] = {0};
    while (i < tail_len) {
        unsigned field = tail[i] >> 3;
        if (field < 2 || field > 6 || (tail[i] & 7) != 0) return;  /* cannot be: the decoder accepted it */
        mask[i] = 0xff;
        expected[i] = tail[i];
        size_t at = ++i;
        while (i < tail_len && (tail[i] & 0x80)) {
            mask[i] = 0x80;
            expected[i] = 0x80;
            i++;
        }
        if (i == tail_len || i - at >= 5) return;
        mask[i] = 0x80;  /* the varint's last byte: no continuation */
        i++;
        learned.at[field] = (uint8_t)at;
        learned.bytes[field] = ~(uint64_t)0 >> (64 - 8 * (i - at));
    }
    learned.mask[0] = load_le64(mask);
    learned.mask[1] = load_le64(mask + 8);
    learned.expected[0] = load_le64(expected);
    learned.expected[1] = load_le64(expected + 8);
    learned.known = 1;
    *shape = learned;
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
            const uint8_t *message = body + payload;
            enc_key_shape *shape = length >= 18 && length - 18 <= ENC_KEY_SHAPE_TAIL ? &walk->shapes[length - 18] : NULL;
            /* A known layout (read_shaped loads 8 bytes at a field's offset,
             * up to 24 past the tail's start: the body must hold them). The
             * prefilter needs three fields only: most keys of a sparse user
             * are dropped on them, without decoding the rest. */
            if (shape != NULL && shape->known && len - payload >= 18 + ENC_KEY_SHAPE_TAIL + 8 &&
                message[0] == (1 << 3 | 2) && message[1] == 16 && shape_fits(shape, message + 18)) {
                const uint8_t *tail = message + 18;
                /* Dropped like the last dropped key of this layout when its
                 * start and period bytes are that key's and its report type
                 * is a plain 0..4: no varint decoded. */
                uint64_t raw_start = load_le64(tail + shape->at[3]) & shape->bytes[3];
                uint64_t raw_period = load_le64(tail + shape->at[4]) & shape->bytes[4];
                uint64_t raw_report = load_le64(tail + shape->at[5]) & shape->bytes[5];
                if (list == 7 && raw_report < 5 && walk->drop_shape == shape && raw_start == walk->drop_raw[0] &&
                    raw_period == walk->drop_raw[1]) {
                    dropped_keys++;
                    i = end;
                    continue;
                }
                int32_t start = (int32_t)shaped_field(shape, tail, 3);
                int32_t period = shape->bytes[4] ? (int32_t)shaped_field(shape, tail, 4) : 144;
                int32_t report = (int32_t)shaped_field(shape, tail, 5);
                int valid = period >= 1 && period <= 144 && report >= 0 && report <= 5;
                if (valid && list == 7 && dropped(walk, report, start, period)) {
                    walk->drop_shape = shape;
                    walk->drop_raw[0] = raw_start;
                    walk->drop_raw[1] = raw_period;
                    dropped_keys++;
                    i = end;
                    continue;
                }
                read_shaped(shape, message, &item->fields);
                item->plain = 1;
                item->valid = (uint32_t)valid;
            } else {
                item->plain = (uint32_t)enc_key_decode_plain(message, length, &item->fields);
                if (shape != NULL && item->plain) {
                    learn_shape(shape, message, length);
                    if (walk->drop_shape == shape) walk->drop_shape = NULL;  /* its bytes meant the old layout */
                }
                item->valid = item->plain && enc_key_is_valid(&item->fields);
                if (item->valid && list == 7 && dropped_key(walk, &item->fields)) { dropped_keys++; i = end; continue; }
            }
            item->list = list;
            item->payload = payload;
            item->length = length;
            item->end = end;
            n++;
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
