/*
 * Internal declarations of the BLS12-381 library.  The hot base-field
 * routines are static inline here so the tower code can be optimised across
 * them; everything is branch-free on data (selections use masks).
 */
#ifndef ENCORE_PAIRING_INTERNAL_H
#define ENCORE_PAIRING_INTERNAL_H

#include <stdint.h>
#include <string.h>
#include "encore_pairing.h"

__extension__ typedef unsigned __int128 enc_u128;

/* Full unrolling of the fixed-length limb loops (gcc -O2 otherwise keeps
 * them as loops, which costs it noticeably in the base-field arithmetic). */
#define ENC_UNROLL _Pragma("GCC unroll 12")

/* ------------------------------------------------------------ constants -- */
extern const enc_fp ENC_FP_P, ENC_FP_ONE, ENC_FP_R2;
extern const uint64_t ENC_FP_EXP_SQRT[6], ENC_FP_EXP_LEGENDRE[6], ENC_FP_EXP_SQRT2[6];
extern const uint64_t ENC_FR_R[4], ENC_FR_R2[4], ENC_FR_RINV;
extern const uint64_t ENC_G1_COFACTOR[2];
extern const uint64_t ENC_BLS_Z_ABS;
extern const enc_fp ENC_G1_B, ENC_G1_GEN_X, ENC_G1_GEN_Y;
extern const enc_fp2 ENC_G2_B, ENC_G2_GEN_X, ENC_G2_GEN_Y;
extern const enc_fp ENC_SVDW_C1, ENC_SVDW_C2;
extern const enc_fp2 ENC_FROB1[6];
extern const enc_fp ENC_G1_BETA;
extern const enc_fp2 ENC_PSI_CX, ENC_PSI_CY;
extern const enc_fp ENC_FROB2[6];

/* p and -p^-1 mod 2^64 as compile-time constants, so the hot loops use
 * immediates instead of loads (test_build.py checks them against
 * constants.c, which gen_constants.py derives). */
static const uint64_t enc_p_[6] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                   0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL};
#define ENC_PINV_ 0x89f3fffcfffcfffdULL

/* ------------------------------------------------------- masks, helpers -- */

/* all-ones if x == 0, else 0, without branches */
static inline uint64_t enc_mask_zero(uint64_t x) {
    return ((x | (0 - x)) >> 63) - 1;
}

/* ------------------------------------------------------------------ Fp -- */

/* Add/subtract with carry on 64-bit words.  On x86-64 the compilers'
 * carry intrinsics become adc/sbb chains; the portable expressions below
 * turn into setb/or sequences under clang, three times the instructions,
 * and the field additions are a third of a pairing's time. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
static inline uint64_t enc_addc(uint64_t a, uint64_t b, uint64_t cin, uint64_t *cout) {
    unsigned long long s;
    *cout = _addcarry_u64((unsigned char)cin, a, b, &s);
    return s;
}

static inline uint64_t enc_subb(uint64_t a, uint64_t b, uint64_t bin, uint64_t *bout) {
    unsigned long long d;
    *bout = _subborrow_u64((unsigned char)bin, a, b, &d);
    return d;
}
#else
static inline uint64_t enc_addc(uint64_t a, uint64_t b, uint64_t cin, uint64_t *cout) {
    uint64_t s = a + cin;
    uint64_t c = s < cin;
    s += b;
    *cout = c | (s < b);
    return s;
}

static inline uint64_t enc_subb(uint64_t a, uint64_t b, uint64_t bin, uint64_t *bout) {
    uint64_t d = a - b;
    uint64_t br = a < b;
    *bout = br | (d < bin);
    return d - bin;
}
#endif

/* The two modular corrections every field addition ends in, in x86-64
 * assembly: the compilers turn the masked selects of the C below into three
 * instructions per word and load p's words as immediates, so that an Fp
 * addition took about 60 instructions; with cmov it takes 36.  Branch-free
 * like the C, which other CPUs use and the tests build with
 * -DENC_NO_ADD_ASM to check against the same vectors. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__)) && !defined(ENC_NO_ADD_ASM)
#define ENC_HAVE_ADD_ASM 1
/* Six words t0..t5 against the six at byte `off` of the pointer operand
 * `base`: `first` on the lowest, `rest` on the others (a carry chain such
 * as addq, adcq...), or stored there. */
