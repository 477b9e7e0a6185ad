/*
 * Fp2 = Fp[i]/(i^2 + 1), elements a + b*i (mcl's Fp2).  Multiplication is
 * Karatsuba with lazy reduction (3 double-width products, 2 reductions).
 */
#include "internal.h"

/* (a0 + a1 i)(b0 + b1 i) = (a0b0 - a1b1) + ((a0+a1)(b0+b1) - a0b0 - a1b1) i
 * at double width: the sums stay unreduced (< 2p, product < 4p^2), the
 * imaginary part a0b1 + a1b0 < 2p^2 needs no correction, the real part at
 * most one (enc_fpw_sub). */
void enc_fp2_mul_wide(enc_fp2w *r, const enc_fp2 *a, const enc_fp2 *b) {
    enc_fpw t0, t1;
    enc_fp sa, sb;
    enc_fp_mul_wide(&t0, &a->a, &b->a);
    enc_fp_mul_wide(&t1, &a->b, &b->b);
    enc_fp_add_nr(&sa, &a->a, &a->b);
    enc_fp_add_nr(&sb, &b->a, &b->b);
    enc_fp_mul_wide(&r->b, &sa, &sb);
    uint64_t br = 0;
    ENC_UNROLL
    for (int i = 0; i < 12; i++) r->b.l[i] = enc_subb(r->b.l[i], t0.l[i], br, &br);
    ENC_UNROLL
    for (int i = 0; i < 12; i++) r->b.l[i] = enc_subb(r->b.l[i], t1.l[i], br, &br);
    enc_fpw_sub(&r->a, &t0, &t1);
}

/* (a + bi)^2 = (a + b)(a - b) + 2ab i at double width: a + b and
 * a + p - b are below 2p unreduced (product < 4p^2), 2ab < 2p^2 */
void enc_fp2_sqr_wide(enc_fp2w *r, const enc_fp2 *a) {
    enc_fp s, d, b2;
    uint64_t c = 0, br = 0;
    enc_fp_add_nr(&s, &a->a, &a->b);
    ENC_UNROLL
    for (int i = 0; i < 6; i++) d.l[i] = enc_addc(a->a.l[i], enc_p_[i], c, &c);
    ENC_UNROLL
    for (int i = 0; i < 6; i++) d.l[i] = enc_subb(d.l[i], a->b.l[i], br, &br);
    enc_fp_add_nr(&b2, &a->b, &a->b);
    enc_fp_mul_wide(&r->a, &s, &d);
    enc_fp_mul_wide(&r->b, &a->a, &b2);
}

/* Three double-width products and two reductions instead of three
 * Montgomery products (three reductions). */
void enc_fp2_mul(enc_fp2 *r, const enc_fp2 *a, const enc_fp2 *b) {
    enc_fp2w t;
    enc_fp2_mul_wide(&t, a, b);
    enc_fp2w_redc(r, &t);
}

/* (a + bi)^2 = (a+b)(a-b) + 2ab i */
void enc_fp2_sqr(enc_fp2 *r, const enc_fp2 *a) {
    enc_fp s, d, ab;
    enc_fp_add(&s, &a->a, &a->b);
    enc_fp_sub(&d, &a->a, &a->b);
    enc_fp_mul(&ab, &a->a, &a->b);
    enc_fp_mul(&r->a, &s, &d);
    enc_fp_add(&r->b, &ab, &ab);
}

void enc_fp2_mul_fp(enc_fp2 *r, const enc_fp2 *a, const enc_fp *b) {
    enc_fp_mul(&r->a, &a->a, b);
    enc_fp_mul(&r->b, &a->b, b);
}

/* 1/(a + bi) = (a - bi)/(a^2 + b^2); 0 maps to 0.  n values (n <=
 * ENC_FP12_BATCH) share one Fp inversion (enc_fp_inv_many).  r may be a. */
void enc_fp2_inv_many(enc_fp2 *r, const enc_fp2 *a, size_t n) {
    enc_fp norm[ENC_FP12_BATCH], t;
    if (n == 0 || n > ENC_FP12_BATCH) return;
    memset(norm, 0, sizeof(norm)); /* only the first n are used; gcc cannot tell */
    for (size_t j = 0; j < n; j++) {
        enc_fp_sqr(&norm[j], &a[j].a);
        enc_fp_sqr(&t, &a[j].b);
        enc_fp_add(&norm[j], &norm[j], &t);
    }
    enc_fp_inv_many(norm, norm, n);
    for (size_t j = 0; j < n; j++) {
        enc_fp_mul(&r[j].a, &a[j].a, &norm[j]);
        enc_fp_mul(&t, &a[j].b, &norm[j]);
        enc_fp_neg(&r[j].b, &t);
    }
}

void enc_fp2_inv(enc_fp2 *r, const enc_fp2 *a) { enc_fp2_inv_many(r, a, 1); }

uint64_t enc_fp2_is_zero_mask(const enc_fp2 *a) {
    return enc_fp_is_zero_mask(&a->a) & enc_fp_is_zero_mask(&a->b);
}

uint64_t enc_fp2_eq_mask(const enc_fp2 *a, const enc_fp2 *b) {
    return enc_fp_eq_mask(&a->a, &b->a) & enc_fp_eq_mask(&a->b, &b->b);
}

void enc_fp2_zero(enc_fp2 *r) { memset(r, 0, sizeof(*r)); }

void enc_fp2_one(enc_fp2 *r) {
    r->a = ENC_FP_ONE;
    memset(&r->b, 0, sizeof(r->b));
}

/* Public-exponent power, used only by the square root (parsing, VT). */
static void fp2_pow(enc_fp2 *r, const enc_fp2 *a, const uint64_t e[6]) {
    enc_fp2 acc, base = *a;
    enc_fp2_one(&acc);
    for (int i = 383; i >= 0; i--) {
        enc_fp2_sqr(&acc, &acc);
        if ((e[i / 64] >> (i % 64)) & 1) enc_fp2_mul(&acc, &acc, &base);
    }
    *r = acc;
}

/* Square root for p = 3 mod 4 (Adj and Rodriguez-Henriquez, "Square root
 * computation over even extension fields", Alg. 9).  Which of the two roots
 * comes out does not matter: callers fix the sign from the encoding. */
int enc_fp2_sqrt(enc_fp2 *r, const enc_fp2 *a) {
    enc_fp2 a1, alpha, x0, x, chk, minus_one, b;
    fp2_pow(&a1, a, ENC_FP_EXP_SQRT2);
    enc_fp2_mul(&x0, &a1, a);
    enc_fp2_mul(&alpha, &a1, &x0);
    enc_fp2_one(&minus_one);
    enc_fp2_neg(&minus_one, &minus_one);
    if (enc_fp2_eq_mask(&alpha, &minus_one)) {
        /* x = i * x0 */
        enc_fp_neg(&x.a, &x0.b);
        x.b = x0.a;
    } else {
        enc_fp2_one(&b);
        enc_fp2_add(&b, &b, &alpha);
        fp2_pow(&b, &b, ENC_FP_EXP_LEGENDRE);
        enc_fp2_mul(&x, &b, &x0);
    }
    enc_fp2_sqr(&chk, &x);
    *r = x;
    return (int)(enc_fp2_eq_mask(&chk, a) & 1);
}
