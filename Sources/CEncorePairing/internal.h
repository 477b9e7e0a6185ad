/*
 * Internal declarations of the BLS12-381 library.  The hot base-field
 * routines are static inline here so the tower code can be optimised across
 * them; everything is branch-free on data (selections use masks).
 */
#ifndef ENCORE_PAIRING_INTERNAL_H
#define ENCORE_PAIRING_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include "encore_pairing.h"

__extension__ typedef unsigned __int128 enc_u128;

/* ------------------------------------------------------------ constants -- */
extern const enc_fp ENC_FP_P, ENC_FP_ONE, ENC_FP_R2;
extern const uint64_t ENC_FP_PINV;
extern const uint64_t ENC_FP_P2[12];
extern const uint64_t ENC_FP_EXP_INV[6], ENC_FP_EXP_SQRT[6], ENC_FP_EXP_LEGENDRE[6], ENC_FP_EXP_SQRT2[6];
extern const uint64_t ENC_FR_R[4], ENC_FR_R2[4], ENC_FR_RINV;
extern const uint64_t ENC_G1_COFACTOR[2];
extern const uint64_t ENC_BLS_Z_ABS;
extern const enc_fp ENC_G1_B, ENC_G1_B3, ENC_G1_GEN_X, ENC_G1_GEN_Y;
extern const enc_fp2 ENC_G2_B, ENC_G2_B3, ENC_G2_GEN_X, ENC_G2_GEN_Y;
extern const enc_fp ENC_SVDW_C1, ENC_SVDW_C2;
extern const enc_fp2 ENC_FROB1[6];
extern const enc_fp ENC_FROB2[6];

/* ------------------------------------------------------- masks, helpers -- */

/* all-ones if x == 0, else 0, without branches */
static inline uint64_t enc_mask_zero(uint64_t x) {
    return ((x | (0 - x)) >> 63) - 1;
}

/* ------------------------------------------------------------------ Fp -- */

/* r = a + b mod p (a, b < p) */
static inline void enc_fp_add(enc_fp *r, const enc_fp *a, const enc_fp *b) {
    uint64_t s[6], t[6], c = 0, br = 0;
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)a->l[i] + b->l[i] + c;
        s[i] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)s[i] - ENC_FP_P.l[i] - br;
        t[i] = (uint64_t)x;
        br = (uint64_t)(x >> 64) & 1;
    }
    /* p < 2^381 so the sum never carries out of 6 limbs: borrow means s < p */
    uint64_t keep = 0 - br;
    for (int i = 0; i < 6; i++) r->l[i] = (s[i] & keep) | (t[i] & ~keep);
}

/* r = a - b mod p */
static inline void enc_fp_sub(enc_fp *r, const enc_fp *a, const enc_fp *b) {
    uint64_t s[6], br = 0, c = 0;
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)a->l[i] - b->l[i] - br;
        s[i] = (uint64_t)x;
        br = (uint64_t)(x >> 64) & 1;
    }
    uint64_t m = 0 - br; /* add p back when we went negative */
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)s[i] + (ENC_FP_P.l[i] & m) + c;
        r->l[i] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
}

static inline void enc_fp_dbl(enc_fp *r, const enc_fp *a) { enc_fp_add(r, a, a); }

/* r = -a mod p (0 stays 0) */
static inline void enc_fp_neg(enc_fp *r, const enc_fp *a) {
    uint64_t z = a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5];
    uint64_t nz = ~enc_mask_zero(z), br = 0;
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)ENC_FP_P.l[i] - a->l[i] - br;
        r->l[i] = (uint64_t)x & nz;
        br = (uint64_t)(x >> 64) & 1;
    }
}

/* t = a * b as a 768-bit integer (a, b may be unreduced, < 2^384) */
static inline void enc_fp_mul_wide(uint64_t t[12], const uint64_t a[6], const uint64_t b[6]) {
    for (int j = 0; j < 12; j++) t[j] = 0;
    for (int i = 0; i < 6; i++) {
        uint64_t c = 0;
        for (int j = 0; j < 6; j++) {
            enc_u128 m = (enc_u128)a[i] * b[j] + t[i + j] + c;
            t[i + j] = (uint64_t)m;
            c = (uint64_t)(m >> 64);
        }
        t[i + 6] = c;
    }
}

