/*
 * Fp12 = Fp6[w]/(w^2 - v), elements a + b w (mcl's Fp12).  Writing
 * a = g0 + g1 v + g2 v^2 and b = h0 + h1 v + h2 v^2, the element is
 * g0 + h0 w + g1 w^2 + h1 w^3 + g2 w^4 + h2 w^5, which is the basis the
 * Frobenius constants are computed in.
 */
#include "internal.h"

void enc_fp12_one(enc_fp12 *r) {
    enc_fp6_one(&r->a);
    enc_fp6_zero(&r->b);
}

/* The end of a Karatsuba product over w from its double-width parts
 * t0 = a0 b0, t1 = a1 b1, m = (a0 + a1)(b0 + b1): r = (t0 + v t1) +
 * (m - t0 - t1) w, one reduction per coefficient (t0, t1, m are consumed) */
static void karatsuba_finish(enc_fp12 *r, enc_fp6w *t0, enc_fp6w *t1, enc_fp6w *m) {
    enc_fp6w_sub(m, m, t0);
    enc_fp6w_sub(m, m, t1);
    enc_fp6w_redc(&r->b, m);
    enc_fp6w_mul_v(t1, t1);
    enc_fp6w_add(t0, t0, t1);
    enc_fp6w_redc(&r->a, t0);
}

/* Karatsuba: 3 Fp6 products, summed at double width (12 reductions
 * instead of 18) */
void enc_fp12_mul(enc_fp12 *r, const enc_fp12 *x, const enc_fp12 *y) {
    enc_fp6w t0, t1, m;
    enc_fp6 s, u;
    enc_fp6_mul_wide(&t0, &x->a, &y->a);
    enc_fp6_mul_wide(&t1, &x->b, &y->b);
    enc_fp6_add(&s, &x->a, &x->b);
    enc_fp6_add(&u, &y->a, &y->b);
    enc_fp6_mul_wide(&m, &s, &u);
    karatsuba_finish(r, &t0, &t1, &m);
}

/* Complex squaring: (a + bw)^2 = ((a + b)(a + vb) - ab - v ab) + 2ab w,
 * the first coefficient summed at double width */
void enc_fp12_sqr(enc_fp12 *r, const enc_fp12 *x) {
    enc_fp6w t, m, tv;
    enc_fp6 s, u;
    enc_fp6_mul_wide(&t, &x->a, &x->b);
    enc_fp6_add(&s, &x->a, &x->b);
    enc_fp6_mul_v(&u, &x->b);
    enc_fp6_add(&u, &u, &x->a);
    enc_fp6_mul_wide(&m, &s, &u);
    enc_fp6w_sub(&m, &m, &t);
    enc_fp6w_mul_v(&tv, &t);
    enc_fp6w_sub(&m, &m, &tv);
    enc_fp6w_redc(&r->a, &m);
    enc_fp6w_redc(&r->b, &t);
    enc_fp6_add(&r->b, &r->b, &r->b);
}

void enc_fp12_conj(enc_fp12 *r, const enc_fp12 *x) {
    r->a = x->a;
    enc_fp6_neg(&r->b, &x->b);
}

/* 1/(a + bw) = (a - bw)/(a^2 - v b^2), for n values (n <= ENC_FP12_BATCH)
 * with one Fp6 inversion for all of them (enc_fp6_inv_many). */
void enc_fp12_inv_many(enc_fp12 *r, const enc_fp12 *x, size_t n) {
    enc_fp6 norm[ENC_FP12_BATCH], t;
    if (n == 0 || n > ENC_FP12_BATCH) return;
    memset(norm, 0, sizeof(norm)); /* only the first n are used; gcc cannot tell */
    for (size_t j = 0; j < n; j++) {
        enc_fp6_sqr(&norm[j], &x[j].a);
        enc_fp6_sqr(&t, &x[j].b);
        enc_fp6_mul_v(&t, &t);
        enc_fp6_sub(&norm[j], &norm[j], &t);
    }
    enc_fp6_inv_many(norm, norm, n);
    for (size_t j = 0; j < n; j++) {
        enc_fp6_mul(&r[j].a, &x[j].a, &norm[j]);
        enc_fp6_mul(&t, &x[j].b, &norm[j]);
        enc_fp6_neg(&r[j].b, &t);
    }
}

void enc_fp12_inv(enc_fp12 *r, const enc_fp12 *x) { enc_fp12_inv_many(r, x, 1); }

