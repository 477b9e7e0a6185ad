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
} encore_sync_summary;

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
