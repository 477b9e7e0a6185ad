/* G1: E(Fp): y^2 = x^3 + 4, instantiating the generic group law. */
#include "internal.h"

/* 3b = 12: four additions are cheaper than a multiplication */
static void g1_mul_b3(enc_fp *r, const enc_fp *a) {
    enc_fp t;
    enc_fp_add(&t, a, a);     /* 2a */
    enc_fp_add(&t, &t, a);    /* 3a */
    enc_fp_add(&t, &t, &t);   /* 6a */
    enc_fp_add(r, &t, &t);    /* 12a */
}
static void g1_one(enc_fp *r) { *r = ENC_FP_ONE; }

#define EC_POINT enc_g1
#define EC_FE enc_fp
#define EC_FN(name) enc_bls_g1_##name
#define EC_ADD enc_fp_add
#define EC_SUB enc_fp_sub
#define EC_MUL enc_fp_mul
#define EC_SQR enc_fp_sqr
#define EC_NEG enc_fp_neg
#define EC_INV enc_fp_inv
#define EC_MUL_B3 g1_mul_b3
#define EC_B (&ENC_G1_B)
#define EC_EQ_MASK enc_fp_eq_mask
#define EC_ZERO_MASK enc_fp_is_zero_mask
#define EC_ONE g1_one
#include "ec_impl.h"

void enc_bls_g1_generator(enc_g1 *out) {
    out->x = ENC_G1_GEN_X;
    out->y = ENC_G1_GEN_Y;
    out->z = ENC_FP_ONE;
}

/* Scott's test (eprint 2021/1130 sec. 6, proof corrected in 2022/352): a
 * point of E(Fp) is in G1 iff phi(P) = [-z^2] P, with phi(x, y) = (beta x, y)
 * for the cube root of unity beta whose eigenvalue on G1 is -z^2
 * (gen_constants.py picks it).  A 128-bit multiplication instead of 255. */
int enc_bls_g1_in_subgroup(const enc_g1 *a) {
    enc_u128 z2 = (enc_u128)ENC_BLS_Z_ABS * ENC_BLS_Z_ABS;
    uint64_t k[2] = {(uint64_t)z2, (uint64_t)(z2 >> 64)};
    enc_g1 t, phi;
    enc_bls_g1_mul_vartime(&t, a, k, 2);
    enc_bls_g1_neg(&t, &t);
    enc_fp_mul(&phi.x, &a->x, &ENC_G1_BETA);
    phi.y = a->y;
    phi.z = a->z;
    return enc_bls_g1_eq(&phi, &t);
}