#define ENC_ASM6(first, rest, base, off)                                                                       \
    first " " #off "+0(%[" base "]), %[t0]\n\t" rest " " #off "+8(%[" base "]), %[t1]\n\t"               \
    rest " " #off "+16(%[" base "]), %[t2]\n\t" rest " " #off "+24(%[" base "]), %[t3]\n\t"              \
    rest " " #off "+32(%[" base "]), %[t4]\n\t" rest " " #off "+40(%[" base "]), %[t5]\n\t"
#define ENC_ASM6_STORE(base, off)                                                                              \
    "movq %[t0], " #off "+0(%[" base "])\n\tmovq %[t1], " #off "+8(%[" base "])\n\t"                     \
    "movq %[t2], " #off "+16(%[" base "])\n\tmovq %[t3], " #off "+24(%[" base "])\n\t"                   \
    "movq %[t4], " #off "+32(%[" base "])\n\tmovq %[t5], " #off "+40(%[" base "])\n\t"
#define ENC_ASM6_OUTPUTS                                                                                       \
    [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5)
#else
#define ENC_HAVE_ADD_ASM 0
#endif

/* r = a mod p for a < 2p: subtract p unless that borrows (branch-free) */
static inline void enc_fp_sub_p_if_ge(enc_fp *r, const enc_fp *a) {
#if ENC_HAVE_ADD_ASM
    uint64_t t0, t1, t2, t3, t4, t5;
    __asm__ volatile(ENC_ASM6("movq", "movq", "a", 0) ENC_ASM6("subq", "sbbq", "p", 0) ENC_ASM6("cmovcq", "cmovcq", "a", 0)
                     ENC_ASM6_STORE("r", 0)
                     : ENC_ASM6_OUTPUTS, "=m"(*(uint64_t(*)[6])r->l)
                     : [a] "r"(a->l), [r] "r"(r->l), [p] "r"(enc_p_), "m"(*(const uint64_t(*)[6])a->l),
                       "m"(*(const uint64_t(*)[6])enc_p_)
                     : "cc");
#else
    uint64_t t[6], br = 0;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) t[i] = enc_subb(a->l[i], enc_p_[i], br, &br);
    uint64_t keep = 0 - br;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) r->l[i] = (a->l[i] & keep) | (t[i] & ~keep);
#endif
}

/* r = a + b without reduction (below 2p < 2^382 for a, b < p): the sums
 * fed to Karatsuba's double-width products */
static inline void enc_fp_add_nr(enc_fp *r, const enc_fp *a, const enc_fp *b) {
    uint64_t c = 0;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) r->l[i] = enc_addc(a->l[i], b->l[i], c, &c);
}

/* r = a + b mod p (a, b < p; p < 2^381, so the sum never carries out) */
static inline void enc_fp_add(enc_fp *r, const enc_fp *a, const enc_fp *b) {
#if ENC_HAVE_ADD_ASM
    /* the sum is stored, p subtracted in registers, and the stored sum
     * moved back where that borrowed (r may alias a or b: both are read
     * before r is written) */
    uint64_t t0, t1, t2, t3, t4, t5;
    __asm__ volatile(ENC_ASM6("movq", "movq", "a", 0) ENC_ASM6("addq", "adcq", "b", 0) ENC_ASM6_STORE("r", 0)
                     ENC_ASM6("subq", "sbbq", "p", 0) ENC_ASM6("cmovcq", "cmovcq", "r", 0) ENC_ASM6_STORE("r", 0)
                     : ENC_ASM6_OUTPUTS, "=m"(*(uint64_t(*)[6])r->l)
                     : [a] "r"(a->l), [b] "r"(b->l), [r] "r"(r->l), [p] "r"(enc_p_), "m"(*(const uint64_t(*)[6])a->l),
                       "m"(*(const uint64_t(*)[6])b->l), "m"(*(const uint64_t(*)[6])enc_p_)
                     : "cc");
#else
    enc_fp s;
    enc_fp_add_nr(&s, a, b);
    enc_fp_sub_p_if_ge(r, &s);
#endif
}

