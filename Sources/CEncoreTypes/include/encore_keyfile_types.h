/*
 * Public C types of key files and their signatures. Copied into
 * include/encore.h by scripts/gen-header.py, in the key file section.
 */
#ifndef ENCORE_KEYFILE_TYPES_H
#define ENCORE_KEYFILE_TYPES_H

#include "encore_types.h"

/* A list of trusted public keys. Safe to use from several threads; adding
 * keys while a key file is being opened with the list is allowed. */
typedef struct encore_trust encore_trust;

/* An opened, checked key file. Immutable after opening: every function on it
 * may be called from several threads at once. */
typedef struct encore_keyfile encore_keyfile;

/* How a key file's signature turned out. */
#define ENCORE_SIGNATURE_VERIFIED 0   /* a trusted key verified a signature */
#define ENCORE_SIGNATURE_UNSIGNED 1   /* no export.sig, or no signature in it */
#define ENCORE_SIGNATURE_UNTRUSTED 2  /* signed only by keys not in the trust list */
#define ENCORE_SIGNATURE_INVALID 3    /* a trusted key's signature did not verify */
#define ENCORE_SIGNATURE_SKIPPED 4    /* verification was turned off */

/* What opening a key file does about its signature. */
#define ENCORE_VERIFY_SKIP 0     /* do not check; signature_status is SKIPPED */
#define ENCORE_VERIFY_REQUIRE 1  /* refuse a file no trusted key signed (the default) */
#define ENCORE_VERIFY_REPORT 2   /* check, report in signature_status, open anyway */

/* Options for opening a key file. Always start from
 * encore_keyfile_options_init(&options, sizeof options), which writes the
 * defaults, then change fields. New fields are only ever added at the end;
 * struct_size tells the library how large the caller's struct is. */
typedef struct encore_keyfile_options {
    uint32_t struct_size;         /* sizeof(encore_keyfile_options), set by _init */
    uint32_t verify;              /* ENCORE_VERIFY_REQUIRE (default), _REPORT or _SKIP */
    const encore_trust *trust;    /* trusted keys; NULL: the client's trust list where a client is
                                     given (encore_match_run, encore_exposure_check,
                                     encore_checkin_match_package), else none */
    uint64_t max_member_size;     /* largest uncompressed zip member, bytes (default 512 MiB) */
    uint64_t max_total_size;      /* largest sum of uncompressed members, bytes (default 1 GiB) */
    uint32_t max_ratio;           /* largest uncompressed/compressed ratio of a member bigger
                                     than 64 KiB (default 100); 0 turns the check off */
    uint32_t reserved;            /* must be 0 */
    encore_progress_fn progress;  /* optional: called while keys are read; may cancel */
    void *progress_context;       /* passed to progress unchanged */
} encore_keyfile_options;

/* Which key list of a file. */
#define ENCORE_KEYS 0          /* keys (field 7) */
#define ENCORE_REVISED_KEYS 1  /* revised_keys (field 8) */

/* Report types of a diagnosis key. */
#define ENCORE_REPORT_UNKNOWN 0
#define ENCORE_REPORT_CONFIRMED_TEST 1
#define ENCORE_REPORT_CONFIRMED_CLINICAL_DIAGNOSIS 2
#define ENCORE_REPORT_SELF_REPORT 3
#define ENCORE_REPORT_RECURSIVE 4
#define ENCORE_REPORT_REVOKED 5

/* One valid diagnosis key (a published temporary exposure key). */
typedef struct encore_key {
    uint32_t struct_size;                       /* sizeof(encore_key) */
    int32_t transmission_risk_level;
    uint8_t key_data[16];
    int32_t rolling_start_interval_number;      /* ENIN of the key's first interval */
    int32_t rolling_period;                     /* 1..144 (144 when the file leaves it out) */
    int32_t report_type;                        /* ENCORE_REPORT_* */
    int32_t days_since_onset_of_symptoms;       /* meaningful when has_days_since_onset_of_symptoms */
    int32_t has_days_since_onset_of_symptoms;   /* 1 when present in the file, else 0 */
} encore_key;

/* What a key file says about itself. The strings point into the key file
 * handle and stay valid until it is freed; a string is NULL when absent. */
typedef struct encore_keyfile_info {
    uint32_t struct_size;            /* sizeof(encore_keyfile_info), set by the caller */
    uint32_t reserved;               /* 0 */
    uint64_t start_timestamp;        /* UTC seconds; 0 when absent */
    uint64_t end_timestamp;
    const char *region;
    int32_t batch_num;               /* 0 when absent */
    int32_t batch_size;
    uint64_t key_count;              /* valid keys in ENCORE_KEYS */
    uint64_t revised_key_count;      /* valid keys in ENCORE_REVISED_KEYS */
    uint64_t invalid_key_count;      /* keys skipped as invalid, both lists */
    int32_t signature_status;        /* ENCORE_SIGNATURE_* */
    int32_t is_zip;                  /* 1 when read from a zip, 0 for a bare export.bin */
    const char *signature_key_id;    /* key that verified it, else the first signature's */
    const char *signature_key_version;
} encore_keyfile_info;

#endif /* ENCORE_KEYFILE_TYPES_H */
