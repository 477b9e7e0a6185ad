#include "encore_shim.h"

#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* ---- thread-local last error ------------------------------------------ */

/* A pthread key (not _Thread_local) so the message of a thread that exits is
 * freed by the key's destructor instead of leaking. */
static pthread_key_t error_key;
static pthread_once_t error_once = PTHREAD_ONCE_INIT;

static void error_key_create(void) { (void)pthread_key_create(&error_key, free); }

void enc_shim_set_error(const char *message) {
    pthread_once(&error_once, error_key_create);
    char *old = pthread_getspecific(error_key);
    char *copy = NULL;
    if (message != NULL) {
        size_t n = strlen(message);
        copy = malloc(n + 1);
        if (copy != NULL) memcpy(copy, message, n + 1);
    }
    pthread_setspecific(error_key, copy);
    free(old);
}

const char *enc_shim_last_error(void) {
    pthread_once(&error_once, error_key_create);
    const char *m = pthread_getspecific(error_key);
    return m != NULL ? m : "";
}

/* ---- arena allocator for protobuf-c ----------------------------------- */

struct big_block { struct big_block *next; };

struct enc_arena {
    ProtobufCAllocator allocator;
    unsigned char *buffer;
    size_t capacity;
    size_t used;
    size_t limit;          /* bytes handed out between resets, at most */
    size_t handed_out;
    struct big_block *big; /* malloc'd fall-backs, freed on reset */
};

static void *arena_alloc(void *data, size_t size) {
    enc_arena *a = data;
    if (size > a->limit - a->handed_out) return NULL;
    a->handed_out += size;
    size_t aligned = (size + 15u) & ~(size_t)15u;
    if (aligned >= size && aligned <= a->capacity - a->used) {
        void *p = a->buffer + a->used;
        a->used += aligned;
        return p;
    }
    if (size > SIZE_MAX - sizeof(struct big_block) - 16u) return NULL;
    struct big_block *b = malloc(sizeof(struct big_block) + 16u + size);
    if (b == NULL) return NULL;
    b->next = a->big;
    a->big = b;
    return (unsigned char *)b + 16u;
}

static void arena_free(void *data, void *p) { (void)data; (void)p; }

enc_arena *enc_arena_new(size_t capacity, size_t limit) {
    enc_arena *a = calloc(1, sizeof(enc_arena));
    if (a == NULL) return NULL;
    a->limit = limit;
    a->buffer = malloc(capacity);
    if (a->buffer == NULL) { free(a); return NULL; }
    a->capacity = capacity;
    a->allocator.alloc = arena_alloc;
    a->allocator.free = arena_free;
    a->allocator.allocator_data = a;
    return a;
}

void enc_arena_reset(enc_arena *a) {
    if (a == NULL) return;
    struct big_block *b = a->big;
    while (b != NULL) { struct big_block *n = b->next; free(b); b = n; }
    a->big = NULL;
    a->used = 0;
    a->handed_out = 0;
}

void enc_arena_free(enc_arena *a) {
    if (a == NULL) return;
    enc_arena_reset(a);
    free(a->buffer);
    free(a);
}

ProtobufCAllocator *enc_arena_allocator(enc_arena *a) { return &a->allocator; }
