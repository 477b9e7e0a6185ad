/*
 * Byte-level wrappers around the CEncorePairing API for the ctypes tests:
 * every point crosses the boundary in its serialised form, so every test also
 * exercises the encoders and parsers.  Functions return the parser's error
 * code for their first bad input (or ENC_BLS_OK).
 */
#include <string.h>
#include "encore_pairing.h"
#include "internal.h"

#define PARSE1(var, bytes) do { int rc_ = enc_bls_g1_deserialize(&var, bytes); if (rc_) return rc_; } while (0)
#define PARSE2(var, bytes) do { int rc_ = enc_bls_g2_deserialize(&var, bytes); if (rc_) return rc_; } while (0)
#define PARSET(var, bytes) do { int rc_ = enc_bls_gt_deserialize(&var, bytes); if (rc_) return rc_; } while (0)
#define PARSEK(var, bytes) do { int rc_ = enc_bls_fr_from_bytes(&var, bytes); if (rc_) return rc_; } while (0)

int h_g1_parse(const uint8_t *in) { enc_g1 p; return enc_bls_g1_deserialize(&p, in); }
int h_g2_parse(const uint8_t *in) { enc_g2 p; return enc_bls_g2_deserialize(&p, in); }
int h_gt_parse(const uint8_t *in) { enc_gt g; return enc_bls_gt_deserialize(&g, in); }

int h_g1_roundtrip(uint8_t *out, const uint8_t *in) {
    enc_g1 p; PARSE1(p, in); enc_bls_g1_serialize(out, &p); return 0;
}
int h_g2_roundtrip(uint8_t *out, const uint8_t *in) {
    enc_g2 p; PARSE2(p, in); enc_bls_g2_serialize(out, &p); return 0;
}

void h_g1_generator(uint8_t *out) { enc_g1 p; enc_bls_g1_generator(&p); enc_bls_g1_serialize(out, &p); }
void h_g2_generator(uint8_t *out) { enc_g2 p; enc_bls_g2_generator(&p); enc_bls_g2_serialize(out, &p); }

void h_g1_hash(uint8_t *out, const uint8_t *msg, size_t len) {
    enc_g1 p; enc_bls_g1_hash(&p, msg, len); enc_bls_g1_serialize(out, &p);
}

void h_fr_hash(uint8_t *out, const uint8_t *msg, size_t len) {
    enc_fr k; enc_bls_fr_hash(&k, msg, len); enc_bls_fr_to_bytes(out, &k);
}

int h_fr_mul(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    enc_fr x, y; PARSEK(x, a); PARSEK(y, b); enc_bls_fr_mul(&x, &x, &y); enc_bls_fr_to_bytes(out, &x); return 0;
}
int h_fr_add(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    enc_fr x, y; PARSEK(x, a); PARSEK(y, b); enc_bls_fr_add(&x, &x, &y); enc_bls_fr_to_bytes(out, &x); return 0;
}
int h_fr_sub(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    enc_fr x, y; PARSEK(x, a); PARSEK(y, b); enc_bls_fr_sub(&x, &x, &y); enc_bls_fr_to_bytes(out, &x); return 0;
}
void h_fr_from_wide(uint8_t *out, const uint8_t *in64) {
    enc_fr x; enc_bls_fr_from_wide_bytes(&x, in64); enc_bls_fr_to_bytes(out, &x);
}
int h_fr_parse(const uint8_t *in) { enc_fr x; return enc_bls_fr_from_bytes(&x, in); }

