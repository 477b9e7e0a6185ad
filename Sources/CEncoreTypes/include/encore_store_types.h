/*
 * Public C types of the encrypted store. Copied into include/encore.h by
 * scripts/gen-header.py, in the store section.
 */
#ifndef ENCORE_STORE_TYPES_H
#define ENCORE_STORE_TYPES_H

#include "encore_types.h"

/* The client's encrypted state (a SQLCipher database file). Safe to use from
 * several threads at once: calls are serialised inside. Two processes on
 * one file wait for each other up to the busy timeout. */
typedef struct encore_store encore_store;

/* One app instance: its store, the trust list its downloads must be signed
 * with, its servers, its clock and its transport (encore_client_new()).
 * Every feature function takes the client: sightings, own keys, tracing
 * history, cached key files, risk results, matching and the check,
 * check-ins, CrowdNotifier, push, test results, tracing, sync. The store
 * handle keeps only maintenance (open, close, rekey, schema version,
 * integrity, purge, settings); after encore_store_close() a client's calls
 * fail with ENCORE_ERR_STORE_CLOSED.
 *
 * Thread safety: a client may be used from several threads at once (its
 * store serialises the calls); an operation it starts is driven from one
 * thread at a time. */
typedef struct encore_client encore_client;

/* How a store is encrypted. */
#define ENCORE_KEY_PASSPHRASE 0  /* 1 byte to 1 MiB, any but the raw-key form x'...'; SQLCipher derives the key (slow on purpose) */
#define ENCORE_KEY_RAW 1         /* exactly 32 bytes used as the key (no derivation) */

/* The key that encrypts a store (encore_store_open(), encore_store_rekey()):
 * `length` bytes at `data`, a passphrase or a raw key as `kind` says. The
 * library does not keep the pointer after the call. */
typedef struct encore_store_key {
    uint32_t struct_size;   /* sizeof(encore_store_key) */
    int32_t kind;           /* ENCORE_KEY_PASSPHRASE or ENCORE_KEY_RAW */
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
    uint32_t struct_size;   /* sizeof(encore_purge_counts), set by the caller */
    uint32_t reserved;      /* 0 */
    uint64_t sightings;
    uint64_t own_keys;
    uint64_t keyfiles;
    uint64_t tracing_events;
    uint64_t risk_results;
} encore_purge_counts;

/* One sighting heard over Bluetooth. */
typedef struct encore_sighting {
    uint32_t struct_size;     /* sizeof(encore_sighting) */
    int8_t rssi;              /* dBm */
    uint8_t has_prev_scan;    /* 1 when prev_scan is known */
    uint8_t reserved[2];      /* must be 0 */
    int64_t time;             /* unix seconds */
    int64_t prev_scan;        /* unix seconds of the previous scan; meaningful when has_prev_scan */
    uint8_t rpi[16];
    uint8_t aem[4];
    uint32_t reserved2;       /* must be 0 */
    /* Appended in 1.1 (a caller built before passes a smaller struct_size: typical = rssi): */
    uint8_t has_typical_rssi; /* 1: typical_rssi is the mean RSSI of the reports this sighting folds (rssi their
                                 strongest); 0: typical = rssi (one report). Copied out: 1 when it differs */
    int8_t typical_rssi;      /* dBm; the typical attenuation's, as rssi is the minimum's */
    uint8_t reserved3[6];     /* must be 0 */
} encore_sighting;

/* One of the device's own temporary exposure keys. */
typedef struct encore_own_key {
    uint32_t struct_size;                   /* sizeof(encore_own_key) */
    uint32_t reserved;                      /* must be 0 */
    uint8_t key_data[16];
    int32_t rolling_start_interval_number;  /* ENIN of the key's first interval, >= 0 */
    int32_t rolling_period;                 /* intervals the key covers, 1..144 */
    int64_t created;                        /* unix seconds the key was made, >= 0 */
} encore_own_key;

/* What the cache of key files knows about a cached key file, besides its content. */
typedef struct encore_cached_keyfile_info {
    uint32_t struct_size;   /* sizeof(encore_cached_keyfile_info), set by the caller */
    int32_t has_etag;       /* 1 when the key file was stored with an ETag */
    int64_t downloaded;     /* unix seconds */
    uint64_t size;          /* bytes of content */
    uint8_t sha256[32];     /* SHA-256 of the content, computed by the library */
} encore_cached_keyfile_info;

/* Tracing (scanning and advertising) was switched on or off. */
typedef struct encore_tracing_event {
    uint32_t struct_size;   /* sizeof(encore_tracing_event) */
    int32_t active;         /* 1: switched on; 0: switched off */
    int64_t time;           /* unix seconds */
} encore_tracing_event;

/* A stored risk result without its document (see
 * encore_risk_result_get()). */
typedef struct encore_risk_result {
    uint32_t struct_size;       /* sizeof(encore_risk_result) */
    int32_t level;              /* the host's risk level */
    int64_t id;                 /* the store's number for it, increasing as results are added */
    int64_t time;               /* unix seconds of the calculation */
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

/* A setting's value (encore_store_set_setting(), encore_store_get_setting()):
 * `type` says which of the fields holds it. To set text or a blob, `data`
 * and `length` point at the caller's bytes (NULL is allowed for 0 bytes;
 * text is UTF-8 without NUL and without a terminator counted). Reading
 * one writes `type`, `integer` or `real`, and `length`, leaving `data`
 * NULL: the bytes of text or a blob go to the caller's encore_bytes. */
typedef struct encore_setting_value {
    uint32_t struct_size;   /* sizeof(encore_setting_value) */
    int32_t type;           /* ENCORE_SETTING_* */
    int64_t integer;        /* ENCORE_SETTING_INTEGER */
    double real;            /* ENCORE_SETTING_DOUBLE, never NaN */
    const uint8_t *data;    /* ENCORE_SETTING_TEXT, _BLOB: the bytes to set */
    size_t length;          /* their number */
} encore_setting_value;

#endif /* ENCORE_STORE_TYPES_H */