/* r = a - b mod p */
static inline void enc_fp_sub(enc_fp *r, const enc_fp *a, const enc_fp *b) {
    uint64_t s[6], br = 0, c = 0;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) s[i] = enc_subb(a->l[i], b->l[i], br, &br);
    uint64_t m = 0 - br; /* add p back when we went negative */
    ENC_UNROLL
    for (int i = 0; i < 6; i++) r->l[i] = enc_addc(s[i], enc_p_[i] & m, c, &c);
}

static inline void enc_fp_dbl(enc_fp *r, const enc_fp *a) { enc_fp_add(r, a, a); }

/* r = -a mod p (0 stays 0) */
static inline void enc_fp_neg(enc_fp *r, const enc_fp *a) {
    uint64_t z = a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5];
    uint64_t nz = ~enc_mask_zero(z), br = 0;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) {
        enc_u128 x = (enc_u128)enc_p_[i] - a->l[i] - br;
        r->l[i] = (uint64_t)x & nz;
        br = (uint64_t)(x >> 64) & 1;
    }
}

static inline uint64_t enc_fp_is_zero_mask(const enc_fp *a) {
    return enc_mask_zero(a->l[0] | a->l[1] | a->l[2] | a->l[3] | a->l[4] | a->l[5]);
}

static inline void enc_fp_one(enc_fp *r) { *r = ENC_FP_ONE; }

/* all-ones if a == b */
static inline uint64_t enc_fp_eq_mask(const enc_fp *a, const enc_fp *b) {
    uint64_t d = 0;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) d |= a->l[i] ^ b->l[i];
    return enc_mask_zero(d);
}

/* Returns x through a volatile, so the optimiser can no longer prove that x
 * is 0 or all-ones and rewrite masked selections as branches (clang does
 * exactly that to the table scans otherwise; Tests/pairing/test_ct.py
 * catches it under valgrind). */
static inline uint64_t enc_value_barrier(uint64_t x) {
    volatile uint64_t v = x;
    return v;
}

/* r = mask ? b : a, wordwise over any struct made of uint64_t */
static inline void enc_cmov_words(uint64_t *r, const uint64_t *b, size_t nwords, uint64_t mask) {
    mask = enc_value_barrier(mask);
    ENC_UNROLL
    for (size_t i = 0; i < nwords; i++) r[i] ^= (r[i] ^ b[i]) & mask;
}
#define ENC_CMOV(dst, src, mask) \
    enc_cmov_words((uint64_t *)(void *)(dst), (const uint64_t *)(const void *)(src), sizeof(*(dst)) / 8, (mask))

/* fp.c, fp_mulx.c: the Montgomery product has two implementations, the
 * portable C and x86-64 BMI2/ADX assembly, picked at load time (cpuid; the
 * environment variable ENCORE_PAIRING_PORTABLE=1 forces the C).  Both are CT
 * and give identical results. */
#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ENC_HAVE_MULX_ASM 1
extern int enc_fp_use_mulx;
void enc_fp_mul_mulx(enc_fp *r, const enc_fp *a, const enc_fp *b);
#else
#define ENC_HAVE_MULX_ASM 0
#endif
void enc_fp_mul_portable(enc_fp *r, const enc_fp *a, const enc_fp *b);

/* The Montgomery product a b / 2^384 mod p, CT.  Only the choice is inline
 * (a well-predicted branch on a flag fixed at load time), so the callers
 * save a call level without gcc inlining the unrolled products everywhere. */
