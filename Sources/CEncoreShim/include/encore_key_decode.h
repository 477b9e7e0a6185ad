/* A fast decoder for the plain form of a TemporaryExposureKey message, the
 * form every real key file uses: fields 1-6 each at most once and in
 * ascending order, with their declared wire types and varints of at most 5
 * bytes. Anything else (other orders, unknown or repeated fields, longer
 * varints such as the ten bytes of a negative int32) is left to protobuf-c,
 * which stays the authority on the format: the fast path only ever agrees
 * with it, and a differential test holds it to that. Protobuf-c's unpacking
 * costs about ten times as much per key, which matters for millions of keys. */
#ifndef ENCORE_KEY_DECODE_H
#define ENCORE_KEY_DECODE_H

#include <stddef.h>
#include <stdint.h>

#include "encore_sighted.h"

/* The fields of one TemporaryExposureKey as they are on the wire; has_* is
 * 1 when the field was present, and absent fields read 0. key_data holds the bytes only when
 * key_data_len is 16 (any other length makes the key invalid). */
typedef struct enc_key_fields {
    uint8_t key_data[16];
    uint32_t key_data_len;
    int32_t transmission_risk_level;
    int32_t rolling_start_interval_number;
    int32_t rolling_period;
    int32_t report_type;
    int32_t days_since_onset_of_symptoms;
    uint8_t has_key_data;
    uint8_t has_transmission_risk_level;
    uint8_t has_rolling_start_interval_number;
    uint8_t has_rolling_period;
    uint8_t has_report_type;
    uint8_t has_days_since_onset_of_symptoms;
} enc_key_fields;

/* 1 when the message is in the plain form and *out holds its fields; 0
 * when protobuf-c must decide (out is then unspecified). */
int enc_key_decode_plain(const uint8_t *bytes, size_t len, enc_key_fields *out);

/* 1 when the fields make a valid key: 16 bytes of key data, a rolling
 * period (144 when absent) of 1...144 and a known report type (0...5). */
int enc_key_is_valid(const enc_key_fields *key);

/* One key field of export.bin's outer message, found by enc_export_keys. */
typedef struct enc_key_item {
    enc_key_fields fields;   /* when plain */
    uint32_t list;           /* field number: 7 keys, 8 revised keys */
    uint32_t plain;          /* 1: fields hold the key; 0: protobuf-c must decode the payload */
    uint32_t valid;          /* when plain: enc_key_is_valid(&fields) */
    size_t payload, length;  /* the message's bytes within the body */
    size_t end;              /* offset just after the field */
} enc_key_item;

/* The layout of a plain key message whose key data (16 bytes) comes first
 * and whose other fields take at most ENC_KEY_SHAPE_TAIL bytes: which bytes
 * of that tail are tags (and their values) and which are varint bytes
 * (and whether each continues). A message of the same length whose tail
 * has the same tags and the same continuation bits parses the same way, so
 * its fields are read from the known places without parsing: real files
 * hold a handful of layouts (the varints' lengths vary little). */
#define ENC_KEY_SHAPE_TAIL 16
typedef struct enc_key_shape {
    uint64_t mask[2];      /* 0xff over tag bytes, 0x80 over varint bytes, 0 past the tail (little-endian) */
    uint64_t expected[2];  /* the tail's bytes under mask */
    uint64_t bytes[7];     /* fields 2..6: a mask over the value's bytes (0: absent) */
    uint8_t at[7];         /* fields 2..6: the value's offset in the tail */
    uint8_t known;         /* 0: no layout learned for this length yet */
} enc_key_shape;

/* What enc_export_keys decodes, and what it counted. */
typedef struct enc_key_walk {
    unsigned lists;              /* decode the lists 1 << 7 (keys), 1 << 8 (revised keys) */
    /* When set, a matching prefilter: a valid key of the keys list (revised
     * keys always reach the caller, which must know every revision) that is
     * not REVOKED, ends at or after `oldest` (unix seconds) and has no
     * sighting within `drift` intervals of its validity is dropped: it
     * cannot match. */
    const enc_sighted *sighted;
    int64_t drift;
    int64_t oldest;
    uint64_t stepped[2];         /* key fields of the other lists: keys, revised keys */
    uint64_t dropped;            /* keys the prefilter dropped */
    /* The prefilter's last answer: keys of a file share a few validities. */
    int64_t last_start, last_end;
    int last_known, last_dropped;
    /* Layouts learned from the keys decoded so far, by message length
     * (18 + tail length). */
    enc_key_shape shapes[ENC_KEY_SHAPE_TAIL + 1];
    /* The last key dropped through a shape: the shape, and the bytes of
     * its rolling start and period as they are in the tail. */
    const enc_key_shape *drop_shape;
    uint64_t drop_raw[2];
} enc_key_walk;

/* Walks the key fields (7 and 8, length-delimited) of export.bin's outer
 * message (the protobuf after the header) from *offset on, decoding those
 * of walk->lists into items (except those the prefilter drops) and
 * stepping over the others, counting both in *walk. Stops at the end of the
 * body, after max items, or before any field it does not step over itself
 * (any other field, an unusual tag or length, a length past the end), which
 * the caller then reads. *offset is left after the last field walked.
 * Returns the number of items written. The hot loop of reading millions of
 * keys. */
size_t enc_export_keys(const uint8_t *body, size_t len, size_t *offset, enc_key_walk *walk, enc_key_item *items, size_t max);

#endif
