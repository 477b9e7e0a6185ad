/*
 * mcl's native compressed encodings (not the ZCash/ETH ones):
 *   G1: x as 48 bytes little-endian, bit 0x80 of byte 47 set when y is odd
 *   G2: x.a || x.b (96 bytes), bit 0x80 of byte 95 set when y.a is odd
 *   identity: all zeros
 *   GT: the 12 Fp coefficients, 48 bytes little-endian each, in tower order.
 * Parsers validate fully and never read past the fixed-size input.
 */
#include "internal.h"

static int all_zero(const uint8_t *b, size_t n) {
    uint8_t acc = 0;
    for (size_t i = 0; i < n; i++) acc |= b[i];
    return acc == 0;
}

void enc_bls_g1_serialize(uint8_t out[ENC_BLS_G1_BYTES], const enc_g1 *a) {
    enc_g1 n;
    if (enc_bls_g1_is_identity(a)) {
        memset(out, 0, ENC_BLS_G1_BYTES);
        return;
    }
    enc_bls_g1_normalize(&n, a);
    enc_fp_to_bytes(out, &n.x);
    out[47] |= (uint8_t)(enc_fp_is_odd(&n.y) << 7);
}

int enc_bls_g1_deserialize(enc_g1 *out, const uint8_t in[ENC_BLS_G1_BYTES]) {
    uint8_t buf[48];
    enc_g1 p;
    enc_fp g;
    if (all_zero(in, 48)) {
        enc_bls_g1_identity(out);
        return ENC_BLS_OK;
    }
    memcpy(buf, in, 48);
    int odd = buf[47] >> 7;
    buf[47] &= 0x7f;
    if (enc_fp_from_bytes(&p.x, buf) != 0) return ENC_BLS_ERR_ENCODING;
    enc_fp_sqr(&g, &p.x);
    enc_fp_mul(&g, &g, &p.x);
    enc_fp_add(&g, &g, &ENC_G1_B);
    if (!enc_fp_sqrt(&p.y, &g)) return ENC_BLS_ERR_NOT_ON_CURVE;
    if (enc_fp_is_odd(&p.y) != odd) enc_fp_neg(&p.y, &p.y);
    p.z = ENC_FP_ONE;
    if (!enc_bls_g1_in_subgroup(&p)) return ENC_BLS_ERR_NOT_IN_SUBGROUP;
    *out = p;
    return ENC_BLS_OK;
}

int enc_bls_g1_deserialize_nonzero(enc_g1 *out, const uint8_t in[ENC_BLS_G1_BYTES]) {
    enc_g1 p;
    int rc = enc_bls_g1_deserialize(&p, in);
    if (rc == ENC_BLS_OK && enc_bls_g1_is_identity(&p)) rc = ENC_BLS_ERR_IDENTITY;
    if (rc == ENC_BLS_OK) *out = p;
    return rc;
}

void enc_bls_g2_serialize(uint8_t out[ENC_BLS_G2_BYTES], const enc_g2 *a) {
    enc_g2 n;
    if (enc_bls_g2_is_identity(a)) {
        memset(out, 0, ENC_BLS_G2_BYTES);
        return;
    }
    enc_bls_g2_normalize(&n, a);
    enc_fp_to_bytes(out, &n.x.a);
    enc_fp_to_bytes(out + 48, &n.x.b);
    out[95] |= (uint8_t)(enc_fp_is_odd(&n.y.a) << 7);
}

int enc_bls_g2_deserialize(enc_g2 *out, const uint8_t in[ENC_BLS_G2_BYTES]) {
    uint8_t buf[96];
    enc_g2 p;
    enc_fp2 g;
    if (all_zero(in, 96)) {
        enc_bls_g2_identity(out);
        return ENC_BLS_OK;
    }
    memcpy(buf, in, 96);
    int odd = buf[95] >> 7;
    buf[95] &= 0x7f;
    if (enc_fp_from_bytes(&p.x.a, buf) != 0 || enc_fp_from_bytes(&p.x.b, buf + 48) != 0)
        return ENC_BLS_ERR_ENCODING;
    enc_fp2_sqr(&g, &p.x);
    enc_fp2_mul(&g, &g, &p.x);
    enc_fp2_add(&g, &g, &ENC_G2_B);
    if (!enc_fp2_sqrt(&p.y, &g)) return ENC_BLS_ERR_NOT_ON_CURVE;
    if (enc_fp_is_odd(&p.y.a) != odd) enc_fp2_neg(&p.y, &p.y);
    enc_fp2_one(&p.z);
    if (!enc_bls_g2_in_subgroup(&p)) return ENC_BLS_ERR_NOT_IN_SUBGROUP;
    *out = p;
    return ENC_BLS_OK;
}

int enc_bls_g2_deserialize_nonzero(enc_g2 *out, const uint8_t in[ENC_BLS_G2_BYTES]) {
    enc_g2 p;
    int rc = enc_bls_g2_deserialize(&p, in);
    if (rc == ENC_BLS_OK && enc_bls_g2_is_identity(&p)) rc = ENC_BLS_ERR_IDENTITY;
    if (rc == ENC_BLS_OK) *out = p;
    return rc;
}

void enc_bls_gt_serialize(uint8_t out[ENC_BLS_GT_BYTES], const enc_gt *a) {
    const enc_fp *c = &a->f.a.a.a; /* the struct is 12 consecutive enc_fp in mcl's order */
    for (int i = 0; i < 12; i++) enc_fp_to_bytes(out + 48 * i, &c[i]);
}

/* GT membership: f != 0, f^(p^4 - p^2 + 1) = 1 (cyclotomic), then f^r = 1 */
static int gt_is_member(const enc_fp12 *f) {
    enc_fp12 a, b, one;
    enc_fp12_one(&one);
    enc_fp12_frob2(&a, f);
    enc_fp12_frob2(&b, &a);
    enc_fp12_mul(&b, &b, f);
    if (!(enc_fp12_eq_mask(&a, &b) & 1)) return 0;
    if (enc_fp12_eq_mask(f, &one) & 1) return 1;
    enc_fp12_cyc_pow_vartime(&a, f, ENC_FR_R, 4);
    return (int)(enc_fp12_eq_mask(&a, &one) & 1);
}

int enc_bls_gt_deserialize(enc_gt *out, const uint8_t in[ENC_BLS_GT_BYTES]) {
    enc_gt g;
    enc_fp *c = &g.f.a.a.a;
    for (int i = 0; i < 12; i++)
        if (enc_fp_from_bytes(&c[i], in + 48 * i) != 0) return ENC_BLS_ERR_ENCODING;
    if (all_zero(in, ENC_BLS_GT_BYTES) || !gt_is_member(&g.f)) return ENC_BLS_ERR_NOT_IN_SUBGROUP;
    *out = g;
    return ENC_BLS_OK;
}
