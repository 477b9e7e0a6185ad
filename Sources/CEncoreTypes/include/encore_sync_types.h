/*
 * Public C types of background sync. Copied into include/encore.h by
 * scripts/gen-header.py, in the sync section.
 */
#ifndef ENCORE_SYNC_TYPES_H
#define ENCORE_SYNC_TYPES_H

#include "encore_check_types.h"
#include "encore_keyfile_types.h"
#include "encore_net_types.h"

/* What woke the sync up. Periodic syncs are spaced (CWA hourly, DP-3T at
 * most 6 a day, 4 h apart) and back off after failures; a push or the user
 * syncs at once. */
#define ENCORE_SYNC_PERIODIC 0
#define ENCORE_SYNC_PUSH 1
#define ENCORE_SYNC_APP_START 2
#define ENCORE_SYNC_USER 3

/* The network the device is on now: metered skips hour packages, none syncs nothing. */
#define ENCORE_NETWORK_UNMETERED 0
#define ENCORE_NETWORK_METERED 1
#define ENCORE_NETWORK_NONE 2

/* The steps of a sync plan (encore_sync_plan_info.steps, a bit set). */
#define ENCORE_SYNC_STEP_CONFIG 1  /* the app configuration (If-None-Match) */
#define ENCORE_SYNC_STEP_DAYS 2    /* the day index and missing day packages */
#define ENCORE_SYNC_STEP_HOURS 4   /* today's hour index and missing hours */
#define ENCORE_SYNC_STEP_DP3T 8    /* DP-3T exposed keys since the bundle tag */
#define ENCORE_SYNC_STEP_WARNINGS 16   /* CWA's trace warning packages not yet fetched (check-in warnings) */
#define ENCORE_SYNC_STEP_TRACE_KEYS 32 /* CrowdNotifier trace keys since the bundle tag */

/* What a sync is told: start from encore_sync_options_init(&o, sizeof o).
 * The servers, their keys and the trust list are the client's
 * (encore_client_options). */
typedef struct encore_sync_options {
    uint32_t struct_size;               /* set by _init */
    int32_t trigger;                    /* ENCORE_SYNC_* (USER) */
    int32_t network;                    /* ENCORE_NETWORK_* (UNMETERED) */
    int32_t run_check;                  /* 1 (default): run the exposure check on the cache after new data */
    int64_t budget_seconds;             /* the whole sync stops cleanly after this, 1..86400 (480) */
    encore_progress_fn progress;        /* requests done so far; returns 0 to go on, nonzero to cancel */
    void *progress_context;
    int32_t trace_warnings;             /* 1 (default): with the CWA sync, also its trace warning packages */
    int32_t reserved;
} encore_sync_options;

/* What a sync would do now (encore_sync_plan()). */
typedef struct encore_sync_plan_info {
    uint32_t struct_size;     /* sizeof(encore_sync_plan_info), set by the caller */
    uint32_t steps;           /* ENCORE_SYNC_STEP_* bits; 0: nothing due */
    int32_t has_next_due;     /* 0 without a network: sync when one appears */
    int32_t reserved;
    int64_t next_due_at;      /* when a scheduler should run the next periodic sync */
} encore_sync_plan_info;

/* What a sync did. Immutable: thread-safe. */
typedef struct encore_sync_result encore_sync_result;

/* What a sync did, in numbers (encore_sync_result_get_summary()): packages
 * fetched and deleted, whether the check ran, when the next sync is due. */
typedef struct encore_sync_summary {
    uint32_t struct_size;     /* sizeof(encore_sync_summary), set by the caller */
    uint32_t fetched;         /* packages and configurations kept */
    uint32_t deleted;         /* cached packages deleted: unlisted, covered by a day, too old */
    uint32_t revoked;         /* cached packages deleted because the configuration revoked them */
    int32_t stopped_early;    /* 1: the time budget ran out; the next sync resumes */
    int32_t has_check;        /* 1: new data came and the check ran (encore_sync_result_get_check) */
    int32_t has_next_due;
    int32_t has_clock_offset;
    int64_t next_due_at;
    int64_t clock_offset;     /* the server's clock minus this device's, seconds */
    int32_t configuration;    /* ENCORE_SYNC_CONFIG_*: the app configuration the sync went on with */
    uint32_t config_failures; /* failed fetches of the configuration in a row (its own backoff) */
    /* Since the items (struct_size tells whether the library wrote it): */
    uint32_t item_count;      /* items of encore_sync_result_copy_items(): fetched, cached and failed */
    uint32_t reserved;
} encore_sync_summary;

