/* G2: the M-type twist E'(Fp2): y^2 = x^3 + 4(1+i), via the generic group law. */
#include "internal.h"

/* 3b' = 12(1+i): (a + bi)(1+i) = (a-b) + (a+b)i, then times 12 by additions */
static void g2_mul_b3(enc_fp2 *r, const enc_fp2 *a) {
    enc_fp2 t, u;
    enc_fp2_mul_xi(&t, a);
    enc_fp2_dbl(&u, &t);      /* 2 */
    enc_fp2_add(&u, &u, &t);  /* 3 */
    enc_fp2_dbl(&u, &u);      /* 6 */
    enc_fp2_dbl(r, &u);       /* 12 */
}

#define EC_GROUP g2
#define EC_FIELD fp2
#define EC_CURVE(c) ENC_G2_##c
#include "ec_impl.h"

/* psi = untwist o Frobenius o twist on E'.  With psi_untwist(x, y) =
 * (x / w^2, y / w^3): psi(x, y) = (conj(x) w^(2-2p), conj(y) w^(3-3p)) and
 * w^(p-1) = xi^((p-1)/6), so the factors are 1/xi^((p-1)/3), 1/xi^((p-1)/2).
 * Projectively Z is conjugated too. */
static void g2_psi(enc_g2 *r, const enc_g2 *a) {
    enc_fp2_conj(&r->x, &a->x);
    enc_fp2_mul(&r->x, &r->x, &ENC_PSI_CX);
    enc_fp2_conj(&r->y, &a->y);
    enc_fp2_mul(&r->y, &r->y, &ENC_PSI_CY);
    enc_fp2_conj(&r->z, &a->z);
}

/* Scott's test (eprint 2021/1130 sec. 4, proof corrected in 2022/352): a
 * point of E'(Fp2) is in G2 iff psi(Q) = [z] Q; z < 0, so [z]Q = -[|z|]Q.
 * A 64-bit multiplication instead of 255. */
int enc_bls_g2_in_subgroup(const enc_g2 *a) {
    enc_g2 t, psi;
    enc_bls_g2_mul_vartime(&t, a, &ENC_BLS_Z_ABS, 1);
    enc_bls_g2_neg(&t, &t);
    g2_psi(&psi, a);
    return enc_bls_g2_eq(&psi, &t);
}
