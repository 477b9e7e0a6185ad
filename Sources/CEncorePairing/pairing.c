/*
 * Optimal ate pairing on BLS12-381, z = -0xd201000000010000.
 *
 * Miller loop: T runs over multiples of Q on the twist in homogeneous
 * projective coordinates (no inversions).  Lines are evaluated at P and
 * multiplied into f with the sparse routine; each line is only known up to a
 * factor in Fp2 (or Fp4), which the final exponentiation kills because
 * (p^12 - 1)/r is a multiple of p^4 - 1.  With psi(x', y') = (x'/w^2, y'/w^3)
 * the line through T at P, times w^3, is
 *     (lambda' x_T - y_T) - lambda' x_P v + y_P v w,
 * i.e. non-zero only in the slots (1, v, v w) that enc_fp12_mul_line takes.
 * Since z < 0, f_{z,Q} = 1/f_{|z|,Q} up to vertical lines: one conjugation.
 * The lines depend on Q alone apart from the factors x_P and y_P, so for a
 * fixed Q (a CrowdNotifier hour's c1, paired with every trace key of its
 * day) they are computed once (enc_bls_g2_prepare) and only evaluated at P.
 *
 * Final exponentiation: easy part f^((p^6 - 1)(p^2 + 1)), then the hard part
 * with Hayashida-Hayasaka-Teruya's decomposition (eprint 2020/875)
 *     3 (p^4 - p^2 + 1)/r = (z - 1)^2 (z + p)(z^2 + p^2 - 1) + 3,
 * so the result is the cube of the textbook reduced pairing.  That is what
 * mcl returns too (checked byte for byte against pymcl in the tests), so the
 * cube is not an approximation: it is the convention we must match.
 */
#include "internal.h"

/* T on E'(Fp2) in homogeneous coordinates, and the affine Q it adds */
typedef struct {
    enc_fp2 x, y, z;
    enc_fp2 qx, qy;
} miller_state;

/* A line as l0 + (a x_P) v + (b y_P) v w: the part that depends on Q only
 * (what enc_bls_g2_prepare stores), evaluated at P by apply_line. */
typedef struct {
    enc_fp2 l0, a, b;
} line_coeffs;

/* T <- 2T and the tangent line at T.  Costello-Lange-Naehrig style
 * homogeneous doubling, every output scaled by 4 to avoid halvings; the line
 * is (E - B) + 3X^2 x_P v - H y_P v w
 * (up to a factor in Fp2, which the final exponentiation kills). */
static void dbl_step(line_coeffs *l, miller_state *s) {
    enc_fp2 xy, b, c, e, fe, h, j, t;
    enc_fp2_mul(&xy, &s->x, &s->y);
    enc_fp2_sqr(&b, &s->y);
    enc_fp2_sqr(&c, &s->z);
    enc_fp2_sqr(&j, &s->x);
    enc_fp2_add(&h, &s->y, &s->z);
    enc_fp2_sqr(&h, &h);
    enc_fp2_sub(&h, &h, &b);
    enc_fp2_sub(&h, &h, &c);          /* H = 2YZ */
    /* E = 3b' Z^2 = 12 xi C */
    enc_fp2_mul_xi(&t, &c);
    enc_fp2_dbl(&e, &t);
    enc_fp2_add(&e, &e, &t);
    enc_fp2_dbl(&e, &e);
    enc_fp2_dbl(&e, &e);
    enc_fp2_dbl(&fe, &e);
    enc_fp2_add(&fe, &fe, &e);        /* F = 3E */
    enc_fp2_sub(&l->l0, &e, &b);
    enc_fp2_dbl(&l->a, &j);
    enc_fp2_add(&l->a, &l->a, &j);    /* 3 X^2 */
    enc_fp2_neg(&l->b, &h);
    /* X3 = 2XY (B - F), Y3 = (B + F)^2 - 12 E^2, Z3 = 4 B H */
    enc_fp2_sub(&t, &b, &fe);
    enc_fp2_mul(&s->x, &xy, &t);
    enc_fp2_dbl(&s->x, &s->x);
    enc_fp2_add(&t, &b, &fe);
    enc_fp2_sqr(&t, &t);
    enc_fp2_sqr(&e, &e);
    enc_fp2_dbl(&j, &e);
    enc_fp2_add(&j, &j, &e);
    enc_fp2_dbl(&j, &j);
    enc_fp2_dbl(&j, &j);              /* 12 E^2 */
    enc_fp2_sub(&s->y, &t, &j);
    enc_fp2_mul(&s->z, &b, &h);
    enc_fp2_dbl(&s->z, &s->z);
    enc_fp2_dbl(&s->z, &s->z);
}

