/*
 * An experiment, not part of the build: would a 4-way AVX2 back end make
 * the BLS12-381 pairing faster (issue 27's prepared-pairing target)?  Four
 * Montgomery products at once with vpmuludq (radix 2^29, 14 limbs in 64-bit
 * lanes, R = 2^406, carries left lazy), checked against OpenSSL's BN, and
 * their throughput against the library's scalar path (mulx mul_wide +
 * redc) on independent operands, one core.
 *
 *   clang -std=gnu99 -O3 -mavx2 -I Sources/CEncorePairing/include -I . \
 *       scripts/avx2-product-bound.c $(ls Sources/CEncorePairing/[a-z]*.c) -lcrypto -o /tmp/avx2-bound
 *   taskset -c 1 /tmp/avx2-bound
 *
 * Here (Zen 3, 2026-11-27): 15.8 ns a product 4-way against 24.4 ns for
 * the mulx path, 1.55x; in some runs 22 ns (1.11x), the 4-way form
 * spilling to the stack (29 live vectors, 16 registers).
 */
#define _POSIX_C_SOURCE 200809L
#include "Sources/CEncorePairing/internal.h"
#include <immintrin.h>
#include <openssl/bn.h>
#include <stdio.h>
#include <time.h>
#define L 14
#define MASK ((1ULL << 29) - 1)
static double now(void){struct timespec t;clock_gettime(CLOCK_MONOTONIC,&t);return t.tv_sec+t.tv_nsec/1e9;}
typedef struct { __m256i l[L]; } fp4;
static __m256i P[L]; static __m256i PINV;

static inline __attribute__((always_inline)) void mont4(fp4 *r, const fp4 *a, const fp4 *b) {
    /* logical t[j] at iteration i is u[(i + j) % (L + 1)]: no copying */
    __m256i u[L + 1];
    const __m256i mask = _mm256_set1_epi64x((long long)MASK);
    _Pragma("clang loop unroll(full)")
    for (int j = 0; j <= L; j++) u[j] = _mm256_setzero_si256();
    _Pragma("clang loop unroll(full)")
    for (int i = 0; i < L; i++) {
        __m256i bi = b->l[i];
        _Pragma("clang loop unroll(full)")
        for (int j = 0; j < L; j++) u[(i + j) % (L + 1)] = _mm256_add_epi64(u[(i + j) % (L + 1)], _mm256_mul_epu32(a->l[j], bi));
        __m256i t0 = u[i % (L + 1)];
        __m256i m = _mm256_and_si256(_mm256_mul_epu32(t0, PINV), mask);
        _Pragma("clang loop unroll(full)")
        for (int j = 0; j < L; j++) u[(i + j) % (L + 1)] = _mm256_add_epi64(u[(i + j) % (L + 1)], _mm256_mul_epu32(P[j], m));
        u[(i + 1) % (L + 1)] = _mm256_add_epi64(u[(i + 1) % (L + 1)], _mm256_srli_epi64(u[i % (L + 1)], 29));
        u[i % (L + 1)] = _mm256_setzero_si256();
    }
    /* t[j] is u[(L + j) % (L + 1)] */
    _Pragma("clang loop unroll(full)")
    for (int j = 0; j < L - 1; j++) {
        __m256i tj = u[(L + j) % (L + 1)];
        u[(L + j + 1) % (L + 1)] = _mm256_add_epi64(u[(L + j + 1) % (L + 1)], _mm256_srli_epi64(tj, 29));
        r->l[j] = _mm256_and_si256(tj, mask);
    }
    r->l[L - 1] = u[(L + L - 1) % (L + 1)];
}

static void to_limbs(uint64_t out[L], const BIGNUM *x) {
    unsigned char le[64] = {0};
    BN_bn2lebinpad(x, le, sizeof le);
    for (int j = 0; j < L; j++) {
        int bit = 29 * j; uint64_t v = 0;
        for (int k = 0; k < 8 && bit / 8 + k < 64; k++) v |= (uint64_t)le[bit / 8 + k] << (8 * k);
        out[j] = (v >> (bit % 8)) & MASK;
    }
}
static BIGNUM *from_limbs(const uint64_t in[L]) {
    BIGNUM *x = BN_new(), *t = BN_new(); BN_zero(x);
    for (int j = L - 1; j >= 0; j--) { BN_lshift(x, x, 29); BN_set_word(t, in[j]); BN_add(x, x, t); }
    BN_free(t); return x;
}

