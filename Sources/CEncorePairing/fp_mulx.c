/*
 * The Montgomery product with the BMI2/ADX instructions (x86-64): mulx
 * multiplies without touching the flags, and adcx/adox are two independent
 * carry chains (CF and OF), so the low and high halves of each row of
 * partial products are accumulated in one pass each.  This is the hot spot
 * of every pairing: enc_fp_mul picks this path at run time when the CPU has
 * both extensions (cpuid), else the portable C (fp.c), and the tests run
 * both on every vector (test_backends.py).
 *
 * Same algorithm as the portable code: interleaved (CIOS) in the
 * "no-carry" form, which p allows since its top limb is below 2^62, so the
 * running sum fits in 7 words and the word that the reduction clears
 * (t0 + m p0 = 0 mod 2^64) becomes the next row's top word: the register
 * names rotate from row to row instead of moving data.  Branch-free.
 */
#include "internal.h"

#if ENC_HAVE_MULX_ASM
#include <cpuid.h>
#include <stdlib.h>

/* The unrolled assembly is one string longer than C99's minimum limit,
 * which every compiler that takes this GNU inline assembly exceeds. */
#pragma GCC diagnostic ignored "-Woverlength-strings"

/* p, then -p^-1 mod 2^128 (low word ENC_PINV_, the one the row-by-row
 * reduction uses; both words the reduction two rows at a time): one
 * pointer for all */
static const uint64_t p_and_pinv[8] = {0xb9feffffffffaaabULL, 0x1eabfffeb153ffffULL, 0x6730d2a0f6b0f624ULL,
                                       0x64774b84f38512bfULL, 0x4b1ba7b6434bacd7ULL, 0x1a0111ea397fe69aULL,
                                       ENC_PINV_,             0x286adb92d9d113e8ULL};

/* T += rdx * SRC[0..5] on T0..T6 (T6 takes the top word and the carries):
 * xor clears CF and OF, then each mulx feeds the low half into the CF
 * chain (adcx) and the high half into the OF chain (adox). */
#define MULX_ROW(SRC, T0, T1, T2, T3, T4, T5, T6)           \
    "xorl %k[lo], %k[lo]\n\t"                               \
    "mulxq 0(" SRC "), %[lo], %[hi]\n\t"                    \
    "adcxq %[lo], " T0 "\n\t"                               \
    "adoxq %[hi], " T1 "\n\t"                               \
    "mulxq 8(" SRC "), %[lo], %[hi]\n\t"                    \
    "adcxq %[lo], " T1 "\n\t"                               \
    "adoxq %[hi], " T2 "\n\t"                               \
    "mulxq 16(" SRC "), %[lo], %[hi]\n\t"                   \
    "adcxq %[lo], " T2 "\n\t"                               \
    "adoxq %[hi], " T3 "\n\t"                               \
    "mulxq 24(" SRC "), %[lo], %[hi]\n\t"                   \
    "adcxq %[lo], " T3 "\n\t"                               \
    "adoxq %[hi], " T4 "\n\t"                               \
    "mulxq 32(" SRC "), %[lo], %[hi]\n\t"                   \
    "adcxq %[lo], " T4 "\n\t"                               \
    "adoxq %[hi], " T5 "\n\t"                               \
    "mulxq 40(" SRC "), %[lo], %[hi]\n\t"                   \
    "adcxq %[lo], " T5 "\n\t"                               \
    "adoxq %[hi], " T6 "\n\t"                               \
    "adcq $0, " T6 "\n\t"

/* One row: T += a * b[i]. */
#define ROW_MUL(i, T0, T1, T2, T3, T4, T5, T6)              \
    "movq 8*" #i "(%[b]), %%rdx\n\t"                        \
    MULX_ROW("%[a]", T0, T1, T2, T3, T4, T5, T6)

