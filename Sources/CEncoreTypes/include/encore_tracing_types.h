/*
 * Public C types of tracing: what a radio host (encore-tracingd over BlueZ,
 * a raw HCI host) broadcasts, when it scans, and what it heard. Copied into
 * include/encore.h by scripts/gen-header.py, in the tracing section.
 */
#ifndef ENCORE_TRACING_TYPES_H
#define ENCORE_TRACING_TYPES_H

#include "encore_types.h"

/* The tracing driver over a store: what to broadcast and until when, when
 * to scan, the scans' ingestion and the tracing history. No I/O but the
 * store's; every time is passed in. Safe to use from several threads
 * (calls are serialised). It keeps its store open until freed. */
typedef struct encore_tracer encore_tracer;

/* Options of encore_tracer_new(): start from
 * encore_tracer_options_init(&options, sizeof options). */
typedef struct encore_tracer_options {
    uint32_t struct_size;           /* set by _init */
    uint32_t has_random_seed;       /* 1: rotation times drawn from random_seed (tests only); 0 (default): the system's CSPRNG */
    uint64_t random_seed;
    int64_t scan_window_seconds;    /* default 4 (ENF); 1 <= window <= period */
    int64_t scan_period_seconds;    /* default 300, start to start; at most 300 (ENF: a scan at least every 5 minutes) */
    int64_t rotation_min_seconds;   /* default 600: a payload lasts 10 to 20 minutes */
    int64_t rotation_max_seconds;   /* default 1200; at most 86400 */
    /* Appended in 1.1 (a caller built before passes a smaller struct_size and gets the default): */
    uint64_t max_sightings_per_day; /* default 200000 (0: the default); 10 to 2147483647. Past it a UTC day's
                                       sightings are dropped and counted: new RPIs from 90% of it, RPIs already
                                       kept that day at it (docs/tracing.md) */
} encore_tracer_options;

/* The BLE service data to broadcast for UUID 0xFD6F, and until when. */
typedef struct encore_advertisement {
    uint32_t struct_size;   /* sizeof(encore_advertisement), set by the caller */
    uint32_t interval;      /* the ENIN of the RPI */
    int64_t since;          /* unix seconds the payload was made (its rotation) */
    int64_t valid_until;    /* unix seconds from which it is stale: rotate payload and address then */
    uint8_t payload[20];    /* RPI (16) || AEM (4) */
    uint32_t reserved;      /* 0 */
} encore_advertisement;

/* A scan window: scan from start to end (unix seconds). */
typedef struct encore_scan_window {
    uint32_t struct_size;   /* sizeof(encore_scan_window) */
    uint32_t reserved;      /* must be 0 */
    int64_t start;
    int64_t end;
} encore_scan_window;

/* One advertisement heard: the service data of UUID 0xFD6F as received. */
typedef struct encore_scan_report {
    uint32_t struct_size;   /* sizeof(encore_scan_report) */
    int16_t rssi;           /* dBm as measured (BlueZ's int16), before the RSSI correction; 127: not available (dropped) */
    uint16_t reserved;      /* must be 0 */
    int64_t time;           /* unix seconds, not negative */
    uint8_t rpi[16];
    uint8_t aem[4];
    uint32_t reserved2;     /* must be 0 */
} encore_scan_report;

/* What ingesting one scan did. */
typedef struct encore_scan_result {
    uint32_t struct_size;               /* sizeof(encore_scan_result), set by the caller */
    uint32_t reserved;
    uint64_t reports;                   /* reports given */
    uint64_t sightings_added;           /* sightings written: one per RPI heard */
    uint64_t sightings_already_stored;  /* identical ones stored before (a scan ingested twice) */
    uint64_t own_reports;               /* reports of the device's own RPIs */
    uint64_t repeated_reports;          /* reports folded into an earlier one of the same RPI */
    uint64_t invalid_reports;           /* no RSSI, or another AEM than the RPI's first report */
    /* Appended in 1.1: */
    uint64_t sightings_over_cap;        /* dropped by max_sightings_per_day (counted in the status) */
} encore_scan_result;

/* The device's Bluetooth calibration (for a device Google's table does not
 * list). has_* 0: not measured (the default applies); effective_* are
 * written by encore_tracing_get_calibration() and must be 0 when set. */
typedef struct encore_tracing_calibration {
    uint32_t struct_size;           /* sizeof(encore_tracing_calibration) */
    int32_t has_tx_power;           /* 0 or 1 */
    int32_t tx_power;               /* dBm radiated, -128..127 */
    int32_t has_rssi_correction;    /* 0 or 1 */
    int32_t rssi_correction;        /* dB added to each measured RSSI, -128..127 */
    int32_t has_confidence;         /* 0 or 1: 0 derives it (both measured 2, one 1, none 0) */
    int32_t confidence;             /* 0..3 (ENF's CalibrationConfidence) */
    int32_t effective_tx_power;     /* out: what the AEM carries */
    int32_t effective_rssi_correction; /* out */
    int32_t effective_confidence;   /* out: what the AEM carries */
} encore_tracing_calibration;

/* What the tracing did, for a settings page. */
typedef struct encore_tracing_status {
    uint32_t struct_size;               /* sizeof(encore_tracing_status), set by the caller */
    int32_t active;                     /* 1: tracing is on */
    int32_t has_since;                  /* 1 when tracing ever ran */
    int32_t has_last_scan;              /* 1 when a scan was ingested */
    int64_t since;                      /* unix seconds of the last on/off change */
    int64_t last_scan;                  /* unix seconds the last scan ended */
    uint64_t rpis_last_hour;            /* distinct RPIs heard in the hour up to now */
    uint64_t rpis_last_14_days;         /* distinct RPIs heard in the 14 days up to now */
    int64_t active_seconds_last_14_days; /* tracing time in the 14 days up to now (CWA needs 24 h) */
    /* Appended in 1.1: */
    uint64_t sightings_today;           /* sightings stored on now's UTC day */
    uint64_t sightings_dropped_today;   /* sightings the cap (max_sightings_per_day) dropped on now's UTC day */
    uint64_t sightings_dropped_last_14_days; /* and on the days kept (14) */
} encore_tracing_status;

#endif /* ENCORE_TRACING_TYPES_H */
