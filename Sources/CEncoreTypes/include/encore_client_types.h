/*
 * Public C types of the client. Copied into include/encore.h by
 * scripts/gen-header.py, in the client section.
 */
#ifndef ENCORE_CLIENT_TYPES_H
#define ENCORE_CLIENT_TYPES_H

#include "encore_keyfile_types.h"
#include "encore_net_types.h"

/* What a client is made with (encore_client_options): its servers and their
 * keys, the trust list, the transport, the clock and the check-in mode.
 * encore_client itself is declared with the store (section 3), since every
 * feature function, the store's tables' too, takes it. */

/* Which registration API a push registry (encore_client_options.push_url) speaks: SwissCovid's POST /v3/register
 * (a PushRegistration protobuf), or encore-pushd's PUT/DELETE
 * /v1/registrations (the app-instance token as a bearer token). */
#define ENCORE_PUSH_API_SWISSCOVID 0
#define ENCORE_PUSH_API_REGISTRY 1

/* The host's clock: the current time in unix seconds (not negative). Called
 * on the thread of the encore call that needs the time, so from every
 * thread that uses the client. It is the only "now" of the feature
 * functions (none takes one): a host that wants a chosen time returns it
 * here. Operations (encore_operation_next() ...) and the tracer take the
 * times the host drives them at. */
typedef int64_t (*encore_clock_fn)(void *context);

/* Options of a client: start from
 * encore_client_options_init(&options, sizeof options). Every string is
 * copied; a NULL server leaves its flows out (they give
 * ENCORE_ERR_INVALID_ARGUMENT naming the missing server). */
typedef struct encore_client_options {
    uint32_t struct_size;               /* set by _init */
    int32_t push_api;                   /* ENCORE_PUSH_API_* of push_url (SWISSCOVID) */
    encore_transport *transport;        /* kept by the client; NULL: the built-in one (libcurl, default options) */
    encore_trust *trust;                /* kept by the client (keys added later count); NULL: no key files,
                                         * configuration or warning packages can be verified, so none are synced */
    encore_clock_fn clock;              /* NULL: the system clock */
    void *clock_context;
    const char *distribution_url;       /* CWA's distribution server; NULL: no CWA sync */
    const char *country;                /* its packages' country; NULL: "EUR" */
    const char *warning_region;         /* the region of its warning packages; NULL: "DE" */
    const char *dp3t_url;               /* a DP-3T backend; NULL: none */
    const uint8_t *dp3t_public_key;     /* the key of its answers' JWTs: PEM, base64 or DER */
    size_t dp3t_public_key_length;
    const char *crowdnotifier_url;      /* a CrowdNotifier backend (GET /v3/traceKeys); NULL: none */
    const uint8_t *crowdnotifier_public_key; /* the key of its answers' JWTs: PEM, base64 or DER */
    size_t crowdnotifier_public_key_length;
    const char *verification_url;       /* CWA's verification server; NULL: no test registration */
    const char *submission_url;         /* CWA's submission server (with verification_url); NULL: no submission */
    const char *push_url;               /* the push registry; NULL: no push registration */
    /* Added with private check-ins (an older caller's smaller struct_size leaves it DIARY): */
    int32_t checkin_mode;               /* ENCORE_CHECKIN_MODE_* of encore_checkin_add() with MODE_DEFAULT;
                                         * DEFAULT (0) is DIARY */
    uint32_t reserved;                  /* 0 */
} encore_client_options;

#endif /* ENCORE_CLIENT_TYPES_H */
