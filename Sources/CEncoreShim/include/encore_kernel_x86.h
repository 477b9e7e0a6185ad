/* Private: the matching kernel's AES with x86-64 AES-NI. */
#ifndef ENCORE_KERNEL_X86_H
#define ENCORE_KERNEL_X86_H

#include <stdint.h>

/* 1 when this CPU has AES-NI, SSE4.1 and SSSE3. */
int enc_x86_supported(void);
/* The RPIs of intervals start ..< start + count (count <= 144). */
void enc_x86_rpis(const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out);

#endif
