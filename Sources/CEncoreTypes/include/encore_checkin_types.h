/*
 * Public C types of check-ins (CWA event registration and CrowdNotifier).
 * Copied into include/encore.h by scripts/gen-header.py, in their section.
 */
#ifndef ENCORE_CHECKIN_TYPES_H
#define ENCORE_CHECKIN_TYPES_H

#include "encore_test_types.h"

/* A location read from a CWA event QR code
 * (https://e.coronawarn.app?v=1#{base64url QRCodePayload}). Immutable: thread-safe. */
typedef struct encore_trace_location encore_trace_location;

/* What a CWA event QR code says about its location
 * (encore_trace_location_get_info()). Its strings point into the
 * encore_trace_location handle and live as long as it does. */
typedef struct encore_trace_location_info {
    uint32_t struct_size;                 /* sizeof(encore_trace_location_info), set by the caller */
    uint32_t version;                     /* QRCodePayload version (1) */
    const char *description;              /* UTF-8, 1 to 255 characters, one line; lives as long as the handle */
    const char *address;                  /* UTF-8, 1 to 255 characters, one line */
    uint64_t start_timestamp;             /* unix seconds; 0 for a permanent place */
    uint64_t end_timestamp;
    uint32_t location_type;               /* CWALocationData's type (0 when absent) */
    uint32_t default_check_in_length_minutes; /* 0 when absent */
    uint8_t location_id[32];              /* SHA-256("CWA-GUID" || payload as scanned) */
    uint8_t location_id_hash[32];         /* SHA-256(location_id) */
    uint64_t payload_length;              /* bytes of the QRCodePayload */
    int64_t automatic_length_seconds;     /* how long a check-in lasts without a check-out (CWA's rule: 900 to 85500) */
} encore_trace_location_info;

/* What an organizer enters for a new CWA event or place (the organizer
 * side): initialise with encore_trace_location_spec_init(), then set the
 * fields. Strings are the caller's, read during the call only. */
typedef struct encore_trace_location_spec {
    uint32_t struct_size;                 /* set by encore_trace_location_spec_init() */
    uint32_t location_type;               /* CWA's TraceLocationType: places 1, 3-8; events 2, 9-12 */
    const char *description;              /* UTF-8: not blank, at most 255 characters, one line */
    const char *address;                  /* the same rules */
    uint64_t start_timestamp;             /* unix seconds: an event has both, start < end; a place neither (0) */
    uint64_t end_timestamp;
    int32_t default_check_in_length_minutes; /* -1 (the init's value): the app's default, places 120, events 15; 0: 15; at most 1425 */
    uint32_t reserved;                    /* 0 */
} encore_trace_location_spec;

/* Image formats of encore_trace_location_get_qr_image(). */
#define ENCORE_QR_IMAGE_PNG 1             /* 8-bit greyscale PNG */
#define ENCORE_QR_IMAGE_SVG 2             /* SVG text, one unit a module */

/* The plaintext of a protected report (CheckInRecord). */
typedef struct encore_checkin_record {
    uint32_t struct_size;                 /* sizeof(encore_checkin_record) */
    uint32_t start_interval_number;       /* 10-minute intervals since the epoch */
    uint32_t period;                      /* intervals, > 0 */
    uint32_t transmission_risk_level;     /* 1..8 */
} encore_checkin_record;

/* A CheckInProtectedReport: the record under AES-256-CBC, HMAC-SHA256 over iv || ciphertext. */
typedef struct encore_checkin_report {
    uint32_t struct_size;                 /* sizeof(encore_checkin_report) */
    uint32_t encrypted_record_length;     /* 16 or 32: a record is at most 18 bytes */
    uint8_t location_id_hash[32];
    uint8_t iv[16];
    uint8_t mac[32];
    uint8_t encrypted_record[32];
} encore_checkin_report;

/* The user's check-ins, a snapshot read with encore_checkin_list_count()
 * and encore_checkin_list_copy(). Immutable: thread-safe. */
typedef struct encore_checkin_list encore_checkin_list;

/* The protected reports a submission would send, a snapshot read with
 * encore_checkin_report_list_count() and encore_checkin_report_list_copy().
 * Immutable: thread-safe. */
typedef struct encore_checkin_report_list encore_checkin_report_list;

/* One protected report a submission sends: a check-in's visit on one UTC
 * day, as the time rules derive it, and its sealed record. */
typedef struct encore_checkin_report_info {
    uint32_t struct_size;                 /* sizeof(encore_checkin_report_info) */
    uint32_t transmission_risk_level;     /* 1..8, in the sealed record too */
    int64_t checkin;                      /* the check-in's id */
    int64_t start;                        /* unix seconds: start_interval_number x 600 */
    uint32_t start_interval_number;       /* 10-minute intervals since the epoch */
    uint32_t period;                      /* intervals */
    encore_checkin_report report;         /* the CheckInProtectedReport as sent (report.struct_size: its size) */
} encore_checkin_report_info;

/* Which app's QR code a check-in was made with. */
#define ENCORE_CHECKIN_KIND_CWA 0
#define ENCORE_CHECKIN_KIND_SWISSCOVID 1
#define ENCORE_CHECKIN_KIND_NOTIFYME 2

