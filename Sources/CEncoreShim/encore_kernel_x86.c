/* The RPIs of a key with the CPU's AES instructions (x86-64 AES-NI),
 * checked at run time; encore_kernel.c falls back to OpenSSL's EVP without
 * them. AES-128 is keyed inline (no EVP context set-up per key) and runs
 * eight blocks at a time. Tests compare both paths with OpenSSL. */
#include "encore_kernel_x86.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>
#include <string.h>

#define TARGET __attribute__((target("aes,sse4.1,ssse3")))

int enc_x86_supported(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    int aes = (c >> 25) & 1, sse41 = (c >> 19) & 1, ssse3 = (c >> 9) & 1;
    return aes && sse41 && ssse3;
}

/* ---- AES-128 ---------------------------------------------------------- */

#define EXPAND(k, rcon)                                                            \
    do {                                                                           \
        __m128i g = _mm_shuffle_epi32(_mm_aeskeygenassist_si128(k, rcon), 0xFF);   \
        k = _mm_xor_si128(k, _mm_slli_si128(k, 4));                                \
        k = _mm_xor_si128(k, _mm_slli_si128(k, 4));                                \
        k = _mm_xor_si128(k, _mm_slli_si128(k, 4));                                \
        k = _mm_xor_si128(k, g);                                                   \
    } while (0)

/* The RPIs of intervals start ..< start + count (count <= 144) into out. */
TARGET void enc_x86_rpis(const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out) {
    __m128i rk[11];
    __m128i k = _mm_loadu_si128((const __m128i *)rpik);
    rk[0] = k;
    EXPAND(k, 0x01); rk[1] = k;
    EXPAND(k, 0x02); rk[2] = k;
    EXPAND(k, 0x04); rk[3] = k;
    EXPAND(k, 0x08); rk[4] = k;
    EXPAND(k, 0x10); rk[5] = k;
    EXPAND(k, 0x20); rk[6] = k;
    EXPAND(k, 0x40); rk[7] = k;
    EXPAND(k, 0x80); rk[8] = k;
    EXPAND(k, 0x1B); rk[9] = k;
    EXPAND(k, 0x36); rk[10] = k;
    /* "EN-RPI" || 0^6 || ENIN (little-endian): lane 3 holds the ENIN. */
    const __m128i base = _mm_setr_epi8('E', 'N', '-', 'R', 'P', 'I', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0);
    uint32_t j = 0;
    for (; j + 8 <= count; j += 8) {
        __m128i b[8];
        for (int i = 0; i < 8; i++) b[i] = _mm_xor_si128(_mm_insert_epi32(base, (int)(start + j + (uint32_t)i), 3), rk[0]);
        for (int r = 1; r < 10; r++)
            for (int i = 0; i < 8; i++) b[i] = _mm_aesenc_si128(b[i], rk[r]);
        for (int i = 0; i < 8; i++) _mm_storeu_si128((__m128i *)(out + 16 * (j + (uint32_t)i)), _mm_aesenclast_si128(b[i], rk[10]));
    }
    for (; j < count; j++) {
        __m128i b = _mm_xor_si128(_mm_insert_epi32(base, (int)(start + j), 3), rk[0]);
        for (int r = 1; r < 10; r++) b = _mm_aesenc_si128(b, rk[r]);
        _mm_storeu_si128((__m128i *)(out + 16 * j), _mm_aesenclast_si128(b, rk[10]));
    }
}

#else
int enc_x86_supported(void) { return 0; }
void enc_x86_rpis(const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out) {
    (void)rpik; (void)start; (void)count; (void)out;
}
#endif
