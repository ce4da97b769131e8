/*
 * frame.c -- reference-counted and RCU-published protocol messages.
 */
#include <stdlib.h>
#include <string.h>
#include "frame.h"
#include "shared.h"

struct frame *frame_from(const struct wbuf *b) {
    if (b->oom) return NULL;
    struct frame *f = malloc(sizeof *f + WIRE_PRE + b->len);
    if (!f) return NULL;
    memset(f, 0, sizeof *f);
    f->refs = 1;
    f->len = b->len;
    memcpy(f->buf + WIRE_PRE, b->mem + WIRE_PRE, b->len);
    return f;
}

void frame_ref(struct frame *f) { __atomic_fetch_add(&f->refs, 1, __ATOMIC_RELAXED); }

void frame_unref(struct frame *f) {
    if (f && __atomic_sub_fetch(&f->refs, 1, __ATOMIC_ACQ_REL) == 0) free(f);
}

static void free_after_grace(struct rcu_head *h) {
    web_after_grace(h);
    free(caa_container_of(h, struct frame, rcu));
}

void frame_publish(struct frame **slot, struct frame *f) {
    struct frame *old = web_replace(slot, f);
    if (old) web_call_rcu(&old->rcu, free_after_grace);
}