static inline void enc_fp_mul(enc_fp *r, const enc_fp *a, const enc_fp *b) {
#if ENC_HAVE_MULX_ASM
    if (enc_fp_use_mulx) {
        enc_fp_mul_mulx(r, a, b);
        return;
    }
#endif
    enc_fp_mul_portable(r, a, b);
}
/* Lazy reduction: double-width values (768 bits) kept in [0, p 2^384),
 * which the Montgomery reduction takes in one pass.  A product of two
 * values below 2p is below 4p^2 < p 2^384 (p < 2^381), so Karatsuba's
 * unreduced sums may enter it; sums and differences of products are taken
 * modulo p 2^384 (enc_fpw_add, enc_fpw_sub) to stay in range.  Products of
 * several terms are thus summed at double width and reduced once per output
 * coefficient instead of once per product; the reduction is half of a
 * Montgomery product's work. */
typedef struct { uint64_t l[12]; } enc_fpw;
#if ENC_HAVE_MULX_ASM
void enc_fp_mul_wide_mulx(enc_fpw *r, const enc_fp *a, const enc_fp *b);
void enc_fp_redc_mulx(enc_fp *r, const enc_fpw *t);
#endif
void enc_fp_mul_wide_portable(enc_fpw *r, const enc_fp *a, const enc_fp *b);
void enc_fp_redc_portable(enc_fp *r, const enc_fpw *t);

/* r = a b as a 768-bit integer (any a, b < 2^384) */
static inline void enc_fp_mul_wide(enc_fpw *r, const enc_fp *a, const enc_fp *b) {
#if ENC_HAVE_MULX_ASM
    if (enc_fp_use_mulx) {
        enc_fp_mul_wide_mulx(r, a, b);
        return;
    }
#endif
    enc_fp_mul_wide_portable(r, a, b);
}

/* r = t / 2^384 mod p, r < p, for t < p 2^384 */
static inline void enc_fp_redc(enc_fp *r, const enc_fpw *t) {
#if ENC_HAVE_MULX_ASM
    if (enc_fp_use_mulx) {
        enc_fp_redc_mulx(r, t);
        return;
    }
#endif
    enc_fp_redc_portable(r, t);
}

/* r = a - b mod p 2^384 for a, b in [0, p 2^384): p is added to the high
 * half when the subtraction borrows */
static inline void enc_fpw_sub(enc_fpw *r, const enc_fpw *a, const enc_fpw *b) {
    uint64_t br = 0, c = 0;
    ENC_UNROLL
    for (int i = 0; i < 12; i++) r->l[i] = enc_subb(a->l[i], b->l[i], br, &br);
    uint64_t m = 0 - br;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) r->l[6 + i] = enc_addc(r->l[6 + i], enc_p_[i] & m, c, &c);
}

/* r = a + b mod p 2^384 for a, b in [0, p 2^384): the sum is at least
 * p 2^384 exactly when its high half is at least p */
static inline void enc_fpw_add(enc_fpw *r, const enc_fpw *a, const enc_fpw *b) {
#if ENC_HAVE_ADD_ASM
    /* as enc_fp_add, the low half's carry running into the high half (the
     * moves in between leave the flags alone) */
    uint64_t t0, t1, t2, t3, t4, t5;
    __asm__ volatile(ENC_ASM6("movq", "movq", "a", 0) ENC_ASM6("addq", "adcq", "b", 0) ENC_ASM6_STORE("r", 0)
                     ENC_ASM6("movq", "movq", "a", 48) ENC_ASM6("adcq", "adcq", "b", 48) ENC_ASM6_STORE("r", 48)
                     ENC_ASM6("subq", "sbbq", "p", 0) ENC_ASM6("cmovcq", "cmovcq", "r", 48) ENC_ASM6_STORE("r", 48)
                     : ENC_ASM6_OUTPUTS, "=m"(*(uint64_t(*)[12])r->l)
                     : [a] "r"(a->l), [b] "r"(b->l), [r] "r"(r->l), [p] "r"(enc_p_), "m"(*(const uint64_t(*)[12])a->l),
                       "m"(*(const uint64_t(*)[12])b->l), "m"(*(const uint64_t(*)[6])enc_p_)
                     : "cc");
#else
    uint64_t c = 0;
    enc_fp hi;
    ENC_UNROLL
    for (int i = 0; i < 6; i++) r->l[i] = enc_addc(a->l[i], b->l[i], c, &c);
    ENC_UNROLL
    for (int i = 0; i < 6; i++) hi.l[i] = enc_addc(a->l[6 + i], b->l[6 + i], c, &c);
    enc_fp_sub_p_if_ge((enc_fp *)(void *)&r->l[6], &hi);
#endif
}
int enc_fp_fast_path_available(void);  /* 1 if this CPU can run the assembly */
/* Test hook: 1 selects the assembly (if the CPU has it), 0 the portable C;
 * returns the path now in use.  Not thread-safe: tests only. */