/* (sum c_k w^k)^p = sum conj(c_k) xi^(k(p-1)/6) w^k */
void enc_fp12_frob(enc_fp12 *r, const enc_fp12 *x) {
    enc_fp2 t;
    enc_fp2_conj(&r->a.a, &x->a.a);
    enc_fp2_conj(&t, &x->b.a); enc_fp2_mul(&r->b.a, &t, &ENC_FROB1[1]);
    enc_fp2_conj(&t, &x->a.b); enc_fp2_mul(&r->a.b, &t, &ENC_FROB1[2]);
    enc_fp2_conj(&t, &x->b.b); enc_fp2_mul(&r->b.b, &t, &ENC_FROB1[3]);
    enc_fp2_conj(&t, &x->a.c); enc_fp2_mul(&r->a.c, &t, &ENC_FROB1[4]);
    enc_fp2_conj(&t, &x->b.c); enc_fp2_mul(&r->b.c, &t, &ENC_FROB1[5]);
}

/* p^2-Frobenius: coefficients fixed, w^k scaled by an Fp constant */
void enc_fp12_frob2(enc_fp12 *r, const enc_fp12 *x) {
    r->a.a = x->a.a;
    enc_fp2_mul_fp(&r->b.a, &x->b.a, &ENC_FROB2[1]);
    enc_fp2_mul_fp(&r->a.b, &x->a.b, &ENC_FROB2[2]);
    enc_fp2_mul_fp(&r->b.b, &x->b.b, &ENC_FROB2[3]);
    enc_fp2_mul_fp(&r->a.c, &x->a.c, &ENC_FROB2[4]);
    enc_fp2_mul_fp(&r->b.c, &x->b.c, &ENC_FROB2[5]);
}

/* (x + y s)^2 in Fp4 = Fp2[s]/(s^2 - xi): X = x^2 + xi y^2, Y = 2xy =
 * (x + y)^2 - x^2 - y^2, the three squares at double width and one
 * reduction per output coefficient (4 instead of 6) */
static void fp4_sqr(enc_fp2 *X, enc_fp2 *Y, const enc_fp2 *x, const enc_fp2 *y) {
    enc_fp2w t0, t1, t2;
    enc_fp2 s;
    enc_fp2_sqr_wide(&t0, x);
    enc_fp2_sqr_wide(&t1, y);
    enc_fp2_add(&s, x, y);
    enc_fp2_sqr_wide(&t2, &s);
    enc_fp2w_sub(&t2, &t2, &t0);
    enc_fp2w_sub(&t2, &t2, &t1);
    enc_fp2w_redc(Y, &t2);
    enc_fp2w_mul_xi(&t1, &t1);
    enc_fp2w_add(&t0, &t0, &t1);
    enc_fp2w_redc(X, &t0);
}

/* 3X - 2x  (or 3X + 2x when plus) */
static void gs_combine(enc_fp2 *r, const enc_fp2 *X, const enc_fp2 *x, int plus) {
    enc_fp2 t;
    if (plus) enc_fp2_add(&t, X, x); else enc_fp2_sub(&t, X, x);
    enc_fp2_dbl(&t, &t);
    enc_fp2_add(r, &t, X);
}

/*
 * Granger-Scott squaring in the cyclotomic subgroup.  With s = w^3 (s^2 = xi)
 * the element is A0 + A1 w + A2 w^2 over Fp4 = Fp2[s], A0 = g0 + h1 s,
 * A1 = h0 + g2 s, A2 = g1 + h2 s, and for unitary elements
 *   (A0 + A1 w + A2 w^2)^2 = (3A0^2 - 2~A0) + (3 s A2^2 + 2~A1) w + (3A1^2 - 2~A2) w^2
 * where ~ is s -> -s.  Nine Fp2 squarings instead of a full squaring.
 */
