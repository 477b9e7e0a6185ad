// A FIFO of fixed-size events, for the sd-bus layers of encored and
// encore-notify: sd-bus's callbacks push what happened, the Swift loop
// takes it in order. One thread.
#ifndef ENCORE_BUS_QUEUE_H
#define ENCORE_BUS_QUEUE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct bq_node bq_node;

typedef struct {
    bq_node *head, *tail;
    size_t size;   // each event's size
} bq_queue;

/// A zeroed event of q->size bytes appended; NULL when out of memory.
void *bq_push(bq_queue *q);
/// The oldest event copied to out (q->size bytes) and dropped: 1, or 0 when empty.
int bq_pop(bq_queue *q, void *out);
int bq_empty(const bq_queue *q);
/// Drops every event.
void bq_clear(bq_queue *q);

#ifdef __cplusplus
}
#endif
#endif