/* What a check-in keeps in the store (encore_checkin_add(),
 * encore_checkin_info.mode). Every table is
 * encrypted (SQLCipher): whoever holds the store file and its key reads
 * what is kept.
 * DIARY: the venue readable, as the apps' diaries keep it. A CWA
 * check-in keeps its QR payload, location id and hash, description and
 * address (its warnings are found by the location id); a SwissCovid or
 * NotifyMe one keeps the same of its venue, and per hour of the visit
 * the day and the IBE ciphertext (c1, c2, c3, nonce).
 * PRIVATE (SwissCovid and NotifyMe only): what the CrowdNotifier SDKs
 * keep: per hour the day, c1, c2, c3 and the nonce, and in the list the
 * kind and times; no payload, location id, description, address or
 * anything derived from them, so holding the venue's QR code does not let
 * anyone test the store for a visit. Checking out or editing it needs the
 * QR code again (encore_checkin_end_with_qr()); its warnings keep the
 * times and the decrypted message, under a hash of the trace key (not the
 * venue's hour identity). Its hours open only with the venue's trace key
 * for that hour, which the health authority makes from the venue's master
 * secret: once published, whoever holds it and the store can open them, as
 * with the SDKs. Matching pairs each trace key with every stored hour of
 * its day, as the SDKs do (a diary check-in's payload lets encore pair a
 * key only with the hours it can open); the matches are the same.
 * DEFAULT: for encore_checkin_add(), the client's
 * encore_client_options.checkin_mode (itself DIARY unless set). */
#define ENCORE_CHECKIN_MODE_DEFAULT 0
#define ENCORE_CHECKIN_MODE_DIARY 1
#define ENCORE_CHECKIN_MODE_PRIVATE 2

/* One check-in of a list. Its first version ends at location_id_hash: a
 * caller built against it gets the fields it has. */
typedef struct encore_checkin_info {
    uint32_t struct_size;                 /* sizeof(encore_checkin_info) */
    int32_t submitted;                    /* 1: sent with a positive test (its warnings are ignored) */
    int64_t id;
    int64_t start;                        /* unix seconds */
    int64_t end;                          /* -1 while checked in */
    int64_t auto_end;                     /* when an open check-in closes by itself */
    encore_bytes description;             /* UTF-8, the caller's: release with encore_bytes_free() */
    encore_bytes address;                 /* the same */
    uint8_t location_id_hash[32];
    /* Since 1.0 (struct_size tells whether the library wrote them): */
    int32_t kind;                         /* ENCORE_CHECKIN_KIND_* */
    uint32_t reserved;                    /* 0 */
    int64_t created;                      /* unix seconds the check-in was stored */
    /* Added with private check-ins (struct_size tells whether the library wrote them): */
    int32_t mode;                         /* ENCORE_CHECKIN_MODE_DIARY, or _PRIVATE: then description and
                                           * address are empty and location_id_hash zeros (nothing kept) */
    uint32_t reserved2;                   /* 0 */
} encore_checkin_info;

/* What matching one trace warning package found. */
typedef struct encore_warning_match_summary {
    uint32_t struct_size;                 /* sizeof(encore_warning_match_summary), set by the caller */
    int32_t signature_status;             /* ENCORE_SIGNATURE_* */
    uint32_t interval_number;             /* the package's hour (hours since the epoch) */
    uint32_t reserved;
    uint64_t warnings;                    /* plain TraceTimeIntervalWarnings in the package */
    uint64_t reports;                     /* CheckInProtectedReports in the package */
    uint64_t matches;                     /* of them, for the user's locations and valid */
    uint64_t added;                       /* warnings stored for the first time */
    uint64_t skipped;                     /* unusable: wrong lengths, MAC, padding, record */
} encore_warning_match_summary;

/* The risk of the user's check-ins. Immutable: thread-safe. */
typedef struct encore_checkin_assessment encore_checkin_assessment;

/* Levels of presence tracing (a value mapped to no level: FAILED, as CWA's apps say). */
#define ENCORE_CHECKIN_RISK_LOW 1
#define ENCORE_CHECKIN_RISK_HIGH 2
#define ENCORE_CHECKIN_RISK_FAILED 3

/* The aggregate of a check-in risk assessment
 * (encore_checkin_assessment_get_summary()): the total level and the sizes
 * of its lists of matches and days. */
typedef struct encore_checkin_risk_summary {
    uint32_t struct_size;                 /* sizeof(encore_checkin_risk_summary), set by the caller */
    int32_t total_risk_level;             /* ENCORE_CHECKIN_RISK_* */
    uint64_t match_count;
    uint64_t day_count;
} encore_checkin_risk_summary;

/* One warning overlapping one check-in on one UTC day. */
typedef struct encore_checkin_match {
    uint32_t struct_size;                 /* sizeof(encore_checkin_match) */
    uint32_t transmission_risk_level;
    int64_t check_in;                     /* the check-in's id */
    int64_t date;                         /* unix seconds of the UTC midnight */
    int64_t overlap_seconds;
    int64_t overlap_minutes;              /* rounded half up */
    double normalized_time;               /* transmission risk value x overlap_minutes */
    uint8_t location_id_hash[32];
} encore_checkin_match;

/* The risk of check-ins on one UTC day (encore_checkin_assessment_copy_days()). */
typedef struct encore_checkin_day {
    uint32_t struct_size;                 /* sizeof(encore_checkin_day) */
    int32_t risk_level;                   /* ENCORE_CHECKIN_RISK_* */
    int64_t date;                         /* unix seconds of the UTC midnight */
    double normalized_time;
} encore_checkin_day;

#endif /* ENCORE_CHECKIN_TYPES_H */
