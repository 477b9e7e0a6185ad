/* A fast decoder for the plain form of a TemporaryExposureKey message, the
 * form every real key file uses: fields 1-6 each at most once, with their
 * declared wire types and varints of at most 5 bytes. Anything else (unknown
 * or repeated fields, long varints, negative int32s) is left to protobuf-c,
 * which stays the authority on the format: the fast path only ever agrees
 * with it, and a differential test holds it to that. Protobuf-c's unpacking
 * costs about ten times as much per key, which matters for millions of keys. */
#ifndef ENCORE_KEY_DECODE_H
#define ENCORE_KEY_DECODE_H

#include <stddef.h>
#include <stdint.h>

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

#endif
