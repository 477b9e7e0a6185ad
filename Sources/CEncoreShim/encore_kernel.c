/* See encore_kernel.h. The SHA-256 low-level API is deprecated in OpenSSL 3
 * but is the only way to reuse HMAC pad states, which halves HKDF's cost. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "encore_kernel.h"
#include "encore_kernel_x86.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

/* ---- RPI index: open addressing on the first 8 bytes (RPIs are random) -- */

struct enc_rpi_index {
    /* A prefilter: bit (lo >> filter_shift) is set for every heard RPI. At
     * about 32 bits per RPI almost every derived RPI is rejected by one
     * well-predicted bit test, before the table's unpredictable probing. */
    uint64_t *filter;
    unsigned filter_shift;
    uint64_t mask;
    uint64_t *lo;       /* first 8 bytes of the RPI, 0 marks an empty slot... */
    uint64_t *hi;       /* ...unless used[] says otherwise */
    uint32_t *value;
    uint8_t *used;
};

static uint64_t load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

enc_rpi_index *enc_rpi_index_new(const uint8_t *rpis, uint32_t count) {
    enc_rpi_index *x = calloc(1, sizeof *x);
    if (x == NULL) return NULL;
    uint64_t size = 16;
    while (size < (uint64_t)count * 2) size <<= 1;
    x->mask = size - 1;
    x->lo = calloc(size, sizeof(uint64_t));
    x->hi = calloc(size, sizeof(uint64_t));
    x->value = calloc(size, sizeof(uint32_t));
    x->used = calloc(size, 1);
    unsigned filter_bits = 12;                       /* at least 4096 bits */
    while (filter_bits < 24 && ((uint64_t)1 << filter_bits) < (uint64_t)count * 32) filter_bits++;
    x->filter_shift = 64 - filter_bits;
    x->filter = calloc(((size_t)1 << filter_bits) / 64, sizeof(uint64_t));
    if (!x->lo || !x->hi || !x->value || !x->used || !x->filter) { enc_rpi_index_free(x); return NULL; }
    for (uint32_t i = 0; i < count; i++) {
        uint64_t lo = load64(rpis + 16 * (size_t)i), hi = load64(rpis + 16 * (size_t)i + 8);
        uint64_t s = (lo ^ (lo >> 29)) & x->mask;
        while (x->used[s] && !(x->lo[s] == lo && x->hi[s] == hi)) s = (s + 1) & x->mask;
        if (!x->used[s]) { x->used[s] = 1; x->lo[s] = lo; x->hi[s] = hi; x->value[s] = i; }
        uint64_t f = lo >> x->filter_shift;
        x->filter[f >> 6] |= (uint64_t)1 << (f & 63);
    }
    return x;
}

void enc_rpi_index_free(enc_rpi_index *x) {
    if (x == NULL) return;
    free(x->lo); free(x->hi); free(x->value); free(x->used); free(x->filter); free(x);
}

static int index_find(const enc_rpi_index *x, const uint8_t *rpi, uint32_t *value) {
    uint64_t lo = load64(rpi), hi = load64(rpi + 8);
    uint64_t f = lo >> x->filter_shift;
    if (!((x->filter[f >> 6] >> (f & 63)) & 1)) return 0;
    uint64_t s = (lo ^ (lo >> 29)) & x->mask;
    while (x->used[s]) {
        if (x->lo[s] == lo && x->hi[s] == hi) { *value = x->value[s]; return 1; }
        s = (s + 1) & x->mask;
    }
    return 0;
}

/* ---- HKDF-SHA256 with precomputed pads and AES-128-ECB ------------------ */

struct enc_rpi_ctx {
    int fast;                            /* AES-NI path (encore_kernel_x86.c) */
    SHA256_CTX salt_inner, salt_outer;   /* HMAC pads of the all-zero salt */
    EVP_CIPHER_CTX *aes;
    uint8_t padded[144 * 16];            /* "EN-RPI" ‖ 0^6 ‖ ENIN (LE), per interval */
    uint32_t padded_start;               /* ENIN the padded blocks hold, or 0 */
    uint8_t out[144 * 16 + 16];
};

