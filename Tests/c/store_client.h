/* The feature functions take a client (encore_client), not the store. For
 * tests that work on a store's tables, store_client(store) is the client
 * of `store` with the default options, made on first use and kept (with
 * its reference to the store, so no later store can reuse the address)
 * until the program exits. NULL for a NULL store, so that the functions'
 * NULL checks are still tested. */
#ifndef ENCORE_TEST_STORE_CLIENT_H
#define ENCORE_TEST_STORE_CLIENT_H

#include <stdlib.h>

#include "encore.h"

static struct {
    encore_store *store;
    encore_client *client;
} store_clients[256];
static size_t store_client_count;

static void store_clients_free(void) {
    for (size_t i = 0; i < store_client_count; i++) encore_client_free(store_clients[i].client);
    store_client_count = 0;
}

static inline encore_client *store_client(encore_store *store) {
    if (store == NULL) return NULL;
    for (size_t i = 0; i < store_client_count; i++) {
        if (store_clients[i].store == store) return store_clients[i].client;
    }
    if (store_client_count == sizeof store_clients / sizeof store_clients[0]) abort();
    encore_client *client = NULL;
    if (encore_client_new(store, NULL, &client) != ENCORE_OK) {
        fprintf(stderr, "store_client: %s\n", encore_last_error_message());
        abort();
    }
    if (store_client_count == 0) atexit(store_clients_free);
    store_clients[store_client_count].store = store;
    store_clients[store_client_count].client = client;
    store_client_count++;
    return client;
}

#endif
