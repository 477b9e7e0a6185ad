/* The RPIs of a key with the CPU's AES instructions (x86-64 AES-NI, and
 * VAES where present), checked at run time; encore_kernel.c falls back to
 * OpenSSL's EVP without them. AES-128 is keyed inline (no EVP context set-up
 * per key) and works on chunks of ENC_RPI_CHUNK intervals, so the kernel can
 * look up one chunk's RPIs while the next is encrypted. Tests compare every
 * path with OpenSSL. */
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

int enc_x86_pclmul_supported(void) {
    unsigned a, b, c, d;
    if (!__get_cpuid(1, &a, &b, &c, &d)) return 0;
    return ((c >> 1) & 1) && ((c >> 19) & 1);
}

/* ---- AES-128 ---------------------------------------------------------- */

/* The AES-128 key schedules of ENC_AES_LANES RPIKs, expanded side by side.
 * SubWord(RotWord(w3)) ^ rcon comes from aesenclast on the rotated word
 * broadcast to all four columns (ShiftRows then moves nothing), which is
 * faster than aeskeygenassist; the lanes hide each other's latency. */
TARGET void enc_x86_aes_expand(const uint8_t rpiks[ENC_AES_LANES][16], uint8_t schedules[ENC_AES_LANES][11 * 16]) {
    const __m128i rot = _mm_setr_epi8(13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12, 13, 14, 15, 12);
    static const int rcon[10] = {0x01, 0x02, 0x04, 0x08, 0x10, 0x20, 0x40, 0x80, 0x1B, 0x36};
    __m128i k[ENC_AES_LANES];
    for (int l = 0; l < ENC_AES_LANES; l++) {
        k[l] = _mm_loadu_si128((const __m128i *)rpiks[l]);
        _mm_storeu_si128((__m128i *)schedules[l], k[l]);
    }
    for (int r = 0; r < 10; r++) {
        const __m128i c = _mm_set1_epi32(rcon[r]);
        for (int l = 0; l < ENC_AES_LANES; l++) {
            __m128i t = _mm_aesenclast_si128(_mm_shuffle_epi8(k[l], rot), c);
            __m128i x = k[l];
            x = _mm_xor_si128(x, _mm_slli_si128(x, 4));
            x = _mm_xor_si128(x, _mm_slli_si128(x, 8));
            k[l] = _mm_xor_si128(x, t);
            _mm_storeu_si128((__m128i *)(schedules[l] + 16 * (r + 1)), k[l]);
        }
    }
}

/* "EN-RPI" || 0^6 || ENIN (little-endian): lane 3 holds the ENIN. */
#define RPI_BASE _mm_setr_epi8('E', 'N', '-', 'R', 'P', 'I', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0)

/* ENC_RPI_CHUNK RPIs from interval `first` on, with AES-NI: eight blocks
 * in flight hide the instruction's latency. */
TARGET void enc_x86_rpi_chunk(const uint8_t schedule[11 * 16], uint32_t first, uint8_t *out) {
    __m128i rk[11];
    for (int r = 0; r < 11; r++) rk[r] = _mm_loadu_si128((const __m128i *)schedule + r);
    for (int j = 0; j < ENC_RPI_CHUNK; j += 8) {
        __m128i b[8];
        for (int i = 0; i < 8; i++) b[i] = _mm_xor_si128(_mm_insert_epi32(RPI_BASE, (int)(first + (uint32_t)(j + i)), 3), rk[0]);
        for (int r = 1; r < 10; r++)
            for (int i = 0; i < 8; i++) b[i] = _mm_aesenc_si128(b[i], rk[r]);
        for (int i = 0; i < 8; i++) _mm_storeu_si128((__m128i *)(out + 16 * (j + i)), _mm_aesenclast_si128(b[i], rk[10]));
    }
}

#define TARGET_VAES __attribute__((target("vaes,avx2,aes,sse4.1")))

/* The same with VAES: two blocks per instruction, and twice the blocks per
 * cycle on CPUs that have it. */
TARGET_VAES void enc_x86_rpi_chunk_vaes(const uint8_t schedule[11 * 16], uint32_t first, uint8_t *out) {
    __m256i rk[11];
    for (int r = 0; r < 11; r++) rk[r] = _mm256_broadcastsi128_si256(_mm_loadu_si128((const __m128i *)schedule + r));
    const __m256i base = _mm256_broadcastsi128_si256(RPI_BASE);
    __m256i b[ENC_RPI_CHUNK / 2];
    for (int i = 0; i < ENC_RPI_CHUNK / 2; i++) {
        __m256i enin = _mm256_setr_epi32(0, 0, 0, (int)(first + 2 * (uint32_t)i), 0, 0, 0, (int)(first + 2 * (uint32_t)i + 1));
        b[i] = _mm256_xor_si256(_mm256_or_si256(base, enin), rk[0]);
    }
    for (int r = 1; r < 10; r++)
        for (int i = 0; i < ENC_RPI_CHUNK / 2; i++) b[i] = _mm256_aesenc_epi128(b[i], rk[r]);
    for (int i = 0; i < ENC_RPI_CHUNK / 2; i++) _mm256_storeu_si256((__m256i *)(out + 32 * i), _mm256_aesenclast_epi128(b[i], rk[10]));
}

int enc_x86_vaes_supported(void) {
    unsigned a, b, c, d;
    if (!enc_x86_supported() || __get_cpuid_max(0, NULL) < 7) return 0;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1)) return 0;  /* OSXSAVE */
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6) return 0;                                         /* the OS saves ymm */
    __cpuid_count(7, 0, a, b, c, d);
    return ((b >> 5) & 1) && ((c >> 9) & 1);                             /* AVX2, VAES */
}

#else
int enc_x86_supported(void) { return 0; }
int enc_x86_vaes_supported(void) { return 0; }
int enc_x86_pclmul_supported(void) { return 0; }
void enc_x86_aes_expand(const uint8_t rpiks[ENC_AES_LANES][16], uint8_t schedules[ENC_AES_LANES][11 * 16]) {
    (void)rpiks; (void)schedules;
}
void enc_x86_rpi_chunk(const uint8_t schedule[11 * 16], uint32_t first, uint8_t *out) { (void)schedule; (void)first; (void)out; }
void enc_x86_rpi_chunk_vaes(const uint8_t schedule[11 * 16], uint32_t first, uint8_t *out) { (void)schedule; (void)first; (void)out; }
#endif