/* Row 0: T = a * b[0] (T starts empty, one carry chain suffices). */
#define ROW0_MUL(T0, T1, T2, T3, T4, T5, T6)                \
    "movq 0(%[b]), %%rdx\n\t"                               \
    "mulxq 0(%[a]), " T0 ", " T1 "\n\t"                     \
    "mulxq 8(%[a]), %[lo], " T2 "\n\t"                      \
    "addq %[lo], " T1 "\n\t"                                \
    "mulxq 16(%[a]), %[lo], " T3 "\n\t"                     \
    "adcq %[lo], " T2 "\n\t"                                \
    "mulxq 24(%[a]), %[lo], " T4 "\n\t"                     \
    "adcq %[lo], " T3 "\n\t"                                \
    "mulxq 32(%[a]), %[lo], " T5 "\n\t"                     \
    "adcq %[lo], " T4 "\n\t"                                \
    "mulxq 40(%[a]), %[lo], " T6 "\n\t"                     \
    "adcq %[lo], " T5 "\n\t"                                \
    "adcq $0, " T6 "\n\t"

/* T += m p, m = T0 * pinv: afterwards T0 is 0 and T1..T6 hold the row. */
#define ROW_RED(T0, T1, T2, T3, T4, T5, T6)                 \
    "movq " T0 ", %%rdx\n\t"                                \
    "imulq 48(%[p]), %%rdx\n\t"                             \
    MULX_ROW("%[p]", T0, T1, T2, T3, T4, T5, T6)

#define R0 "%[t0]"
#define R1 "%[t1]"
#define R2 "%[t2]"
#define R3 "%[t3]"
#define R4 "%[t4]"
#define R5 "%[t5]"
#define R6 "%[t6]"

/* The result (below 2p) is in t6 t0 t1 t2 t3 t4, low to high: copy it to
 * the registers free by now (lo, hi, the zero word t5, the a and b
 * pointers, rdx), subtract p there, and keep the copy unless that borrowed
 * (cmov: branch-free). */
#define FINAL_SUB                                           \
    "movq %[t6], %[lo]\n\t"                                 \
    "movq %[t0], %[hi]\n\t"                                 \
    "movq %[t1], %[t5]\n\t"                                 \
    "movq %[t2], %[a]\n\t"                                  \
    "movq %[t3], %[b]\n\t"                                  \
    "movq %[t4], %%rdx\n\t"                                 \
    "subq 0(%[p]), %[lo]\n\t"                               \
    "sbbq 8(%[p]), %[hi]\n\t"                               \
    "sbbq 16(%[p]), %[t5]\n\t"                              \
    "sbbq 24(%[p]), %[a]\n\t"                               \
    "sbbq 32(%[p]), %[b]\n\t"                               \
    "sbbq 40(%[p]), %%rdx\n\t"                              \
    "cmovcq %[t6], %[lo]\n\t"                               \
    "cmovcq %[t0], %[hi]\n\t"                               \
    "cmovcq %[t1], %[t5]\n\t"                               \
    "cmovcq %[t2], %[a]\n\t"                                \
    "cmovcq %[t3], %[b]\n\t"                                \
    "cmovcq %[t4], %%rdx\n\t"

void enc_fp_mul_mulx(enc_fp *r, const enc_fp *a, const enc_fp *b) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, top;
    uint64_t ap = (uint64_t)(uintptr_t)a->l, bp = (uint64_t)(uintptr_t)b->l; /* reused for the result */
    __asm__(ROW0_MUL(R0, R1, R2, R3, R4, R5, R6)
            ROW_RED(R0, R1, R2, R3, R4, R5, R6)
            ROW_MUL(1, R1, R2, R3, R4, R5, R6, R0)
            ROW_RED(R1, R2, R3, R4, R5, R6, R0)
            ROW_MUL(2, R2, R3, R4, R5, R6, R0, R1)
            ROW_RED(R2, R3, R4, R5, R6, R0, R1)
            ROW_MUL(3, R3, R4, R5, R6, R0, R1, R2)
            ROW_RED(R3, R4, R5, R6, R0, R1, R2)
            ROW_MUL(4, R4, R5, R6, R0, R1, R2, R3)
            ROW_RED(R4, R5, R6, R0, R1, R2, R3)
            ROW_MUL(5, R5, R6, R0, R1, R2, R3, R4)
            ROW_RED(R5, R6, R0, R1, R2, R3, R4)
            FINAL_SUB
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
              [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), [a] "+r"(ap), [b] "+r"(bp), "=&d"(top)
            : [p] "r"(p_and_pinv)
            : "cc", "memory"); /* reads a, b and p through the pointers */
    r->l[0] = lo;
    r->l[1] = hi;
    r->l[2] = t5;
    r->l[3] = ap;
    r->l[4] = bp;
    r->l[5] = top;
}

