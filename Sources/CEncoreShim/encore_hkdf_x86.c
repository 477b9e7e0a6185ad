/* RPIK = HKDF-SHA256(TEK, salt = none, info = "EN-RPIK", 16 bytes) for
 * several keys at once with the SHA extensions (SHA-NI), checked at run
 * time; encore_kernel.c falls back to OpenSSL without them.
 *
 * Why by hand: one HKDF is six SHA-256 compressions in a chain, and each
 * compression is a chain of sha256rnds2 instructions, so one key at a time
 * the SHA unit mostly waits for the previous instruction's result (OpenSSL
 * is latency-bound here too). Working on ENC_HKDF_LANES independent keys in
 * the same instruction stream fills those waits. The messages are all
 * short, so every block is built in registers: no buffers, no padding code.
 * Tests compare the result with OpenSSL's HKDF. */
#include "encore_kernel_x86.h"

#if defined(__x86_64__)
#include <cpuid.h>
#include <immintrin.h>

#define TARGET __attribute__((target("sha,sse4.1,ssse3")))

#include "encore_sha_x86_rounds.h"

#define LANES ENC_HKDF_LANES
ENC_SHA_COMPRESS(compress, LANES, )

/* The block of an HMAC's outer hash (or any 32-byte message after one
 * 64-byte block): the digest, padding, and the length of 96 bytes. */
TARGET static inline block after_digest(state inner) {
    block b;
    words(inner, &b.w[0], &b.w[1]);
    b.w[2] = _mm_setr_epi32((int)0x80000000, 0, 0, 0);
    b.w[3] = _mm_setr_epi32(0, 0, 0, (64 + 32) * 8);
    return b;
}

/* The state after the HMAC pad block of a 32-byte key (given as words). */
TARGET static void pad_states(const __m128i key[LANES][2], uint32_t pad, state *out) {
    block b[LANES];
    const __m128i p = _mm_set1_epi32((int)pad);
    for (int l = 0; l < LANES; l++) {
        out[l] = initial();
        b[l].w[0] = _mm_xor_si128(key[l][0], p);
        b[l].w[1] = _mm_xor_si128(key[l][1], p);
        b[l].w[2] = p;
        b[l].w[3] = p;
    }
    compress(out, b);
}

/* The HMAC pad states of HKDF's salt (no salt: 32 zero bytes) are the same
 * for every key: computed once per context. */
TARGET void enc_x86_hkdf_prepare(uint32_t salt_pads[16]) {
    __m128i zero[LANES][2];
    state in[LANES], out[LANES];
    for (int l = 0; l < LANES; l++) zero[l][0] = zero[l][1] = _mm_setzero_si128();
    pad_states(zero, 0x36363636, in);
    pad_states(zero, 0x5c5c5c5c, out);
    _mm_storeu_si128((__m128i *)salt_pads, in[0].abef);
    _mm_storeu_si128((__m128i *)(salt_pads + 4), in[0].cdgh);
    _mm_storeu_si128((__m128i *)(salt_pads + 8), out[0].abef);
    _mm_storeu_si128((__m128i *)(salt_pads + 12), out[0].cdgh);
}

TARGET void enc_x86_rpiks(const uint32_t salt_pads[16], const uint8_t *const teks[ENC_HKDF_LANES],
                          uint8_t rpiks[ENC_HKDF_LANES][16]) {
    const state salt_in = {_mm_loadu_si128((const __m128i *)salt_pads), _mm_loadu_si128((const __m128i *)(salt_pads + 4))};
    const state salt_out = {_mm_loadu_si128((const __m128i *)(salt_pads + 8)), _mm_loadu_si128((const __m128i *)(salt_pads + 12))};
    state s[LANES], in[LANES], out[LANES];
    block b[LANES];

    /* Extract: PRK = HMAC(salt, TEK). */
    for (int l = 0; l < LANES; l++) {
        s[l] = salt_in;
        b[l].w[0] = bswap32x4(_mm_loadu_si128((const __m128i *)teks[l]));
        b[l].w[1] = _mm_setr_epi32((int)0x80000000, 0, 0, 0);
        b[l].w[2] = _mm_setzero_si128();
        b[l].w[3] = _mm_setr_epi32(0, 0, 0, (64 + 16) * 8);
    }
    compress(s, b);
    for (int l = 0; l < LANES; l++) { b[l] = after_digest(s[l]); s[l] = salt_out; }
    compress(s, b);

    /* Expand: T(1) = HMAC(PRK, "EN-RPIK" || 0x01); the RPIK is its first half. */
    __m128i prk[LANES][2];
    for (int l = 0; l < LANES; l++) words(s[l], &prk[l][0], &prk[l][1]);
    pad_states(prk, 0x36363636, in);
    pad_states(prk, 0x5c5c5c5c, out);
    for (int l = 0; l < LANES; l++) {
        /* "EN-R" "PIK\x01" as big-endian words. */
        b[l].w[0] = _mm_setr_epi32(0x454e2d52, 0x50494b01, (int)0x80000000, 0);
        b[l].w[1] = _mm_setzero_si128();
        b[l].w[2] = _mm_setzero_si128();
        b[l].w[3] = _mm_setr_epi32(0, 0, 0, (64 + 8) * 8);
    }
    compress(in, b);
    for (int l = 0; l < LANES; l++) b[l] = after_digest(in[l]);
    compress(out, b);
    for (int l = 0; l < LANES; l++) {
        __m128i abcd, efgh;
        words(out[l], &abcd, &efgh);
        _mm_storeu_si128((__m128i *)rpiks[l], bswap32x4(abcd));
    }
}

int enc_x86_sha_supported(void) {
    unsigned a, b, c, d;
    if (!enc_x86_supported()) return 0;  /* SSE4.1 and SSSE3 */
    if (__get_cpuid_max(0, NULL) < 7) return 0;
    __cpuid_count(7, 0, a, b, c, d);
    return (b >> 29) & 1;
}

#else
int enc_x86_sha_supported(void) { return 0; }
void enc_x86_hkdf_prepare(uint32_t salt_pads[16]) { (void)salt_pads; }
void enc_x86_rpiks(const uint32_t salt_pads[16], const uint8_t *const teks[ENC_HKDF_LANES], uint8_t rpiks[ENC_HKDF_LANES][16]) {
    (void)salt_pads; (void)teks; (void)rpiks;
}
#endif