int enc_fp_select_fast_path(int fast);
void enc_fp_sqr(enc_fp *r, const enc_fp *a);
void enc_fp_pow(enc_fp *r, const enc_fp *a, const uint64_t *e, size_t nlimbs); /* public exponent */
void enc_fp_inv(enc_fp *r, const enc_fp *a);              /* fp_inv.c, CT; 0 -> 0 */
/* Values inverted side by side share one inversion (Montgomery's trick):
 * the final exponentiations of a batch of pairings (enc_bls_final_exp_many)
 * go through these with at most ENC_FP12_BATCH values. */
#define ENC_FP12_BATCH 8
void enc_fp_inv_many(enc_fp *r, const enc_fp *a, size_t n);  /* CT; 0 -> 0 */
int enc_fp_sqrt(enc_fp *r, const enc_fp *a);              /* r = a^((p+1)/4); 1 if it is a root */
int enc_fp_legendre(const enc_fp *a);                     /* 1, -1, 0 */
int enc_fp_is_odd(const enc_fp *a);                       /* parity of the canonical value */
void enc_fp_from_u64(enc_fp *r, uint64_t v);
int enc_fp_from_bytes(enc_fp *r, const uint8_t in[48]);   /* -1 if >= p */
void enc_fp_to_bytes(uint8_t out[48], const enc_fp *a);
void enc_fp_set_array_mask(enc_fp *r, const uint8_t in[48]); /* masks as mcl's setArrayMask */

/* fp2.c */
/* The cheap Fp2 operations are inline: as calls they cost a quarter of a
 * pairing (perf), mostly in call overhead around two Fp additions. */
static inline void enc_fp2_add(enc_fp2 *r, const enc_fp2 *a, const enc_fp2 *b) {
    enc_fp_add(&r->a, &a->a, &b->a);
    enc_fp_add(&r->b, &a->b, &b->b);
}

static inline void enc_fp2_sub(enc_fp2 *r, const enc_fp2 *a, const enc_fp2 *b) {
    enc_fp_sub(&r->a, &a->a, &b->a);
    enc_fp_sub(&r->b, &a->b, &b->b);
}

static inline void enc_fp2_dbl(enc_fp2 *r, const enc_fp2 *a) {
    enc_fp_add(&r->a, &a->a, &a->a);
    enc_fp_add(&r->b, &a->b, &a->b);
}

static inline void enc_fp2_neg(enc_fp2 *r, const enc_fp2 *a) {
    enc_fp_neg(&r->a, &a->a);
    enc_fp_neg(&r->b, &a->b);
}

static inline void enc_fp2_conj(enc_fp2 *r, const enc_fp2 *a) {
    r->a = a->a;
    enc_fp_neg(&r->b, &a->b);
}

/* (a + bi)(1 + i) = (a - b) + (a + b) i */
static inline void enc_fp2_mul_xi(enc_fp2 *r, const enc_fp2 *a) {
    enc_fp t;
    enc_fp_sub(&t, &a->a, &a->b);
    enc_fp_add(&r->b, &a->a, &a->b);
    r->a = t;
}