/* The double-width product a b (768 bits, no reduction) for lazy
 * reduction: the rows of the product alone, the lowest word of each row
 * final as soon as the row is added (stored, and its register cleared to be
 * the next row's top word). */
void enc_fp_mul_wide_mulx(enc_fpw *r, const enc_fp *a, const enc_fp *b) {
    uint64_t t0, t1, t2, t3, t4, t5, t6, lo, hi, rdx;
#define STORE_CLEAR(i, T) "movq " T ", 8*" #i "(%[r])\n\tmovq $0, " T "\n\t"
    /* volatile: the result leaves through memory only, and gcc deletes a
     * plain asm statement whose register outputs are all unused */
    __asm__ volatile(ROW0_MUL(R0, R1, R2, R3, R4, R5, R6)
            STORE_CLEAR(0, R0)
            ROW_MUL(1, R1, R2, R3, R4, R5, R6, R0)
            STORE_CLEAR(1, R1)
            ROW_MUL(2, R2, R3, R4, R5, R6, R0, R1)
            STORE_CLEAR(2, R2)
            ROW_MUL(3, R3, R4, R5, R6, R0, R1, R2)
            STORE_CLEAR(3, R3)
            ROW_MUL(4, R4, R5, R6, R0, R1, R2, R3)
            STORE_CLEAR(4, R4)
            ROW_MUL(5, R5, R6, R0, R1, R2, R3, R4)
            "movq %[t5], 40(%[r])\n\t"
            "movq %[t6], 48(%[r])\n\t"
            "movq %[t0], 56(%[r])\n\t"
            "movq %[t1], 64(%[r])\n\t"
            "movq %[t2], 72(%[r])\n\t"
            "movq %[t3], 80(%[r])\n\t"
            "movq %[t4], 88(%[r])\n\t"
            : [t0] "=&r"(t0), [t1] "=&r"(t1), [t2] "=&r"(t2), [t3] "=&r"(t3), [t4] "=&r"(t4), [t5] "=&r"(t5),
              [t6] "=&r"(t6), [lo] "=&r"(lo), [hi] "=&r"(hi), "=&d"(rdx)
            : [a] "r"(a->l), [b] "r"(b->l), [r] "r"(r->l)
            : "cc", "memory");
#undef STORE_CLEAR
}

/* Two reduction rows at once on the window W0..W7 (W6, W7 zero on entry):
 * M = (W1:W0) (-p^-1) mod 2^128 from three products that depend on W0 and
 * W1 alone (M's low word is the row-by-row m; its high word would
 * otherwise wait for the first row's sums), then W += M p as two rows of
 * mulx (m1 goes through memory: registers run out); afterwards W0 = W1 = 0
 * and W2..W7 hold the value, which stays below 2^382 (M p < 2^509). */
#define ROWS_RED2(W0, W1, W2, W3, W4, W5, W6, W7)           \
    "movq " W0 ", %%rdx\n\t"                                \
    "mulxq 48(%[p]), %%rdx, %[hi]\n\t"                      \
    "movq " W0 ", %[lo]\n\t"                                \
    "imulq 56(%[p]), %[lo]\n\t"                             \
    "addq %[lo], %[hi]\n\t"                                 \
    "movq " W1 ", %[lo]\n\t"                                \
    "imulq 48(%[p]), %[lo]\n\t"                             \
    "addq %[lo], %[hi]\n\t"                                 \
    "movq %[hi], %[m1]\n\t"                                 \
    MULX_ROW("%[p]", W0, W1, W2, W3, W4, W5, W6)            \
    "movq %[m1], %%rdx\n\t"                                 \
    MULX_ROW("%[p]", W1, W2, W3, W4, W5, W6, W7)

