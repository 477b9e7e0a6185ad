/*
 * Public C types of the exposure check. Copied into include/encore.h after
 * encore_risk_types.h by scripts/gen-header.py.
 */
#ifndef ENCORE_CHECK_TYPES_H
#define ENCORE_CHECK_TYPES_H

#include "encore_risk_types.h"

/* Presence-tracing risk parameters (CWA's PresenceTracingRiskCalculationParameters),
 * made by encore_checkin_risk_config_new_*(). Immutable: thread-safe. */
typedef struct encore_checkin_risk_config encore_checkin_risk_config;

/* The outcome of encore_exposure_check(). Immutable: thread-safe. */
typedef struct encore_check_result encore_check_result;

/* What the exposure check tells the user (stored as the risk result's level). */
#define ENCORE_CHECK_LOW 1
#define ENCORE_CHECK_HIGH 2
#define ENCORE_CHECK_UNKNOWN 3   /* too little active tracing in the last 14 days, and not HIGH */
#define ENCORE_CHECK_OUTDATED 4  /* the newest keys are too old, or the clock went back */
#define ENCORE_CHECK_FAILED 5    /* a check-in's normalized time maps to no risk level ("calculation failed") */

/* One class of CWA's v1 risk model: scores in [min, max) have `level`. */
typedef struct encore_risk_v1_class {
    uint32_t struct_size;                 /* sizeof(encore_risk_v1_class) */
    int32_t level;                        /* ENCORE_RISK_LOW or _HIGH */
    double min;
    double max;
} encore_risk_v1_class;

/* CWA's v1 risk model over the ENF v1 summary (legacy; the v2 model decides
 * the check's status): score = maximum_risk_score_full_range / divisor x
 * (weights[0] x min(minutes below X, 30) + weights[1] x min(minutes between,
 * 30) + weights[2] x min(minutes above Y, 30) + default_bucket_offset),
 * rounded to two decimals; the first class holding the score gives the
 * level. CWA: divisor 50, weights 1, 0.5, 0, offset 0, classes [0, 15) LOW
 * and [15, 9999) HIGH. */
typedef struct encore_risk_v1_config {
    uint32_t struct_size;                 /* sizeof(encore_risk_v1_config) */
    uint32_t class_count;                 /* 1..64 */
    uint32_t class_size;                  /* sizeof(encore_risk_v1_class): the stride of `classes` */
    uint32_t reserved;                    /* must be 0 */
    double normalization_divisor;         /* > 0 */
    double weights[3];                    /* finite */
    double default_bucket_offset;         /* finite */
    const encore_risk_v1_class *classes;  /* class_count classes, min < max each */
} encore_risk_v1_config;

/* Options of the check besides matching: start from
 * encore_check_options_init(&options, sizeof options). */
typedef struct encore_check_options {
    uint32_t struct_size;                 /* set by _init */
    uint32_t reserved;                    /* must be 0 */
    int64_t minimum_tracing_seconds;      /* below this, not HIGH → UNKNOWN (86400) */
    int64_t tracing_days;                 /* the period tracing time is counted in, 0..3650 (14) */
    int64_t maximum_key_age_seconds;      /* newest keys older than this: not HIGH → OUTDATED (172800) */
    const encore_risk_v1_config *risk_v1; /* CWA's v1 model for the v1 score; NULL: CWA's values */
    /* The check-ins' risk parameters (encore_checkin_risk_config_new_*); NULL: CWA's production values. */
    const encore_checkin_risk_config *checkin_risk;
    /* Added in 1.0 (issue 49): 1 makes encore_exposure_check_cached() match every cached file again;
     * 0 (the default) matches only what is new and reads the rest from the kept matches. */
    int32_t full;
    uint32_t reserved2;                   /* must be 0 */
} encore_check_options;

/* What an exposure check found (encore_check_result_get_summary()): its
 * status, the v1 level and score, whether to notify the user, and what it
 * stored. */
typedef struct encore_check_summary {
    uint32_t struct_size;             /* sizeof(encore_check_summary), set by the caller */
    int32_t status;                   /* ENCORE_CHECK_* */
    int32_t notification_due;         /* 1: the level changed since the last LOW/HIGH result (or first HIGH) */
    int32_t has_newest_keys;          /* 1 when newest_keys is set */
    int32_t has_stored_result;        /* 0 when nothing was stored (clock went back) */
    int32_t v1_level;                 /* ENCORE_RISK_NONE, _LOW or _HIGH */
    int64_t calculated_at;
    int64_t active_tracing_seconds;
    int64_t newest_keys;              /* newest package download or key file end, unix seconds */
    int64_t stored_result_id;         /* the risk result stored by this check */
    uint64_t window_count;
    double v1_score;                  /* CWA v1 score from the v1 summary */
} encore_check_summary;

#endif /* ENCORE_CHECK_TYPES_H */
