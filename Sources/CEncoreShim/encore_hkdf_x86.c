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

static const uint32_t K[64] = {
    0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
    0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
    0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
    0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
    0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
    0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
    0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
    0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

/* A SHA-256 state as sha256rnds2 wants it: (A,B,E,F) and (C,D,G,H). */
typedef struct { __m128i abef, cdgh; } state;
/* A message block as 16 native 32-bit words, four per register. */
typedef struct { __m128i w[4]; } block;

/* Compresses one block into each of the LANES states: the rounds of all lanes are
 * interleaved (the loops over lanes are unrolled by the compiler). */
#define LANES ENC_HKDF_LANES
TARGET static inline void compress(state *s, const block *b) {
    __m128i m[LANES][4], s0[LANES], s1[LANES], msg[LANES];
    for (int l = 0; l < LANES; l++) {
        s0[l] = s[l].abef; s1[l] = s[l].cdgh;
        for (int i = 0; i < 4; i++) m[l][i] = b[l].w[i];
    }
    for (int g = 0; g < 16; g++) {
        const __m128i k = _mm_loadu_si128((const __m128i *)(K + 4 * g));
        for (int l = 0; l < LANES; l++) {
            msg[l] = _mm_add_epi32(m[l][g & 3], k);
            s1[l] = _mm_sha256rnds2_epu32(s1[l], s0[l], msg[l]);
        }
        if (g >= 3 && g <= 14)
            for (int l = 0; l < LANES; l++) {
                __m128i t = _mm_alignr_epi8(m[l][g & 3], m[l][(g - 1) & 3], 4);
                m[l][(g + 1) & 3] = _mm_sha256msg2_epu32(_mm_add_epi32(m[l][(g + 1) & 3], t), m[l][g & 3]);
            }
        for (int l = 0; l < LANES; l++) {
            msg[l] = _mm_shuffle_epi32(msg[l], 0x0E);
            s0[l] = _mm_sha256rnds2_epu32(s0[l], s1[l], msg[l]);
        }
        if (g >= 1 && g <= 12)
            for (int l = 0; l < LANES; l++) m[l][(g - 1) & 3] = _mm_sha256msg1_epu32(m[l][(g - 1) & 3], m[l][g & 3]);
    }
    for (int l = 0; l < LANES; l++) {
        s[l].abef = _mm_add_epi32(s[l].abef, s0[l]);
        s[l].cdgh = _mm_add_epi32(s[l].cdgh, s1[l]);
    }
}

/* The state as words (a,b,c,d) and (e,f,g,h): the digest, and also the
 * first eight message words of a block that starts with it. */
TARGET static inline void words(state s, __m128i *abcd, __m128i *efgh) {
    __m128i feba = _mm_shuffle_epi32(s.abef, 0x1B), dchg = _mm_shuffle_epi32(s.cdgh, 0xB1);
    *abcd = _mm_blend_epi16(feba, dchg, 0xF0);
    *efgh = _mm_alignr_epi8(dchg, feba, 8);
}

TARGET static inline state from_words(__m128i abcd, __m128i efgh) {
    __m128i cdab = _mm_shuffle_epi32(abcd, 0xB1), hgfe = _mm_shuffle_epi32(efgh, 0x1B);
    return (state){_mm_alignr_epi8(cdab, hgfe, 8), _mm_blend_epi16(hgfe, cdab, 0xF0)};
}

/* Big-endian bytes <-> native words, four words at a time. */
TARGET static inline __m128i bswap32x4(__m128i v) {
    return _mm_shuffle_epi8(v, _mm_set_epi8(12, 13, 14, 15, 8, 9, 10, 11, 4, 5, 6, 7, 0, 1, 2, 3));
}

/* The block of an HMAC's outer hash (or any 32-byte message after one
 * 64-byte block): the digest, padding, and the length of 96 bytes. */
TARGET static inline block after_digest(state inner) {
    block b;
    words(inner, &b.w[0], &b.w[1]);
    b.w[2] = _mm_setr_epi32((int)0x80000000, 0, 0, 0);
    b.w[3] = _mm_setr_epi32(0, 0, 0, (64 + 32) * 8);
    return b;
}

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

TARGET static state initial(void) {
    return from_words(_mm_loadu_si128((const __m128i *)IV), _mm_loadu_si128((const __m128i *)(IV + 4)));
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