/* t = a^2: cross products once, doubled, plus the diagonal */
static inline void enc_fp_sqr_wide(uint64_t t[12], const uint64_t a[6]) {
    for (int j = 0; j < 12; j++) t[j] = 0;
    for (int i = 0; i < 5; i++) {
        uint64_t c = 0;
        for (int j = i + 1; j < 6; j++) {
            enc_u128 m = (enc_u128)a[i] * a[j] + t[i + j] + c;
            t[i + j] = (uint64_t)m;
            c = (uint64_t)(m >> 64);
        }
        t[i + 6] = c;
    }
    uint64_t top = 0;
    for (int j = 0; j < 12; j++) {
        uint64_t nt = t[j] >> 63;
        t[j] = (t[j] << 1) | top;
        top = nt;
    }
    uint64_t c = 0;
    for (int i = 0; i < 6; i++) {
        enc_u128 d = (enc_u128)a[i] * a[i];
        enc_u128 x = (enc_u128)t[2 * i] + (uint64_t)d + c;
        t[2 * i] = (uint64_t)x;
        x = (enc_u128)t[2 * i + 1] + (uint64_t)(d >> 64) + (uint64_t)(x >> 64);
        t[2 * i + 1] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
}

/* Montgomery reduction: r = t / 2^384 mod p for t < p * 2^384, result < p */
static inline void enc_fp_redc(enc_fp *r, uint64_t t[12]) {
    uint64_t c2 = 0;
    for (int i = 0; i < 6; i++) {
        uint64_t m = t[i] * ENC_FP_PINV, c = 0;
        for (int j = 0; j < 6; j++) {
            enc_u128 s = (enc_u128)m * ENC_FP_P.l[j] + t[i + j] + c;
            t[i + j] = (uint64_t)s;
            c = (uint64_t)(s >> 64);
        }
        enc_u128 s = (enc_u128)t[i + 6] + c + c2;
        t[i + 6] = (uint64_t)s;
        c2 = (uint64_t)(s >> 64);
    }
    /* value = t[6..11] (+ c2 * 2^384) < 2p: subtract p once if needed */
    uint64_t u[6], br = 0;
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)t[i + 6] - ENC_FP_P.l[i] - br;
        u[i] = (uint64_t)x;
        br = (uint64_t)(x >> 64) & 1;
    }
    uint64_t keep = 0 - (br & (c2 ^ 1)); /* keep t when t < p */
    for (int i = 0; i < 6; i++) r->l[i] = (t[i + 6] & keep) | (u[i] & ~keep);
}

static inline void enc_fp_mul(enc_fp *r, const enc_fp *a, const enc_fp *b) {
    uint64_t t[12];
    enc_fp_mul_wide(t, a->l, b->l);
    enc_fp_redc(r, t);
}

static inline void enc_fp_sqr(enc_fp *r, const enc_fp *a) {
    uint64_t t[12];
    enc_fp_sqr_wide(t, a->l);
    enc_fp_redc(r, t);
}

/* 6-limb add without reduction (for Karatsuba sums < 2p < 2^382) */
static inline void enc_fp_add_nr(uint64_t r[6], const enc_fp *a, const enc_fp *b) {
    uint64_t c = 0;
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)a->l[i] + b->l[i] + c;
        r[i] = (uint64_t)x;
        c = (uint64_t)(x >> 64);
    }
}

/* 12-limb r = a - b, plus p^2 if that went negative (so r is in [0, p^2)
 * whenever a, b < p^2): keeps a lazily-reduced difference non-negative. */
static inline void enc_wide_sub_mod(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]) {
    uint64_t br = 0, c = 0;
    for (int i = 0; i < 12; i++) {
        enc_u128 x = (enc_u128)a[i] - b[i] - br;
        r[i] = (uint64_t)x;
        br = (uint64_t)(x >> 64) & 1;
    }
    uint64_t m = 0 - br;
    for (int i = 0; i < 12; i++) {
        enc_u128 y = (enc_u128)r[i] + (ENC_FP_P2[i] & m) + c;
        r[i] = (uint64_t)y;
        c = (uint64_t)(y >> 64);
    }
}

/* 12-limb r = a - b where the caller knows a >= b */
static inline void enc_wide_sub(uint64_t r[12], const uint64_t a[12], const uint64_t b[12]) {
    uint64_t br = 0;
    for (int i = 0; i < 12; i++) {
        enc_u128 x = (enc_u128)a[i] - b[i] - br;
        r[i] = (uint64_t)x;
        br = (uint64_t)(x >> 64) & 1;
    }
}

static inline uint64_t enc_fp_is_zero_mask(const enc_fp *a) {
    return enc_mask_zero(a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]);
}

/* all-ones if a == b */
static inline uint64_t enc_fp_eq_mask(const enc_fp *a, const enc_fp *b) {
    uint64_t d = 0;
    for (int i = 0; i < 6; i++) d |= a->l[i] ^ b->l[i];
    return enc_mask_zero(d);
}

/* r = mask ? b : a, bytewise over any struct made of uint64_t */
static inline void enc_cmov_words(uint64_t *r, const uint64_t *b, size_t nwords, uint64_t mask) {
    for (size_t i = 0; i < nwords; i++) r[i] ^= (r[i] ^ b[i]) & mask;
}
#define ENC_CMOV(dst, src, mask) \
    enc_cmov_words((uint64_t *)(void *)(dst), (const uint64_t *)(const void *)(src), sizeof(*(dst)) / 8, (mask))