int h_g1_add(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    enc_g1 p, q; PARSE1(p, a); PARSE1(q, b); enc_bls_g1_add(&p, &p, &q); enc_bls_g1_serialize(out, &p); return 0;
}
int h_g2_add(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    enc_g2 p, q; PARSE2(p, a); PARSE2(q, b); enc_bls_g2_add(&p, &p, &q); enc_bls_g2_serialize(out, &p); return 0;
}
int h_g1_dbl(uint8_t *out, const uint8_t *a) {
    enc_g1 p; PARSE1(p, a); enc_bls_g1_dbl(&p, &p); enc_bls_g1_serialize(out, &p); return 0;
}
int h_g2_dbl(uint8_t *out, const uint8_t *a) {
    enc_g2 p; PARSE2(p, a); enc_bls_g2_dbl(&p, &p); enc_bls_g2_serialize(out, &p); return 0;
}
int h_g1_neg(uint8_t *out, const uint8_t *a) {
    enc_g1 p; PARSE1(p, a); enc_bls_g1_neg(&p, &p); enc_bls_g1_serialize(out, &p); return 0;
}
int h_g2_neg(uint8_t *out, const uint8_t *a) {
    enc_g2 p; PARSE2(p, a); enc_bls_g2_neg(&p, &p); enc_bls_g2_serialize(out, &p); return 0;
}
int h_g1_eq(const uint8_t *a, const uint8_t *b) {
    enc_g1 p, q; PARSE1(p, a); PARSE1(q, b); return enc_bls_g1_eq(&p, &q) ? 1 : 2;
}
int h_g2_eq(const uint8_t *a, const uint8_t *b) {
    enc_g2 p, q; PARSE2(p, a); PARSE2(q, b); return enc_bls_g2_eq(&p, &q) ? 1 : 2;
}

/* scalars: 32 bytes little-endian; the CT ladder needs k < r */
int h_g1_mul(uint8_t *out, const uint8_t *a, const uint8_t *k) {
    enc_g1 p; enc_fr s; PARSE1(p, a); PARSEK(s, k); enc_bls_g1_mul(&p, &p, &s); enc_bls_g1_serialize(out, &p); return 0;
}
int h_g2_mul(uint8_t *out, const uint8_t *a, const uint8_t *k) {
    enc_g2 p; enc_fr s; PARSE2(p, a); PARSEK(s, k); enc_bls_g2_mul(&p, &p, &s); enc_bls_g2_serialize(out, &p); return 0;
}
int h_g1_mul_vt(uint8_t *out, const uint8_t *a, const uint8_t *k) {
    enc_g1 p; enc_fr s; PARSE1(p, a); PARSEK(s, k); enc_bls_g1_mul_vartime(&p, &p, s.l, 4); enc_bls_g1_serialize(out, &p); return 0;
}
int h_g2_mul_vt(uint8_t *out, const uint8_t *a, const uint8_t *k) {
    enc_g2 p; enc_fr s; PARSE2(p, a); PARSEK(s, k); enc_bls_g2_mul_vartime(&p, &p, s.l, 4); enc_bls_g2_serialize(out, &p); return 0;
}

/* g2^k straight from the built-in generator (the IBE's c1) */
int h_g2_gen_mul(uint8_t *out, const uint8_t *k) {
    enc_g2 p; enc_fr s; PARSEK(s, k); enc_bls_g2_generator(&p); enc_bls_g2_mul(&p, &p, &s); enc_bls_g2_serialize(out, &p); return 0;
}

int h_pairing(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    enc_g1 p; enc_g2 q; enc_gt g; PARSE1(p, a); PARSE2(q, b);
    enc_bls_pairing(&g, &p, &q); enc_bls_gt_serialize(out, &g); return 0;
}
int h_pairing_pow(uint8_t *out, const uint8_t *a, const uint8_t *b, const uint8_t *k) {
    enc_g1 p; enc_g2 q; enc_gt g; enc_fr s; PARSE1(p, a); PARSE2(q, b); PARSEK(s, k);
    enc_bls_pairing_pow(&g, &p, &q, &s); enc_bls_gt_serialize(out, &g); return 0;
}
/* n pairs, packed 48-byte and 96-byte encodings */
int h_multi_pairing(uint8_t *out, const uint8_t *ps, const uint8_t *qs, size_t n) {
    enc_g1 p[8]; enc_g2 q[8]; enc_gt g;
    if (n > 8) return -100;
    for (size_t i = 0; i < n; i++) { PARSE1(p[i], ps + 48 * i); PARSE2(q[i], qs + 96 * i); }
    enc_bls_multi_pairing(&g, p, q, n); enc_bls_gt_serialize(out, &g); return 0;
}
/* Miller loop followed by a generic power by a caller-chosen exponent, to
 * pin down which power of the reduced pairing the fast final exponentiation
 * computes. */
