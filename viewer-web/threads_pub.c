/*
 * threads_pub.c -- publishing the lane table as THREADS deltas and whole
 * tables (see threads_pub.h); the reader thread's side, lanes_publish.
 */
#include <stdlib.h>
#include <string.h>

#include "lanes.h"
#include "shared.h"
#include "threads_pub.h"

static void put_lane(struct wbuf *b, const struct lane *ln) {
    wb_varint(b, ln->id);
    wb_varint(b, ln->slot);
    wb_varint(b, ln->gen);
    wb_svarint(b, ln->tid);
    wb_u8(b, ln->state == REC_SLOT_LIVE ? 1 : 0);
    wb_str(b, ln->name, sizeof ln->name - 1);
    wb_u8(b, (uint8_t)ln->kind);   /* version 6: what the lane records */
    wb_varint(b, ln->device);
    wb_varint(b, ln->stream);
}

/* THREADS: flags, totals, lanes (the changed ones, or all), retired ids. */
static struct frame *encode(const struct lanes *l, int full, uint64_t version) {
    uint32_t n = 0;
    for (uint32_t i = 0; i < l->n; i++) n += full || l->v[l->order[i]].changed;
    struct wbuf b;
    wb_init(&b, 32 + 112 * (size_t)n + (full ? 0 : 5 * (size_t)l->n_retired));
    wb_u8(&b, MSG_THREADS);
    wb_u8(&b, full ? THREADS_FULL : 0);
    wb_varint(&b, l->retired);
    wb_varint(&b, l->folded);
    wb_varint(&b, n);
    for (uint32_t i = 0; i < l->n; i++) {
        const struct lane *ln = &l->v[l->order[i]];
        if (full || ln->changed) put_lane(&b, ln);
    }
    wb_varint(&b, full ? 0 : l->n_retired);
    for (uint32_t i = 0; !full && i < l->n_retired; i++) wb_varint(&b, l->retired_ids[i]);
    struct frame *f = frame_from(&b);
    wb_free(&b);
    if (f) f->version = version;
    return f;
}

void threads_pub_free(struct threads_pub *p) {
    if (!p) return;
    for (uint32_t i = 0; i < p->n; i++) frame_unref(p->d[i]);
    frame_unref(p->full);
    free(p);
}

static void free_after_grace(struct rcu_head *h) {
    web_after_grace(h);
    threads_pub_free(caa_container_of(h, struct threads_pub, rcu));
}

void lanes_publish(struct lanes *l) {
    lanes_retire(l);
    if (!l->dirty) return;
    uint64_t version = l->version + 1;
    struct threads_pub *old = *l->slot;   /* the reader alone publishes it */
    struct threads_pub *p = calloc(1, sizeof *p);
    struct frame *delta = p ? encode(l, 0, version) : NULL;
    int rebuild = !old || version - old->full->version >= THREADS_FULL_EVERY;
    struct frame *full = !delta ? NULL : rebuild ? encode(l, 1, version) : old->full;
    if (!full) {
        /* Stays dirty, changes and retirements kept: the next round tries again. */
        frame_unref(delta);
        free(p);
        return;
    }
    if (!rebuild) frame_ref(full);
    p->version = version;
    p->full = full;
    uint32_t keep = old ? old->n : 0, skip = keep == THREADS_DELTAS ? 1 : 0;
    for (uint32_t i = skip; i < keep; i++) {
        frame_ref(old->d[i]);
        p->d[p->n++] = old->d[i];
    }
    p->d[p->n++] = delta;
    web_publish(l->slot, p);
    if (old) web_call_rcu(&old->rcu, free_after_grace);
    l->version = version;
    for (uint32_t i = 0; i < l->n; i++) l->v[l->order[i]].changed = 0;
    l->n_retired = 0;
    l->dirty = 0;
}
