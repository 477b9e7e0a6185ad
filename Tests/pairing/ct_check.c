/*
 * Constant-time check under valgrind (the "ctgrind" technique): secret inputs
 * are marked undefined with memcheck's client requests, so any branch or
 * memory address that depends on them is reported as a use of uninitialised
 * data.  Outputs are marked defined again before they are printed (the
 * result itself is allowed to depend on the secret).  Run by test_ct.py.
 */
#include <stdio.h>
#include <string.h>
#include <valgrind/memcheck.h>
#include "encore_pairing.h"
#include "internal.h"

#define SECRET(x) VALGRIND_MAKE_MEM_UNDEFINED(&(x), sizeof(x))
#define PUBLIC(x) VALGRIND_MAKE_MEM_DEFINED(&(x), sizeof(x))

int main(void) {
    static const uint8_t seed[] = "encore constant-time check";
    uint8_t x[32], buf[ENC_BLS_GT_BYTES];
    enc_fr k, k2, kk;
    enc_g1 g1, p, hp;
    enc_g2 g2, q;
    enc_gt e, t;
    unsigned acc = 0;

    enc_bls_fr_hash(&k, seed, sizeof(seed));
    enc_bls_fr_hash(&k2, (const uint8_t *)k.l, 8);
    enc_bls_g1_generator(&g1);
    enc_bls_g2_generator(&g2);
    enc_bls_g1_hash(&hp, seed, 5);               /* public identity */

    /* HashToFr of a secret x || id || m, and Fr arithmetic on secrets */
    memcpy(x, k.l, 32);
    SECRET(x);
    enc_bls_fr_hash(&kk, x, sizeof(x));
    SECRET(k);
    SECRET(k2);
    enc_bls_fr_mul(&kk, &kk, &k);
    enc_bls_fr_add(&kk, &kk, &k2);
    enc_bls_fr_sub(&kk, &kk, &k);
    enc_bls_fr_neg(&kk, &kk);

    /* c1 = g2^r with r secret */
    enc_bls_g2_mul(&q, &g2, &kk);
    enc_bls_g2_normalize(&q, &q);
    PUBLIC(q);
    enc_bls_g2_serialize(buf, &q);
    acc += buf[0];

    /* the IBE mask e(H1(id), mpk)^r, its GT serialisation, and GT^k */
    enc_bls_pairing_pow(&e, &hp, &q, &kk);
    enc_bls_gt_serialize(buf, &e);
    enc_bls_gt_pow(&t, &e, &k2);
    enc_bls_gt_mul(&t, &t, &e);
    acc += (unsigned)enc_bls_gt_eq(&t, &e) + (unsigned)enc_bls_gt_is_one(&t);
    PUBLIC(buf);
    acc += buf[7];

    /* secret points: scalar multiplication, group law, pairing, comparison */
    enc_bls_g1_mul(&p, &g1, &k);
    enc_bls_g1_add(&p, &p, &hp);
    enc_bls_g1_dbl(&p, &p);
    enc_bls_g1_normalize(&p, &p);
    acc += (unsigned)enc_bls_g1_eq(&p, &g1) + (unsigned)enc_bls_g1_is_on_curve(&p);
    enc_bls_g2_mul(&q, &q, &k2);
    enc_bls_g2_add(&q, &q, &g2);
    acc += (unsigned)enc_bls_g2_eq(&q, &g2) + (unsigned)enc_bls_g2_is_on_curve(&q);
    enc_bls_pairing(&e, &p, &q);
    enc_bls_gt_serialize(buf, &e);

    /* the field inversions (safegcd in fp_inv.c) on secret values, 0 included */
    {
        enc_fp a, z;
        enc_fp2 a2;
        memcpy(a.l, k2.l, 32);
        memcpy(a.l + 4, k.l, 16);
        a.l[5] &= (1ULL << 60) - 1;
        memset(&z, 0, sizeof(z));
        a2.a = a;
        a2.b = z;
        SECRET(a);
        SECRET(z);
        SECRET(a2);
        enc_fp_inv(&a, &a);
        enc_fp_inv(&z, &z);
        enc_fp2_inv(&a2, &a2);
        PUBLIC(a);
        PUBLIC(z);
        PUBLIC(a2);
        acc += (unsigned)(a.l[0] ^ z.l[0] ^ a2.b.l[0]);
    }

    /* a secret identity point in the pairing (k = 0) */
    memset(&k, 0, sizeof(k));
    SECRET(k);
    enc_bls_g1_mul(&p, &g1, &k);
    enc_bls_pairing(&e, &p, &g2);
    acc += (unsigned)enc_bls_gt_is_one(&e);

    PUBLIC(acc);
    PUBLIC(buf);
    printf("ct-check done %u %u\n", acc & 1, buf[0] & 1);
    return 0;
}
