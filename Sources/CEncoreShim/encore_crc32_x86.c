/* See encore_crc32.h. The folding of "Fast CRC Computation for Generic
 * Polynomials Using PCLMULQDQ" (Intel, 2009), for the bit-reflected CRC-32:
 * four 128-bit lanes are each multiplied by x^(512±...) mod P and added to
 * the next 64 bytes; the lanes are then folded into one, reduced to 64 and
 * 32 bits, and the last step is a Barrett reduction. The constants are
 * x^k mod P for the distances folded, bit-reflected, and floor(x^64 / P). */
#include "encore_crc32.h"
#include "encore_kernel_x86.h"

#if defined(__x86_64__)
#include <immintrin.h>

#define TARGET __attribute__((target("pclmul,sse4.1")))

/* a·k.lo ⊕ a·k.hi (each 64×64 → 128 carry-less), folded onto next. */
TARGET static inline __m128i fold(__m128i a, __m128i k, __m128i next) {
    __m128i lo = _mm_clmulepi64_si128(a, k, 0x00);
    __m128i hi = _mm_clmulepi64_si128(a, k, 0x11);
    return _mm_xor_si128(_mm_xor_si128(lo, hi), next);
}

TARGET static uint32_t crc32_fold(uint32_t crc, const uint8_t *p, size_t len) {
    const __m128i k1k2 = _mm_set_epi64x(0x1c6e41596, 0x154442bd4);   /* 4 lanes apart (512 bits) */
    const __m128i k3k4 = _mm_set_epi64x(0x0ccaa009e, 0x1751997d0);   /* 1 lane apart (128 bits) */
    const __m128i k5 = _mm_set_epi64x(0, 0x163cd6124);               /* 64 bits */
    const __m128i poly = _mm_set_epi64x(0x1f7011641, 0x1db710641);   /* floor(x^64 / P), P */
    const __m128i mask32 = _mm_set_epi32(0, 0, 0, -1);

    __m128i x0 = _mm_loadu_si128((const __m128i *)p), x1 = _mm_loadu_si128((const __m128i *)(p + 16));
    __m128i x2 = _mm_loadu_si128((const __m128i *)(p + 32)), x3 = _mm_loadu_si128((const __m128i *)(p + 48));
    x0 = _mm_xor_si128(x0, _mm_cvtsi32_si128((int)crc));
    p += 64;
    len -= 64;
    for (; len >= 64; p += 64, len -= 64) {
        x0 = fold(x0, k1k2, _mm_loadu_si128((const __m128i *)p));
        x1 = fold(x1, k1k2, _mm_loadu_si128((const __m128i *)(p + 16)));
        x2 = fold(x2, k1k2, _mm_loadu_si128((const __m128i *)(p + 32)));
        x3 = fold(x3, k1k2, _mm_loadu_si128((const __m128i *)(p + 48)));
    }
    x0 = fold(x0, k3k4, x1);
    x0 = fold(x0, k3k4, x2);
    x0 = fold(x0, k3k4, x3);
    for (; len >= 16; p += 16, len -= 16) x0 = fold(x0, k3k4, _mm_loadu_si128((const __m128i *)p));

    /* 128 → 64 bits: the low half times x^(64+32)... onto the high half. */
    __m128i t = _mm_clmulepi64_si128(x0, k3k4, 0x10);
    x0 = _mm_xor_si128(_mm_srli_si128(x0, 8), t);
    /* 64 → 32 bits. */
    t = _mm_srli_si128(x0, 4);
    x0 = _mm_xor_si128(_mm_clmulepi64_si128(_mm_and_si128(x0, mask32), k5, 0x00), t);
    /* Barrett reduction to the 32-bit remainder. */
    t = _mm_clmulepi64_si128(_mm_and_si128(x0, mask32), poly, 0x10);
    t = _mm_clmulepi64_si128(_mm_and_si128(t, mask32), poly, 0x00);
    return (uint32_t)_mm_extract_epi32(_mm_xor_si128(x0, t), 1);
}

size_t enc_crc32_bulk(uint32_t *crc, const uint8_t *data, size_t len) {
    if (len < 64 || !enc_x86_pclmul_supported()) return 0;
    size_t n = len & ~(size_t)15;
    *crc = ~crc32_fold(~*crc, data, n);
    return n;
}

#else
size_t enc_crc32_bulk(uint32_t *crc, const uint8_t *data, size_t len) { (void)crc; (void)data; (void)len; return 0; }
#endif
