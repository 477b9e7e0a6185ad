/* The hot loop of exposure matching, in C for the speed of the crypto:
 * TEK -> RPIK (HKDF-SHA256 with precomputed HMAC pad states) -> RPIs (one
 * AES-128-ECB call), each RPI looked up in an open-addressing index of the
 * heard RPIs. Private to libencore. */
#ifndef ENCORE_KERNEL_H
#define ENCORE_KERNEL_H

#include <stddef.h>
#include <stdint.h>

/* An index of heard RPIs: rpi[i] (16 bytes each) -> i. Read-only after
 * building, so one index serves every thread. */
typedef struct enc_rpi_index enc_rpi_index;
enc_rpi_index *enc_rpi_index_new(const uint8_t *rpis, uint32_t count);
void enc_rpi_index_free(enc_rpi_index *index);

/* Per-thread crypto state. */
typedef struct enc_rpi_ctx enc_rpi_ctx;
enc_rpi_ctx *enc_rpi_ctx_new(void);
/* With allow_fast 0, always the portable (OpenSSL) path: for tests. */
enc_rpi_ctx *enc_rpi_ctx_new_mode(int allow_fast);
/* 1 when the context uses the CPU's AES instructions. */
int enc_rpi_ctx_is_fast(const enc_rpi_ctx *ctx);
void enc_rpi_ctx_free(enc_rpi_ctx *ctx);

/* RPIK of a TEK into out[16]. Returns 0 on success. */
int enc_rpik(enc_rpi_ctx *ctx, const uint8_t tek[16], uint8_t out[16]);

/* The `count` RPIs of intervals start ..< start+count into out[16*count]
 * (count <= 144). Returns 0 on success. */
int enc_rpis(enc_rpi_ctx *ctx, const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out);

/* One hit: interval offset j (0-based from start) and the index of the
 * heard RPI (every observation with that RPI is then a candidate). */
typedef struct enc_rpi_hit { uint32_t interval_offset; uint32_t rpi_index; } enc_rpi_hit;

/* Derives the key's RPIs for intervals start ..< start+count and looks each
 * up; writes up to max_hits hits and returns how many there were (which may
 * exceed max_hits), or -1 on a crypto failure. */
int enc_match_key(enc_rpi_ctx *ctx, const enc_rpi_index *index, const uint8_t tek[16],
                  uint32_t start, uint32_t count, enc_rpi_hit *hits, uint32_t max_hits);

#endif
