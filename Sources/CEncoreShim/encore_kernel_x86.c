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

/* Leaf 7's ebx (bit 5: AVX2) and ecx (bit 9: VAES) when the OS saves the
 * ymm registers, else 0 and 0. */
static void ymm_features(unsigned *ebx, unsigned *ecx) {
    unsigned a, b, c, d;
    *ebx = *ecx = 0;
    if (__get_cpuid_max(0, NULL) < 7) return;
    if (!__get_cpuid(1, &a, &b, &c, &d) || !((c >> 27) & 1)) return;    /* OSXSAVE */
    unsigned lo, hi;
    __asm__("xgetbv" : "=a"(lo), "=d"(hi) : "c"(0));
    if ((lo & 6) != 6) return;                                           /* the OS saves ymm */
    __cpuid_count(7, 0, a, b, c, d);
    *ebx = b;
    *ecx = c;
}

int enc_x86_avx2_supported(void) {
    unsigned b, c;
    ymm_features(&b, &c);
    return (b >> 5) & 1;
}

int enc_x86_vaes_supported(void) {
    unsigned b, c;
    if (!enc_x86_supported()) return 0;
    ymm_features(&b, &c);
    return ((b >> 5) & 1) && ((c >> 9) & 1);                             /* AVX2, VAES */
}

/* ---- The prefilter's test, four RPIs at a time ------------------------- */

#define TARGET_AVX2 __attribute__((target("avx2")))

/* The scalar test of encore_kernel.c on four RPIs at once: each RPI's
 * first 8 bytes pick a word (top bits) and three bits in it (low 18). The
 * RPIs sit 16 bytes apart, so two loads and an unpack collect the first
 * halves of four, in the lane order j, j+2, j+1, j+3. The four words are
 * loaded one by one: vpgatherqq was slower on the Zen 3 this was measured
 * on (look-ups 122 ms against 80 ms per 144 M RPIs, bench's kernel alone). */
TARGET_AVX2 uint32_t enc_x86_filter_chunk(const uint64_t *words, unsigned shift, const uint8_t *rpis) {
    const __m256i one = _mm256_set1_epi64x(1), low6 = _mm256_set1_epi64x(63);
    const __m128i count = _mm_cvtsi32_si128((int)shift);
    uint32_t held = 0;
    for (int j = 0; j < ENC_RPI_CHUNK; j += 4) {
        __m256i a = _mm256_loadu_si256((const __m256i *)(const void *)(rpis + 16 * j));
        __m256i b = _mm256_loadu_si256((const __m256i *)(const void *)(rpis + 16 * j + 32));
        __m256i lo = _mm256_unpacklo_epi64(a, b);
        uint64_t at[4];
        _mm256_storeu_si256((__m256i *)(void *)at, _mm256_srl_epi64(lo, count));
        __m256i word = _mm256_setr_epi64x((long long)words[at[0]], (long long)words[at[1]], (long long)words[at[2]], (long long)words[at[3]]);
        __m256i mask = _mm256_or_si256(_mm256_or_si256(_mm256_sllv_epi64(one, _mm256_and_si256(lo, low6)),
                                                       _mm256_sllv_epi64(one, _mm256_and_si256(_mm256_srli_epi64(lo, 6), low6))),
                                       _mm256_sllv_epi64(one, _mm256_and_si256(_mm256_srli_epi64(lo, 12), low6)));
        __m256i all = _mm256_cmpeq_epi64(_mm256_andnot_si256(word, mask), _mm256_setzero_si256());
        uint32_t lanes = (uint32_t)_mm256_movemask_pd(_mm256_castsi256_pd(all));
        held |= ((lanes & 9) | ((lanes & 2) << 1) | ((lanes & 4) >> 1)) << j;   /* back to j, j+1, j+2, j+3 */
    }
    return held;
}

#else
int enc_x86_supported(void) { return 0; }
int enc_x86_vaes_supported(void) { return 0; }
int enc_x86_avx2_supported(void) { return 0; }
int enc_x86_pclmul_supported(void) { return 0; }
uint32_t enc_x86_filter_chunk(const uint64_t *words, unsigned shift, const uint8_t *rpis) {
    (void)words; (void)shift; (void)rpis;
    return 0;
}
void enc_x86_aes_expand(const uint8_t rpiks[ENC_AES_LANES][16], uint8_t schedules[ENC_AES_LANES][11 * 16]) {
    (void)rpiks; (void)schedules;
}
void enc_x86_rpi_chunk(const uint8_t schedule[11 * 16], uint32_t first, uint8_t *out) { (void)schedule; (void)first; (void)out; }
void enc_x86_rpi_chunk_vaes(const uint8_t schedule[11 * 16], uint32_t first, uint8_t *out) { (void)schedule; (void)first; (void)out; }
#endif
