/* The 10-minute intervals that hold a sighting, and which intervals of a
 * key's validity can therefore match: the test that lets matching skip
 * most keys of a sparse user before any crypto, and derive only part of
 * the others. Read-only after building: one serves every thread. */
#ifndef ENCORE_SIGHTED_H
#define ENCORE_SIGHTED_H

#include <stddef.h>
#include <stdint.h>

typedef struct enc_sighted enc_sighted;

/* From the distinct sighted intervals in ascending order (copied). */
enc_sighted *enc_sighted_new(const int64_t *intervals, size_t count);
void enc_sighted_free(enc_sighted *sighted);

/* The intervals of start ..< end whose RPIs can match a sighting, that is
 * with one within `drift` intervals: 1 and [*lower, *upper) (only the ends
 * are trimmed; a gap inside is kept), or 0 when there are none. The
 * arguments must lie within +-2^62. */
int enc_sighted_range(const enc_sighted *sighted, int64_t start, int64_t end, int64_t drift, int64_t *lower, int64_t *upper);

#endif