/* Montgomery reduction t / 2^384 mod p of a double-width t < p 2^384:
 * the reduction runs on t's low half alone (a value u <= p) two rows at a
 * time (three dependent steps instead of six: the row-by-row chain
 * imul -> mulx -> add was the reduction's critical path; 13.1 ns against
 * 14.1 ns, and about 1.6 % of a pairing, on this Zen 3), then t's high half
 * (< p) is added, and one conditional subtraction of p (in C) leaves the
 * result below p. */
void enc_fp_redc_mulx(enc_fp *r, const enc_fpw *t) {
    uint64_t w0, w1, w2, w3, w4, w5, w6, w7, lo, hi, m1, rdx;
    __asm__("movq 0(%[t]), %[w0]\n\t"
            "movq 8(%[t]), %[w1]\n\t"
            "movq 16(%[t]), %[w2]\n\t"
            "movq 24(%[t]), %[w3]\n\t"
            "movq 32(%[t]), %[w4]\n\t"
            "movq 40(%[t]), %[w5]\n\t"
            "xorl %k[w6], %k[w6]\n\t"
            "xorl %k[w7], %k[w7]\n\t"
            ROWS_RED2("%[w0]", "%[w1]", "%[w2]", "%[w3]", "%[w4]", "%[w5]", "%[w6]", "%[w7]")
            ROWS_RED2("%[w2]", "%[w3]", "%[w4]", "%[w5]", "%[w6]", "%[w7]", "%[w0]", "%[w1]")
            ROWS_RED2("%[w4]", "%[w5]", "%[w6]", "%[w7]", "%[w0]", "%[w1]", "%[w2]", "%[w3]")
            "addq 48(%[t]), %[w6]\n\t"
            "adcq 56(%[t]), %[w7]\n\t"
            "adcq 64(%[t]), %[w0]\n\t"
            "adcq 72(%[t]), %[w1]\n\t"
            "adcq 80(%[t]), %[w2]\n\t"
            "adcq 88(%[t]), %[w3]\n\t"
            : [w0] "=&r"(w0), [w1] "=&r"(w1), [w2] "=&r"(w2), [w3] "=&r"(w3), [w4] "=&r"(w4), [w5] "=&r"(w5),
              [w6] "=&r"(w6), [w7] "=&r"(w7), [lo] "=&r"(lo), [hi] "=&r"(hi), [m1] "=&m"(m1), "=&d"(rdx)
            : [t] "r"(t->l), [p] "r"(p_and_pinv)
            : "cc", "memory");
    enc_fp u = {{w6, w7, w0, w1, w2, w3}};
    enc_fp_sub_p_if_ge(r, &u);
}

/* Chosen once at load time; ENCORE_PAIRING_PORTABLE=1 in the environment
 * forces the portable code (how the test suite runs both paths). */
int enc_fp_use_mulx = 0;

__attribute__((constructor)) static void detect_mulx(void) {
    unsigned eax, ebx, ecx, edx;
    const char *force = getenv("ENCORE_PAIRING_PORTABLE");
    if (force && force[0] == '1') return;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return;
    enc_fp_use_mulx = ((ebx >> 8) & 1) && ((ebx >> 19) & 1); /* BMI2 and ADX */
}
#endif

int enc_fp_fast_path_available(void) {
#if ENC_HAVE_MULX_ASM
    unsigned eax, ebx, ecx, edx;
    if (!__get_cpuid_count(7, 0, &eax, &ebx, &ecx, &edx)) return 0;
    return ((ebx >> 8) & 1) && ((ebx >> 19) & 1);
#else
    return 0;
#endif
}