void enc_fp12_cyc_sqr(enc_fp12 *r, const enc_fp12 *f) {
    enc_fp2 X0, Y0, X1, Y1, X2, Y2, t;
    fp4_sqr(&X0, &Y0, &f->a.a, &f->b.b);
    fp4_sqr(&X1, &Y1, &f->b.a, &f->a.c);
    fp4_sqr(&X2, &Y2, &f->a.b, &f->b.c);
    /* c0 = 3A0^2 - 2~A0: (3X0 - 2g0) + (3Y0 + 2h1) s */
    gs_combine(&r->a.a, &X0, &f->a.a, 0);
    gs_combine(&r->b.b, &Y0, &f->b.b, 1);
    /* c2 = 3A1^2 - 2~A2: (3X1 - 2g1) + (3Y1 + 2h2) s */
    gs_combine(&r->a.b, &X1, &f->a.b, 0);
    gs_combine(&r->b.c, &Y1, &f->b.c, 1);
    /* c1 = 3 s A2^2 + 2~A1: (3 xi Y2 + 2h0) + (3X2 - 2g2) s */
    enc_fp2_mul_xi(&t, &Y2);
    gs_combine(&r->b.a, &t, &f->b.a, 1);
    gs_combine(&r->a.c, &X2, &f->a.c, 0);
}

/*
 * Karabina's compressed squaring ("Squaring in cyclotomic subgroups", 2013):
 * a cyclotomic element is determined (up to the special case below) by its
 * coefficients g1 = a.b, g2 = a.c, g3 = b.a, g5 = b.c, and their squares
 * depend only on them:
 *   g1' = 3(g3^2 + xi g2^2) - 2 g1      g2' = 3(g1^2 + xi g5^2) - 2 g2
 *   g3' = 3 xi (2 g1 g5) + 2 g3         g5' = 3 (2 g2 g3) + 2 g5
 * Six Fp2 squarings (at double width, four reductions) instead of
 * Granger-Scott's nine; r's a.a and b.b are left as they were.
 */
static void cyc_sqr_compressed(enc_fp12 *r, const enc_fp12 *x) {
    const enc_fp2 g1 = x->a.b, g2 = x->a.c, g3 = x->b.a, g5 = x->b.c;
    enc_fp2w s1, s5, s15, s2, s3, s23, t;
    enc_fp2 u, v;
    enc_fp2_sqr_wide(&s1, &g1);
    enc_fp2_sqr_wide(&s5, &g5);
    enc_fp2_add(&u, &g1, &g5);
    enc_fp2_sqr_wide(&s15, &u);
    enc_fp2_sqr_wide(&s2, &g2);
    enc_fp2_sqr_wide(&s3, &g3);
    enc_fp2_add(&u, &g2, &g3);
    enc_fp2_sqr_wide(&s23, &u);
    enc_fp2w_mul_xi(&t, &s5); /* g1^2 + xi g5^2 */
    enc_fp2w_add(&t, &t, &s1);
    enc_fp2w_redc(&v, &t);
    gs_combine(&r->a.c, &v, &g2, 0);
    enc_fp2w_mul_xi(&t, &s2); /* g3^2 + xi g2^2 */
    enc_fp2w_add(&t, &t, &s3);
    enc_fp2w_redc(&v, &t);
    gs_combine(&r->a.b, &v, &g1, 0);
    enc_fp2w_sub(&t, &s15, &s1); /* xi 2 g1 g5 */
    enc_fp2w_sub(&t, &t, &s5);
    enc_fp2w_mul_xi(&t, &t);
    enc_fp2w_redc(&v, &t);
    gs_combine(&r->b.a, &v, &g3, 1);
    enc_fp2w_sub(&t, &s23, &s2); /* 2 g2 g3 */
    enc_fp2w_sub(&t, &t, &s3);
    enc_fp2w_redc(&v, &t);
    gs_combine(&r->b.c, &v, &g5, 1);
}

#define DECOMPRESS_MAX 24

/* The rest of n compressed elements (n <= DECOMPRESS_MAX: the three powers
 * of each value of a batch, enc_fp12_cyc_pow_z_many) in place,
 * with one Fp2 inversion for all (Montgomery's trick):
 *   g4 = (xi g5^2 + 3 g1^2 - 2 g2) / (4 g3), or 2 g1 g5 / g2 if g3 = 0,
 *   g0 = xi (2 g4^2 + g3 g5 - 3 g1 g2) + 1;
 * in the cyclotomic subgroup g2 = g3 = 0 only for the element 1 (Karabina,
 * Theorem 3.1; compressed, it is all zero), which is therefore given its own
 * (masked) case.  Branch-free. */
