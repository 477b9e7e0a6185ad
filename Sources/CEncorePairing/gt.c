/* The public pairing entry points and GT (order-r subgroup of Fp12*) ops. */
#include "internal.h"

void enc_bls_pairing(enc_gt *out, const enc_g1 *p, const enc_g2 *q) {
    enc_bls_multi_pairing(out, p, q, 1);
}

void enc_bls_multi_pairing(enc_gt *out, const enc_g1 *p, const enc_g2 *q, size_t n) {
    enc_fp12 f;
    enc_bls_miller_loop(&f, p, q, n);
    enc_bls_final_exp(&out->f, &f);
}

void enc_bls_pairing_prepared(enc_gt *out, const enc_g1 *p, const enc_g2_prepared *q) {
    enc_fp12 f;
    enc_bls_miller_loop_prepared(&f, p, q);
    enc_bls_final_exp(&out->f, &f);
}

void enc_bls_pairing_prepared_many(enc_gt *out, const enc_g1 *p, const enc_g2_prepared *const *q, size_t n) {
    enc_fp12 f[ENC_FP12_BATCH];
    /* groups of about even size (9 as 5 + 4, not 8 + 1: a group of one
     * shares nothing); each at most ENC_FP12_BATCH */
    size_t groups = (n + ENC_FP12_BATCH - 1) / ENC_FP12_BATCH;
    for (size_t i = 0, g = 0; i < n; g++) {
        size_t m = (n - i) / (groups - g) + ((n - i) % (groups - g) != 0);
        for (size_t j = 0; j < m; j++) enc_bls_miller_loop_prepared(&f[j], p, q[i + j]);
        enc_bls_final_exp_many(f, f, m);
        for (size_t j = 0; j < m; j++) out[i + j].f = f[j];
        i += m;
    }
}

/* e(P, Q)^k = e(kP, Q): a G1 ladder is far cheaper than a GT power */
void enc_bls_pairing_pow(enc_gt *out, const enc_g1 *p, const enc_g2 *q, const enc_fr *k) {
    enc_g1 kp;
    enc_bls_g1_mul(&kp, p, k);
    enc_bls_pairing(out, &kp, q);
}

void enc_bls_gt_one(enc_gt *out) { enc_fp12_one(&out->f); }

void enc_bls_gt_mul(enc_gt *out, const enc_gt *a, const enc_gt *b) {
    enc_fp12_mul(&out->f, &a->f, &b->f);
}

/* unitary elements: the inverse is the conjugate */
void enc_bls_gt_inv(enc_gt *out, const enc_gt *a) { enc_fp12_conj(&out->f, &a->f); }

/* fixed 4-bit windows, cyclotomic squarings, constant-time table scan */
void enc_bls_gt_pow(enc_gt *out, const enc_gt *a, const enc_fr *k) {
    enc_fp12 table[16], acc, t;
    enc_fp12_one(&table[0]);
    table[1] = a->f;
    for (int i = 2; i < 16; i++) {
        if (i & 1) enc_fp12_mul(&table[i], &table[i - 1], &a->f);
        else enc_fp12_cyc_sqr(&table[i], &table[i / 2]);
    }
    enc_fp12_one(&acc);
    for (int w = 63; w >= 0; w--) {
        for (int j = 0; j < 4; j++) enc_fp12_cyc_sqr(&acc, &acc);
        uint64_t digit = (k->l[w / 16] >> (4 * (w % 16))) & 15;
        enc_fp12_one(&t);
        for (uint64_t i = 0; i < 16; i++) ENC_CMOV(&t, &table[i], enc_mask_zero(i ^ digit));
        enc_fp12_mul(&acc, &acc, &t);
    }
    out->f = acc;
}

int enc_bls_gt_eq(const enc_gt *a, const enc_gt *b) {
    return (int)(enc_fp12_eq_mask(&a->f, &b->f) & 1);
}

int enc_bls_gt_is_one(const enc_gt *a) {
    enc_fp12 one;
    enc_fp12_one(&one);
    return (int)(enc_fp12_eq_mask(&a->f, &one) & 1);
}
