/* CRC-32 (zip's, reflected 0xEDB88320) of long buffers with carry-less
 * multiplication (PCLMULQDQ): 64 bytes folded per step, several times
 * zlib 1.2's table-driven speed. Private to libencore. */
#ifndef ENCORE_CRC32_H
#define ENCORE_CRC32_H

#include <stddef.h>
#include <stdint.h>

/* Folds the longest prefix of data (a multiple of 16 bytes, at least 64)
 * into *crc, a CRC-32 in zlib's convention (crc32(0, NULL, 0) == 0 to
 * start), and returns how many bytes it took: 0 when the CPU has no
 * PCLMULQDQ or len < 64. The caller finishes the rest with zlib's crc32. */
size_t enc_crc32_bulk(uint32_t *crc, const uint8_t *data, size_t len);

#endif
