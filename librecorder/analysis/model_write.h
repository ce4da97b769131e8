/*
 * model_write.h -- what changes the model: the registries' write side
 * (new names' nodes, records, series, slots), the event log's appends,
 * the lifetime's set-up of the core, and the seg poll bounded by stop
 * positions.  Used by the feed (model_feed.c, model_poll.c), the lifetime
 * (model_life.c), the aggregates and the export driver; the exporters and
 * views read the model through model.h alone.
 */
#ifndef REC_ANALYSIS_MODEL_WRITE_H
#define REC_ANALYSIS_MODEL_WRITE_H

#include "model.h"

#pragma GCC visibility push(hidden)

/* model.c: the registries */
int model_registries_init(rec_model *m);   /* fixed entries; 0 or -1 */
void model_registries_free(rec_model *m);
uint32_t model_node(rec_model *m, uint32_t parent, uint32_t id);   /* by string id */
uint16_t model_series(rec_model *m, int tid);
int model_record(rec_model *m, uint32_t slot, uint32_t gen); /* -1 if out of room */
void model_invalidate(rec_model *m);
void model_set_tid(rec_model *m, struct trec *r, int tid);
struct slot_state *model_slot(rec_model *m, uint32_t slot);  /* NULL if out of range */
void model_wait_names(rec_model *m, const char *list);       /* wait.c: parse the wait names */

/* The node of a name id under a parent, through the cache. */
static inline uint32_t model_node_of(rec_model *m, uint32_t parent, uint32_t id) {
    uint64_t key = (uint64_t)parent << 32 | id;
    struct node_cache *c = &m->ncache[(key * UINT64_C(0x9e3779b97f4a7c15)) >> (64 - NODE_CACHE_BITS)];
    if (c->key != key) {
        c->node = model_node(m, parent, id);
        c->key = key;
    }
    return c->node;
}

/* model_poll.c: rec_model_poll_seg reading each slot only up to the ring
 * index stop[slot] (stop has the segment's max_threads entries). */
size_t model_poll_seg_to(rec_model *m, rec_seg *s, const uint64_t *stop);

/* model_feed.c */
void model_switch(rec_model *m, struct slot_state *s, int rec);

/* event_log.c: appending.  A streaming export takes the items instead
 * when it is attached (elog.tap, export_stream.h). */
void elog_init(struct elog *l, size_t max);
void elog_free(struct elog *l);
/* Appends an item; returns its sequence number, or UINT64_MAX (no log). */
uint64_t elog_add_slow(struct elog *l, const struct litem *it, const char *msg, unsigned msg_len);
static inline uint64_t elog_add(struct elog *l, const struct litem *it, const char *msg, unsigned msg_len) {
    /* Inline for the common case, an item that stays within its block:
     * the caller's fields are then stored straight into the log, not
     * built on the stack and copied (1% of recorder-web's instructions,
     * bench/web/server_instr.sh).  An empty log's tail stays 0, a block
     * boundary. */
    uint64_t t = l->tail;
    if (l->tap || !(t & (ELOG_BLOCK - 1)) || it->kind == REC_ITEM_INSTANT ||
        (t - l->head >= l->max && !((l->head + 1) & (ELOG_BLOCK - 1))))
        return elog_add_slow(l, it, msg, msg_len);
    if (t - l->head >= l->max) {   /* the oldest goes, within its block */
        l->head++;
        l->dropped++;
    }
    *elog_item(l, t) = *it;
    l->tail = t + 1;
    return t;
}
/* A slice logged at seq (elog_add's result) ends at end with its final
 * flags: completed in place, or handed to the streaming export. */
void elog_close(struct elog *l, uint64_t seq, double end, unsigned flags);

#pragma GCC visibility pop

#endif
