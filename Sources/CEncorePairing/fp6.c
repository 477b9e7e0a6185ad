/*
 * Fp6 = Fp2[v]/(v^3 - xi), xi = 1 + i, elements a + b v + c v^2 (mcl's Fp6).
 */
#include "internal.h"

void enc_fp6_add(enc_fp6 *r, const enc_fp6 *x, const enc_fp6 *y) {
    enc_fp2_add(&r->a, &x->a, &y->a);
    enc_fp2_add(&r->b, &x->b, &y->b);
    enc_fp2_add(&r->c, &x->c, &y->c);
}

void enc_fp6_sub(enc_fp6 *r, const enc_fp6 *x, const enc_fp6 *y) {
    enc_fp2_sub(&r->a, &x->a, &y->a);
    enc_fp2_sub(&r->b, &x->b, &y->b);
    enc_fp2_sub(&r->c, &x->c, &y->c);
}

void enc_fp6_neg(enc_fp6 *r, const enc_fp6 *x) {
    enc_fp2_neg(&r->a, &x->a);
    enc_fp2_neg(&r->b, &x->b);
    enc_fp2_neg(&r->c, &x->c);
}

void enc_fp6_zero(enc_fp6 *r) { memset(r, 0, sizeof(*r)); }

void enc_fp6_one(enc_fp6 *r) {
    enc_fp6_zero(r);
    enc_fp2_one(&r->a);
}

/* Karatsuba over the cubic extension: 6 Fp2 products, summed at double
 * width (one reduction per output coefficient: 6 instead of 12). */
void enc_fp6_mul_wide(enc_fp6w *r, const enc_fp6 *x, const enc_fp6 *y) {
    enc_fp2w t0, t1, t2, m, n;
    enc_fp2 s, u;
    enc_fp2_mul_wide(&t0, &x->a, &y->a);
    enc_fp2_mul_wide(&t1, &x->b, &y->b);
    enc_fp2_mul_wide(&t2, &x->c, &y->c);
    /* c0 = t0 + xi((x1 + x2)(y1 + y2) - t1 - t2) */
    enc_fp2_add(&s, &x->b, &x->c);
    enc_fp2_add(&u, &y->b, &y->c);
    enc_fp2_mul_wide(&m, &s, &u);
    enc_fp2w_sub(&m, &m, &t1);
    enc_fp2w_sub(&m, &m, &t2);
    enc_fp2w_mul_xi(&m, &m);
    enc_fp2w_add(&r->a, &m, &t0);
    /* c1 = (x0 + x1)(y0 + y1) - t0 - t1 + xi t2 */
    enc_fp2_add(&s, &x->a, &x->b);
    enc_fp2_add(&u, &y->a, &y->b);
    enc_fp2_mul_wide(&m, &s, &u);
    enc_fp2w_sub(&m, &m, &t0);
    enc_fp2w_sub(&m, &m, &t1);
    enc_fp2w_mul_xi(&n, &t2);
    enc_fp2w_add(&r->b, &m, &n);
    /* c2 = (x0 + x2)(y0 + y2) - t0 - t2 + t1 */
    enc_fp2_add(&s, &x->a, &x->c);
    enc_fp2_add(&u, &y->a, &y->c);
    enc_fp2_mul_wide(&m, &s, &u);
    enc_fp2w_sub(&m, &m, &t0);
    enc_fp2w_sub(&m, &m, &t2);
    enc_fp2w_add(&r->c, &m, &t1);
}

void enc_fp6_mul(enc_fp6 *r, const enc_fp6 *x, const enc_fp6 *y) {
    enc_fp6w t;
    enc_fp6_mul_wide(&t, x, y);
    enc_fp6w_redc(r, &t);
}

/* (a + b v + c v^2) v = xi c + a v + b v^2 at double width */
void enc_fp6w_mul_v(enc_fp6w *r, const enc_fp6w *x) {
    enc_fp2w t;
    enc_fp2w_mul_xi(&t, &x->c);
    r->c = x->b;
    r->b = x->a;
    r->a = t;
}

/* Chung-Hasan SQR2: 2 multiplications + 3 squarings in Fp2. */
void enc_fp6_sqr(enc_fp6 *r, const enc_fp6 *x) {
    enc_fp2 s0, s1, s2, s3, s4, t;
    enc_fp2_sqr(&s0, &x->a);
    enc_fp2_mul(&s1, &x->a, &x->b);
    enc_fp2_dbl(&s1, &s1);
    enc_fp2_sub(&t, &x->a, &x->b);
    enc_fp2_add(&t, &t, &x->c);
    enc_fp2_sqr(&s2, &t);
    enc_fp2_mul(&s3, &x->b, &x->c);
    enc_fp2_dbl(&s3, &s3);
    enc_fp2_sqr(&s4, &x->c);
    /* c2 = s1 + s2 + s3 - s0 - s4 */
    enc_fp2_add(&t, &s1, &s2);
    enc_fp2_add(&t, &t, &s3);
    enc_fp2_sub(&t, &t, &s0);
    enc_fp2_sub(&r->c, &t, &s4);
    /* c0 = s0 + xi s3, c1 = s1 + xi s4 */
    enc_fp2_mul_xi(&s3, &s3);
    enc_fp2_add(&r->a, &s0, &s3);
    enc_fp2_mul_xi(&s4, &s4);
    enc_fp2_add(&r->b, &s1, &s4);
}