int h_miller_then_pow(uint8_t *out, const uint8_t *a, const uint8_t *b, const uint64_t *e, size_t nlimbs) {
    enc_g1 p; enc_g2 q; enc_gt g; PARSE1(p, a); PARSE2(q, b);
    enc_bls_miller_loop(&g.f, &p, &q, 1);
    enc_fp12_pow_vartime(&g.f, &g.f, e, nlimbs);
    enc_bls_gt_serialize(out, &g); return 0;
}

int h_gt_pow(uint8_t *out, const uint8_t *a, const uint8_t *k) {
    enc_gt g; enc_fr s; PARSET(g, a); PARSEK(s, k); enc_bls_gt_pow(&g, &g, &s); enc_bls_gt_serialize(out, &g); return 0;
}
/* generic (non-cyclotomic) square-and-multiply: an independent reference */
int h_gt_pow_vt(uint8_t *out, const uint8_t *a, const uint8_t *k) {
    enc_gt g; enc_fr s; PARSET(g, a); PARSEK(s, k); enc_fp12_pow_vartime(&g.f, &g.f, s.l, 4); enc_bls_gt_serialize(out, &g); return 0;
}
int h_gt_mul(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    enc_gt x, y; PARSET(x, a); PARSET(y, b); enc_bls_gt_mul(&x, &x, &y); enc_bls_gt_serialize(out, &x); return 0;
}
int h_gt_inv(uint8_t *out, const uint8_t *a) {
    enc_gt x; PARSET(x, a); enc_bls_gt_inv(&x, &x); enc_bls_gt_serialize(out, &x); return 0;
}
int h_gt_is_one(const uint8_t *a) { enc_gt x; PARSET(x, a); return enc_bls_gt_is_one(&x) ? 1 : 2; }
int h_gt_eq(const uint8_t *a, const uint8_t *b) { enc_gt x, y; PARSET(x, a); PARSET(y, b); return enc_bls_gt_eq(&x, &y) ? 1 : 2; }
void h_gt_one(uint8_t *out) { enc_gt x; enc_bls_gt_one(&x); enc_bls_gt_serialize(out, &x); }

/* Fp12 arithmetic on raw (unvalidated) coefficient encodings, for checking the
 * cyclotomic squaring against the generic one.  Returns -1 on a coefficient >= p. */
static int raw12(enc_fp12 *f, const uint8_t *in) {
    enc_fp *c = &f->a.a.a;
    for (int i = 0; i < 12; i++) if (enc_fp_from_bytes(&c[i], in + 48 * i)) return -1;
    return 0;
}
static void out12(uint8_t *out, const enc_fp12 *f) {
    const enc_fp *c = &f->a.a.a;
    for (int i = 0; i < 12; i++) enc_fp_to_bytes(out + 48 * i, &c[i]);
}
int h_fp12_op(uint8_t *out, const uint8_t *a, const uint8_t *b, int op) {
    enc_fp12 x, y;
    if (raw12(&x, a) || raw12(&y, b)) return -1;
    switch (op) {
    case 0: enc_fp12_mul(&x, &x, &y); break;
    case 1: enc_fp12_sqr(&x, &x); break;
    case 2: enc_fp12_cyc_sqr(&x, &x); break;
    case 3: enc_fp12_inv(&x, &x); break;
    case 4: enc_fp12_frob(&x, &x); break;
    case 5: enc_fp12_frob2(&x, &x); break;
    case 6: enc_fp12_conj(&x, &x); break;
    case 7: enc_fp12_mul_line(&x, &x, &y.a.a, &y.a.b, &y.b.b); break;
    case 8: enc_fp12_mul_line_1(&x, &x, &y.a.b, &y.b.b); break; /* y's constant term taken as 1 */
    case 9: enc_fp12_cyc_pow_z(&x, &x); break;                           /* Karabina */
    case 10: enc_fp12_cyc_pow_vartime(&x, &x, &ENC_BLS_Z_ABS, 1); break; /* Granger-Scott */
    case 11: enc_fp12_cyc_sqr_n_karabina(&x, &x, 1); break;
    case 12: enc_fp12_cyc_sqr_n_karabina(&x, &x, 20); break;
    default: return -2;
    }
    out12(out, &x);
    return 0;
}

