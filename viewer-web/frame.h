/*
 * frame.h -- an immutable, encoded protocol message shared between threads.
 *
 * Two ways to share one: EVENTS frames sit in several clients' queues at
 * once and carry a reference count (the last queue to let go frees it);
 * published frames (threads, statistics) hang off an RCU pointer and are
 * freed with call_rcu once no service-thread read section can see them.
 */
#ifndef WEB_FRAME_H
#define WEB_FRAME_H

#include <stddef.h>
#include <stdint.h>
#include <urcu.h>

#include "wire.h"

struct frame {
    struct rcu_head rcu;
    unsigned long refs;       /* atomic */
    uint64_t version;         /* published frames: newer ones have larger versions */
    uint64_t seq;             /* EVENTS frames: batch sequence number */
    uint64_t events;          /* EVENTS frames: events carried (thinning counts) */
    size_t len;
    unsigned char buf[];      /* WIRE_PRE bytes of headroom, then len bytes */
};

/* A frame holding a copy of b's bytes, one reference; NULL if out of memory. */
struct frame *frame_from(const struct wbuf *b);
static inline unsigned char *frame_data(struct frame *f) { return f->buf + WIRE_PRE; }
void frame_ref(struct frame *f);
void frame_unref(struct frame *f);

/* Replace *slot with f (which may be NULL) and free the old frame after a
 * grace period.  The caller is the only thread that publishes to slot. */
void frame_publish(struct frame **slot, struct frame *f);

#endif
