/* The hot loop of exposure matching, in C for the speed of the crypto:
 * TEK -> RPIK (HKDF-SHA256, four keys at a time with the CPU's SHA
 * extensions, else OpenSSL with precomputed HMAC pad states) -> RPIs
 * (AES-128 with VAES or AES-NI, else OpenSSL's AES-ECB), each RPI looked up
 * in an open-addressing index of the heard RPIs. Private to libencore. */
#ifndef ENCORE_KERNEL_H
#define ENCORE_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* An index of heard RPIs (16 bytes each), which may repeat: each distinct
 * RPI gets an id, 0, 1, ... in order of first occurrence, written to
 * ids[i] for rpis[i] when ids is not NULL (distinct RPIs get ids 0 ..<
 * count). Read-only after building, so one index serves every thread. */
typedef struct enc_rpi_index enc_rpi_index;
enc_rpi_index *enc_rpi_index_new(const uint8_t *rpis, uint32_t count, uint32_t *ids);
/* How many distinct RPIs the index holds. */
uint32_t enc_rpi_index_count(const enc_rpi_index *index);
void enc_rpi_index_free(enc_rpi_index *index);

/* Per-day prefilters over an index's RPIs: filter b holds the RPIs heard
 * within `drift` intervals of intervals 144*b ..< 144*b + 288, all a key
 * whose derivation starts in day b can need. A day's filter is a fraction
 * of the whole index's, so fewer of its loads miss the cache (the bench's
 * dense user: about 32 KB a day, against 256 KB for the whole filter).
 * `rpis` and `intervals` (floor(time / 600)) are the sightings the index
 * was built from, intervals ascending. NULL when the sightings span too
 * many days (or intervals beyond 32 bits, or are not ascending) or memory
 * is short: the kernel then uses the index's own filter, with the same
 * hits. Read-only after building. */
typedef struct enc_day_filters enc_day_filters;
enc_day_filters *enc_day_filters_new(const enc_rpi_index *index, const uint8_t *rpis, const int64_t *intervals, uint32_t count,
                                     int64_t drift);
void enc_day_filters_free(enc_day_filters *days);

/* What the kernel may use: the CPU's SHA extensions for HKDF, AES-NI or
 * VAES for AES (without them, OpenSSL), AVX2 for the prefilter's test
 * (four RPIs at a time; without, one at a time). */
#define ENC_KERNEL_SHA_NI 1
#define ENC_KERNEL_AES_NI 2
#define ENC_KERNEL_VAES 4
#define ENC_KERNEL_AVX2 8
#define ENC_KERNEL_ALL 15
/* The ENC_KERNEL_* this CPU has. */
int enc_kernel_features(void);

/* The SHA-256 digests of two messages (either may be NULL when its length
 * is 0): side by side with the CPU's SHA extensions, about 1.5 times as
 * fast as one after the other, which is what it does without them. */
void enc_sha256_pair(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, uint8_t a_digest[32], uint8_t b_digest[32]);

/* Per-thread crypto state. */
typedef struct enc_rpi_ctx enc_rpi_ctx;
/* With everything the CPU has. */
enc_rpi_ctx *enc_rpi_ctx_new(void);
/* With what `allowed` (ENC_KERNEL_*) and the CPU both have: tests run every
 * path (0: OpenSSL only). */
enc_rpi_ctx *enc_rpi_ctx_new_mode(int allowed);
/* The ENC_KERNEL_* the context uses. */
int enc_rpi_ctx_features(const enc_rpi_ctx *ctx);
void enc_rpi_ctx_free(enc_rpi_ctx *ctx);

/* RPIK of a TEK into out[16]. Returns 0 on success. */
int enc_rpik(enc_rpi_ctx *ctx, const uint8_t tek[16], uint8_t out[16]);

/* The `count` RPIs of intervals start ..< start+count into out[16*count]
 * (count <= 144). Returns 0 on success. */
int enc_rpis(enc_rpi_ctx *ctx, const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out);

/* One key to match: the RPIs of intervals start ..< start + count
 * (count <= 144) are derived from the TEK and looked up. */
typedef struct enc_match_job { uint8_t tek[16]; uint32_t start; uint32_t count; } enc_match_job;

/* One hit: job (index into the jobs), interval offset j (0-based from the
 * job's start) and the index of the heard RPI (every observation with that
 * RPI is then a candidate). */
typedef struct enc_rpi_hit { uint32_t job; uint32_t interval_offset; uint32_t rpi_index; } enc_rpi_hit;

/* Derives and looks up the RPIs of n keys (several at a time, which is what
 * makes HKDF fast); writes up to max_hits hits in job order and returns how
 * many there were (more than max_hits means: call again with room for
 * them), or -1 on a crypto failure or a count over 144. With a NULL index
 * the RPIs are only derived (for benchmarks). `days` (may be NULL) are the
 * index's day filters, built with at least the drift the hits are checked
 * with: the hits are the same with or without them, only faster. */
int64_t enc_match_keys(enc_rpi_ctx *ctx, const enc_rpi_index *index, const enc_day_filters *days, const enc_match_job *jobs,
                       size_t n, enc_rpi_hit *hits, size_t max_hits);

#endif
