/*
 * frame.c -- reference-counted and RCU-published protocol messages.
 */
#include <stdlib.h>
#include <string.h>
#include <urcu/uatomic.h>

#include "frame.h"

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

void frame_ref(struct frame *f) { uatomic_inc(&f->refs); }

void frame_unref(struct frame *f) {
    if (f && uatomic_sub_return(&f->refs, 1) == 0) free(f);
}

static void free_after_grace(struct rcu_head *h) { free(caa_container_of(h, struct frame, rcu)); }

void frame_publish(struct frame **slot, struct frame *f) {
    struct frame *old = rcu_xchg_pointer(slot, f);
    if (old) call_rcu(&old->rcu, free_after_grace);
}
