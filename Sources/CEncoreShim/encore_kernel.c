/* See encore_kernel.h. The SHA-256 low-level API is deprecated in OpenSSL 3
 * but is the only way to reuse HMAC pad states, which halves HKDF's cost. */
#define OPENSSL_SUPPRESS_DEPRECATED
#include "encore_kernel.h"
#include "encore_kernel_x86.h"

#include <openssl/evp.h>
#include <openssl/sha.h>
#include <stdlib.h>
#include <string.h>

_Static_assert(ENC_AES_LANES == ENC_HKDF_LANES, "one AES key schedule per HKDF lane");
_Static_assert(144 % ENC_RPI_CHUNK == 0, "a key's 144 RPIs are whole chunks (the prefilter tests chunks)");

/* ---- Prefilter: a blocked Bloom filter ---------------------------------- */

/* Each RPI sets three bits of one 64-bit word: the word from the top bits
 * of lo (its first 8 bytes), the bits from its low 18 (RPIs are random,
 * so these are independent). With 32 to 64 bits per RPI a derived RPI
 * that is not held passes once in 2 300 to 8 000 tests; one bit per RPI
 * passed once in 64 to 128, and the index's look-up after it (cache misses
 * in a dense store) then cost more than the AES. One load, one mask test,
 * and a branch that is almost never taken. */
typedef struct { uint64_t *words; unsigned shift; } rpi_filter;

static int filter_init(rpi_filter *f, uint64_t rpis) {
    /* At least 4096 bits; at most 2^24, so the word's index (the top
     * bits - 6 bits of lo) never reaches the 18 low bits the mask uses. */
    unsigned bits = 12;
    while (bits < 24 && ((uint64_t)1 << bits) < rpis * 32) bits++;
    f->shift = 64 - (bits - 6);
    f->words = calloc((size_t)1 << (bits - 6), sizeof(uint64_t));
    return f->words != NULL;
}

static inline uint64_t filter_mask(uint64_t lo) {
    return ((uint64_t)1 << (lo & 63)) | ((uint64_t)1 << ((lo >> 6) & 63)) | ((uint64_t)1 << ((lo >> 12) & 63));
}

static void filter_add(rpi_filter *f, uint64_t lo) { f->words[lo >> f->shift] |= filter_mask(lo); }

static inline int filter_may_hold(const rpi_filter *f, uint64_t lo) {
    uint64_t m = filter_mask(lo);
    return (f->words[lo >> f->shift] & m) == m;
}

/* ---- RPI index: open addressing on the first 8 bytes (RPIs are random) -- */

struct enc_rpi_index {
    rpi_filter filter;
    uint64_t mask;
    uint64_t *lo;       /* first 8 bytes of the RPI, 0 marks an empty slot... */
    uint64_t *hi;       /* ...unless used[] says otherwise */
    uint32_t *value;
    uint8_t *used;
    uint32_t count;     /* distinct RPIs */
};

static uint64_t load64(const uint8_t *p) { uint64_t v; memcpy(&v, p, 8); return v; }

enc_rpi_index *enc_rpi_index_new(const uint8_t *rpis, uint32_t count, uint32_t *ids) {
    enc_rpi_index *x = calloc(1, sizeof *x);
    if (x == NULL) return NULL;
    uint64_t size = 16;
    while (size < (uint64_t)count * 2) size <<= 1;
    x->mask = size - 1;
    x->lo = calloc(size, sizeof(uint64_t));
    x->hi = calloc(size, sizeof(uint64_t));
    x->value = calloc(size, sizeof(uint32_t));
    x->used = calloc(size, 1);
    if (!x->lo || !x->hi || !x->value || !x->used || !filter_init(&x->filter, count)) { enc_rpi_index_free(x); return NULL; }
    for (uint32_t i = 0; i < count; i++) {
        uint64_t lo = load64(rpis + 16 * (size_t)i), hi = load64(rpis + 16 * (size_t)i + 8);
        uint64_t s = (lo ^ (lo >> 29)) & x->mask;
        while (x->used[s] && !(x->lo[s] == lo && x->hi[s] == hi)) s = (s + 1) & x->mask;
        if (!x->used[s]) { x->used[s] = 1; x->lo[s] = lo; x->hi[s] = hi; x->value[s] = x->count++; }
        if (ids) ids[i] = x->value[s];
        filter_add(&x->filter, lo);
    }
    return x;
}

