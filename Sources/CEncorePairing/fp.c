/*
 * Base field Fp, p = 0x1a0111ea...ffffaaab (381 bits): the non-inline part
 * (exponentiation, square roots, conversions; the inversion is in
 * fp_inv.c).  Exponents here are fixed public constants, so
 * square-and-multiply over their bits leaks nothing about the base.
 */
#include "internal.h"

/* Montgomery product a * b / 2^384 mod p, interleaved (CIOS) in the
 * "no-carry" form: p's top limb is below 2^62, so the running sum never
 * needs the two extra carry words of textbook CIOS and stays in registers.
 * Deliberately not inline: gcc takes minutes on files that inline dozens of
 * fully unrolled copies, and the call costs little next to the product. */
void enc_fp_mul_portable(enc_fp *r, const enc_fp *a, const enc_fp *b) {
    uint64_t t[6] = {0, 0, 0, 0, 0, 0};
    ENC_UNROLL
    for (int i = 0; i < 6; i++) {
        uint64_t bi = b->l[i];
        enc_u128 x = (enc_u128)a->l[0] * bi + t[0];
        uint64_t A = (uint64_t)(x >> 64);
        uint64_t t0 = (uint64_t)x;
        uint64_t m = t0 * ENC_PINV_;
        enc_u128 y = (enc_u128)m * enc_p_[0] + t0;
        uint64_t C = (uint64_t)(y >> 64);
        ENC_UNROLL
        for (int j = 1; j < 6; j++) {
            x = (enc_u128)a->l[j] * bi + t[j] + A;
            A = (uint64_t)(x >> 64);
            y = (enc_u128)m * enc_p_[j] + (uint64_t)x + C;
            C = (uint64_t)(y >> 64);
            t[j - 1] = (uint64_t)y;
        }
        t[5] = C + A;
    }
    uint64_t u[6], br = 0;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)t[i] - enc_p_[i] - br;
        u[i] = (uint64_t)x;
        br = (uint64_t)(x >> 64) & 1;
    }
    uint64_t keep = 0 - br;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) r->l[i] = (t[i] & keep) | (u[i] & ~keep);
}

/* The double-width product (schoolbook, no reduction). */
void enc_fp_mul_wide_portable(enc_fpw *r, const enc_fp *a, const enc_fp *b) {
    uint64_t t[12] = {0};
    ENC_UNROLL
    for (int i = 0; i < 6; i++) {
        uint64_t c = 0;
        ENC_UNROLL
        for (int j = 0; j < 6; j++) {
            enc_u128 x = (enc_u128)a->l[j] * b->l[i] + t[i + j] + c;
            t[i + j] = (uint64_t)x;
            c = (uint64_t)(x >> 64);
        }
        t[i + 6] = c;
    }
    memcpy(r->l, t, sizeof(t));
}

/* Montgomery reduction of a double-width t < p 2^384, as in the product
 * above: reduce the low half alone (to u <= p), add the high half (< p),
 * subtract p once if needed. */
void enc_fp_redc_portable(enc_fp *r, const enc_fpw *t) {
    uint64_t u[6];
    memcpy(u, t->l, sizeof(u));
    ENC_UNROLL
    for (int i = 0; i < 6; i++) {
        uint64_t m = u[0] * ENC_PINV_;
        enc_u128 y = (enc_u128)m * enc_p_[0] + u[0];
        uint64_t C = (uint64_t)(y >> 64);
        ENC_UNROLL
        for (int j = 1; j < 6; j++) {
            y = (enc_u128)m * enc_p_[j] + u[j] + C;
            C = (uint64_t)(y >> 64);
            u[j - 1] = (uint64_t)y;
        }
        u[5] = C;
    }
    enc_fp s;
    uint64_t c = 0;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) s.l[i] = enc_addc(u[i], t->l[6 + i], c, &c);
    enc_fp_sub_p_if_ge(r, &s);
}

int enc_fp_select_fast_path(int fast) {
#if ENC_HAVE_MULX_ASM
    enc_fp_use_mulx = fast && enc_fp_fast_path_available();
    return enc_fp_use_mulx;
#else
    (void)fast;
    return 0;
#endif
}

void enc_fp_sqr(enc_fp *r, const enc_fp *a) { enc_fp_mul(r, a, a); }


