/* Private to CEncoreShim: SHA-256 with the SHA extensions (SHA-NI), the
 * parts shared by HKDF (encore_hkdf_x86.c) and long-message hashing
 * (encore_sha256_x86.c). Included only inside `#if defined(__x86_64__)`,
 * after TARGET is defined. SHA-NI's round instruction waits for the one
 * before it, so one message at a time leaves the unit mostly idle: every
 * user here works on several independent messages ("lanes") at once, their
 * rounds interleaved in one instruction stream. */
#ifndef ENCORE_SHA_X86_ROUNDS_H
#define ENCORE_SHA_X86_ROUNDS_H

#include <immintrin.h>
#include <stdint.h>

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

/* Defines `static void name(state *s, const block *b)`, which compresses
 * block b[l] into state s[l] for each of `lanes` lanes, the rounds of all
 * lanes interleaved. `unroll` is a pragma for the loop over the 16 groups of
 * four rounds: unrolled, one or two lanes keep everything in registers;
 * four lanes need the loop rolled, or they spill. */
#define ENC_SHA_COMPRESS(name, lanes, unroll)                                                                     \
    TARGET static inline void name(state *s, const block *b) {                                                   \
        __m128i m[lanes][4], s0[lanes], s1[lanes], msg[lanes];                                                   \
        for (int l = 0; l < lanes; l++) {                                                                        \
            s0[l] = s[l].abef; s1[l] = s[l].cdgh;                                                                \
            for (int i = 0; i < 4; i++) m[l][i] = b[l].w[i];                                                     \
        }                                                                                                        \
        unroll for (int g = 0; g < 16; g++) {                                                                    \
            const __m128i k = _mm_loadu_si128((const __m128i *)(K + 4 * g));                                     \
            for (int l = 0; l < lanes; l++) {                                                                    \
                msg[l] = _mm_add_epi32(m[l][g & 3], k);                                                          \
                s1[l] = _mm_sha256rnds2_epu32(s1[l], s0[l], msg[l]);                                             \
            }                                                                                                    \
            if (g >= 3 && g <= 14)                                                                               \
                for (int l = 0; l < lanes; l++) {                                                                \
                    __m128i t = _mm_alignr_epi8(m[l][g & 3], m[l][(g - 1) & 3], 4);                              \
                    m[l][(g + 1) & 3] = _mm_sha256msg2_epu32(_mm_add_epi32(m[l][(g + 1) & 3], t), m[l][g & 3]);  \
                }                                                                                                \
            for (int l = 0; l < lanes; l++) {                                                                    \
                msg[l] = _mm_shuffle_epi32(msg[l], 0x0E);                                                        \
                s0[l] = _mm_sha256rnds2_epu32(s0[l], s1[l], msg[l]);                                             \
            }                                                                                                    \
            if (g >= 1 && g <= 12)                                                                               \
                for (int l = 0; l < lanes; l++) m[l][(g - 1) & 3] = _mm_sha256msg1_epu32(m[l][(g - 1) & 3], m[l][g & 3]); \
        }                                                                                                        \
        for (int l = 0; l < lanes; l++) {                                                                        \
            s[l].abef = _mm_add_epi32(s[l].abef, s0[l]);                                                         \
            s[l].cdgh = _mm_add_epi32(s[l].cdgh, s1[l]);                                                         \
        }                                                                                                        \
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

static const uint32_t IV[8] = {0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19};

TARGET static state initial(void) {
    return from_words(_mm_loadu_si128((const __m128i *)IV), _mm_loadu_si128((const __m128i *)(IV + 4)));
}

#endif