uint32_t enc_rpi_index_count(const enc_rpi_index *x) { return x->count; }

void enc_rpi_index_free(enc_rpi_index *x) {
    if (x == NULL) return;
    free(x->lo); free(x->hi); free(x->value); free(x->used); free(x->filter.words); free(x);
}

/* The table's look-up, after a filter said the RPI may be there. */
static int index_probe(const enc_rpi_index *x, const uint8_t *rpi, uint32_t *value) {
    uint64_t lo = load64(rpi), hi = load64(rpi + 8);
    uint64_t s = (lo ^ (lo >> 29)) & x->mask;
    while (x->used[s]) {
        if (x->lo[s] == lo && x->hi[s] == hi) { *value = x->value[s]; return 1; }
        s = (s + 1) & x->mask;
    }
    return 0;
}

/* ---- Day filters: the index's filter cut by day (see encore_kernel.h) --- */

/* Days, not more: a store spanning more gets no day filters. */
#define ENC_MAX_DAYS 4096

struct enc_day_filters {
    int64_t first;          /* the day of day[0] */
    uint32_t n;
    rpi_filter *day;
};

static int64_t floor_div(int64_t a, int64_t b) { return a / b - (a % b < 0 ? 1 : 0); }

/* The days whose filters hold a sighting of interval v: those b with
 * 144*b - margin <= v < 144*b + 288 + margin. */
static void days_of(int64_t v, int64_t margin, int64_t *lo, int64_t *hi) {
    *lo = floor_div(v - 288 - margin, 144) + 1;
    *hi = floor_div(v + margin, 144);
}

void enc_day_filters_free(enc_day_filters *d) {
    if (d == NULL) return;
    if (d->day != NULL) for (uint32_t i = 0; i < d->n; i++) free(d->day[i].words);
    free(d->day);
    free(d);
}

enc_day_filters *enc_day_filters_new(const enc_rpi_index *x, const uint8_t *rpis, const int64_t *intervals, uint32_t count,
                                     int64_t drift) {
    if (x == NULL || count == 0 || rpis == NULL || intervals == NULL || drift < 0 || drift > 144) return NULL;
    for (uint32_t i = 0; i < count; i++) {
        if (intervals[i] < 0 || intervals[i] > (int64_t)UINT32_MAX - 1024) return NULL;   /* jobs carry 32-bit starts */
        if (i > 0 && intervals[i] < intervals[i - 1]) return NULL;
    }
    const int64_t margin = drift + 1;   /* a filter may hold more than needed, never less */
    int64_t first, last, unused;
    days_of(intervals[0], margin, &first, &unused);
    days_of(intervals[count - 1], margin, &unused, &last);
    if (last - first + 1 > ENC_MAX_DAYS) return NULL;
    enc_day_filters *d = calloc(1, sizeof *d);
    uint32_t *rpis_in_day = d ? calloc((size_t)(last - first + 1), sizeof(uint32_t)) : NULL;
    int64_t *counted_up_to = rpis_in_day ? malloc((size_t)(x->count ? x->count : 1) * sizeof(int64_t)) : NULL;
    if (counted_up_to == NULL) { free(rpis_in_day); enc_day_filters_free(d); return NULL; }
    d->first = first;
    d->n = (uint32_t)(last - first + 1);
    /* Distinct RPIs per day size its filter: intervals ascend, so a day
     * range never goes back and each (RPI, day) is counted once. */
    for (uint32_t r = 0; r < x->count; r++) counted_up_to[r] = first - 1;
    int ok = 1;
    for (uint32_t i = 0; i < count && ok; i++) {
        uint32_t id;
        if (!index_probe(x, rpis + 16 * (size_t)i, &id)) { ok = 0; break; }   /* not the index's sightings */
        int64_t lo, hi;
        days_of(intervals[i], margin, &lo, &hi);
        for (int64_t b = lo > counted_up_to[id] + 1 ? lo : counted_up_to[id] + 1; b <= hi; b++) rpis_in_day[b - first]++;
        if (hi > counted_up_to[id]) counted_up_to[id] = hi;
    }
    free(counted_up_to);
    d->day = ok ? calloc(d->n, sizeof(rpi_filter)) : NULL;
    for (uint32_t b = 0; d->day != NULL && b < d->n; b++) {
        if (!filter_init(&d->day[b], rpis_in_day[b])) ok = 0;
    }
    free(rpis_in_day);
    if (!ok || d->day == NULL) { enc_day_filters_free(d); return NULL; }
    for (uint32_t i = 0; i < count; i++) {
        int64_t lo, hi;
        days_of(intervals[i], margin, &lo, &hi);
        for (int64_t b = lo; b <= hi; b++) filter_add(&d->day[b - first], load64(rpis + 16 * (size_t)i));
    }
    return d;
}

