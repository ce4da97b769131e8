/*
 * clients.c -- client list and bounded per-client queues (see clients.h).
 */
#include <stdlib.h>
#include <urcu/uatomic.h>

#include "clients.h"

struct qitem {
    struct cds_wfcq_node node;
    struct frame *f;
};

void clients_init(struct clients *cs, size_t limit) {
    CDS_INIT_LIST_HEAD(&cs->list);
    cs->count = 0;
    cs->limit = limit;
}

struct client *client_add(struct clients *cs, struct lws *wsi) {
    struct client *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    cds_wfcq_init(&c->qhead, &c->qtail);
    c->wsi = wsi;
    c->window = 1;
    c->wants_history = 1;
    wb_init(&c->tx, 4096);
    if (c->tx.oom) {
        free(c);
        return NULL;
    }
    cds_list_add_tail_rcu(&c->node, &cs->list);
    uatomic_inc(&cs->count);
    return c;
}

static void drain(struct client *c) {
    struct frame *f;
    while ((f = client_dequeue(c))) frame_unref(f);
}

/* After a grace period no reader can be offering it a frame any more. */
static void free_client(struct rcu_head *h) {
    struct client *c = caa_container_of(h, struct client, rcu);
    drain(c);
    cds_wfcq_destroy(&c->qhead, &c->qtail);
    frame_unref(c->pending);
    wb_free(&c->tx);
    free(c);
}

void client_remove(struct clients *cs, struct client *c) {
    uatomic_set(&c->closing, 1);
    cds_list_del_rcu(&c->node);
    uatomic_dec(&cs->count);
    c->wsi = NULL;
    call_rcu(&c->rcu, free_client);
}

struct frame *client_dequeue(struct client *c) {
    struct cds_wfcq_node *n = cds_wfcq_dequeue_blocking(&c->qhead, &c->qtail);
    if (!n) return NULL;
    struct qitem *q = caa_container_of(n, struct qitem, node);
    struct frame *f = q->f;
    free(q);
    uatomic_sub(&c->queued_bytes, f->len);
    return f;
}

int client_has_queued(struct client *c) { return !cds_wfcq_empty(&c->qhead, &c->qtail); }

/* Queue f for c unless that would overflow its bound; 1 if queued. */
static int enqueue(struct clients *cs, struct client *c, struct frame *f) {
    uatomic_add(&c->offered_events, f->events);
    struct qitem *q = NULL;
    /* An empty queue takes any frame, so a page always makes progress. */
    unsigned long queued = uatomic_read(&c->queued_bytes);
    if (queued == 0 || queued + f->len <= cs->limit) q = malloc(sizeof *q);
    if (!q) {
        /* Thinned: a slow page skips this frame and is told so. */
        uatomic_add(&c->thinned_events, f->events);
        uatomic_inc(&c->thinned_frames);
        return 0;
    }
    cds_wfcq_node_init(&q->node);
    frame_ref(f);
    q->f = f;
    uatomic_add(&c->queued_bytes, f->len);
    cds_wfcq_enqueue(&c->qhead, &c->qtail, &q->node);
    return 1;
}

/* The newest history frames that fill at most half the queue bound. */
static void replay(struct clients *cs, struct client *c, const struct history *h) {
    size_t bytes = 0, k = 0;
    while (k < h->n) {
        const struct frame *f = h->v[(h->first + h->n - 1 - k) % h->cap];
        if (bytes + f->len > cs->limit / 2) break;
        bytes += f->len;
        k++;
    }
    for (size_t i = h->n - k; i < h->n; i++) enqueue(cs, c, h->v[(h->first + i) % h->cap]);
}

unsigned clients_offer(struct clients *cs, struct frame *f, const struct history *h) {
    unsigned took = 0;
    struct client *c;
    rcu_read_lock();
    cds_list_for_each_entry_rcu(c, &cs->list, node) {
        if (uatomic_read(&c->closing)) continue;
        if (h && uatomic_xchg(&c->wants_history, 0)) replay(cs, c, h);
        took += (unsigned)enqueue(cs, c, f);
    }
    rcu_read_unlock();
    return took;
}

unsigned clients_catch_up(struct clients *cs, const struct history *h) {
    unsigned n = 0;
    struct client *c;
    rcu_read_lock();
    cds_list_for_each_entry_rcu(c, &cs->list, node) {
        if (uatomic_read(&c->closing) || !uatomic_read(&c->wants_history)) continue;
        if (uatomic_xchg(&c->wants_history, 0)) {
            replay(cs, c, h);
            n++;
        }
    }
    rcu_read_unlock();
    return n;
}

int history_init(struct history *h, size_t limit) {
    h->cap = 4096;
    h->first = h->n = h->bytes = 0;
    h->limit = limit;
    h->v = calloc(h->cap, sizeof *h->v);
    return h->v ? 0 : -1;
}

void history_push(struct history *h, struct frame *f) {
    frame_ref(f);
    if (h->n == h->cap) {
        struct frame *old = h->v[h->first];
        h->bytes -= old->len;
        frame_unref(old);
        h->first = (h->first + 1) % h->cap;
        h->n--;
    }
    h->v[(h->first + h->n) % h->cap] = f;
    h->n++;
    h->bytes += f->len;
    while (h->n > 1 && h->bytes > h->limit) {
        struct frame *old = h->v[h->first];
        h->bytes -= old->len;
        frame_unref(old);
        h->first = (h->first + 1) % h->cap;
        h->n--;
    }
}

void history_destroy(struct history *h) {
    for (size_t i = 0; i < h->n; i++) frame_unref(h->v[(h->first + i) % h->cap]);
    free(h->v);
    h->v = NULL;
    h->n = 0;
}
