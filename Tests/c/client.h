/* The C tests' clients: a client of a store whose clock is a variable the
 * test moves (encore_client_options.clock), so that every call runs at the
 * time the test names, as on a host whose clock moves. */
#ifndef ENCORE_TEST_CLIENT_H
#define ENCORE_TEST_CLIENT_H

#include "check.h"

static inline int64_t test_clock_read(void *context) {
    return *(const int64_t *)context;
}

/* Starts *options from the defaults, with `transport` and the clock *now. */
static inline encore_client_options test_client_options(encore_transport *transport, int64_t *now) {
    encore_client_options o;
    CHECK(encore_client_options_init(&o, sizeof o) == ENCORE_OK);
    o.transport = transport;
    o.clock = test_clock_read;
    o.clock_context = now;
    return o;
}

/* A client of `store` with `options`; NULL (and a failed check) when refused. */
static inline encore_client *test_client(encore_store *store, const encore_client_options *options) {
    encore_client *client = NULL;
    CHECK(encore_client_new(store, options, &client) == ENCORE_OK && client != NULL);
    return client;
}

/* Where a test's clock starts when the test names no time of its own
 * (2023-11-14 22:13:20 UTC): a fixed time, so that no test reads the
 * system's. */
#define TEST_CLOCK_START INT64_C(1700000000)

/* A client of `store` with the default options on the test's clock *now,
 * which the test moves as its scenario goes on (as a host's clock moves);
 * NULL for a NULL store, so that the functions' NULL checks are tested
 * through it. The caller frees it (encore_client_free). */
static inline encore_client *clocked_client(encore_store *store, int64_t *now) {
    if (store == NULL) return NULL;
    encore_client_options o = test_client_options(NULL, now);
    return test_client(store, &o);
}

/* A client with CWA's verification and submission servers on the clock
 * *now; NULL for a NULL store (the flows then refuse the client). */
static inline encore_client *tests_client(encore_store *store, encore_transport *transport, const char *verification_url,
                                          const char *submission_url, int64_t *now) {
    if (store == NULL) return NULL;
    encore_client_options o = test_client_options(transport, now);
    o.verification_url = verification_url;
    o.submission_url = submission_url;
    return test_client(store, &o);
}

/* A client with a push registry at `push_url` (NULL: none) speaking `api`,
 * on the clock *now. */
static inline encore_client *push_client(encore_store *store, encore_transport *transport, const char *push_url, int32_t api,
                                         int64_t *now) {
    if (store == NULL) return NULL;
    encore_client_options o = test_client_options(transport, now);
    o.push_url = push_url;
    o.push_api = api;
    return test_client(store, &o);
}

#endif /* ENCORE_TEST_CLIENT_H */