/* T <- T + Q (Q affine) and the line through T and Q:
 * (theta x_Q - lambda y_Q) - theta x_P v + lambda y_P v w */
static void add_step(line_coeffs *l, miller_state *s) {
    enc_fp2 th, la, c, d, e, ff, g, h, t;
    enc_fp2_mul(&t, &s->qy, &s->z);
    enc_fp2_sub(&th, &s->y, &t);      /* theta = Y - y_Q Z */
    enc_fp2_mul(&t, &s->qx, &s->z);
    enc_fp2_sub(&la, &s->x, &t);      /* lambda = X - x_Q Z */
    enc_fp2_mul(&l->l0, &th, &s->qx);
    enc_fp2_mul(&t, &la, &s->qy);
    enc_fp2_sub(&l->l0, &l->l0, &t);
    enc_fp2_neg(&l->a, &th);
    l->b = la;
    enc_fp2_sqr(&c, &th);
    enc_fp2_sqr(&d, &la);
    enc_fp2_mul(&e, &la, &d);         /* lambda^3 */
    enc_fp2_mul(&ff, &s->z, &c);
    enc_fp2_mul(&g, &s->x, &d);
    enc_fp2_add(&h, &e, &ff);
    enc_fp2_sub(&h, &h, &g);
    enc_fp2_sub(&h, &h, &g);          /* H = E + F - 2G */
    enc_fp2_mul(&s->x, &la, &h);
    enc_fp2_sub(&t, &g, &h);
    enc_fp2_mul(&t, &th, &t);
    enc_fp2_mul(&g, &e, &s->y);
    enc_fp2_sub(&s->y, &t, &g);
    enc_fp2_mul(&s->z, &s->z, &e);
}

/* f <- f * l(P) */
static void apply_line(enc_fp12 *f, const line_coeffs *l, const enc_fp *xp, const enc_fp *yp) {
    enc_fp2 l1, l4;
    enc_fp2_mul_fp(&l1, &l->a, xp);
    enc_fp2_mul_fp(&l4, &l->b, yp);
    enc_fp12_mul_line(f, f, &l->l0, &l1, &l4);
}

/* The identity on either side: the loop runs on the generators instead (no
 * branch on a possibly secret point) and its result is then replaced by 1. */
static uint64_t affine_or_generators(enc_g1 *pa, enc_g2 *qa, const enc_g1 *p, const enc_g2 *q) {
    enc_g1 gen1;
    enc_g2 gen2;
    enc_fp n, t, inv, izp;
    enc_fp2 izq;
    uint64_t degenerate = enc_fp_is_zero_mask(&p->z) | enc_fp2_is_zero_mask(&q->z);
    /* Both points to affine with one inversion (each costs about 5 % of a
     * pairing): with N = |z_Q|^2 in Fp, inv = 1/(z_P N) gives
     * 1/z_P = inv N and 1/z_Q = conj(z_Q) inv z_P.  A zero z (the
     * degenerate case, replaced below) makes inv and the results 0. */
    enc_fp_sqr(&n, &q->z.a);
    enc_fp_sqr(&t, &q->z.b);
    enc_fp_add(&n, &n, &t);
    enc_fp_mul(&t, &p->z, &n);
    enc_fp_inv(&inv, &t);
    enc_fp_mul(&izp, &inv, &n);
    enc_fp_mul(&t, &inv, &p->z);
    enc_fp2_conj(&izq, &q->z);
    enc_fp2_mul_fp(&izq, &izq, &t);
    enc_fp_mul(&pa->x, &p->x, &izp);
    enc_fp_mul(&pa->y, &p->y, &izp);
    pa->z = ENC_FP_ONE;
    enc_fp2_mul(&qa->x, &q->x, &izq);
    enc_fp2_mul(&qa->y, &q->y, &izq);
    enc_fp2_one(&qa->z);
    enc_bls_g1_generator(&gen1);
    enc_bls_g2_generator(&gen2);
    ENC_CMOV(pa, &gen1, degenerate);
    ENC_CMOV(qa, &gen2, degenerate);
    return degenerate;
}