/* The filter for a job starting at interval `start`: its day's, NULL when
 * no sighting is near that day (nothing can match), or the index's own
 * when there are no day filters. */
static const rpi_filter *filter_for(const enc_rpi_index *x, const enc_day_filters *d, uint32_t start) {
    if (d == NULL) return &x->filter;
    int64_t b = (int64_t)(start / 144) - d->first;
    return b >= 0 && b < (int64_t)d->n ? &d->day[b] : NULL;
}

/* ---- HKDF-SHA256 and AES-128: the CPU's instructions or OpenSSL --------- */

struct enc_rpi_ctx {
    int features;                        /* ENC_KERNEL_* the context uses */
    uint32_t salt_pads[16];              /* SHA-NI: HMAC pad states of the empty salt */
    SHA256_CTX salt_inner, salt_outer;   /* OpenSSL: the same */
    EVP_CIPHER_CTX *aes;
    uint8_t padded[144 * 16];            /* "EN-RPI" ‖ 0^6 ‖ ENIN (LE), per interval */
    uint32_t padded_start;               /* ENIN the padded blocks hold, or 0 */
    uint8_t out[144 * 16];
};

static void hmac_pads(const uint8_t *key, size_t len, SHA256_CTX *inner, SHA256_CTX *outer) {
    uint8_t block[64], ipad[64], opad[64];
    memset(block, 0, sizeof block);
    memcpy(block, key, len);
    for (int i = 0; i < 64; i++) { ipad[i] = block[i] ^ 0x36; opad[i] = block[i] ^ 0x5c; }
    SHA256_Init(inner); SHA256_Update(inner, ipad, 64);
    SHA256_Init(outer); SHA256_Update(outer, opad, 64);
}

static void hmac_with(const SHA256_CTX *inner, const SHA256_CTX *outer, const uint8_t *msg, size_t len, uint8_t mac[32]) {
    SHA256_CTX c = *inner;
    uint8_t h[32];
    SHA256_Update(&c, msg, len);
    SHA256_Final(h, &c);
    c = *outer;
    SHA256_Update(&c, h, 32);
    SHA256_Final(mac, &c);
}

int enc_kernel_features(void) {
    int f = 0;
    if (enc_x86_sha_supported()) f |= ENC_KERNEL_SHA_NI;
    if (enc_x86_supported()) f |= ENC_KERNEL_AES_NI;
    if (enc_x86_vaes_supported()) f |= ENC_KERNEL_VAES;
    if (enc_x86_avx2_supported()) f |= ENC_KERNEL_AVX2;
    return f;
}

void enc_sha256_pair(const uint8_t *a, size_t a_len, const uint8_t *b, size_t b_len, uint8_t a_digest[32], uint8_t b_digest[32]) {
    if (enc_x86_sha_supported()) {
        const uint8_t *data[2] = {a, b};
        const size_t len[2] = {a_len, b_len};
        uint8_t digest[2][32];
        enc_x86_sha256_pair(data, len, digest);
        memcpy(a_digest, digest[0], 32);
        memcpy(b_digest, digest[1], 32);
        return;
    }
    static const uint8_t none = 0;
    SHA256(a_len > 0 ? a : &none, a_len, a_digest);
    SHA256(b_len > 0 ? b : &none, b_len, b_digest);
}

enc_rpi_ctx *enc_rpi_ctx_new(void) { return enc_rpi_ctx_new_mode(ENC_KERNEL_ALL); }

enc_rpi_ctx *enc_rpi_ctx_new_mode(int allowed) {
    enc_rpi_ctx *c = calloc(1, sizeof *c);
    if (c == NULL) return NULL;
    c->features = allowed & enc_kernel_features();
    if (c->features & ENC_KERNEL_SHA_NI) enc_x86_hkdf_prepare(c->salt_pads);
    static const uint8_t zero[32] = {0};
    hmac_pads(zero, 32, &c->salt_inner, &c->salt_outer);
    c->aes = EVP_CIPHER_CTX_new();
    if (c->aes == NULL || EVP_EncryptInit_ex(c->aes, EVP_aes_128_ecb(), NULL, zero, NULL) != 1) {
        enc_rpi_ctx_free(c);
        return NULL;
    }
    EVP_CIPHER_CTX_set_padding(c->aes, 0);
    for (int j = 0; j < 144; j++) memcpy(c->padded + 16 * j, "EN-RPI", 6);
    return c;
}