static void cyc_decompress(enc_fp12 *const x[], size_t n) {
    enc_fp2 num[DECOMPRESS_MAX], den[DECOMPRESS_MAX], pre[DECOMPRESS_MAX], inv, t, u, one;
    uint64_t is_one[DECOMPRESS_MAX];
    if (n == 0 || n > DECOMPRESS_MAX) return;
    enc_fp2_one(&one);
    for (size_t i = 0; i < n; i++) {
        const enc_fp12 *f = x[i];
        uint64_t z3 = enc_fp2_is_zero_mask(&f->b.a);
        is_one[i] = z3 & enc_fp2_is_zero_mask(&f->a.c);
        enc_fp2_sqr(&t, &f->a.b); /* xi g5^2 + 3 g1^2 - 2 g2 */
        gs_combine(&num[i], &t, &f->a.c, 0);
        enc_fp2_sqr(&t, &f->b.c);
        enc_fp2_mul_xi(&t, &t);
        enc_fp2_add(&num[i], &num[i], &t);
        enc_fp2_dbl(&den[i], &f->b.a);
        enc_fp2_dbl(&den[i], &den[i]);
        enc_fp2_mul(&t, &f->a.b, &f->b.c); /* g3 = 0: 2 g1 g5 / g2 */
        enc_fp2_dbl(&t, &t);
        ENC_CMOV(&num[i], &t, z3);
        ENC_CMOV(&den[i], &f->a.c, z3);
        ENC_CMOV(&den[i], &one, is_one[i]);
        if (i) enc_fp2_mul(&pre[i], &pre[i - 1], &den[i]); else pre[0] = den[0];
    }
    enc_fp2_inv(&inv, &pre[n - 1]);
    for (size_t i = n; i-- > 0;) {
        enc_fp12 *f = x[i];
        if (i) {
            enc_fp2_mul(&t, &inv, &pre[i - 1]); /* 1 / den[i] */
            enc_fp2_mul(&inv, &inv, &den[i]);
        } else {
            t = inv;
        }
        enc_fp2_mul(&f->b.b, &num[i], &t);
        enc_fp2_sqr(&t, &f->b.b); /* 2 g4^2 - 3 g1 g2 + g3 g5 */
        enc_fp2_mul(&u, &f->a.c, &f->a.b);
        enc_fp2_sub(&t, &t, &u);
        enc_fp2_dbl(&t, &t);
        enc_fp2_sub(&t, &t, &u);
        enc_fp2_mul(&u, &f->b.a, &f->b.c);
        enc_fp2_add(&t, &t, &u);
        enc_fp2_mul_xi(&t, &t);
        enc_fp2_add(&f->a.a, &t, &one);
        enc_fp12 one12;
        enc_fp12_one(&one12);
        ENC_CMOV(f, &one12, is_one[i]);
    }
}

/* Test hook: n compressed squarings, then the decompression. */
void enc_fp12_cyc_sqr_n_karabina(enc_fp12 *r, const enc_fp12 *a, int n) {
    enc_fp12 *p[1] = {r};
    *r = *a;
    for (int i = 0; i < n; i++) cyc_sqr_compressed(r, r);
    cyc_decompress(p, 1);
}

/* a^|z| for cyclotomic a: compressed squarings up to the third set bit of
 * |z| = 2^63 + 2^62 + 2^60 + 2^57 + 2^48 + 2^16 (57 of the 63 squarings),
 * those three powers decompressed with one inversion, Granger-Scott for the
 * last six squarings (a decompression there would cost more than the
 * squarings it saves).  n values (n <= ENC_FP12_BATCH) go side by side so
 * that all their powers share the one inversion. */
#define KARABINA_POWERS 3
_Static_assert(KARABINA_POWERS * ENC_FP12_BATCH <= DECOMPRESS_MAX, "one decompression for the batch");
void enc_fp12_cyc_pow_z_many(enc_fp12 *r, const enc_fp12 *a, size_t n) {
    enc_fp12 pw[ENC_FP12_BATCH][KARABINA_POWERS], c[ENC_FP12_BATCH];
    enc_fp12 *pp[ENC_FP12_BATCH * KARABINA_POWERS];
    int bit = 0, k = 0;
    if (n == 0 || n > ENC_FP12_BATCH) return;
    for (size_t j = 0; j < n; j++) c[j] = a[j];
    for (;; bit++) {
        if ((ENC_BLS_Z_ABS >> bit) & 1) {
            for (size_t j = 0; j < n; j++) {
                pw[j][k] = c[j];
                pp[j * KARABINA_POWERS + (size_t)k] = &pw[j][k];
            }
            if (++k == KARABINA_POWERS) break;
        }
        for (size_t j = 0; j < n; j++) cyc_sqr_compressed(&c[j], &c[j]);
    }
    cyc_decompress(pp, n * KARABINA_POWERS);
    for (size_t j = 0; j < n; j++) {
        enc_fp12 acc = pw[j][0], s = pw[j][KARABINA_POWERS - 1];
        for (k = 1; k < KARABINA_POWERS; k++) enc_fp12_mul(&acc, &acc, &pw[j][k]);
        for (int b = bit + 1; b < 64; b++) {
            enc_fp12_cyc_sqr(&s, &s);
            if ((ENC_BLS_Z_ABS >> b) & 1) enc_fp12_mul(&acc, &acc, &s);
        }
        r[j] = acc;
    }
}