/* f = prod_i f_{z,Q_i}(P_i) (before the final exponentiation). */
void enc_bls_miller_loop(enc_fp12 *f, const enc_g1 *p, const enc_g2 *q, size_t n) {
    enc_fp12_one(f);
    for (size_t k = 0; k < n; k++) {
        miller_state s;
        line_coeffs l;
        enc_fp12 g, one;
        enc_g1 pa;
        enc_g2 qa;
        uint64_t degenerate = affine_or_generators(&pa, &qa, &p[k], &q[k]);
        s.x = s.qx = qa.x;
        s.y = s.qy = qa.y;
        enc_fp2_one(&s.z);
        enc_fp12_one(&g);
        /* bits of |z| below the top one, most significant first */
        for (int i = 62; i >= 0; i--) {
            if (i != 62) enc_fp12_sqr(&g, &g);
            dbl_step(&l, &s);
            apply_line(&g, &l, &pa.x, &pa.y);
            if ((ENC_BLS_Z_ABS >> i) & 1) {
                add_step(&l, &s);
                apply_line(&g, &l, &pa.x, &pa.y);
            }
        }
        enc_fp12_one(&one);
        ENC_CMOV(&g, &one, degenerate);
        enc_fp12_mul(f, f, &g);
    }
    enc_fp12_conj(f, f); /* z < 0 */
}

/* The same loop with Q's lines computed once, in the same order.  Each line
 * is then divided by its constant term l0 (one batched inversion): lines
 * matter only up to factors in Fp2, which the final exponentiation maps to
 * 1 (r divides (p^12 - 1)/(p^2 - 1)), so the pairing is unchanged and each
 * line product gets cheaper.  A zero l0 (a chance of about 2^-381 per line)
 * leaves the lines unscaled; that test is the only data-dependent branch. */
static void scale_lines(enc_g2_prepared *out) {
    enc_fp2 prefix[ENC_BLS_G2_PREPARED_LINES], inv, t;
    prefix[0] = out->lines[0][0];
    for (size_t i = 1; i < ENC_BLS_G2_PREPARED_LINES; i++) enc_fp2_mul(&prefix[i], &prefix[i - 1], &out->lines[i][0]);
    out->scaled = 0;
    if (enc_fp2_is_zero_mask(&prefix[ENC_BLS_G2_PREPARED_LINES - 1])) return;
    enc_fp2_inv(&inv, &prefix[ENC_BLS_G2_PREPARED_LINES - 1]);
    for (size_t i = ENC_BLS_G2_PREPARED_LINES; i-- > 0;) {
        enc_fp2 *l = out->lines[i];
        if (i > 0) enc_fp2_mul(&t, &inv, &prefix[i - 1]); else t = inv; /* 1 / l0 */
        enc_fp2_mul(&inv, &inv, &l[0]);
        enc_fp2_mul(&l[1], &l[1], &t);
        enc_fp2_mul(&l[2], &l[2], &t);
        enc_fp2_one(&l[0]);
    }
    out->scaled = 1;
}

void enc_bls_g2_prepare(enc_g2_prepared *out, const enc_g2 *q) {
    enc_bls_g2_prepare_lines(out, q, 1);
}

void enc_bls_g2_prepare_lines(enc_g2_prepared *out, const enc_g2 *q, int scale) {
    enc_g1 pa, gen1;
    enc_g2 qa;
    miller_state s;
    size_t n = 0;
    enc_bls_g1_generator(&gen1);
    out->degenerate = affine_or_generators(&pa, &qa, &gen1, q);
    s.x = s.qx = qa.x;
    s.y = s.qy = qa.y;
    enc_fp2_one(&s.z);
    for (int i = 62; i >= 0; i--) {
        dbl_step((line_coeffs *)(void *)out->lines[n++], &s);
        if ((ENC_BLS_Z_ABS >> i) & 1) add_step((line_coeffs *)(void *)out->lines[n++], &s);
    }
    out->scaled = 0;
    if (scale) scale_lines(out);
}

/* f <- f * l(P) for a prepared line */
static void apply_prepared(enc_fp12 *f, const enc_g2_prepared *q, size_t n, const enc_fp *xp, const enc_fp *yp) {
    const line_coeffs *l = (const line_coeffs *)(const void *)q->lines[n];
    if (q->scaled) {
        enc_fp2 l1, l4;
        enc_fp2_mul_fp(&l1, &l->a, xp);
        enc_fp2_mul_fp(&l4, &l->b, yp);
        enc_fp12_mul_line_1(f, f, &l1, &l4);
    } else {
        apply_line(f, l, xp, yp);
    }
}

