/*
 * clients.c -- client list and bounded per-client queues (see clients.h).
 */
#include <stdlib.h>
#include <string.h>

#include "clients.h"
#include "shared.h"

struct qitem {
    struct cds_wfcq_node node;
    struct frame *f;
};

static struct client_set *set_new(size_t n) {
    struct client_set *s = malloc(sizeof *s + n * sizeof *s->c);
    if (s) s->n = n;
    return s;
}

static void free_set(struct rcu_head *h) {
    web_after_grace(h);
    free(caa_container_of(h, struct client_set, rcu));
}

/* Service thread: swap in a new set; the old one goes after a grace period. */
static void set_replace(struct clients *cs, struct client_set *n) {
    struct client_set *old = web_replace(&cs->set, n);
    if (old) web_call_rcu(&old->rcu, free_set);
    web_store(&cs->count, n->n);
}

int clients_init(struct clients *cs, size_t limit) {
    cs->count = 0;
    cs->limit = limit;
    cs->set = set_new(0);
    return cs->set ? 0 : -1;
}

void clients_destroy(struct clients *cs) {
    free(cs->set);
    cs->set = NULL;
}

struct client *client_add(struct clients *cs, struct lws *wsi) {
    struct client_set *cur = cs->set, *n = set_new(cur->n + 1);
    struct client *c = calloc(1, sizeof *c);
    if (!c || !n) goto fail;
    cds_wfcq_init(&c->qhead, &c->qtail);
    c->wsi = wsi;
    c->window = 1;
    c->wants_history = 1;
    wb_init(&c->tx, 4096);
    if (c->tx.oom) goto fail;
    memcpy(n->c, cur->c, cur->n * sizeof *cur->c);
    n->c[cur->n] = c;
    set_replace(cs, n);
    return c;
fail:
    if (c) wb_free(&c->tx);
    free(c);
    free(n);
    return NULL;
}

static void drain(struct client *c) {
    struct frame *f;
    while ((f = client_dequeue(c))) frame_unref(f);
}

/* After a grace period no reader can be offering it a frame any more. */
static void free_client(struct rcu_head *h) {
    web_after_grace(h);
    struct client *c = caa_container_of(h, struct client, rcu);
    drain(c);
    cds_wfcq_destroy(&c->qhead, &c->qtail);
    frame_unref(c->pending);
    wb_free(&c->tx);
    free(c);
}

void client_remove(struct clients *cs, struct client *c) {
    web_store(&c->closing, 1);
    struct client_set *cur = cs->set, *n = set_new(cur->n);
    if (n) {
        size_t k = 0;
        for (size_t i = 0; i < cur->n; i++)
            if (cur->c[i] != c) n->c[k++] = cur->c[i];
        n->n = k;
        set_replace(cs, n);
    } else {
        /* Out of memory: leave it in the set, closing; the reader skips it
         * and it is freed with the set at exit. */
        return;
    }
    c->wsi = NULL;
    web_call_rcu(&c->rcu, free_client);
}

struct frame *client_dequeue(struct client *c) {
    struct cds_wfcq_node *n = cds_wfcq_dequeue_blocking(&c->qhead, &c->qtail);
    if (!n) return NULL;
    struct qitem *q = caa_container_of(n, struct qitem, node);
    web_taken(q);
    struct frame *f = q->f;
    free(q);
    __atomic_fetch_sub(&c->queued_bytes, f->len, __ATOMIC_RELAXED);
    return f;
}

int client_has_queued(struct client *c) { return !cds_wfcq_empty(&c->qhead, &c->qtail); }

/* A frame's events are offered and then thinned or queued: STATUS must
 * not see one without the other (client_accounts), so the reader makes
 * acct_seq odd meanwhile (a seqlock; seq_cst, since TSan does not model
 * fences).  The reader never waits: only STATUS retries. */
#define acct_add(p, v) ((void)__atomic_fetch_add((p), (v), __ATOMIC_SEQ_CST))

/* Queue f for c unless that would overflow its bound; 1 if queued. */
static int enqueue(struct clients *cs, struct client *c, struct frame *f) {
    struct qitem *q = NULL;
    /* An empty queue takes any frame, so a page always makes progress. */
    unsigned long queued = web_load(&c->queued_bytes);
    if (queued == 0 || queued + f->len <= cs->limit) q = malloc(sizeof *q);
    if (f->seq > c->last_seq) c->last_seq = f->seq;
    acct_add(&c->acct_seq, 1);
    acct_add(&c->offered_events, f->events);
    if (!q) {
        /* Thinned: a slow page skips this frame and is told so. */
        acct_add(&c->thinned_events, f->events);
        acct_add(&c->thinned_frames, 1);
        acct_add(&c->acct_seq, 1);
        return 0;
    }
    acct_add(&c->queued_bytes, f->len);
    acct_add(&c->acct_seq, 1);
    cds_wfcq_node_init(&q->node);
    frame_ref(f);
    q->f = f;
    web_handoff(q);
    cds_wfcq_enqueue(&c->qhead, &c->qtail, &q->node);
    return 1;
}

