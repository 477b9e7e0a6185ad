/*
 * Public C types of CrowdNotifier v3 check-ins (SwissCovid, NotifyMe).
 * Copied into include/encore.h by scripts/gen-header.py, in their section.
 */
#ifndef ENCORE_CROWDNOTIFIER_TYPES_H
#define ENCORE_CROWDNOTIFIER_TYPES_H

#include "encore_checkin_types.h"

/* Which app's QR code (the host of its URL). */
#define ENCORE_CROWDNOTIFIER_SWISSCOVID 1   /* https://qr.swisscovid.ch?v=4#... */
#define ENCORE_CROWDNOTIFIER_NOTIFYME 2     /* https://qr.notify-me.ch?v=4#... */

/* Sizes of CrowdNotifier's values (BLS12-381 in mcl's serialisation). */
#define ENCORE_CROWDNOTIFIER_SECRET_BYTES 32     /* a venue's master secret (Fr, little-endian) */
#define ENCORE_CROWDNOTIFIER_PUBLIC_KEY_BYTES 96 /* a venue's public key (G2) */
#define ENCORE_CROWDNOTIFIER_IDENTITY_BYTES 32   /* an hour's identity */
#define ENCORE_CROWDNOTIFIER_SECRET_KEY_BYTES 48 /* a trace key's secret key (G1) */

/* What matching one body of trace keys found. */
typedef struct encore_trace_key_match_summary {
    uint32_t struct_size;                 /* sizeof(encore_trace_key_match_summary), set by the caller */
    uint32_t reserved;
    uint64_t events;                      /* ProblematicEvents in the body */
    uint64_t skipped;                     /* of them unusable: fields of the wrong length or type */
    uint64_t invalid_keys;                /* keys of a day with visits whose secret key is not a point of G1 */
    uint64_t pairings;                    /* pairings computed (same-day key and visit hour pairs, of visits at a
                                           * venue whose identities that day include the key's) */
    uint64_t matches;                     /* visits a key opened, overlapping its time */
    uint64_t new_matches;                 /* of them not seen before: notify these (once per visit and key) */
} encore_trace_key_match_summary;

/* How trace keys are matched (encore_crowdnotifier_match_trace_keys_with_options()):
 * start from encore_trace_key_match_options_init(&options, sizeof options). */
typedef struct encore_trace_key_match_options {
    uint32_t struct_size;                 /* set by _init */
    uint32_t threads;                     /* 0 (default): one per core (at most 8); at most 256 */
    encore_progress_fn progress;          /* optional: trace keys done of those of a day with visits; called from
                                           * the matching threads, one call at a time */
    void *progress_context;               /* passed to progress unchanged */
} encore_trace_key_match_options;

#endif /* ENCORE_CROWDNOTIFIER_TYPES_H */