void enc_rpi_ctx_free(enc_rpi_ctx *c) {
    if (c == NULL) return;
    EVP_CIPHER_CTX_free(c->aes);
    free(c);
}

int enc_rpi_ctx_features(const enc_rpi_ctx *c) { return c->features; }

/* The RPIKs of n <= ENC_HKDF_LANES keys. */
static void rpiks(enc_rpi_ctx *c, const uint8_t *const teks[], size_t n, uint8_t out[ENC_HKDF_LANES][16]) {
    if (c->features & ENC_KERNEL_SHA_NI) {
        const uint8_t *lanes[ENC_HKDF_LANES];
        for (size_t l = 0; l < ENC_HKDF_LANES; l++) lanes[l] = teks[l < n ? l : 0];
        enc_x86_rpiks(c->salt_pads, lanes, out);
        return;
    }
    /* OpenSSL's SHA-256 with reused pad states. */
    for (size_t l = 0; l < n; l++) {
        uint8_t prk[32], t1[32];
        SHA256_CTX inner, outer;
        hmac_with(&c->salt_inner, &c->salt_outer, teks[l], 16, prk);             /* extract */
        hmac_pads(prk, 32, &inner, &outer);
        hmac_with(&inner, &outer, (const uint8_t *)"EN-RPIK\x01", 8, t1);       /* expand, T(1) */
        memcpy(out[l], t1, 16);
    }
}

int enc_rpik(enc_rpi_ctx *c, const uint8_t tek[16], uint8_t out[16]) {
    uint8_t all[ENC_HKDF_LANES][16];
    rpiks(c, &tek, 1, all);
    memcpy(out, all[0], 16);
    return 0;
}

static int evp_rpis(enc_rpi_ctx *c, const uint8_t rpik[16], uint32_t start, uint32_t count) {
    if (c->padded_start != start || start == 0) {
        for (uint32_t j = 0; j < 144; j++) {
            uint32_t v = start + j;
            uint8_t le[4] = {(uint8_t)v, (uint8_t)(v >> 8), (uint8_t)(v >> 16), (uint8_t)(v >> 24)};
            memcpy(c->padded + 16 * j + 12, le, 4);
        }
        c->padded_start = start;
    }
    int n = 0;
    if (EVP_EncryptInit_ex(c->aes, NULL, NULL, rpik, NULL) != 1) return -1;
    if (EVP_EncryptUpdate(c->aes, c->out, &n, c->padded, (int)(16 * count)) != 1 || n != (int)(16 * count)) return -1;
    return 0;
}

/* Where look-ups of derived RPIs go (index NULL: none), and the filter
 * that screens them (NULL: nothing can match). */
typedef struct {
    const enc_rpi_index *index;
    const rpi_filter *filter;
    uint32_t job;
    enc_rpi_hit *hits;
    size_t max_hits;
    int64_t found;
} lookup;

/* Records a hit when the index holds RPI j of c->out. */
static inline void probe(const enc_rpi_ctx *c, lookup *to, uint32_t j) {
    uint32_t v;
    if (!index_probe(to->index, c->out + 16 * j, &v)) return;
    if ((size_t)to->found < to->max_hits) to->hits[to->found] = (enc_rpi_hit){to->job, j, v};
    to->found++;
}

/* Looks up the RPIs first ..< first + count of c->out. With AVX2 the
 * filter tests whole chunks (`first` is a multiple of ENC_RPI_CHUNK, so a
 * chunk never reads past the 144 RPIs c->out holds; bits past `count` are
 * dropped); without, one RPI at a time, which is faster in scalar code
 * than building the chunk's bits. */
static inline void look_up(const enc_rpi_ctx *c, lookup *to, uint32_t first, uint32_t count) {
    if (to->index == NULL || to->filter == NULL) return;
    if (!(c->features & ENC_KERNEL_AVX2)) {
        for (uint32_t j = first; j < first + count; j++)
            if (filter_may_hold(to->filter, load64(c->out + 16 * j))) probe(c, to, j);
        return;
    }
    for (uint32_t k = first; k < first + count; k += ENC_RPI_CHUNK) {
        uint32_t n = first + count - k < ENC_RPI_CHUNK ? first + count - k : ENC_RPI_CHUNK;
        uint32_t held = enc_x86_filter_chunk(to->filter->words, to->filter->shift, c->out + 16 * k) & (uint32_t)((1ull << n) - 1);
        for (; held != 0; held &= held - 1) probe(c, to, k + (uint32_t)__builtin_ctz(held));
    }
}

