/* The C tests' clients: a client of a store whose clock is a variable the
 * test moves (encore_client_options.clock), so flows run at the times the
 * test names. Included by the test programs that run flows. */
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

/* Clients made by client_at(), each with its own clock, until clients_free(). */
static struct {
    encore_client *client;
    int64_t now;
} test_clients[64];
static size_t test_client_count;

/* A client of `store` with `options`, its clock standing at `now`, kept
 * until clients_free(): one line per call of a flow at a given time. NULL
 * for a NULL store (the flows then refuse the client). */
static inline encore_client *client_from(encore_store *store, encore_client_options options, int64_t now) {
    if (store == NULL || test_client_count == sizeof test_clients / sizeof test_clients[0]) {
        CHECK(store == NULL);
        return NULL;
    }
    size_t i = test_client_count++;
    test_clients[i].now = now;
    options.clock = test_clock_read;
    options.clock_context = &test_clients[i].now;
    test_clients[i].client = test_client(store, &options);
    return test_clients[i].client;
}

/* A client with CWA's verification and submission servers. */
static inline encore_client *client_at(encore_store *store, encore_transport *transport, const char *verification_url,
                                const char *submission_url, int64_t now) {
    encore_client_options o = test_client_options(transport, NULL);
    o.verification_url = verification_url;
    o.submission_url = submission_url;
    return client_from(store, o, now);
}

/* A client with a push registry speaking `api`. */
static inline encore_client *push_client_at(encore_store *store, encore_transport *transport, const char *push_url, int32_t api,
                                     int64_t now) {
    encore_client_options o = test_client_options(transport, NULL);
    o.push_url = push_url;
    o.push_api = api;
    return client_from(store, o, now);
}

static inline void clients_free(void) {
    while (test_client_count > 0) encore_client_free(test_clients[--test_client_count].client);
}

#endif /* ENCORE_TEST_CLIENT_H */