/* Fixed 4-bit windows: the exponents are public constants, so indexing the
 * table by their digits leaks nothing; about 90 products fewer than plain
 * square-and-multiply over 381 bits (square roots, Legendre symbols). */
void enc_fp_pow(enc_fp *r, const enc_fp *a, const uint64_t *e, size_t nlimbs) {
    enc_fp table[16], acc = ENC_FP_ONE;
    int started = 0;
    table[1] = *a;
    for (int i = 2; i < 16; i++) enc_fp_mul(&table[i], &table[i - 1], a);
    for (size_t w = nlimbs * 16; w-- > 0;) {
        unsigned digit = (unsigned)((e[w / 16] >> (4 * (w % 16))) & 15);
        if (started) {
            for (int j = 0; j < 4; j++) enc_fp_sqr(&acc, &acc);
        }
        if (digit) {
            if (started) enc_fp_mul(&acc, &acc, &table[digit]); else acc = table[digit];
            started = 1;
        }
    }
    *r = acc;
}

/* p = 3 mod 4: a^((p+1)/4) is a square root whenever one exists.  This is
 * also exactly the root mcl picks, which matters for the SvdW map. */
int enc_fp_sqrt(enc_fp *r, const enc_fp *a) {
    enc_fp y, y2;
    enc_fp_pow(&y, a, ENC_FP_EXP_SQRT, 6);
    enc_fp_sqr(&y2, &y);
    *r = y;
    return (int)(enc_fp_eq_mask(&y2, a) & 1);
}

int enc_fp_legendre(const enc_fp *a) {
    enc_fp t;
    enc_fp_pow(&t, a, ENC_FP_EXP_LEGENDRE, 6);
    if (enc_fp_is_zero_mask(&t)) return 0;
    return (enc_fp_eq_mask(&t, &ENC_FP_ONE) & 1) ? 1 : -1;
}

/* Leave Montgomery form: multiply by 1 via a plain reduction. */
static void fp_to_canonical(uint64_t out[6], const enc_fp *a) {
    static const enc_fp one = {{1, 0, 0, 0, 0, 0}};
    enc_fp r;
    enc_fp_mul(&r, a, &one); /* a R * 1 / R */
    memcpy(out, r.l, sizeof(r.l));
}

int enc_fp_is_odd(const enc_fp *a) {
    uint64_t c[6];
    fp_to_canonical(c, a);
    return (int)(c[0] & 1);
}

void enc_fp_from_u64(enc_fp *r, uint64_t v) {
    enc_fp t = {{v, 0, 0, 0, 0, 0}};
    enc_fp_mul(r, &t, &ENC_FP_R2);
}

static void load_le(uint64_t out[6], const uint8_t in[48]) {
    for (int i = 0; i < 6; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--) w = (w << 8) | in[8 * i + j];
        out[i] = w;
    }
}

/* all-ones if the 6-limb integer a is < p */
static uint64_t lt_p_mask(const uint64_t a[6]) {
    uint64_t br = 0;
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)a[i] - ENC_FP_P.l[i] - br;
        br = (uint64_t)(x >> 64) & 1;
    }
    return 0 - br;
}

int enc_fp_from_bytes(enc_fp *r, const uint8_t in[48]) {
    enc_fp t;
    load_le(t.l, in);
    if (!(lt_p_mask(t.l) & 1)) return -1;
    enc_fp_mul(r, &t, &ENC_FP_R2);
    return 0;
}

void enc_fp_to_bytes(uint8_t out[48], const enc_fp *a) {
    uint64_t c[6];
    fp_to_canonical(c, a);
    for (int i = 0; i < 48; i++) out[i] = (uint8_t)(c[i / 8] >> (8 * (i % 8)));
}

/* mcl's setArrayMask: keep the low 381 bits; if that is still >= p, keep
 * only the low 380 bits (a plain mask, not a reduction). */
void enc_fp_set_array_mask(enc_fp *r, const uint8_t in[48]) {
    enc_fp t;
    load_le(t.l, in);
    t.l[5] &= (1ULL << 61) - 1;
    uint64_t ge = ~lt_p_mask(t.l);
    t.l[5] &= ~(ge & (1ULL << 60));
    enc_fp_mul(r, &t, &ENC_FP_R2);
}
