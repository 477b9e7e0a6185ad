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

#endif /* ENCORE_PUSH_TYPES_H */