static void hmac_pads(const uint8_t *key, size_t len, SHA256_CTX *inner, SHA256_CTX *outer) {
    uint8_t block[64], ipad[64], opad[64];
    memset(block, 0, sizeof block);
    memcpy(block, key, len);
    for (int i = 0; i < 64; i++) { ipad[i] = block[i] ^ 0x36; opad[i] = block[i] ^ 0x5c; }
    SHA256_Init(inner); SHA256_Update(inner, ipad, 64);
    SHA256_Init(outer); SHA256_Update(outer, opad, 64);
}

static void hmac_with(const SHA256_CTX *inner, const SHA256_CTX *outer, const uint8_t *msg, size_t len, uint8_t mac[32]) {
    SHA256_CTX c = *inner;
    uint8_t h[32];
    SHA256_Update(&c, msg, len);
    SHA256_Final(h, &c);
    c = *outer;
    SHA256_Update(&c, h, 32);
    SHA256_Final(mac, &c);
}

enc_rpi_ctx *enc_rpi_ctx_new(void) { return enc_rpi_ctx_new_mode(1); }

enc_rpi_ctx *enc_rpi_ctx_new_mode(int allow_fast) {
    enc_rpi_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->fast = allow_fast && enc_x86_supported();
    static const uint8_t zero[32] = {0};
    hmac_pads(zero, 32, &c->salt_inner, &c->salt_outer);
    c->aes = EVP_CIPHER_CTX_new();
    if (c->aes == NULL || EVP_EncryptInit_ex(c->aes, EVP_aes_128_ecb(), NULL, zero, NULL) != 1) {
        enc_rpi_ctx_free(c);
        return NULL;
    }
    EVP_CIPHER_CTX_set_padding(c->aes, 0);
    for (int j = 0; j < 144; j++) memcpy(c->padded + 16 * j, "EN-RPI", 6);
    return c;
}

void enc_rpi_ctx_free(enc_rpi_ctx *c) {
    if (c == NULL) return;
    EVP_CIPHER_CTX_free(c->aes);
    free(c);
}

int enc_rpi_ctx_is_fast(const enc_rpi_ctx *c) { return c->fast; }

int enc_rpik(enc_rpi_ctx *c, const uint8_t tek[16], uint8_t out[16]) {
    /* OpenSSL's SHA-256 with reused pad states: one key at a time it is as
     * fast as SHA-NI by hand (both are bound by the instructions' latency). */
    uint8_t prk[32], t1[32];
    SHA256_CTX inner, outer;
    hmac_with(&c->salt_inner, &c->salt_outer, tek, 16, prk);   /* extract */
    hmac_pads(prk, 32, &inner, &outer);
    hmac_with(&inner, &outer, (const uint8_t *)"EN-RPIK\x01", 8, t1);  /* expand, T(1) */
    memcpy(out, t1, 16);
    return 0;
}

int enc_rpis(enc_rpi_ctx *c, const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out) {
    if (count > 144) return -1;
    if (c->fast) {
        enc_x86_rpis(rpik, start, count, out);
        return 0;
    }
    if (c->padded_start != start || start == 0) {
        for (uint32_t j = 0; j < 144; j++) {
            uint32_t v = start + j;
            uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
            memcpy(c->padded + 16 * j + 12, le, 4);
        }
        c->padded_start = start;
    }
    int n = 0;
    if (EVP_EncryptInit_ex(c->aes, NULL, NULL, rpik, NULL) != 1) return -1;
    if (EVP_EncryptUpdate(c->aes, out, &n, c->padded, (int)(16 * count)) != 1 || n != (int)(16 * count)) return -1;
    return 0;
}

int enc_match_key(enc_rpi_ctx *c, const enc_rpi_index *index, const uint8_t tek[16],
                  uint32_t start, uint32_t count, enc_rpi_hit *hits, uint32_t max_hits) {
    uint8_t rpik[16];
    if (count > 144 || enc_rpik(c, tek, rpik) != 0 || enc_rpis(c, rpik, start, count, c->out) != 0) return -1;
    int found = 0;
    for (uint32_t j = 0; j < count; j++) {
        uint32_t v;
        if (index_find(index, c->out + 16 * j, &v)) {
            if ((uint32_t)found < max_hits) { hits[found].interval_offset = j; hits[found].rpi_index = v; }
            found++;
        }
    }
    return found;
}