/* ---- timing loops for bench_pairing.py: parse once, run n times ---- */
int h_bench_pairing(const uint8_t *a, const uint8_t *b, int n) {
    enc_g1 p; enc_g2 q; enc_gt g; PARSE1(p, a); PARSE2(q, b);
    for (int i = 0; i < n; i++) enc_bls_pairing(&g, &p, &q);
    return (int)(g.f.a.a.a.l[0] & 1);
}
int h_bench_miller(const uint8_t *a, const uint8_t *b, int n) {
    enc_g1 p; enc_g2 q; enc_fp12 f; PARSE1(p, a); PARSE2(q, b);
    for (int i = 0; i < n; i++) enc_bls_miller_loop(&f, &p, &q, 1);
    return (int)(f.a.a.a.l[0] & 1);
}
int h_bench_final_exp(const uint8_t *a, const uint8_t *b, int n) {
    enc_g1 p; enc_g2 q; enc_fp12 f; PARSE1(p, a); PARSE2(q, b);
    enc_bls_miller_loop(&f, &p, &q, 1);
    for (int i = 0; i < n; i++) enc_bls_final_exp(&f, &f);
    return (int)(f.a.a.a.l[0] & 1);
}
int h_bench_g2_mul(const uint8_t *k, int n) {
    enc_g2 p; enc_fr s; PARSEK(s, k); enc_bls_g2_generator(&p);
    for (int i = 0; i < n; i++) enc_bls_g2_mul(&p, &p, &s);
    return (int)(p.x.a.l[0] & 1);
}
int h_bench_g1_mul(const uint8_t *k, int n) {
    enc_g1 p; enc_fr s; PARSEK(s, k); enc_bls_g1_generator(&p);
    for (int i = 0; i < n; i++) enc_bls_g1_mul(&p, &p, &s);
    return (int)(p.x.l[0] & 1);
}
int h_bench_gt_pow(const uint8_t *a, const uint8_t *k, int n) {
    enc_gt g; enc_fr s; PARSET(g, a); PARSEK(s, k);
    for (int i = 0; i < n; i++) enc_bls_gt_pow(&g, &g, &s);
    return (int)(g.f.a.a.a.l[0] & 1);
}
int h_bench_g1_hash(int n) {
    enc_g1 p; uint8_t msg[32] = {0};
    for (int i = 0; i < n; i++) { msg[0] = (uint8_t)i; msg[1] = (uint8_t)(i >> 8); enc_bls_g1_hash(&p, msg, 32); }
    return (int)(p.x.l[0] & 1);
}
int h_bench_g1_parse(const uint8_t *a, int n) {
    enc_g1 p; int rc = 0;
    for (int i = 0; i < n; i++) rc |= enc_bls_g1_deserialize(&p, a);
    return rc;
}
int h_bench_g2_parse(const uint8_t *a, int n) {
    enc_g2 p; int rc = 0;
    for (int i = 0; i < n; i++) rc |= enc_bls_g2_deserialize(&p, a);
    return rc;
}

/* Subgroup tests on raw affine coordinates that need not be in the subgroup:
 * returns fast | slow << 1, or -1 if (x, y) is not on the curve / x,y >= p. */