/* Double-width Fp2 (lazy reduction), both halves in [0, p 2^384) */
typedef struct { enc_fpw a, b; } enc_fp2w;
static inline void enc_fp2w_add(enc_fp2w *r, const enc_fp2w *a, const enc_fp2w *b) {
    enc_fpw_add(&r->a, &a->a, &b->a);
    enc_fpw_add(&r->b, &a->b, &b->b);
}
static inline void enc_fp2w_sub(enc_fp2w *r, const enc_fp2w *a, const enc_fp2w *b) {
    enc_fpw_sub(&r->a, &a->a, &b->a);
    enc_fpw_sub(&r->b, &a->b, &b->b);
}
static inline void enc_fp2w_mul_xi(enc_fp2w *r, const enc_fp2w *a) {
    enc_fpw t;
    enc_fpw_sub(&t, &a->a, &a->b);
    enc_fpw_add(&r->b, &a->a, &a->b);
    r->a = t;
}
static inline void enc_fp2w_redc(enc_fp2 *r, const enc_fp2w *a) {
    enc_fp_redc(&r->a, &a->a);
    enc_fp_redc(&r->b, &a->b);
}
void enc_fp2_mul_wide(enc_fp2w *r, const enc_fp2 *a, const enc_fp2 *b); /* a, b reduced */
void enc_fp2_sqr_wide(enc_fp2w *r, const enc_fp2 *a);                   /* a reduced */
void enc_fp2_mul(enc_fp2 *r, const enc_fp2 *a, const enc_fp2 *b);
void enc_fp2_sqr(enc_fp2 *r, const enc_fp2 *a);
void enc_fp2_mul_fp(enc_fp2 *r, const enc_fp2 *a, const enc_fp *b);
void enc_fp2_inv(enc_fp2 *r, const enc_fp2 *a);
void enc_fp2_inv_many(enc_fp2 *r, const enc_fp2 *a, size_t n);
int enc_fp2_sqrt(enc_fp2 *r, const enc_fp2 *a);          /* 1 if a is a square */
uint64_t enc_fp2_is_zero_mask(const enc_fp2 *a);
uint64_t enc_fp2_eq_mask(const enc_fp2 *a, const enc_fp2 *b);
void enc_fp2_zero(enc_fp2 *r);
void enc_fp2_one(enc_fp2 *r);

/* fp6.c */
void enc_fp6_add(enc_fp6 *r, const enc_fp6 *a, const enc_fp6 *b);
void enc_fp6_sub(enc_fp6 *r, const enc_fp6 *a, const enc_fp6 *b);
void enc_fp6_neg(enc_fp6 *r, const enc_fp6 *a);
/* Double-width Fp6 (lazy reduction) */
typedef struct { enc_fp2w a, b, c; } enc_fp6w;
static inline void enc_fp6w_sub(enc_fp6w *r, const enc_fp6w *x, const enc_fp6w *y) {
    enc_fp2w_sub(&r->a, &x->a, &y->a);
    enc_fp2w_sub(&r->b, &x->b, &y->b);
    enc_fp2w_sub(&r->c, &x->c, &y->c);
}
static inline void enc_fp6w_add(enc_fp6w *r, const enc_fp6w *x, const enc_fp6w *y) {
    enc_fp2w_add(&r->a, &x->a, &y->a);
    enc_fp2w_add(&r->b, &x->b, &y->b);
    enc_fp2w_add(&r->c, &x->c, &y->c);
}
static inline void enc_fp6w_redc(enc_fp6 *r, const enc_fp6w *x) {
    enc_fp2w_redc(&r->a, &x->a);
    enc_fp2w_redc(&r->b, &x->b);
    enc_fp2w_redc(&r->c, &x->c);
}
void enc_fp6w_mul_v(enc_fp6w *r, const enc_fp6w *x);                       /* times v */
void enc_fp6_mul_wide(enc_fp6w *r, const enc_fp6 *a, const enc_fp6 *b);     /* a, b reduced */
void enc_fp6_mul(enc_fp6 *r, const enc_fp6 *a, const enc_fp6 *b);
void enc_fp6_sqr(enc_fp6 *r, const enc_fp6 *a);
void enc_fp6_mul_v(enc_fp6 *r, const enc_fp6 *a);                              /* times v */
/* times b0 + b1 v, times b1 v (the sparse factors of line functions),
 * at double width; a reduced */
