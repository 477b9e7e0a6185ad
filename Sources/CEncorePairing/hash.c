/*
 * mcl's hashAndMapToG1 in its default ("original") map-to mode, which is
 * what the CrowdNotifier servers use for H1(id).  This is not RFC 9380.
 *   t = SHA-512(msg)[0..48) little-endian, masked to 381 then 380 bits
 *   calcBN(t): Fouque-Tibouchi's Shallue-van de Woestijne variant
 *     w  = c1 t / (1 + b + t^2),      c1 = (-3)^((p+1)/4), c2 = (c1 - 1)/2
 *     x1 = c2 - t w,  x2 = -1 - x1,  x3 = 1 + 1/w^2
 *     the first x_i with x_i^3 + 4 a square gives y = (x_i^3 + 4)^((p+1)/4),
 *     negated when t is a non-residue
 *   then multiplication by the cofactor (z - 1)^2 / 3.
 * Variable time: identities and their hashes are public.
 */
#include <openssl/sha.h>
#include "internal.h"

/* returns 0 in mcl's failure cases (t = 0 or 1 + b + t^2 = 0), which no
 * SHA-512 output is known to reach; the result is then the identity */
static int calc_bn(enc_g1 *out, const enc_fp *t) {
    enc_fp w, x, y, g, one = ENC_FP_ONE, five;
    int negative = enc_fp_legendre(t) < 0;
    if (enc_fp_is_zero_mask(t)) return 0;
    enc_fp_from_u64(&five, 5);
    enc_fp_sqr(&w, t);
    enc_fp_add(&w, &w, &five);
    if (enc_fp_is_zero_mask(&w)) return 0;
    enc_fp_inv(&w, &w);
    enc_fp_mul(&w, &w, &ENC_SVDW_C1);
    enc_fp_mul(&w, &w, t);
    for (int i = 0; i < 3; i++) {
        if (i == 0) {
            enc_fp_mul(&x, t, &w);
            enc_fp_sub(&x, &ENC_SVDW_C2, &x);
        } else if (i == 1) {
            enc_fp_neg(&x, &x);
            enc_fp_sub(&x, &x, &one);
        } else {
            enc_fp_sqr(&x, &w);
            enc_fp_inv(&x, &x);
            enc_fp_add(&x, &x, &one);
        }
        enc_fp_sqr(&g, &x);
        enc_fp_mul(&g, &g, &x);
        enc_fp_add(&g, &g, &ENC_G1_B);
        if (enc_fp_sqrt(&y, &g)) {
            if (negative) enc_fp_neg(&y, &y);
            out->x = x;
            out->y = y;
            out->z = one;
            return 1;
        }
    }
    return 0; /* unreachable: one of the three is always a square */
}

void enc_bls_g1_hash(enc_g1 *out, const uint8_t *msg, size_t len) {
    uint8_t md[SHA512_DIGEST_LENGTH];
    enc_fp t;
    enc_g1 p;
    SHA512(msg, len, md);
    enc_fp_set_array_mask(&t, md);
    if (!calc_bn(&p, &t)) {
        enc_bls_g1_identity(out);
        return;
    }
    enc_bls_g1_mul_vartime(out, &p, ENC_G1_COFACTOR, 2);
}
