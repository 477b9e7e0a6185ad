/*
 * Public C types of the HTTP transport. Copied into include/encore.h by
 * scripts/gen-header.py, in the transport section.
 */
#ifndef ENCORE_NET_TYPES_H
#define ENCORE_NET_TYPES_H

#include "encore_types.h"

/* What performs encore's requests to servers: the built-in HTTPS transport
 * (libcurl: TLS verification always on, redirects refused, answers capped,
 * timeouts), or the host's own HTTP stack through a callback. Requests go
 * to https URLs, or plain http to this machine only (127.0.0.0/8, ::1,
 * localhost). Safe to use from several threads at once. */
typedef struct encore_transport encore_transport;

/* Options of a transport: start from
 * encore_transport_options_init(&options, sizeof options). */
typedef struct encore_transport_options {
    uint32_t struct_size;            /* set by _init */
    uint32_t reserved;               /* must be 0 */
    int64_t connect_timeout_ms;      /* 1 ms to 1 h (10000) */
    int64_t timeout_ms;              /* a whole request, 1 ms to 1 h (60000) */
    uint64_t max_response_bytes;     /* the largest answer body, up to 1 GiB (16 MiB) */
    const char *ca_file;             /* PEM file of trusted CAs (private deployments); NULL: the system's */
    const char *ca_dir;              /* directory of hashed CA certificates; NULL: the system's */
} encore_transport_options;

/* One header of a request or an answer. */
typedef struct encore_http_header {
    const char *name;
    const char *value;
} encore_http_header;

/* A request for a host's transport. Everything it points to is valid during
 * the callback only. */
typedef struct encore_http_request {
    uint32_t struct_size;            /* sizeof(encore_http_request) of the library: fields beyond what
                                      * the host's header knows are not there for it */
    uint32_t reserved;               /* 0 */
    const char *method;              /* "GET", "POST", "PUT" or "DELETE" */
    const char *url;
    const encore_http_header *headers;
    size_t header_count;
    const uint8_t *body;             /* NULL when body_length is 0 */
    size_t body_length;
    int64_t connect_timeout_ms;      /* the transport's options, for the host to apply */
    int64_t timeout_ms;
} encore_http_request;

/* The answer a host's callback fills (encore_http_response_set_status(),
 * _add_header(), _append_body()). Valid during the callback only. */
typedef struct encore_http_response encore_http_response;

/* A host's transport: performs one request. Returns 0 when an answer came,
 * whatever its status, after setting it on `response`; nonzero when none
 * came (no connection, timeout, TLS failure), and the operation fails with
 * ENCORE_ERR_NETWORK. Called on the thread of the encore call that needs it,
 * one request at a time per call. It must not call encore with the same
 * store. */
typedef int32_t (*encore_http_fn)(void *context, const encore_http_request *request, encore_http_response *response);

#endif /* ENCORE_NET_TYPES_H */
