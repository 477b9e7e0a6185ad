/*
 * Public C types of libencore: version macros, status codes, opaque handles
 * and the plain structs that cross the C ABI.
 *
 * This file is the single source of truth for these types. The Swift C-ABI
 * layer imports it (so Swift writes exactly these layouts), and
 * scripts/gen-header.py copies it into include/encore.h, followed by the
 * function declarations it generates from the Swift @c functions.
 */
#ifndef ENCORE_TYPES_H
#define ENCORE_TYPES_H

#include <stddef.h>
#include <stdint.h>

/* Version of the library this header belongs to. encore_version() and
 * encore_version_number() return the same values at run time. */
#define ENCORE_VERSION_MAJOR 0
#define ENCORE_VERSION_MINOR 1
#define ENCORE_VERSION_PATCH 0
#define ENCORE_VERSION_STRING "0.1.0"
#define ENCORE_VERSION_NUMBER ((ENCORE_VERSION_MAJOR * 10000) + (ENCORE_VERSION_MINOR * 100) + ENCORE_VERSION_PATCH)

/* Result of every fallible function. A fixed-size integer, not an enum, so its
 * size never depends on the compiler; values are never renumbered. On failure
 * encore_last_error_message() explains the status on the calling thread. */
typedef int32_t encore_status;

/* General */
#define ENCORE_OK 0
#define ENCORE_ERR_INVALID_ARGUMENT 1   /* NULL pointer, bad length, bad option */
#define ENCORE_ERR_OUT_OF_MEMORY 2
#define ENCORE_ERR_IO 3                 /* a file could not be read */
#define ENCORE_ERR_CANCELLED 4          /* the progress callback asked to stop */
#define ENCORE_ERR_INTERNAL 5           /* a bug in encore: please report it */
#define ENCORE_ERR_OUT_OF_RANGE 6       /* an index or count past the end */
#define ENCORE_ERR_NOT_FOUND 7          /* no such entry (setting, package, result) */

/* Zip container */
#define ENCORE_ERR_ZIP_NOT_ZIP 10       /* no zip structure, and not a bare export.bin */
#define ENCORE_ERR_ZIP_TRUNCATED 11     /* a structure runs past the end of the input */
#define ENCORE_ERR_ZIP_CRC 12           /* a member's CRC-32 does not match */
#define ENCORE_ERR_ZIP_UNSUPPORTED 13   /* compression method, encryption, zip64, multi-disk */
#define ENCORE_ERR_ZIP_LIMIT 14         /* a size or compression-ratio limit was exceeded */
#define ENCORE_ERR_ZIP_MEMBERS 15       /* not exactly export.bin + optional export.sig */
#define ENCORE_ERR_ZIP_CORRUPT 16       /* inconsistent headers, bad deflate data, wrong sizes */

/* export.bin */
#define ENCORE_ERR_EXPORT_HEADER 20     /* the 16-byte "EK Export v1    " header is missing */
#define ENCORE_ERR_EXPORT_MALFORMED 21  /* the protobuf cannot be decoded */

/* export.sig and verification */
#define ENCORE_ERR_SIGNATURE_MISSING 30   /* unsigned file while verification is on */
#define ENCORE_ERR_SIGNATURE_UNTRUSTED 31 /* signed only by keys not in the trust list */
#define ENCORE_ERR_SIGNATURE_INVALID 32   /* a trusted key's signature does not verify */
#define ENCORE_ERR_SIGNATURE_MALFORMED 33 /* export.sig cannot be decoded */
#define ENCORE_ERR_BATCH 34               /* batch_num/batch_size break the batch rules */
#define ENCORE_ERR_KEY_FORMAT 35          /* a trusted public key is not a usable EC key */

/* Encrypted store */
#define ENCORE_ERR_STORE_WRONG_KEY 40     /* the key does not open the store; the file is untouched */
#define ENCORE_ERR_STORE_NOT_DATABASE 41  /* the file is not an encore store, or is damaged */
#define ENCORE_ERR_STORE_TOO_NEW 42       /* written by a newer encore (schema version); untouched */
#define ENCORE_ERR_STORE_FAILED 43        /* SQLite failed: disk full, I/O error, ... */
#define ENCORE_ERR_STORE_BUSY 44          /* another process held the store past the busy timeout */
#define ENCORE_ERR_STORE_MISSING 45       /* no store at the path, and creating one was not allowed */

/* Opaque handles. Each is created by its _new/_open function and released by
 * its _free function; passing NULL to a _free function does nothing. The
 * library cannot check a handle's type or lifetime: passing a freed handle,
 * or one of another type, is undefined behaviour, and so is freeing a handle
 * while another thread still uses it. */

/* A list of trusted public keys. Safe to use from several threads; adding
 * keys while a key file is being opened with the list is allowed. */
typedef struct encore_trust encore_trust;

/* An opened, checked key file. Immutable after opening: every function on it
 * may be called from several threads at once. */
typedef struct encore_keyfile encore_keyfile;

/* Progress callback for long operations: `done` of `total` units (for key
 * files: bytes of export.bin checked, header included; the last call has
 * done == total). Return 0 to go on, anything else to cancel: the operation
 * then fails with ENCORE_ERR_CANCELLED and has no effect. */
typedef int32_t (*encore_progress_fn)(void *context, uint64_t done, uint64_t total);

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
    const encore_trust *trust;    /* trusted keys; NULL trusts none */
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
    uint8_t key_data[16];
    int32_t transmission_risk_level;
    int32_t rolling_start_interval_number;      /* ENIN of the key's first interval */
    int32_t rolling_period;                     /* 1..144 (144 when the file leaves it out) */
    int32_t report_type;                        /* ENCORE_REPORT_* */
    int32_t days_since_onset_of_symptoms;       /* meaningful when has_days_since_onset_of_symptoms */
    int32_t has_days_since_onset_of_symptoms;   /* 1 when present in the file, else 0 */
} encore_key;

