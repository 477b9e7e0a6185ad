/*
 * Public C types of exposure matching. Copied into include/encore.h after
 * encore_types.h by scripts/gen-header.py.
 */
#ifndef ENCORE_MATCH_TYPES_H
#define ENCORE_MATCH_TYPES_H

#include "encore_keyfile_types.h"

/* The outcome of encore_match_run(): exposure windows, v1 exposures and
 * summary, statistics. Immutable: safe to read from several threads. It
 * holds no key material. */
typedef struct encore_match_result encore_match_result;

/* Where a key file comes from: a path, or (path NULL) bytes in memory. */
typedef struct encore_key_source {
    uint32_t struct_size;   /* sizeof(encore_key_source) */
    uint32_t reserved;      /* must be 0 */
    const char *path;
    const uint8_t *data;
    size_t length;
} encore_key_source;

#define ENCORE_INFECTIOUSNESS_NONE 0
#define ENCORE_INFECTIOUSNESS_STANDARD 1
#define ENCORE_INFECTIOUSNESS_HIGH 2

/* ENF v1 risk scoring: the level value (0..8) of each factor's eight
 * buckets, in the order of the spec (attenuation > 73 dB first, days >= 14
 * first, duration 0 min first, TRL 1 first). */
typedef struct encore_v1_config {
    uint32_t struct_size;                         /* sizeof(encore_v1_config) */
    int32_t attenuation_level_values[8];
    int32_t days_since_last_exposure_level_values[8];
    int32_t duration_level_values[8];
    int32_t transmission_risk_level_values[8];
    int32_t minimum_risk_score;
    int32_t attenuation_duration_thresholds[2];   /* X < Y, dB */
} encore_v1_config;

/* Options of encore_match_run(), encore_exposure_check() and
 * encore_exposure_check_cached(): start from
 * encore_match_options_init(&options, sizeof options, 0), which writes
 * the Apple/Google constants and CWA's choices. They carry no time: the
 * time of a match or check is the client's clock (encore_client_options.clock). */
typedef struct encore_match_options {
    uint32_t struct_size;                     /* set by _init */
    uint32_t threads;                         /* 0 (default): one per core; at most 256 */
    int64_t reserved_now;                     /* ignored since 1.1 (was `now`): the client's clock is the time */
    int32_t drift_intervals;                  /* tolerated clock drift, 10-minute intervals (12) */
    int32_t tx_power_min;                     /* plausible TX power, dBm (-60) */
    int32_t tx_power_max;                     /* (20) */
    int32_t replay_seconds;                   /* sightings of an RPI later than this after its first are dropped (1200) */
    int32_t max_key_age_days;                 /* keys whose validity ended earlier take no part (14) */
    int32_t report_type_when_missing;         /* ENCORE_REPORT_* for UNKNOWN (CONFIRMED_TEST) */
    int32_t infectiousness_when_dsos_missing; /* ENCORE_INFECTIOUSNESS_* (NONE) */
    int32_t reserved;                         /* must be 0 */
    int8_t infectiousness_by_dsos[29];        /* index days_since_onset + 14; CWA: +1 STANDARD, +2 HIGH, else NONE */
    uint8_t reserved2[3];                     /* must be 0 */
    const encore_keyfile_options *keyfile_options; /* verification and limits of the files; NULL: defaults
                                                      (either way, a NULL trust is the client's trust list) */
    const encore_v1_config *v1;               /* NULL: CWA's values */
    encore_progress_fn progress;              /* bytes of the files (as given) done of their total */
    void *progress_context;
} encore_match_options;

/* One scan of the device in which a matched key was heard. */
typedef struct encore_scan_instance {
    uint32_t struct_size;   /* sizeof(encore_scan_instance) */
    int32_t typical_attenuation;
    int32_t min_attenuation;
    int32_t seconds_since_last_scan;
} encore_scan_instance;

/* An exposure window (ENF v2). Its scan instances are
 * first_scan_instance ..< first_scan_instance + scan_instance_count of the
 * result's scan instance list. */
typedef struct encore_exposure_window {
    uint32_t struct_size;           /* sizeof(encore_exposure_window) */
    int32_t report_type;            /* ENCORE_REPORT_* */
    int64_t date;                   /* UTC midnight, unix seconds */
    int32_t infectiousness;         /* ENCORE_INFECTIOUSNESS_* */
    int32_t calibration_confidence; /* 0..3 */
    uint32_t scan_instance_count;
    uint32_t reserved;              /* 0 */
    uint64_t first_scan_instance;
} encore_exposure_window;

/* One ENF v1 exposure: a matched key on one UTC day. */
typedef struct encore_exposure_v1 {
    uint32_t struct_size;              /* sizeof(encore_exposure_v1) */
    int32_t duration_seconds;
    int64_t date;
    int32_t attenuation_value;
    int32_t attenuation_durations[3];  /* seconds <= X, in (X, Y], > Y; each at most 1800 */
    int32_t transmission_risk_level;
    int32_t total_risk_score;
} encore_exposure_v1;

/* The ENF v1 exposure summary. */
typedef struct encore_summary_v1 {
    uint32_t struct_size;                  /* sizeof(encore_summary_v1), set by the caller */
    int32_t matched_key_count;
    int32_t days_since_last_exposure;
    int32_t maximum_risk_score;            /* at most 255 */
    int32_t maximum_risk_score_full_range;
    int32_t risk_score_sum_full_range;
    int32_t attenuation_durations[3];
} encore_summary_v1;

/* What matching did: sizes of the result's lists and the fate of the keys.
 * `keys` counts the valid keys read; each is counted once more, under the
 * first of: REVOKED, too old, no sighting within its validity +- drift, not
 * infectious; else as derived. */
typedef struct encore_match_stats {
    uint32_t struct_size;            /* sizeof(encore_match_stats), set by the caller */
    uint32_t reserved;               /* 0 */
    uint64_t windows;
    uint64_t scan_instances;
    uint64_t exposures_v1;
    uint64_t files;
    uint64_t keys;
    uint64_t skipped_old;
    uint64_t skipped_revoked;
    uint64_t skipped_not_infectious;
    uint64_t skipped_no_sightings;   /* no sighting in the key's validity: no crypto spent */
    uint64_t derived;                /* keys whose RPIs were derived */
    uint64_t matched_keys;
} encore_match_stats;

#endif /* ENCORE_MATCH_TYPES_H */
