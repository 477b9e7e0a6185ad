/* The feature functions take a client (encore_client), not the store. For
 * tests that work on a store's tables, store_client(store) is the client
 * of `store` with the default options, made on first use and kept (with
 * its reference to the store, so no later store can reuse the address)
 * until the program exits. NULL for a NULL store, so that the functions'
 * NULL checks are still tested. Its clock is a host clock (the functions
 * take their time from the client): the system's time until
 * store_client_at(store, now) sets it to stand at `now`. */
#ifndef ENCORE_TEST_STORE_CLIENT_H
#define ENCORE_TEST_STORE_CLIENT_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "encore.h"

static struct {
    encore_store *store;
    encore_client *client;
    int64_t now;  /* the client's clock; STORE_CLIENT_SYSTEM_TIME: the system's */
} store_clients[256];
#define STORE_CLIENT_SYSTEM_TIME INT64_MIN

static int64_t store_client_clock(void *context) {
    int64_t now = *(const int64_t *)context;
    return now == STORE_CLIENT_SYSTEM_TIME ? (int64_t)time(NULL) : now;
}
static size_t store_client_count;

static void store_clients_free(void) {
    for (size_t i = 0; i < store_client_count; i++) encore_client_free(store_clients[i].client);
    store_client_count = 0;
}

/* The client of `store`; with `set`, its clock set to stand at `now`,
 * else left where it is (the system's time until a store_client_at() sets
 * it). Not for several threads at once, unless
 * the client is made and its clock set before they start. */
static inline encore_client *store_client_clocked(encore_store *store, int64_t now, int set) {
    if (store == NULL) return NULL;
    for (size_t i = 0; i < store_client_count; i++) {
        if (store_clients[i].store == store) {
            if (set) store_clients[i].now = now;
            return store_clients[i].client;
        }
    }
    if (store_client_count == sizeof store_clients / sizeof store_clients[0]) abort();
    size_t i = store_client_count;
    store_clients[i].now = set ? now : STORE_CLIENT_SYSTEM_TIME;
    encore_client_options options;
    encore_client *client = NULL;
    if (encore_client_options_init(&options, sizeof options) != ENCORE_OK) abort();
    options.clock = store_client_clock;
    options.clock_context = &store_clients[i].now;
    if (encore_client_new(store, &options, &client) != ENCORE_OK) {
        fprintf(stderr, "store_client: %s\n", encore_last_error_message());
        abort();
    }
    if (store_client_count == 0) atexit(store_clients_free);
    store_clients[i].store = store;
    store_clients[i].client = client;
    store_client_count++;
    return client;
}

/* The client of `store` with its clock standing at `now`. */
static inline encore_client *store_client_at(encore_store *store, int64_t now) {
    return store_client_clocked(store, now, 1);
}

/* The client of `store`, its clock where it stands. */
static inline encore_client *store_client(encore_store *store) {
    return store_client_clocked(store, 0, 0);
}

#endif