int h_g1_subgroup_tests(const uint8_t *x, const uint8_t *y) {
    enc_g1 p;
    if (enc_fp_from_bytes(&p.x, x) || enc_fp_from_bytes(&p.y, y)) return -1;
    p.z = ENC_FP_ONE;
    if (!enc_bls_g1_is_on_curve(&p)) return -1;
    return enc_bls_g1_in_subgroup(&p) | (enc_bls_g1_in_subgroup_slow(&p) << 1);
}
int h_g2_subgroup_tests(const uint8_t *x, const uint8_t *y) {
    enc_g2 p;
    if (enc_fp_from_bytes(&p.x.a, x) || enc_fp_from_bytes(&p.x.b, x + 48) ||
        enc_fp_from_bytes(&p.y.a, y) || enc_fp_from_bytes(&p.y.b, y + 48)) return -1;
    enc_fp2_one(&p.z);
    if (!enc_bls_g2_is_on_curve(&p)) return -1;
    return enc_bls_g2_in_subgroup(&p) | (enc_bls_g2_in_subgroup_slow(&p) << 1);
}
/* the same on a projective point scaled by a random z, and after cofactor-free
 * arithmetic: P (valid encoding) times k then checked */
int h_g2_subgroup_tests_point(const uint8_t *q, const uint8_t *zb) {
    enc_g2 p; enc_fp2 z;
    PARSE2(p, q);
    if (enc_fp_from_bytes(&z.a, zb) || enc_fp_from_bytes(&z.b, zb + 48)) return -1;
    enc_fp2_mul(&p.x, &p.x, &z); enc_fp2_mul(&p.y, &p.y, &z); enc_fp2_mul(&p.z, &p.z, &z);
    return enc_bls_g2_in_subgroup(&p) | (enc_bls_g2_in_subgroup_slow(&p) << 1);
}

int h_g1_parse_nonzero(const uint8_t *in) { enc_g1 p; return enc_bls_g1_deserialize_nonzero(&p, in); }
int h_g2_parse_nonzero(const uint8_t *in) { enc_g2 p; return enc_bls_g2_deserialize_nonzero(&p, in); }

/* mixed addition: a scaled by a random z (projective), b as parsed (affine) */
int h_g1_add_affine(uint8_t *out, const uint8_t *a, const uint8_t *b, const uint8_t *zb) {
    enc_g1 p, q; enc_fp z; PARSE1(p, a); PARSE1(q, b);
    if (enc_fp_from_bytes(&z, zb)) return -1;
    enc_fp_mul(&p.x, &p.x, &z); enc_fp_mul(&p.y, &p.y, &z); enc_fp_mul(&p.z, &p.z, &z);
    if (enc_bls_g1_is_identity(&q)) return -2;
    enc_bls_g1_add_affine(&p, &p, &q); enc_bls_g1_serialize(out, &p); return 0;
}
int h_g2_add_affine(uint8_t *out, const uint8_t *a, const uint8_t *b, const uint8_t *zb) {
    enc_g2 p, q; enc_fp2 z; PARSE2(p, a); PARSE2(q, b);
    if (enc_fp_from_bytes(&z.a, zb) || enc_fp_from_bytes(&z.b, zb + 48)) return -1;
    enc_fp2_mul(&p.x, &p.x, &z); enc_fp2_mul(&p.y, &p.y, &z); enc_fp2_mul(&p.z, &p.z, &z);
    if (enc_bls_g2_is_identity(&q)) return -2;
    enc_bls_g2_add_affine(&p, &p, &q); enc_bls_g2_serialize(out, &p); return 0;
}

/* ---- the two Montgomery products (fp.c, fp_mulx.c) ---- */
int h_select_fast_path(int fast) { return enc_fp_select_fast_path(fast); }

/* The field addition on raw words (a, b < p, not in Montgomery form: the
 * addition does not care), into a separate result (alias 0), over a
 * (alias 1) or over b (alias 2); and the correction alone (a < 2p). */
