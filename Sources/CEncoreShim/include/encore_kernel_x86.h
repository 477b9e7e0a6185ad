/* Private: the matching kernel's crypto with x86-64 instructions (AES-NI,
 * VAES, SHA-NI), each checked at run time by the kernel before use. */
#ifndef ENCORE_KERNEL_X86_H
#define ENCORE_KERNEL_X86_H

#include <stddef.h>
#include <stdint.h>

/* 1 when this CPU has AES-NI, SSE4.1 and SSSE3. */
int enc_x86_supported(void);
/* 1 when it also has VAES and AVX2, and the OS saves the ymm registers. */
int enc_x86_vaes_supported(void);
/* 1 when this CPU has AVX2 and the OS saves the ymm registers. */
int enc_x86_avx2_supported(void);
/* 1 when this CPU has PCLMULQDQ and SSE4.1 (the CRC-32 of encore_crc32.h). */
int enc_x86_pclmul_supported(void);

/* RPIs are derived in chunks of this many intervals. */
#define ENC_RPI_CHUNK 16
/* The AES-128 key schedules (11 round keys) of ENC_AES_LANES RPIKs. */
#define ENC_AES_LANES 4
void enc_x86_aes_expand(const uint8_t rpiks[ENC_AES_LANES][16], uint8_t schedules[ENC_AES_LANES][11 * 16]);
/* The RPIs of intervals first ..< first + ENC_RPI_CHUNK into out, with
 * AES-NI or with VAES. */
void enc_x86_rpi_chunk(const uint8_t schedule[11 * 16], uint32_t first, uint8_t *out);
void enc_x86_rpi_chunk_vaes(const uint8_t schedule[11 * 16], uint32_t first, uint8_t *out);

/* The prefilter's test (see encore_kernel.c) of the ENC_RPI_CHUNK RPIs at
 * `rpis` with AVX2: bit j is set when RPI j may be held. */
uint32_t enc_x86_filter_chunk(const uint64_t *words, unsigned shift, const uint8_t *rpis);

/* Keys whose RPIKs enc_x86_rpiks derives in one call. */
#define ENC_HKDF_LANES 4
/* 1 when this CPU has the SHA extensions (and what enc_x86_supported needs). */
int enc_x86_sha_supported(void);
/* Fills the HMAC pad states of HKDF's empty salt, for enc_x86_rpiks. */
void enc_x86_hkdf_prepare(uint32_t salt_pads[16]);
/* The RPIKs of ENC_HKDF_LANES TEKs (16 bytes each). */
void enc_x86_rpiks(const uint32_t salt_pads[16], const uint8_t *const teks[ENC_HKDF_LANES],
                   uint8_t rpiks[ENC_HKDF_LANES][16]);

/* The SHA-256 digests of two messages, hashed side by side (SHA-NI). */
void enc_x86_sha256_pair(const uint8_t *const data[2], const size_t len[2], uint8_t digest[2][32]);

#endif
