/*
 * Public C types of silent-push registration. Copied into include/encore.h
 * by scripts/gen-header.py, in the push section.
 */
#ifndef ENCORE_PUSH_TYPES_H
#define ENCORE_PUSH_TYPES_H

#include "encore_net_types.h"

/* Events of the registration rule (../shared/spec/push.md). */
#define ENCORE_PUSH_EVENT_APP_START 0     /* the app (the host's process) starts */
#define ENCORE_PUSH_EVENT_CHECKOUT 1      /* a check-out: a new check-in is stored */
#define ENCORE_PUSH_EVENT_EN_ON 2         /* the user turned Exposure Notifications on */
#define ENCORE_PUSH_EVENT_EN_OFF 3        /* the user turned Exposure Notifications off */
#define ENCORE_PUSH_EVENT_TOKEN_CHANGED 4 /* the OS gave a new push token */

/* What the rule says to do. */
#define ENCORE_PUSH_NONE 0
#define ENCORE_PUSH_REGISTER 1
#define ENCORE_PUSH_DEREGISTER 2

/* Where a push token comes from. */
#define ENCORE_PUSH_TYPE_IOS 0
#define ENCORE_PUSH_TYPE_ANDROID 1
#define ENCORE_PUSH_TYPE_IOS_SANDBOX 2

/* For the state arguments of encore_push_set_state(). */
#define ENCORE_PUSH_KEEP (-1)

/* How registration requests are made: start from
 * encore_push_options_init(&o, sizeof o). */
typedef struct encore_push_options {
    uint32_t struct_size;      /* set by _init */
    int32_t attempts;          /* 1..10 (3): a request without a usable answer (network, timeout, 429, 5xx) is retried */
    int32_t retry_delay_ms;    /* 0..60000 (1000): before the first retry, doubling */
} encore_push_options;

/* What the rule decided (encore_push_decide()). */
typedef struct encore_push_decision {
    uint32_t struct_size;      /* sizeof(encore_push_decision), set by the caller */
    int32_t action;            /* ENCORE_PUSH_NONE, _REGISTER or _DEREGISTER */
} encore_push_decision;

/* What push registration knows (encore_push_get_status()); the tokens are
 * not in it. */
typedef struct encore_push_status {
    uint32_t struct_size;          /* sizeof(encore_push_status), set by the caller */
    int32_t registered;            /* 1: a registration is stored (the server said yes) */
    int32_t has_registered_at;
    int32_t api;                   /* ENCORE_PUSH_API_* of the stored registration; -1: none */
    int64_t registered_at;         /* unix seconds of the last registration */
    int32_t push_type;             /* ENCORE_PUSH_TYPE_* of the stored push token; -1: none */
    int32_t has_push_token;        /* 1: a push token is stored */
    int32_t exposure_notifications; /* 1: Exposure Notifications are on (the last tracing event) */
    int32_t check_ins;             /* 1: the user has check-ins */
    int32_t isolated;              /* 1: the user is in isolation */
    int32_t reserved;              /* 0 */
    encore_bytes server;           /* the registry registered with (UTF-8; empty: none), the caller's: release with encore_bytes_free() */
} encore_push_status;

#endif /* ENCORE_PUSH_TYPES_H */
