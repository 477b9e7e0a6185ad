/* See encore_sighted.h. Ranks (how many sighted intervals lie below an
 * interval) come from a table over the sighted span when it is at most
 * DENSE_LIMIT intervals, one read where a binary search takes a dozen;
 * sightings spread wider (a clock set years off) fall back to the binary
 * search rather than a table of that size. */
#include "encore_sighted.h"

#include <stdlib.h>
#include <string.h>

#define DENSE_LIMIT ((int64_t)1 << 16)   /* 455 days */

struct enc_sighted {
    int64_t *intervals;
    size_t count;
    int64_t base;        /* intervals[0] */
    uint32_t *ranks;     /* ranks[i] = rank(base + i), or NULL */
    size_t ranks_count;
};

enc_sighted *enc_sighted_new(const int64_t *intervals, size_t count) {
    enc_sighted *s = calloc(1, sizeof *s);
    if (s == NULL) return NULL;
    s->intervals = malloc((count ? count : 1) * sizeof(int64_t));
    if (s->intervals == NULL) { enc_sighted_free(s); return NULL; }
    if (count) memcpy(s->intervals, intervals, count * sizeof(int64_t));
    s->count = count;
    if (count == 0) return s;
    s->base = intervals[0];
    /* Ascending and distinct, so the span is at least count - 1; the
     * subtraction cannot overflow for intervals of real times. */
    if (intervals[count - 1] - s->base < DENSE_LIMIT) {
        s->ranks_count = (size_t)(intervals[count - 1] - s->base) + 2;
        s->ranks = malloc(s->ranks_count * sizeof(uint32_t));
        if (s->ranks == NULL) { enc_sighted_free(s); return NULL; }
        size_t next = 0;
        for (size_t i = 0; i < s->ranks_count; i++) {
            s->ranks[i] = (uint32_t)next;
            if (next < count && intervals[next] == s->base + (int64_t)i) next++;
        }
    }
    return s;
}

void enc_sighted_free(enc_sighted *s) {
    if (s == NULL) return;
    free(s->intervals);
    free(s->ranks);
    free(s);
}

/* How many sighted intervals lie below `interval`. */
static inline size_t rank(const enc_sighted *s, int64_t interval) {
    if (s->count == 0 || interval <= s->base) return 0;
    if (s->ranks) {
        uint64_t i = (uint64_t)(interval - s->base);
        return i < s->ranks_count ? s->ranks[i] : s->count;
    }
    size_t lo = 0, hi = s->count;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->intervals[mid] < interval) lo = mid + 1; else hi = mid;
    }
    return lo;
}

int enc_sighted_range(const enc_sighted *s, int64_t start, int64_t end, int64_t drift, int64_t *lower, int64_t *upper) {
    /* A sighting in interval i matches the RPI of interval j when
     * |i - j| <= drift: the first and last sightings that can match any
     * interval of the key bound the intervals worth deriving. */
    size_t first = rank(s, start - drift), past = rank(s, end + drift);
    if (first >= past) return 0;
    int64_t lo = s->intervals[first] - drift, hi = s->intervals[past - 1] + drift + 1;
    *lower = lo > start ? lo : start;
    *upper = hi < end ? hi : end;
    return *lower < *upper;
}