void enc_fp6_mul_01_wide(enc_fp6w *r, const enc_fp6 *a, const enc_fp2 *b0, const enc_fp2 *b1);
void enc_fp6_mul_1_wide(enc_fp6w *r, const enc_fp6 *a, const enc_fp2 *b1);
void enc_fp6_inv(enc_fp6 *r, const enc_fp6 *a);
void enc_fp6_inv_many(enc_fp6 *r, const enc_fp6 *a, size_t n);
void enc_fp6_zero(enc_fp6 *r);
void enc_fp6_one(enc_fp6 *r);

/* fp12.c */
void enc_fp12_one(enc_fp12 *r);
void enc_fp12_mul(enc_fp12 *r, const enc_fp12 *a, const enc_fp12 *b);
void enc_fp12_sqr(enc_fp12 *r, const enc_fp12 *a);
void enc_fp12_conj(enc_fp12 *r, const enc_fp12 *a);      /* a^(p^6): the inverse on GT */
void enc_fp12_inv(enc_fp12 *r, const enc_fp12 *a);
void enc_fp12_inv_many(enc_fp12 *r, const enc_fp12 *a, size_t n);
void enc_fp12_frob(enc_fp12 *r, const enc_fp12 *a);      /* a^p */
void enc_fp12_frob2(enc_fp12 *r, const enc_fp12 *a);     /* a^(p^2) */
void enc_fp12_cyc_sqr(enc_fp12 *r, const enc_fp12 *a);   /* Granger-Scott, cyclotomic a only */
void enc_fp12_cyc_pow_z(enc_fp12 *r, const enc_fp12 *a);  /* a^|z|, Karabina; cyclotomic a only */
void enc_fp12_cyc_pow_z_many(enc_fp12 *r, const enc_fp12 *a, size_t n); /* n <= ENC_FP12_BATCH */
void enc_fp12_cyc_sqr_n_karabina(enc_fp12 *r, const enc_fp12 *a, int n); /* test hook */
/* r = a * (l0 + l1 v + l4 v w): the shape of a Miller-loop line */
void enc_fp12_mul_line(enc_fp12 *r, const enc_fp12 *a, const enc_fp2 *l0, const enc_fp2 *l1, const enc_fp2 *l4);
void enc_fp12_mul_line_1(enc_fp12 *r, const enc_fp12 *a, const enc_fp2 *l1, const enc_fp2 *l4); /* l0 = 1 */
uint64_t enc_fp12_eq_mask(const enc_fp12 *a, const enc_fp12 *b);
void enc_fp12_pow_vartime(enc_fp12 *r, const enc_fp12 *a, const uint64_t *e, size_t nlimbs); /* generic, any a */
void enc_fp12_cyc_pow_vartime(enc_fp12 *r, const enc_fp12 *a, const uint64_t *e, size_t nlimbs);

/* g1.c, g2.c: subgroup membership by multiplication with r (reference) */
int enc_bls_g1_in_subgroup_slow(const enc_g1 *a);
int enc_bls_g2_in_subgroup_slow(const enc_g2 *a);

/* pairing.c */
void enc_bls_miller_loop(enc_fp12 *f, const enc_g1 *p, const enc_g2 *q, size_t n);
/* scale 0 keeps the lines as computed (the fallback for a zero constant
 * term, which tests reach only through this) */
void enc_bls_g2_prepare_lines(enc_g2_prepared *out, const enc_g2 *q, int scale);
void enc_bls_miller_loop_prepared(enc_fp12 *f, const enc_g1 *p, const enc_g2_prepared *q);
void enc_bls_final_exp(enc_fp12 *r, const enc_fp12 *f);
void enc_bls_final_exp_many(enc_fp12 *r, const enc_fp12 *f, size_t n); /* n <= ENC_FP12_BATCH; r may be f */

#endif
