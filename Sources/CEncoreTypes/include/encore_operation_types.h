/*
 * Public C types of network operations. Copied into include/encore.h by
 * scripts/gen-header.py, in the operations section.
 */
#ifndef ENCORE_OPERATION_TYPES_H
#define ENCORE_OPERATION_TYPES_H

#include "encore_net_types.h"

/* A network flow (a push registration, a test result poll, ...) as a state
 * machine the host drives with its own I/O: encore_operation_next() says
 * what to do, encore_operation_feed_answer() / _feed_failure() hand back
 * what came, encore_operation_compute() runs heavy work when the step asks
 * for it, encore_operation_get_status() and the result getters tell the
 * outcome. An operation does no I/O and reads no clock: time is passed in
 * (unix seconds). _next and the feeds run on the calling thread, start no
 * thread and do one answer's work at most (an event loop may call them);
 * the heavy work (matching many key files, CrowdNotifier matching, the
 * exposure check) waits for ENCORE_STEP_COMPUTE, which the host runs where
 * it likes (a worker thread, an executor), and which may use every core.
 * What an answer brings is stored when it is fed, in one transaction; what
 * a computation finds, when it ends. Its requests, their
 * sizes and their order (fake requests included) are its own, whatever the
 * host does. encore_operation_run() is the blocking form: the same machine
 * driven through an encore_transport.
 * Not thread-safe: drive one operation from one thread at a time (different
 * operations, even on one store, may run on different threads). */
typedef struct encore_operation encore_operation;

/* What encore_operation_next() asks for. */
#define ENCORE_STEP_REQUEST 1   /* perform the request in the step, then feed its answer or failure */
#define ENCORE_STEP_WAIT 2      /* nothing to send now: call encore_operation_next() again after wait_ms */
#define ENCORE_STEP_DONE 3      /* finished: encore_operation_get_status() tells how */
#define ENCORE_STEP_COMPUTE 4   /* heavy work is due: call encore_operation_compute() (on any thread), then _next again */

/* The next step of an operation. An output struct that may grow: set
 * struct_size (ENCORE_OUTPUT_INIT). The request's strings and bytes belong
 * to the operation and stay valid until the answer (or failure) for this
 * request is fed, or the operation is freed. */
typedef struct encore_operation_step {
    uint32_t struct_size;             /* sizeof(encore_operation_step), set by the caller */
    int32_t kind;                     /* ENCORE_STEP_* */
    uint64_t request_id;              /* REQUEST: feed the answer with this id */
    const char *method;               /* REQUEST: "GET", "POST", "PUT" or "DELETE"; otherwise NULL */
    const char *url;                  /* REQUEST: https, or plain http to this machine only */
    const encore_http_header *headers;
    size_t header_count;
    const uint8_t *body;              /* NULL when body_length is 0 */
    size_t body_length;
    int64_t wait_ms;                  /* WAIT: milliseconds to wait; otherwise 0 */
} encore_operation_step;

#endif /* ENCORE_OPERATION_TYPES_H */
