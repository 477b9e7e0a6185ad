/*
 * Public C types of test results and key submission (CWA). Copied into
 * include/encore.h by scripts/gen-header.py, in their section.
 */
#ifndef ENCORE_TEST_TYPES_H
#define ENCORE_TEST_TYPES_H

#include "encore_net_types.h"

/* What identifies a lab test. */
#define ENCORE_TEST_KEY_QR_CODE 0    /* a test QR code's text: a lab test's https://localhost/?{GUID}, a rapid
                                      * antigen test's https://s.coronawarn.app?v=1#..., a rapid PCR test's
                                      * https://p.coronawarn.app?v=1#... (hash checked: ENCORE_ERR_TEST_CODE_HASH) */
#define ENCORE_TEST_KEY_GUID 1       /* the GUID alone: 6-8-4-4-4-12 hex digits */
#define ENCORE_TEST_KEY_TELETAN 2    /* a teleTAN from a hotline: 10 characters, positive by definition */

/* What identifies a test to register (encore_test_register_start(),
 * encore_test_register_run()): a QR code's text, a GUID or a teleTAN, as
 * `kind` says. The strings are not needed after the call. */
typedef struct encore_test_key {
    uint32_t struct_size;            /* sizeof(encore_test_key) */
    int32_t kind;                    /* ENCORE_TEST_KEY_* */
    uint32_t rapid;                  /* 1: a rapid antigen test (with a GUID; a rapid test's QR code says it itself) */
    uint32_t reserved;               /* must be 0 */
    const char *value;
    const char *date_of_birth;       /* "YYYY-MM-DD" or NULL (with a GUID only) */
} encore_test_key;

/* Test results (the server's codes 5-9 are the same five for rapid tests:
 * encore_test_status.rapid says which). */
#define ENCORE_TEST_RESULT_NONE (-1)
#define ENCORE_TEST_RESULT_PENDING 0
#define ENCORE_TEST_RESULT_NEGATIVE 1
#define ENCORE_TEST_RESULT_POSITIVE 2
#define ENCORE_TEST_RESULT_INVALID 3
#define ENCORE_TEST_RESULT_REDEEMED 4

/* Where a registered test stands. Times are unix seconds, -1 when there is
 * none. An output struct that may grow: set struct_size (ENCORE_OUTPUT_INIT). */
typedef struct encore_test_status {
    uint32_t struct_size;            /* sizeof(encore_test_status), set by the caller */
    int32_t registered;              /* 1 when a test is registered */
    int32_t key_type;                /* ENCORE_TEST_KEY_GUID or _TELETAN */
    int32_t rapid;                   /* 1: a rapid antigen test */
    int32_t result;                  /* ENCORE_TEST_RESULT_* */
    int32_t notify;                  /* 1, once: this call brought a new final result to tell the user */
    int32_t has_tan;                 /* 1: a TAN is kept for a submission that has not succeeded yet */
    int32_t submitted;               /* 1: the keys of this test were submitted */
    int64_t result_at;               /* the last poll that got an answer */
    int64_t sample_collected_at;
    int64_t next_poll_at;            /* when to poll next; -1 once the result is final */
    int64_t submitted_at;
    uint32_t submitted_keys;
    uint32_t reserved;
    int32_t test_type;               /* ENCORE_TEST_TYPE_* */
    int32_t outdated;                /* 1: a negative rapid antigen test taken more than 48 hours ago */
    int64_t tested_at;               /* when the test was taken: the sample time, for a rapid antigen test
                                      * until the server reports one the consent time of its QR code; -1 */
} encore_test_status;

/* Which test is registered (a rapid PCR test is a PCR test to the servers:
 * results 0-4, submitted as a PCR test). */
#define ENCORE_TEST_TYPE_NONE (-1)
#define ENCORE_TEST_TYPE_PCR 0           /* a lab PCR test (QR code or GUID), or a teleTAN */
#define ENCORE_TEST_TYPE_RAPID_ANTIGEN 1
#define ENCORE_TEST_TYPE_RAPID_PCR 2

/* What a positive user said about symptoms (the keys' transmission risk
 * and days since onset follow from it). */
#define ENCORE_SYMPTOMS_NO_INFORMATION 0
#define ENCORE_SYMPTOMS_NONE 1
#define ENCORE_SYMPTOMS_ONSET_UNKNOWN 2
#define ENCORE_SYMPTOMS_ONSET_LAST_7_DAYS 3
#define ENCORE_SYMPTOMS_ONSET_1_2_WEEKS 4
#define ENCORE_SYMPTOMS_ONSET_OVER_2_WEEKS 5
#define ENCORE_SYMPTOMS_ONSET_DATE 6     /* the day in encore_submit_options.onset */

/* Options of a submission: start from
 * encore_submit_options_init(&options, sizeof options). */
typedef struct encore_submit_options {
    uint32_t struct_size;            /* set by _init */
    int32_t symptoms;                /* ENCORE_SYMPTOMS_* (NO_INFORMATION) */
    int64_t onset;                   /* with ONSET_DATE: unix seconds of the onset's UTC midnight */
    const char *const *visited_countries;  /* two capital letters each (for federation) */
    size_t visited_country_count;
    uint32_t consent_to_federation;  /* 1: the keys may go to other countries' servers (0) */
    uint32_t reserved;               /* must be 0 */
} encore_submit_options;

/* How a submission went. An output struct that may grow. */
typedef struct encore_submit_summary {
    uint32_t struct_size;            /* sizeof(encore_submit_summary), set by the caller */
    uint32_t keys;                   /* keys uploaded (at most 14) */
    uint32_t check_ins;              /* check-ins uploaded */
    uint32_t unaligned_keys;         /* own keys left out: their rolling start is not a UTC midnight */
    int64_t submitted_at;
} encore_submit_summary;

#endif /* ENCORE_TEST_TYPES_H */
