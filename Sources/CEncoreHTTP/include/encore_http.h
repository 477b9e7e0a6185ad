/*
 * One HTTP(S) request through libcurl, for the built-in transport
 * (Sources/EncoreHTTP). The policy lives here so that every request has it:
 * TLS verification on (peer and host name), redirects refused (a 3xx is
 * returned as it is), only http and https, answers capped (headers and
 * body), connect and total timeouts, no signals (safe from any thread), and
 * a cancel callback polled during the transfer. libcurl is loaded with
 * dlopen on the first request (encore_http.c says why), not linked.
 */
#ifndef ENCORE_HTTP_H
#define ENCORE_HTTP_H

#include <stddef.h>
#include <stdint.h>

typedef struct enc_http_request {
    const char *method;              /* "GET", "POST", "PUT", "DELETE" */
    const char *url;
    const char *const *headers;      /* "Name: value" lines */
    size_t header_count;
    const uint8_t *body;             /* NULL with body_length 0: no body */
    size_t body_length;
    int64_t connect_timeout_ms;
    int64_t timeout_ms;              /* the whole transfer */
    uint64_t max_response_bytes;     /* body; headers are capped at 64 KiB */
    const char *ca_file;             /* NULL: the system's trust store */
    const char *ca_dir;
    /* Polled during the transfer: nonzero aborts it. May be NULL. */
    int (*cancel)(void *context);
    void *cancel_context;
} enc_http_request;

typedef struct enc_http_response {
    long status;
    char *headers;                   /* the header block of the final answer, NUL-terminated */
    size_t headers_length;
    uint8_t *body;                   /* malloc'd; free with enc_http_response_free */
    size_t body_length;
} enc_http_response;

/* Outcomes other than an answer. */
#define ENC_HTTP_OK 0
#define ENC_HTTP_ERR_CONNECT 1       /* no connection (refused, unreachable, DNS) */
#define ENC_HTTP_ERR_TIMEOUT 2
#define ENC_HTTP_ERR_TLS 3           /* handshake or certificate verification failed */
#define ENC_HTTP_ERR_TOO_LARGE 4     /* the answer exceeded its cap */
#define ENC_HTTP_ERR_CANCELLED 5
#define ENC_HTTP_ERR_PROTOCOL 6      /* a broken answer: truncated, dropped, malformed */
#define ENC_HTTP_ERR_ARGUMENT 7      /* a URL or option curl refused */
#define ENC_HTTP_ERR_INTERNAL 8      /* out of memory, curl could not start */
#define ENC_HTTP_ERR_UNAVAILABLE 9   /* libcurl (loaded on the first request) is missing or unusable */

/* Performs the request; on ENC_HTTP_OK *response holds the answer (any
 * status). Otherwise `error` (size error_size) says why. Thread-safe. */
int enc_http_perform(const enc_http_request *request, enc_http_response *response, char *error, size_t error_size);

void enc_http_response_free(enc_http_response *response);

/* libcurl's version text ("7.88.1"); "unavailable" when it cannot be loaded. */
const char *enc_http_version(void);

#endif /* ENCORE_HTTP_H */
