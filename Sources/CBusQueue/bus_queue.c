// See bus_queue.h.
#include "bus_queue.h"

#include <stdlib.h>
#include <string.h>

struct bq_node {
    bq_node *next;
    // the event's bytes follow
};

void *bq_push(bq_queue *q) {
    bq_node *n = calloc(1, sizeof *n + q->size);
    if (!n) return NULL;
    if (q->tail) q->tail->next = n; else q->head = n;
    q->tail = n;
    return n + 1;
}

int bq_pop(bq_queue *q, void *out) {
    bq_node *n = q->head;
    if (!n) return 0;
    q->head = n->next;
    if (!q->head) q->tail = NULL;
    memcpy(out, n + 1, q->size);
    free(n);
    return 1;
}

int bq_empty(const bq_queue *q) { return q->head == NULL; }

void bq_clear(bq_queue *q) {
    while (q->head) {
        bq_node *n = q->head;
        q->head = n->next;
        free(n);
    }
    q->tail = NULL;
}