int main(void) {
    BN_CTX *ctx = BN_CTX_new();
    BIGNUM *p = NULL; BN_hex2bn(&p, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab");
    uint64_t pl[L]; to_limbs(pl, p);
    for (int j = 0; j < L; j++) P[j] = _mm256_set1_epi64x((long long)pl[j]);
    /* -p^-1 mod 2^29 */
    uint64_t inv = 1; for (int k = 0; k < 6; k++) inv = inv * (2 - pl[0] * inv) & MASK;
    PINV = _mm256_set1_epi64x((long long)((0 - inv) & MASK));
    BIGNUM *R = BN_new(), *Rinv = BN_new(); BN_one(R); BN_lshift(R, R, 29 * L); BN_mod_inverse(Rinv, R, p, ctx);
    /* correctness on random values below p */
    enum { N = 256 };
    static fp4 a[N], b[N], r[N];
    int bad = 0;
    for (int n = 0; n < N; n++) {
        uint64_t al[4][L], bl[4][L];
        BIGNUM *x[4], *y[4];
        for (int k = 0; k < 4; k++) {
            x[k] = BN_new(); y[k] = BN_new(); BN_rand_range(x[k], p); BN_rand_range(y[k], p);
            to_limbs(al[k], x[k]); to_limbs(bl[k], y[k]);
        }
        for (int j = 0; j < L; j++) {
            a[n].l[j] = _mm256_set_epi64x((long long)al[3][j], (long long)al[2][j], (long long)al[1][j], (long long)al[0][j]);
            b[n].l[j] = _mm256_set_epi64x((long long)bl[3][j], (long long)bl[2][j], (long long)bl[1][j], (long long)bl[0][j]);
        }
        mont4(&r[n], &a[n], &b[n]);
        for (int k = 0; k < 4; k++) {
            uint64_t rl[L]; for (int j = 0; j < L; j++) rl[j] = (uint64_t)((long long *)&r[n].l[j])[k];
            BIGNUM *got = from_limbs(rl), *want = BN_new();
            BN_mod_mul(want, x[k], y[k], p, ctx); BN_mod_mul(want, want, Rinv, p, ctx);
            if (BN_cmp(got, p) >= 0 && BN_cmp(got, want) != 0) { BIGNUM *d = BN_new(); BN_sub(d, got, p); if (BN_cmp(d, want) != 0) bad++; BN_free(d); }
            else if (BN_cmp(got, want) != 0) bad++;
            BN_free(got); BN_free(want); BN_free(x[k]); BN_free(y[k]);
        }
    }
    printf("AVX2 4-way products wrong: %d of %d\n", bad, 4 * N);
    /* throughput: independent products */
    static enc_fp sa[4 * N], sb[4 * N], sr[4 * N];
    for (int i = 0; i < 4 * N; i++) for (int j = 0; j < 6; j++) { sa[i].l[j] = (uint64_t)rand() * 2654435761u; sb[i].l[j] = (uint64_t)rand() * 40503u; }
    for (int i = 0; i < 4 * N; i++) { sa[i].l[5] &= 0x0fffffffffffffffULL; sb[i].l[5] &= 0x0fffffffffffffffULL; }
    double b4 = 1e9, bs = 1e9;
    for (int round = 0; round < 15; round++) {
        double t0 = now();
        for (int k = 0; k < 50; k++) for (int n = 0; n < N; n++) mont4(&r[n], &a[n], &b[(n + k) & (N - 1)]);
        double t1 = now();
        for (int k = 0; k < 50; k++) for (int i = 0; i < 4 * N; i++) { enc_fpw w; enc_fp_mul_wide(&w, &sa[i], &sb[(i + k) & (4 * N - 1)]); enc_fp_redc(&sr[i], &w); }
        double t2 = now();
        if (t1 - t0 < b4) b4 = t1 - t0; if (t2 - t1 < bs) bs = t2 - t1;
    }
    printf("per Fp product: AVX2 4-way %.2f ns, scalar mulx (mul_wide + redc) %.2f ns, ratio %.2f (%d %d)\n",
           b4 / (50.0 * 4 * N) * 1e9, bs / (50.0 * 4 * N) * 1e9, bs / b4, (int)(((long long *)&r[3].l[0])[0] & 1), (int)(sr[7].l[0] & 1));
    return 0;
}