/* (a + b v + c v^2) v = xi c + a v + b v^2 */
void enc_fp6_mul_v(enc_fp6 *r, const enc_fp6 *x) {
    enc_fp2 t;
    enc_fp2_mul_xi(&t, &x->c);
    r->c = x->b;
    r->b = x->a;
    r->a = t;
}

/* x * (b0 + b1 v) at double width: 5 Fp2 products */
void enc_fp6_mul_01_wide(enc_fp6w *r, const enc_fp6 *x, const enc_fp2 *b0, const enc_fp2 *b1) {
    enc_fp2w t0, t1, m;
    enc_fp2 s, u;
    enc_fp2_mul_wide(&t0, &x->a, b0);
    enc_fp2_mul_wide(&t1, &x->b, b1);
    /* c0 = xi((x1 + x2) b1 - t1) + t0 */
    enc_fp2_add(&s, &x->b, &x->c);
    enc_fp2_mul_wide(&m, &s, b1);
    enc_fp2w_sub(&m, &m, &t1);
    enc_fp2w_mul_xi(&m, &m);
    enc_fp2w_add(&r->a, &m, &t0);
    /* c1 = (x0 + x1)(b0 + b1) - t0 - t1 */
    enc_fp2_add(&s, &x->a, &x->b);
    enc_fp2_add(&u, b0, b1);
    enc_fp2_mul_wide(&m, &s, &u);
    enc_fp2w_sub(&m, &m, &t0);
    enc_fp2w_sub(&r->b, &m, &t1);
    /* c2 = (x0 + x2) b0 - t0 + t1 */
    enc_fp2_add(&s, &x->a, &x->c);
    enc_fp2_mul_wide(&m, &s, b0);
    enc_fp2w_sub(&m, &m, &t0);
    enc_fp2w_add(&r->c, &m, &t1);
}

/* x * (b1 v) = xi x2 b1 + x0 b1 v + x1 b1 v^2 at double width */
void enc_fp6_mul_1_wide(enc_fp6w *r, const enc_fp6 *x, const enc_fp2 *b1) {
    enc_fp2w c0;
    enc_fp2_mul_wide(&c0, &x->c, b1);
    enc_fp2_mul_wide(&r->b, &x->a, b1);
    enc_fp2_mul_wide(&r->c, &x->b, b1);
    enc_fp2w_mul_xi(&r->a, &c0);
}

/* Inverses through the norm to Fp2, n values (n <= ENC_FP12_BATCH) with one
 * Fp2 inversion for all (enc_fp2_inv_many).  r may be x. */
void enc_fp6_inv_many(enc_fp6 *r, const enc_fp6 *x, size_t n) {
    enc_fp2 A[ENC_FP12_BATCH], B[ENC_FP12_BATCH], C[ENC_FP12_BATCH], f[ENC_FP12_BATCH], t;
    if (n == 0 || n > ENC_FP12_BATCH) return;
    memset(f, 0, sizeof(f)); /* only the first n are used; gcc cannot tell */
    for (size_t j = 0; j < n; j++) {
        const enc_fp6 *y = &x[j];
        /* A = a^2 - xi bc, B = xi c^2 - ab, C = b^2 - ac */
        enc_fp2_sqr(&A[j], &y->a);
        enc_fp2_mul(&t, &y->b, &y->c);
        enc_fp2_mul_xi(&t, &t);
        enc_fp2_sub(&A[j], &A[j], &t);
        enc_fp2_sqr(&B[j], &y->c);
        enc_fp2_mul_xi(&B[j], &B[j]);
        enc_fp2_mul(&t, &y->a, &y->b);
        enc_fp2_sub(&B[j], &B[j], &t);
        enc_fp2_sqr(&C[j], &y->b);
        enc_fp2_mul(&t, &y->a, &y->c);
        enc_fp2_sub(&C[j], &C[j], &t);
        /* F = aA + xi(cB + bC) */
        enc_fp2_mul(&f[j], &y->c, &B[j]);
        enc_fp2_mul(&t, &y->b, &C[j]);
        enc_fp2_add(&f[j], &f[j], &t);
        enc_fp2_mul_xi(&f[j], &f[j]);
        enc_fp2_mul(&t, &y->a, &A[j]);
        enc_fp2_add(&f[j], &f[j], &t);
    }
    enc_fp2_inv_many(f, f, n);
    for (size_t j = 0; j < n; j++) {
        enc_fp2_mul(&r[j].a, &A[j], &f[j]);
        enc_fp2_mul(&r[j].b, &B[j], &f[j]);
        enc_fp2_mul(&r[j].c, &C[j], &f[j]);
    }
}

void enc_fp6_inv(enc_fp6 *r, const enc_fp6 *x) { enc_fp6_inv_many(r, x, 1); }