/* What a key file says about itself. The strings point into the key file
 * handle and stay valid until it is freed; a string is NULL when absent. */
typedef struct encore_keyfile_info {
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

/* ---- Encrypted store ---------------------------------------------------- */

/* The client's encrypted state (a SQLCipher database file). Safe to use from
 * several threads at once: calls are serialised inside. Two processes on
 * one file wait for each other up to the busy timeout. */
typedef struct encore_store encore_store;

/* How a store is encrypted. */
#define ENCORE_KEY_PASSPHRASE 0  /* 1 byte to 1 MiB, any but the raw-key form x'...'; SQLCipher derives the key (slow on purpose) */
#define ENCORE_KEY_RAW 1         /* exactly 32 bytes used as the key (no derivation) */

typedef struct encore_store_key {
    int32_t kind;           /* ENCORE_KEY_PASSPHRASE or ENCORE_KEY_RAW */
    uint32_t reserved;      /* must be 0 */
    const uint8_t *data;
    size_t length;
} encore_store_key;

/* Options for opening a store: start from
 * encore_store_options_init(&options, sizeof options). */
typedef struct encore_store_options {
    uint32_t struct_size;             /* set by _init */
    uint32_t create;                  /* 1 (default): create a missing file; 0: ENCORE_ERR_STORE_MISSING */
    int32_t busy_timeout_ms;          /* wait for another process's lock (default 5000) */
    uint32_t reserved;                /* must be 0 */
} encore_store_options;

/* Rows a purge removed. */
typedef struct encore_purge_counts {
    uint64_t observations;
    uint64_t own_keys;
    uint64_t key_packages;
    uint64_t tracing_events;
    uint64_t risk_results;
} encore_purge_counts;

/* One sighting heard over Bluetooth. */
typedef struct encore_observation {
    int64_t time;             /* unix seconds */
    int64_t prev_scan;        /* unix seconds of the previous scan; meaningful when has_prev_scan */
    uint8_t rpi[16];
    uint8_t aem[4];
    int8_t rssi;              /* dBm */
    uint8_t has_prev_scan;    /* 1 when prev_scan is known */
    uint8_t reserved[2];      /* must be 0 */
} encore_observation;

/* ---- Store tables ---- */

/* Memory the library hands out (a general mechanism: store contents,
 * documents and text values now, later features too). A function that
 * returns bytes fills a caller's encore_bytes: `length` bytes at `data`,
 * followed by one NUL byte that `length` does not count, so a text result is
 * a C string as it is. On success `data` is never NULL, also for 0 bytes. The
 * caller owns the memory until it passes the struct to encore_bytes_free(),
 * which wipes and frees it and zeroes the struct; a zeroed struct may be
 * passed again. Pass only structs the library filled (or zeroed ones), and
 * do not free `data` with free(): it is not the start of an allocation. */
typedef struct encore_bytes {
    uint8_t *data;
    size_t length;
} encore_bytes;

/* A list of strings the library hands out (a general mechanism: key package
 * identifiers now, later features too). Read it with
 * encore_string_list_count() and encore_string_list_get(); release it with
 * encore_string_list_free(). Immutable: it may be read from several threads. */
typedef struct encore_string_list encore_string_list;

/* One of the device's own temporary exposure keys. */
typedef struct encore_own_key {
    uint8_t key_data[16];
    int32_t rolling_start_interval_number;  /* ENIN of the key's first interval, >= 0 */
    int32_t rolling_period;                 /* intervals the key covers, 1..144 */
    int64_t created;                        /* unix seconds the key was made, >= 0 */
} encore_own_key;

/* What the key package cache knows about a package, besides its content. */
typedef struct encore_package_info {
    int64_t downloaded;     /* unix seconds */
    uint64_t size;          /* bytes of content */
    uint8_t sha256[32];     /* SHA-256 of the content, computed by the library */
    int32_t has_etag;       /* 1 when the package was stored with an ETag */
    uint32_t reserved;      /* 0 */
} encore_package_info;

/* Tracing (scanning and advertising) was switched on or off. */
typedef struct encore_tracing_event {
    int64_t time;           /* unix seconds */
    int32_t active;         /* 1: switched on; 0: switched off */
    uint32_t reserved;      /* 0 */
} encore_tracing_event;

/* A stored risk result without its document (see
 * encore_store_get_risk_result()). */
typedef struct encore_risk_result {
    int64_t id;                 /* the store's number for it, increasing as results are added */
    int64_t time;               /* unix seconds of the calculation */
    int32_t level;              /* the host's risk level */
    uint32_t reserved;          /* 0 */
    uint64_t document_length;   /* bytes of the UTF-8 document */
} encore_risk_result;

/* Settings: small typed values under a name (UTF-8, 1 to 1024 bytes).
 * Setting a value replaces any value of any type under its name. Reading a
 * setting as another type than it holds is ENCORE_ERR_INVALID_ARGUMENT (the
 * message names the stored type); reading a missing one is
 * ENCORE_ERR_NOT_FOUND. The types (the values are SQLite's storage classes): */
#define ENCORE_SETTING_INTEGER 1  /* int64_t */
#define ENCORE_SETTING_DOUBLE 2   /* double, never NaN */
#define ENCORE_SETTING_TEXT 3     /* UTF-8 text without NUL */
#define ENCORE_SETTING_BLOB 4     /* bytes */

#endif /* ENCORE_TYPES_H */