static void load_raw(enc_fp *x, const uint8_t *in) {
    for (int i = 0; i < 6; i++) {
        uint64_t w = 0;
        for (int j = 7; j >= 0; j--) w = (w << 8) | in[8 * i + j];
        x->l[i] = w;
    }
}
static void store_raw(uint8_t *out, const enc_fp *x) {
    for (int i = 0; i < 48; i++) out[i] = (uint8_t)(x->l[i / 8] >> (8 * (i % 8)));
}
int h_fp_add_raw(uint8_t *out, const uint8_t *a, const uint8_t *b, int alias) {
    enc_fp x, y, r;
    load_raw(&x, a);
    load_raw(&y, b);
    if (alias == 1) { enc_fp_add(&x, &x, &y); r = x; }
    else if (alias == 2) { enc_fp_add(&y, &x, &y); r = y; }
    else enc_fp_add(&r, &x, &y);
    store_raw(out, &r);
    return 0;
}
/* double width: a, b < p 2^384 (96 bytes each), r = a + b mod p 2^384 */
static void load_words(uint64_t *w, const uint8_t *in, int n) {
    for (int i = 0; i < n; i++) {
        uint64_t v = 0;
        for (int j = 7; j >= 0; j--) v = (v << 8) | in[8 * i + j];
        w[i] = v;
    }
}
int h_fpw_add_raw(uint8_t *out, const uint8_t *a, const uint8_t *b) {
    enc_fpw x, y, r;
    load_words(x.l, a, 12);
    load_words(y.l, b, 12);
    enc_fpw_add(&r, &x, &y);
    for (int i = 0; i < 96; i++) out[i] = (uint8_t)(r.l[i / 8] >> (8 * (i % 8)));
    return 0;
}
int h_fp_sub_p_if_ge_raw(uint8_t *out, const uint8_t *a) {
    enc_fp x, r;
    load_raw(&x, a);
    enc_fp_sub_p_if_ge(&r, &x);
    store_raw(out, &r);
    return 0;
}
int h_fast_path_available(void) { return enc_fp_fast_path_available(); }
/* out = a * b mod p through the chosen product (fast: the assembly), on
 * canonical 48-byte little-endian inputs below p; -1 if that path is absent */
int h_fp_mul_with(uint8_t *out, const uint8_t *a, const uint8_t *b, int fast) {
    enc_fp x, y, r;
    if (enc_fp_from_bytes(&x, a) || enc_fp_from_bytes(&y, b)) return -2;
    if (fast) {
#if ENC_HAVE_MULX_ASM
        if (!enc_fp_fast_path_available()) return -1;
        enc_fp_mul_mulx(&r, &x, &y);
#else
        return -1;
#endif
    } else {
        enc_fp_mul_portable(&r, &x, &y);
    }
    enc_fp_to_bytes(out, &r);
    return 0;
}

/* The double-width product and the separate Montgomery reduction (lazy
 * reduction) on raw little-endian integers: out (96 bytes) = a * b for any
 * a, b < 2^384; out (48 bytes) = t / 2^384 mod p for t < p 2^384.  fast
 * picks the assembly; -1 if that path is absent. */
int h_fp_mul_wide_with(uint8_t *out, const uint8_t *a, const uint8_t *b, int fast) {
    enc_fp x, y;
    enc_fpw r;
    memcpy(x.l, a, 48); memcpy(y.l, b, 48); /* little-endian host */
    if (fast) {
#if ENC_HAVE_MULX_ASM
        if (!enc_fp_fast_path_available()) return -1;
        enc_fp_mul_wide_mulx(&r, &x, &y);
#else
        return -1;
#endif
    } else {
        enc_fp_mul_wide_portable(&r, &x, &y);
    }
    memcpy(out, r.l, 96);
    return 0;
}
int h_fp_redc_with(uint8_t *out, const uint8_t *t, int fast) {
    enc_fpw w;
    enc_fp r;
    memcpy(w.l, t, 96);
    if (fast) {
#if ENC_HAVE_MULX_ASM
        if (!enc_fp_fast_path_available()) return -1;
        enc_fp_redc_mulx(&r, &w);
#else
        return -1;
#endif
    } else {
        enc_fp_redc_portable(&r, &w);
    }
    memcpy(out, r.l, 48);
    return 0;
}

