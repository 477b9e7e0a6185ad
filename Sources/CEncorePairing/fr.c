/*
 * Scalars modulo r = 0x73eda753...00000001 (255 bits).  Values are kept as
 * canonical integers; multiplication goes through a 4-limb Montgomery
 * product (CIOS) and back.
 */
#include <openssl/sha.h>
#include "internal.h"

/* all-ones if a < r */
static uint64_t lt_r_mask(const uint64_t a[4]) {
    uint64_t br = 0;
    for (int i = 0; i < 4; i++) {
        enc_u128 x = (enc_u128)a[i] - ENC_FR_R[i] - br;
        br = (uint64_t)(x >> 64) & 1;
    }
    return 0 - br;
}

static int enc_fr_lt_r(const uint64_t a[4]) { return (int)(lt_r_mask(a) & 1); }

/* r = a - r if a >= r (a < 2r) */
static void cond_sub_r(uint64_t out[4], const uint64_t a[4]) {
    uint64_t t[4], br = 0;
    for (int i = 0; i < 4; i++) {
        enc_u128 x = (enc_u128)a[i] - ENC_FR_R[i] - br;
        t[i] = (uint64_t)x;
        br = (uint64_t)(x >> 64) & 1;
    }
    uint64_t keep = 0 - br;
    for (int i = 0; i < 4; i++) out[i] = (a[i] & keep) | (t[i] & ~keep);
}

/* CIOS Montgomery product a * b / 2^256 mod r, for a * b < r * 2^256 */
static void fr_mont(uint64_t out[4], const uint64_t a[4], const uint64_t b[4]) {
    uint64_t t[6] = {0};
    for (int i = 0; i < 4; i++) {
        uint64_t c = 0;
        for (int j = 0; j < 4; j++) {
            enc_u128 s = (enc_u128)a[i] * b[j] + t[j] + c;
            t[j] = (uint64_t)s;
            c = (uint64_t)(s >> 64);
        }
        enc_u128 s = (enc_u128)t[4] + c;
        t[4] = (uint64_t)s;
        t[5] = (uint64_t)(s >> 64);
        uint64_t m = t[0] * ENC_FR_RINV;
        s = (enc_u128)m * ENC_FR_R[0] + t[0];
        c = (uint64_t)(s >> 64);
        for (int j = 1; j < 4; j++) {
            s = (enc_u128)m * ENC_FR_R[j] + t[j] + c;
            t[j - 1] = (uint64_t)s;
            c = (uint64_t)(s >> 64);
        }
        s = (enc_u128)t[4] + c;
        t[3] = (uint64_t)s;
        t[4] = t[5] + (uint64_t)(s >> 64);
    }
    cond_sub_r(out, t); /* t < 2r < 2^256, so t[4] == 0 */
}

static void load_le32(uint64_t out[4], const uint8_t in[32]) {
    for (int i = 0; i < 4; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--) w = (w << 8) | in[8 * i + j];
        out[i] = w;
    }
}

int enc_bls_fr_from_bytes(enc_fr *out, const uint8_t in[ENC_BLS_FR_BYTES]) {
    uint64_t t[4];
    load_le32(t, in);
    if (!enc_fr_lt_r(t)) return ENC_BLS_ERR_ENCODING;
    memcpy(out->l, t, sizeof(t));
    return ENC_BLS_OK;
}

void enc_bls_fr_to_bytes(uint8_t out[ENC_BLS_FR_BYTES], const enc_fr *a) {
    for (int i = 0; i < 32; i++) out[i] = (uint8_t)(a->l[i / 8] >> (8 * (i % 8)));
}

/* x mod r for any 256-bit x: (x * 2^256 / 2^256) through two Montgomery steps */
static void reduce256(uint64_t out[4], const uint64_t x[4]) {
    static const uint64_t one[4] = {1, 0, 0, 0};
    uint64_t t[4];
    fr_mont(t, x, ENC_FR_R2);  /* x * 2^256 mod r */
    fr_mont(out, t, one);      /* x mod r */
}

void enc_bls_fr_from_wide_bytes(enc_fr *out, const uint8_t in[64]) {
    uint64_t lo[4], hi[4], a[4], b[4], c = 0;
    load_le32(lo, in);
    load_le32(hi, in + 32);
    reduce256(a, lo);
    fr_mont(b, hi, ENC_FR_R2); /* hi * 2^256 mod r */
    for (int i = 0; i < 4; i++) {
        enc_u128 s = (enc_u128)a[i] + b[i] + c;
        a[i] = (uint64_t)s;
        c = (uint64_t)(s >> 64);
    }
    cond_sub_r(out->l, a);
}

/* mcl's Fr::setHashOf (SmallMask): keep 255 bits, then 254 if still >= r */
void enc_bls_fr_hash(enc_fr *out, const uint8_t *msg, size_t len) {
    uint8_t md[SHA256_DIGEST_LENGTH];
    uint64_t t[4];
    SHA256(msg, len, md);
    load_le32(t, md);
    t[3] &= (1ULL << 63) - 1;
    t[3] &= ~(~lt_r_mask(t) & (1ULL << 62));
    memcpy(out->l, t, sizeof(t));
}

void enc_bls_fr_add(enc_fr *out, const enc_fr *a, const enc_fr *b) {
    uint64_t s[4], c = 0;
    for (int i = 0; i < 4; i++) {
        enc_u128 x = (enc_u128)a->l[i] + b->l[i] + c;
        s[i] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
    cond_sub_r(out->l, s); /* a + b < 2r < 2^256 */
}

void enc_bls_fr_neg(enc_fr *out, const enc_fr *a) {
    uint64_t nz = ~enc_mask_zero(a->l[0] | a->l[1] | a->l[2] | a->l[3]), br = 0;
    for (int i = 0; i < 4; i++) {
        enc_u128 x = (enc_u128)ENC_FR_R[i] - a->l[i] - br;
        out->l[i] = (uint64_t)x & nz;
        br = (uint64_t)(x >> 64) & 1;
    }
}

void enc_bls_fr_sub(enc_fr *out, const enc_fr *a, const enc_fr *b) {
    enc_fr nb;
    enc_bls_fr_neg(&nb, b);
    enc_bls_fr_add(out, a, &nb);
}

void enc_bls_fr_mul(enc_fr *out, const enc_fr *a, const enc_fr *b) {
    uint64_t t[4];
    fr_mont(t, a->l, b->l);         /* ab / 2^256 */
    fr_mont(out->l, t, ENC_FR_R2);  /* ab */
}

int enc_bls_fr_eq(const enc_fr *a, const enc_fr *b) {
    uint64_t d = 0;
    for (int i = 0; i < 4; i++) d |= a->l[i] ^ b->l[i];
    return (int)(enc_mask_zero(d) & 1);
}

int enc_bls_fr_is_zero(const enc_fr *a) {
    return (int)(enc_mask_zero(a->l[0] | a->l[1] | a->l[2] | a->l[3]) & 1);
}