/* fp.c */
void enc_fp_pow(enc_fp *r, const enc_fp *a, const uint64_t *e, size_t nlimbs); /* public exponent */
void enc_fp_inv(enc_fp *r, const enc_fp *a);              /* 0 -> 0 */
int enc_fp_sqrt(enc_fp *r, const enc_fp *a);              /* r = a^((p+1)/4); 1 if it is a root */
int enc_fp_legendre(const enc_fp *a);                     /* 1, -1, 0 */
int enc_fp_is_odd(const enc_fp *a);                       /* parity of the canonical value */
void enc_fp_from_u64(enc_fp *r, uint64_t v);
int enc_fp_from_bytes(enc_fp *r, const uint8_t in[48]);   /* -1 if >= p */
void enc_fp_to_bytes(uint8_t out[48], const enc_fp *a);
void enc_fp_from_wide_bytes(enc_fp *r, const uint8_t in[48]); /* masks as mcl's setArrayMask */

/* fp2.c */
void enc_fp2_add(enc_fp2 *r, const enc_fp2 *a, const enc_fp2 *b);
void enc_fp2_sub(enc_fp2 *r, const enc_fp2 *a, const enc_fp2 *b);
void enc_fp2_dbl(enc_fp2 *r, const enc_fp2 *a);
void enc_fp2_neg(enc_fp2 *r, const enc_fp2 *a);
void enc_fp2_conj(enc_fp2 *r, const enc_fp2 *a);
void enc_fp2_mul(enc_fp2 *r, const enc_fp2 *a, const enc_fp2 *b);
void enc_fp2_sqr(enc_fp2 *r, const enc_fp2 *a);
void enc_fp2_mul_fp(enc_fp2 *r, const enc_fp2 *a, const enc_fp *b);
void enc_fp2_mul_xi(enc_fp2 *r, const enc_fp2 *a);      /* times (1+i) */
void enc_fp2_inv(enc_fp2 *r, const enc_fp2 *a);
int enc_fp2_sqrt(enc_fp2 *r, const enc_fp2 *a);          /* 1 if a is a square */
uint64_t enc_fp2_is_zero_mask(const enc_fp2 *a);
uint64_t enc_fp2_eq_mask(const enc_fp2 *a, const enc_fp2 *b);
void enc_fp2_zero(enc_fp2 *r);
void enc_fp2_one(enc_fp2 *r);

/* fp6.c */
void enc_fp6_add(enc_fp6 *r, const enc_fp6 *a, const enc_fp6 *b);
void enc_fp6_sub(enc_fp6 *r, const enc_fp6 *a, const enc_fp6 *b);
void enc_fp6_neg(enc_fp6 *r, const enc_fp6 *a);
void enc_fp6_mul(enc_fp6 *r, const enc_fp6 *a, const enc_fp6 *b);
void enc_fp6_sqr(enc_fp6 *r, const enc_fp6 *a);
void enc_fp6_mul_v(enc_fp6 *r, const enc_fp6 *a);                              /* times v */
void enc_fp6_mul_01(enc_fp6 *r, const enc_fp6 *a, const enc_fp2 *b0, const enc_fp2 *b1); /* times b0 + b1 v */
void enc_fp6_mul_1(enc_fp6 *r, const enc_fp6 *a, const enc_fp2 *b1);          /* times b1 v */
void enc_fp6_inv(enc_fp6 *r, const enc_fp6 *a);
void enc_fp6_zero(enc_fp6 *r);
void enc_fp6_one(enc_fp6 *r);

/* fp12.c */
void enc_fp12_one(enc_fp12 *r);
void enc_fp12_mul(enc_fp12 *r, const enc_fp12 *a, const enc_fp12 *b);
void enc_fp12_sqr(enc_fp12 *r, const enc_fp12 *a);
void enc_fp12_conj(enc_fp12 *r, const enc_fp12 *a);      /* a^(p^6): the inverse on GT */
void enc_fp12_inv(enc_fp12 *r, const enc_fp12 *a);
void enc_fp12_frob(enc_fp12 *r, const enc_fp12 *a);      /* a^p */
void enc_fp12_frob2(enc_fp12 *r, const enc_fp12 *a);     /* a^(p^2) */
void enc_fp12_cyc_sqr(enc_fp12 *r, const enc_fp12 *a);   /* Granger-Scott, cyclotomic a only */
/* r = a * (l0 + l1 v + l4 v w): the shape of a Miller-loop line */
void enc_fp12_mul_line(enc_fp12 *r, const enc_fp12 *a, const enc_fp2 *l0, const enc_fp2 *l1, const enc_fp2 *l4);
uint64_t enc_fp12_eq_mask(const enc_fp12 *a, const enc_fp12 *b);
void enc_fp12_pow_vartime(enc_fp12 *r, const enc_fp12 *a, const uint64_t *e, size_t nlimbs); /* generic, any a */
void enc_fp12_cyc_pow_vartime(enc_fp12 *r, const enc_fp12 *a, const uint64_t *e, size_t nlimbs);

/* pairing.c */
void enc_bls_miller_loop(enc_fp12 *f, const enc_g1 *p, const enc_g2 *q, size_t n);
void enc_bls_final_exp(enc_fp12 *r, const enc_fp12 *f);

/* fr.c (Montgomery helpers for the tests of Fr arithmetic) */
int enc_fr_lt_r(const uint64_t a[4]);

#endif