void enc_fp12_cyc_pow_z(enc_fp12 *r, const enc_fp12 *a) { enc_fp12_cyc_pow_z_many(r, a, 1); }

/* r = a * (l0 + l1 v + l4 v w), the sparse shape of every line function:
 * Karatsuba over w, the products summed at double width (12 reductions) */
void enc_fp12_mul_line(enc_fp12 *r, const enc_fp12 *x, const enc_fp2 *l0, const enc_fp2 *l1,
                       const enc_fp2 *l4) {
    enc_fp6w t0, t1, m;
    enc_fp6 s;
    enc_fp2 n;
    enc_fp6_mul_01_wide(&t0, &x->a, l0, l1);
    enc_fp6_mul_1_wide(&t1, &x->b, l4);
    enc_fp6_add(&s, &x->a, &x->b);
    enc_fp2_add(&n, l1, l4);
    enc_fp6_mul_01_wide(&m, &s, l0, &n);
    karatsuba_finish(r, &t0, &t1, &m);
}

/* r = a * (1 + l1 v + l4 v w), a line scaled to a constant term of 1
 * (prepared lines): with A = a l1 v, B = b l4 v, S = (a + b)(l1 + l4) v,
 * r = (a + A + v B) + (b + S - A - B) w: 9 Fp2 products, 12 reductions */
void enc_fp12_mul_line_1(enc_fp12 *r, const enc_fp12 *x, const enc_fp2 *l1, const enc_fp2 *l4) {
    enc_fp6w A, B, S;
    enc_fp6 s, t;
    enc_fp2 m;
    enc_fp6_mul_1_wide(&A, &x->a, l1);
    enc_fp6_mul_1_wide(&B, &x->b, l4);
    enc_fp6_add(&s, &x->a, &x->b);
    enc_fp2_add(&m, l1, l4);
    enc_fp6_mul_1_wide(&S, &s, &m);
    enc_fp6w_sub(&S, &S, &A);
    enc_fp6w_sub(&S, &S, &B);
    enc_fp6w_redc(&t, &S);
    enc_fp6w_mul_v(&B, &B);
    enc_fp6w_add(&A, &A, &B);
    enc_fp6_add(&r->b, &x->b, &t);
    enc_fp6w_redc(&t, &A);
    enc_fp6_add(&r->a, &x->a, &t);
}

uint64_t enc_fp12_eq_mask(const enc_fp12 *a, const enc_fp12 *b) {
    const enc_fp *x = &a->a.a.a, *y = &b->a.a.a;
    uint64_t m = ~(uint64_t)0;
    for (int i = 0; i < 12; i++) m &= enc_fp_eq_mask(&x[i], &y[i]);
    return m;
}

static void pow_generic(enc_fp12 *r, const enc_fp12 *a, const uint64_t *e, size_t nlimbs, int cyc) {
    enc_fp12 acc, base = *a;
    int started = 0;
    enc_fp12_one(&acc);
    for (size_t i = nlimbs * 64; i-- > 0;) {
        if (started) {
            if (cyc) enc_fp12_cyc_sqr(&acc, &acc); else enc_fp12_sqr(&acc, &acc);
        }
        if ((e[i / 64] >> (i % 64)) & 1) {
            enc_fp12_mul(&acc, &acc, &base);
            started = 1;
        }
    }
    *r = acc;
}

void enc_fp12_pow_vartime(enc_fp12 *r, const enc_fp12 *a, const uint64_t *e, size_t nlimbs) {
    pow_generic(r, a, e, nlimbs, 0);
}

void enc_fp12_cyc_pow_vartime(enc_fp12 *r, const enc_fp12 *a, const uint64_t *e, size_t nlimbs) {
    pow_generic(r, a, e, nlimbs, 1);
}
