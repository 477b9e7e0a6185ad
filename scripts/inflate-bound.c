/*
 * An experiment, not part of the build: how fast the export.bin members of
 * the matching benchmark's daily files inflate through zlib (what the
 * library uses) and through libdeflate (the fastest inflater in Debian,
 * outside the project's stack), and how long SHA-256 takes over them.
 * Issue 27's sparse target (15x the floor) is bounded by this: the sparse
 * run's CPU time is the inflate plus everything else the run measures, so
 * this tells how fast an inflater would have to be.
 *
 *   make lib cli && B=$(swift build -c release --show-bin-path)
 *   $B/encore-bench match-gen --keys 1000000 --dir /tmp/mb
 *   cc -O2 scripts/inflate-bound.c -lz -lcrypto -ldl -o /tmp/inflate-bound
 *   taskset -c 0 /tmp/inflate-bound /tmp/mb/match-day-*.zip
 *
 * libdeflate is loaded with dlopen (the runtime package libdeflate0 is
 * enough; its -dev package is not needed): without it only zlib is timed.
 */
#define _POSIX_C_SOURCE 200809L
#include <dlfcn.h>
#include <openssl/sha.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <zlib.h>

#define MAX_FILES 64
#define OUT_LIMIT (64u << 20)

typedef void *(*ld_alloc)(void);
typedef int (*ld_decompress)(void *, const void *, size_t, void *, size_t, size_t *);

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static uint32_t le32(const uint8_t *p) { return p[0] | p[1] << 8 | p[2] << 16 | (uint32_t)p[3] << 24; }
static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }

struct member { const uint8_t *data; size_t compressed, size; };

/* export.bin's deflate data, found by walking the local headers (the
 * benchmark's files have sizes in them: no data descriptors). */
static int find_member(const char *path, struct member *m) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    uint8_t *b = n > 0 ? malloc((size_t)n) : NULL;
    if (!b || fread(b, 1, (size_t)n, f) != (size_t)n) { fclose(f); free(b); return -1; }
    fclose(f);
    size_t off = 0, len = (size_t)n;
    while (off + 30 <= len && le32(b + off) == 0x04034b50) {
        size_t name = le16(b + off + 26), extra = le16(b + off + 28), cs = le32(b + off + 18);
        size_t data = off + 30 + name + extra;
        if (data + cs > len) break;
        if (name == 10 && memcmp(b + off + 30, "export.bin", 10) == 0) {
            *m = (struct member){b + data, cs, le32(b + off + 22)};
            return m->size <= OUT_LIMIT ? 0 : -1;
        }
        off = data + cs;
    }
    free(b);
    return -1;
}

int main(int argc, char **argv) {
    struct member m[MAX_FILES];
    int n = argc - 1;
    if (n < 1 || n > MAX_FILES) { fprintf(stderr, "usage: %s FILE.zip...\n", argv[0]); return 2; }
    size_t total = 0;
    for (int i = 0; i < n; i++) {
        if (find_member(argv[i + 1], &m[i]) != 0) { fprintf(stderr, "%s: no export.bin\n", argv[i + 1]); return 1; }
        total += m[i].size;
    }
    void *lib = dlopen("libdeflate.so.0", RTLD_NOW);
    ld_alloc alloc = lib ? (ld_alloc)(uintptr_t)dlsym(lib, "libdeflate_alloc_decompressor") : NULL;
    ld_decompress decompress = lib ? (ld_decompress)(uintptr_t)dlsym(lib, "libdeflate_deflate_decompress") : NULL;
    void *d = alloc && decompress ? alloc() : NULL;
    uint8_t *out = malloc(OUT_LIMIT), md[32];
    if (!out) return 1;

    double best_zlib = 1e9, best_ld = 1e9, best_sha = 1e9;
    for (int round = 0; round < 9; round++) {
        double t0 = now();
        for (int i = 0; i < n; i++) {
            z_stream z;
            memset(&z, 0, sizeof z);
            if (inflateInit2(&z, -15) != Z_OK) return 1;
            z.next_in = (Bytef *)(uintptr_t)m[i].data;
            z.avail_in = (uInt)m[i].compressed;
            z.next_out = out;
            z.avail_out = OUT_LIMIT;
            int rc = inflate(&z, Z_FINISH);
            inflateEnd(&z);
            if (rc != Z_STREAM_END || z.total_out != m[i].size) { fprintf(stderr, "zlib failed\n"); return 1; }
        }
        double t1 = now();
        for (int i = 0; d && i < n; i++) {
            size_t got = 0;
            if (decompress(d, m[i].data, m[i].compressed, out, OUT_LIMIT, &got) != 0 || got != m[i].size) {
                fprintf(stderr, "libdeflate failed\n");
                return 1;
            }
        }
        double t2 = now();
        for (int i = 0; i < n; i++) SHA256(out, m[i].size, md);
        double t3 = now();
        if (t1 - t0 < best_zlib) best_zlib = t1 - t0;
        if (t2 - t1 < best_ld) best_ld = t2 - t1;
        if (t3 - t2 < best_sha) best_sha = t3 - t2;
    }
    printf("%d members, %.1f MB inflated; best of 9, one core\n", n, (double)total / 1e6);
    printf("zlib %s inflate       %7.1f ms\n", zlibVersion(), best_zlib * 1e3);
    if (d) printf("libdeflate inflate       %7.1f ms  (%.2fx zlib's speed)\n", best_ld * 1e3, best_zlib / best_ld);
    else printf("libdeflate: not installed (libdeflate.so.0)\n");
    printf("SHA-256 (OpenSSL)        %7.1f ms\n", best_sha * 1e3);
    return 0;
}