int client_offer_one(struct clients *cs, struct client *c, struct frame *f) { return enqueue(cs, c, f); }

void client_accounts(struct client *c, struct client_acct *a) {
    /* The reader's section is a few additions: a stable read comes at
     * once; the bound only keeps a STATUS from ever spinning long. */
    for (int tries = 0; tries < 1000; tries++) {
        unsigned long s = __atomic_load_n(&c->acct_seq, __ATOMIC_SEQ_CST);
        a->offered = __atomic_load_n(&c->offered_events, __ATOMIC_SEQ_CST);
        a->thinned_events = __atomic_load_n(&c->thinned_events, __ATOMIC_SEQ_CST);
        a->thinned_frames = __atomic_load_n(&c->thinned_frames, __ATOMIC_SEQ_CST);
        a->queued_bytes = __atomic_load_n(&c->queued_bytes, __ATOMIC_SEQ_CST);
        a->hidden_events = __atomic_load_n(&c->hidden_events, __ATOMIC_SEQ_CST);
        if (!(s & 1) && s == __atomic_load_n(&c->acct_seq, __ATOMIC_SEQ_CST)) break;
    }
    /* Dequeued for sending, not sent: still queued, as far as the page knows. */
    if (c->pending) a->queued_bytes += c->pending->len;
}

/* Events not offered while hidden: d more (or, as an unsigned negation,
 * fewer), inside the accounts' seqlock as enqueue's changes are. */
static void add_hidden(struct client *c, unsigned long d) {
    acct_add(&c->acct_seq, 1);
    acct_add(&c->hidden_events, d);
    acct_add(&c->acct_seq, 1);
}

/* The newest history frames that fill at most half the queue bound (the
 * newest one whatever its size, as the history keeps it), and that it has
 * not been offered (newer than last_seq): a page shown again gets the
 * last seconds it missed, never a frame twice.  Those it missed while
 * hidden are no longer missed.  (Without "whatever its size", a reader
 * behind its writers, whose frames are then flushed by size, replayed
 * nothing to a page with a small queue bound.) */
static void replay(struct clients *cs, struct client *c, const struct history *h) {
    size_t bytes = 0, k = 0;
    while (k < h->n) {
        const struct frame *f = h->v[(h->first + h->n - 1 - k) % h->cap];
        if (f->seq <= c->last_seq || (k > 0 && bytes + f->len > cs->limit / 2)) break;
        bytes += f->len;
        k++;
    }
    for (size_t i = h->n - k; i < h->n; i++) {
        struct frame *f = h->v[(h->first + i) % h->cap];
        if (c->hid_first && f->seq >= c->hid_first) add_hidden(c, -(unsigned long)f->events);
        enqueue(cs, c, f);
    }
    c->hid_first = 0;
}

/* Not offered: the page is hidden.  Counted, for STATUS. */
static void hold(struct client *c, const struct frame *f) {
    if (!c->hid_first) c->hid_first = f->seq;
    add_hidden(c, f->events);
}

unsigned clients_offer(struct clients *cs, struct frame *f, const struct history *h) {
    unsigned offered = 0;
    web_read_lock();
    const struct client_set *set = web_subscribe(&cs->set);
    for (size_t i = 0; i < set->n; i++) {
        struct client *c = set->c[i];
        if (web_load(&c->closing)) continue;
        if (web_load(&c->hidden)) {
            hold(c, f);
            continue;
        }
        if (h && web_xchg(&c->wants_history, 0)) replay(cs, c, h);
        enqueue(cs, c, f);
        offered++;
    }
    web_read_unlock();
    return offered;
}

unsigned clients_catch_up(struct clients *cs, const struct history *h) {
    unsigned n = 0;
    web_read_lock();
    const struct client_set *set = web_subscribe(&cs->set);
    for (size_t i = 0; i < set->n; i++) {
        struct client *c = set->c[i];
        if (web_load(&c->closing) || web_load(&c->hidden) || !web_load(&c->wants_history)) continue;
        if (web_xchg(&c->wants_history, 0)) {
            replay(cs, c, h);
            n++;
        }
    }
    web_read_unlock();
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
