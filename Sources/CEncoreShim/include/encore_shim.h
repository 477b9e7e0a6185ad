/* Private helpers of libencore written in C because Swift has no direct
 * equivalent. Nothing here is exported from libencore.so. */
#ifndef ENCORE_SHIM_H
#define ENCORE_SHIM_H

#include <stddef.h>
#include <protobuf-c/protobuf-c.h>

#include "encore_crc32.h"
#include "encore_kernel.h"
#include "encore_key_decode.h"
#include "encore_sighted.h"

/* Thread-local text of the last failure on the calling thread. */
void enc_shim_set_error(const char *message);
const char *enc_shim_last_error(void);

/* A bump allocator for protobuf-c: a message is unpacked into it and the
 * whole arena is reset afterwards, so decoding a key costs no malloc. Large
 * requests fall back to malloc and are released by the reset. At most
 * `limit` bytes are handed out between resets: beyond that allocation fails,
 * and so does the unpacking, so a small hostile message (say, of a million
 * empty unknown fields) cannot make protobuf-c allocate many times its size. */
typedef struct enc_arena enc_arena;
enc_arena *enc_arena_new(size_t capacity, size_t limit);
void enc_arena_free(enc_arena *arena);
void enc_arena_reset(enc_arena *arena);
/* A ProtobufCAllocator that allocates from the arena. */
ProtobufCAllocator *enc_arena_allocator(enc_arena *arena);

#endif
