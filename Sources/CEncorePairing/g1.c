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

#define EC_GROUP g1
#define EC_FIELD fp
#define EC_CURVE(c) ENC_G1_##c
#include "ec_impl.h"

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