/* What a sync item is (encore_sync_item.kind). */
#define ENCORE_SYNC_ITEM_DAY 1        /* a day's key file */
#define ENCORE_SYNC_ITEM_HOUR 2       /* an hour's key file */
#define ENCORE_SYNC_ITEM_CONFIG 3     /* the app configuration */
#define ENCORE_SYNC_ITEM_DP3T 4       /* DP-3T exposed keys since a bundle tag */
#define ENCORE_SYNC_ITEM_WARNINGS 5   /* a CWA trace warning package (check-in warnings) of one hour */
#define ENCORE_SYNC_ITEM_TRACE_KEYS 6 /* CrowdNotifier trace keys since a bundle tag */

/* What became of a sync item (encore_sync_item.outcome). */
#define ENCORE_SYNC_OUTCOME_FETCHED 1 /* fetched, verified and kept */
#define ENCORE_SYNC_OUTCOME_CACHED 2  /* what is stored is current (304, or nothing new since the bundle tag) */
#define ENCORE_SYNC_OUTCOME_FAILED 3  /* failed without failing the sync (the configuration's outage); status says why */

/* One thing a sync asked for, and what became of it
 * (encore_sync_result_copy_items()). */
typedef struct encore_sync_item {
    uint32_t struct_size;     /* sizeof(encore_sync_item) */
    int32_t kind;             /* ENCORE_SYNC_ITEM_* */
    int32_t outcome;          /* ENCORE_SYNC_OUTCOME_* */
    encore_status status;     /* ENCORE_OK, or why a FAILED item failed */
    int64_t day;              /* a day or hour key file's day: unix seconds of its UTC midnight; -1 otherwise */
    int32_t hour;             /* an hour key file's hour, 0..23; -1 otherwise */
    int32_t reserved;         /* 0 */
    int64_t interval;         /* a trace warning package's hour (hours since the epoch); -1 otherwise */
    uint64_t keys;            /* keys of a key file; reports and warnings of a warning package; events of trace keys */
    uint64_t matches;         /* new check-in matches (warnings, trace keys); 0 otherwise */
    uint64_t bytes;           /* the body's size as it came; 0 when none came */
    encore_bytes tag;         /* the ETag or bundle tag (empty when none is known), the caller's: release with encore_bytes_free() */
} encore_sync_item;

/* The app configuration a CWA sync went on with and why
 * (encore_sync_result_get_configuration()). */
typedef struct encore_sync_configuration {
    uint32_t struct_size;     /* sizeof(encore_sync_configuration), set by the caller */
    int32_t used;             /* ENCORE_SYNC_CONFIG_* */
    uint32_t failures;        /* failed fetches of the configuration in a row (its own backoff) */
    uint32_t reserved;
    encore_bytes reason;      /* why it was not fetched (UTF-8; empty when it was), the caller's: release with encore_bytes_free() */
} encore_sync_configuration;

/* Which app configuration a CWA sync went on with (the JSON's
 * "configuration" says why). When the configuration cannot be fetched or
 * verified, key files and trace warnings are still synced and checked,
 * with the last verified configuration or the built-in one; the failure
 * counts for the configuration's own backoff, not the sync's. */
#define ENCORE_SYNC_CONFIG_NONE 0          /* no CWA sync ran */
#define ENCORE_SYNC_CONFIG_FETCHED 1       /* a new configuration was fetched and verified */
#define ENCORE_SYNC_CONFIG_UNCHANGED 2     /* the stored one is current (304) */
#define ENCORE_SYNC_CONFIG_LAST_VERIFIED 3 /* not fetched: the last verified one was used */
#define ENCORE_SYNC_CONFIG_BUILT_IN 4      /* not fetched, none stored: the built-in values were used */

#endif /* ENCORE_SYNC_TYPES_H */