void enc_bls_miller_loop_prepared(enc_fp12 *f, const enc_g1 *p, const enc_g2_prepared *q) {
    enc_g1 pa, gen1;
    enc_fp12 one;
    size_t n = 0;
    uint64_t degenerate = enc_fp_is_zero_mask(&p->z) | q->degenerate;
    /* P as parsed is affine already: skip the inversion then (a branch on
     * P's representation only; the trace keys paired here are public) */
    if (enc_fp_eq_mask(&p->z, &ENC_FP_ONE)) pa = *p; else enc_bls_g1_normalize(&pa, p);
    enc_bls_g1_generator(&gen1);
    ENC_CMOV(&pa, &gen1, degenerate);
    enc_fp12_one(f);
    for (int i = 62; i >= 0; i--) {
        if (i != 62) enc_fp12_sqr(f, f);
        apply_prepared(f, q, n++, &pa.x, &pa.y);
        if ((ENC_BLS_Z_ABS >> i) & 1) apply_prepared(f, q, n++, &pa.x, &pa.y);
    }
    enc_fp12_one(&one);
    ENC_CMOV(f, &one, degenerate);
    enc_fp12_conj(f, f); /* z < 0 */
}

/* a^z for n unitary values side by side (z negative: conjugate) */
static void exp_by_z(enc_fp12 *r, const enc_fp12 *a, size_t n) {
    enc_fp12_cyc_pow_z_many(r, a, n);
    for (size_t j = 0; j < n; j++) enc_fp12_conj(&r[j], &r[j]);
}

/* n final exponentiations side by side: each value's arithmetic is the
 * one-value algorithm's, but the inversions (one in the easy part, one per
 * power of z in the hard part) are shared by the batch. */
void enc_bls_final_exp_many(enc_fp12 *r, const enc_fp12 *f, size_t n) {
    enc_fp12 m[ENC_FP12_BATCH], t0[ENC_FP12_BATCH], t1[ENC_FP12_BATCH], t2[ENC_FP12_BATCH], u;
    if (n == 0 || n > ENC_FP12_BATCH) return;
    /* easy part: m = f^((p^6 - 1)(p^2 + 1)), now in the cyclotomic subgroup */
    enc_fp12_inv_many(t0, f, n);
    for (size_t j = 0; j < n; j++) {
        enc_fp12_conj(&m[j], &f[j]);
        enc_fp12_mul(&m[j], &m[j], &t0[j]);
        enc_fp12_frob2(&u, &m[j]);
        enc_fp12_mul(&m[j], &m[j], &u);
    }
    /* hard part, times 3 */
    exp_by_z(t0, m, n);                       /* m^(z-1) */
    for (size_t j = 0; j < n; j++) {
        enc_fp12_conj(&u, &m[j]);
        enc_fp12_mul(&t0[j], &t0[j], &u);
    }
    exp_by_z(t1, t0, n);                      /* m^((z-1)^2) */
    for (size_t j = 0; j < n; j++) {
        enc_fp12_conj(&u, &t0[j]);
        enc_fp12_mul(&t0[j], &t1[j], &u);
    }
    exp_by_z(t1, t0, n);                      /* ^(z + p) */
    for (size_t j = 0; j < n; j++) {
        enc_fp12_frob(&u, &t0[j]);
        enc_fp12_mul(&t1[j], &t1[j], &u);
    }
    exp_by_z(t2, t1, n);                      /* ^(z^2 + p^2 - 1) */
    exp_by_z(t2, t2, n);
    for (size_t j = 0; j < n; j++) {
        enc_fp12_frob2(&u, &t1[j]);
        enc_fp12_mul(&t2[j], &t2[j], &u);
        enc_fp12_conj(&u, &t1[j]);
        enc_fp12_mul(&t2[j], &t2[j], &u);
        enc_fp12_cyc_sqr(&u, &m[j]);          /* + 3 */
        enc_fp12_mul(&u, &u, &m[j]);
        enc_fp12_mul(&r[j], &t2[j], &u);
    }
}

void enc_bls_final_exp(enc_fp12 *r, const enc_fp12 *f) { enc_bls_final_exp_many(r, f, 1); }