/* Derives the RPIs of intervals start ..< start + count (count <= 144) into
 * c->out and looks them up; `schedule` is the RPIK's AES key schedule when
 * the context uses the CPU's AES. With it a chunk's RPIs are looked up once
 * the next chunk is under way, so the look-ups overlap the AES. */
static inline int derive(enc_rpi_ctx *c, const uint8_t rpik[16], const uint8_t schedule[11 * 16], uint32_t start, uint32_t count,
                         lookup *to) {
    if (!(c->features & (ENC_KERNEL_AES_NI | ENC_KERNEL_VAES))) {
        if (evp_rpis(c, rpik, start, count) != 0) return -1;
        look_up(c, to, 0, count);
        return 0;
    }
    const int vaes = c->features & ENC_KERNEL_VAES;
    const uint32_t chunks = (count + ENC_RPI_CHUNK - 1) / ENC_RPI_CHUNK;   /* c->out holds 144 = 9 chunks */
    for (uint32_t k = 0; k < chunks; k++) {
        uint8_t *at = c->out + 16 * ENC_RPI_CHUNK * k;
        if (vaes) enc_x86_rpi_chunk_vaes(schedule, start + ENC_RPI_CHUNK * k, at);
        else enc_x86_rpi_chunk(schedule, start + ENC_RPI_CHUNK * k, at);
        if (k > 0) look_up(c, to, ENC_RPI_CHUNK * (k - 1), ENC_RPI_CHUNK);
    }
    if (chunks > 0) look_up(c, to, ENC_RPI_CHUNK * (chunks - 1), count - ENC_RPI_CHUNK * (chunks - 1));
    return 0;
}

/* The AES key schedules of up to ENC_AES_LANES RPIKs, when the context
 * uses the CPU's AES. */
static inline void schedules(const enc_rpi_ctx *c, uint8_t rpik[][16], uint8_t out[ENC_AES_LANES][11 * 16]) {
    if (c->features & (ENC_KERNEL_AES_NI | ENC_KERNEL_VAES)) enc_x86_aes_expand((const uint8_t(*)[16])rpik, out);
}

int enc_rpis(enc_rpi_ctx *c, const uint8_t rpik[16], uint32_t start, uint32_t count, uint8_t *out) {
    lookup none = {0};
    uint8_t keys[ENC_AES_LANES][16] = {{0}}, schedule[ENC_AES_LANES][11 * 16];
    memcpy(keys[0], rpik, 16);
    schedules(c, keys, schedule);
    if (count > 144 || derive(c, rpik, schedule[0], start, count, &none) != 0) return -1;
    memcpy(out, c->out, 16 * (size_t)count);
    return 0;
}

int64_t enc_match_keys(enc_rpi_ctx *c, const enc_rpi_index *index, const enc_day_filters *days, const enc_match_job *jobs,
                       size_t n, enc_rpi_hit *hits, size_t max_hits) {
    lookup to = {index, NULL, 0, hits, max_hits, 0};
    for (size_t i = 0; i < n; i += ENC_HKDF_LANES) {
        size_t m = n - i < ENC_HKDF_LANES ? n - i : ENC_HKDF_LANES;
        const uint8_t *teks[ENC_HKDF_LANES];
        uint8_t rpik[ENC_HKDF_LANES][16] = {{0}}, schedule[ENC_AES_LANES][11 * 16];  /* lanes past m: unused */
        for (size_t l = 0; l < m; l++) {
            if (jobs[i + l].count > 144 || i + l > UINT32_MAX) return -1;
            teks[l] = jobs[i + l].tek;
        }
        rpiks(c, teks, m, rpik);
        schedules(c, rpik, schedule);
        for (size_t l = 0; l < m; l++) {
            to.job = (uint32_t)(i + l);
            if (index != NULL) to.filter = filter_for(index, days, jobs[i + l].start);
            if (derive(c, rpik[l], schedule[l], jobs[i + l].start, jobs[i + l].count, &to) != 0) return -1;
        }
    }
    return to.found;
}