/* ---- pairings from a prepared Q (enc_bls_g2_prepare) ---- */
int h_pairing_prepared(uint8_t *out, const uint8_t *a, const uint8_t *b, int scale) {
    static enc_g2_prepared pq; /* 20 KB: off the stack (tests are single-threaded) */
    enc_g1 p; enc_g2 q; enc_gt g; PARSE1(p, a); PARSE2(q, b);
    enc_bls_g2_prepare_lines(&pq, &q, scale);
    if ((int)pq.scaled != scale) return -9;
    enc_bls_pairing_prepared(&g, &p, &pq);
    enc_bls_gt_serialize(out, &g);
    return 0;
}
/* e(P, Q_i) for n <= 32 points Q_i (96 bytes each), all prepared, in one
 * enc_bls_pairing_prepared_many call */
int h_pairing_prepared_many(uint8_t *out, const uint8_t *a, const uint8_t *b, size_t n) {
    static enc_g2_prepared pq[32];
    const enc_g2_prepared *qs[32];
    enc_gt g[32];
    enc_g1 p; PARSE1(p, a);
    if (n > 32) return -9;
    for (size_t i = 0; i < n; i++) {
        enc_g2 q; PARSE2(q, b + 96 * i);
        enc_bls_g2_prepare(&pq[i], &q);
        qs[i] = &pq[i];
    }
    enc_bls_pairing_prepared_many(g, &p, qs, n);
    for (size_t i = 0; i < n; i++) enc_bls_gt_serialize(out + 576 * i, &g[i]);
    return 0;
}
/* n pairings of one P with 8 prepared points, 8 per enc_bls_pairing_prepared_many
 * call (the last call takes what is left) */
int h_bench_pairing_prepared_many(const uint8_t *a, const uint8_t *b, int n) {
    static enc_g2_prepared pq[8];
    const enc_g2_prepared *qs[8];
    enc_g1 p; enc_g2 q; enc_gt g[8]; PARSE1(p, a); PARSE2(q, b);
    for (int i = 0; i < 8; i++) {
        enc_bls_g2_prepare(&pq[i], &q);
        qs[i] = &pq[i];
        enc_bls_g2_dbl(&q, &q);
    }
    for (int i = 0; i < n; i += 8) enc_bls_pairing_prepared_many(g, &p, qs, n - i < 8 ? (size_t)(n - i) : 8);
    return (int)(g[0].f.a.a.a.l[0] & 1);
}
int h_bench_pairing_prepared(const uint8_t *a, const uint8_t *b, int n) {
    static enc_g2_prepared pq;
    enc_g1 p; enc_g2 q; enc_gt g; PARSE1(p, a); PARSE2(q, b);
    enc_bls_g2_prepare(&pq, &q);
    for (int i = 0; i < n; i++) enc_bls_pairing_prepared(&g, &p, &pq);
    return (int)(g.f.a.a.a.l[0] & 1);
}
int h_bench_g2_prepare(const uint8_t *b, int n) {
    static enc_g2_prepared pq;
    enc_g2 q; PARSE2(q, b);
    for (int i = 0; i < n; i++) enc_bls_g2_prepare(&pq, &q);
    return (int)(pq.lines[0][0].a.l[0] & 1);
}

/* ---- the inversion (fp_inv.c) on canonical 48-byte little-endian values below p ---- */
int h_fp_inv(uint8_t *out, const uint8_t *a) {
    enc_fp x;
    if (enc_fp_from_bytes(&x, a)) return -2;
    enc_fp_inv(&x, &x);
    enc_fp_to_bytes(out, &x);
    return 0;
}
/* n <= 8 values (48 bytes each) inverted together (enc_fp_inv_many) */
int h_fp_inv_many(uint8_t *out, const uint8_t *a, size_t n) {
    enc_fp x[8];
    if (n == 0 || n > 8) return -9;
    for (size_t i = 0; i < n; i++) if (enc_fp_from_bytes(&x[i], a + 48 * i)) return -2;
    enc_fp_inv_many(x, x, n);
    for (size_t i = 0; i < n; i++) enc_fp_to_bytes(out + 48 * i, &x[i]);
    return 0;
}
int h_bench_fp_inv(const uint8_t *a, int n) {
    enc_fp x;
    if (enc_fp_from_bytes(&x, a)) return -2;
    for (int i = 0; i < n; i++) enc_fp_inv(&x, &x);
    return (int)(x.l[0] & 1);
}
