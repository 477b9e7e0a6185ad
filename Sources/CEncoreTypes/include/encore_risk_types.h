/*
 * Public C types of risk calculation. Copied into include/encore.h after
 * encore_match_types.h by scripts/gen-header.py.
 */
#ifndef ENCORE_RISK_TYPES_H
#define ENCORE_RISK_TYPES_H

#include "encore_match_types.h"

/* A parsed CWA risk calculation configuration (RiskCalculationParameters in
 * the JSON form of the conformance file). Immutable: thread-safe. */
typedef struct encore_risk_config encore_risk_config;

/* The outcome of a risk calculation. Immutable: thread-safe. */
typedef struct encore_risk_assessment encore_risk_assessment;

#define ENCORE_RISK_NONE 0   /* a day whose normalized time maps to no level */
#define ENCORE_RISK_LOW 1
#define ENCORE_RISK_HIGH 2

/* The aggregate of an assessment. Dates are unix seconds of UTC midnights. */
typedef struct encore_risk_summary {
    uint32_t struct_size;                        /* sizeof(encore_risk_summary), set by the caller */
    int32_t total_risk_level;                    /* ENCORE_RISK_LOW or _HIGH */
    int32_t has_most_recent_date_with_low_risk;  /* 1 when the date below is set */
    int32_t has_most_recent_date_with_high_risk; /* 1 when the date below is set */
    int64_t most_recent_date_with_low_risk;
    int64_t most_recent_date_with_high_risk;
    int32_t number_of_days_with_low_risk;
    int32_t number_of_days_with_high_risk;
    int32_t total_minimum_distinct_encounters_with_low_risk;
    int32_t total_minimum_distinct_encounters_with_high_risk;
    int64_t calculated_at;                       /* the `now` of the calculation */
    uint64_t day_count;                          /* days in encore_risk_assessment_copy_days() */
} encore_risk_summary;

/* The risk of one UTC day that had windows (newest first). */
typedef struct encore_day_risk {
    uint32_t struct_size;                        /* sizeof(encore_day_risk) */
    int32_t risk_level;                          /* ENCORE_RISK_NONE, _LOW or _HIGH */
    int64_t date;
    double normalized_time;                      /* rounded to one decimal */
    int32_t minimum_distinct_encounters_with_low_risk;
    int32_t minimum_distinct_encounters_with_high_risk;
} encore_day_risk;

#endif /* ENCORE_RISK_TYPES_H */
