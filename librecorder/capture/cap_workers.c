/*
 * cap_workers.c -- several consumer threads drain one capture's rings.
 *
 * A program that keeps every core busy writes faster than one thread can
 * copy and pack (docs/performance/capture.md): one consumer keeps up with
 * one or two flat-out writers.  So a pass's rings are shared among n
 * threads, the caller's included: each takes the next ring not yet taken
 * (an atomic index over the active slots, so a busy ring does not hold up
 * the others), and reads and packs it into a buffer of its own, through a
 * copy of the capture (`rec_capture.parent` set) that the drain code of
 * cap_write.c uses as it would the capture itself.
 *
 * Invariants the file format needs (docs/capture-format.md):
 *   - records carry consecutive sequence numbers in file order: a worker's
 *     records get theirs only when its buffer is written, under the pool's
 *     lock, and seal() left each payload's sum in their place until then;
 *   - a ring's chunks stay in order: one worker drains a ring in a pass,
 *     and every worker is done before the pass goes on;
 *   - a THREAD record comes before its slot's chunks: the capture's own
 *     buffer (thread records, a PROCESS record) is written before the
 *     workers start, and the strings after they end, as in one thread.
 *
 * The caller's thread is worker 0; the others wait on a condition
 * variable between passes, with every signal blocked (the capture's loop
 * takes its signals as flags).  A ring read that hits a truncated segment
 * is caught by the reading thread's own guard (guard.c is per thread).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cap_write.h"
#include "internal.h"

#define MAX_CONSUMERS 64u

struct capw_worker {
    struct capw_pool *pool;
    pthread_t th;
    int started;
    unsigned char *buf;
    size_t cap;
    struct rec_entry *scratch;
    rec_capture copy;         /* the capture as this worker drains it */
    size_t moved;
    int rc;
    char err[512];
};

struct capw_pool {
    pthread_mutex_t mu;       /* the pass's start and end, and every write to the file */
    pthread_cond_t go, done;
    unsigned gen, pending;
    int quit;
    unsigned n;               /* workers, the caller's (0) included */
    struct capw_worker *w;
    rec_capture tmpl;         /* the capture as the pass starts: each worker's copy */
    uint32_t *todo;           /* the active slots of this pass */
    uint32_t n_todo, cap_todo;
    atomic_uint next;         /* the next of todo to take */
    atomic_int failed;        /* a worker failed: the others stop taking rings */
};

/* Worker w's share of the pass: rings taken one at a time until none is
 * left, then what its buffer holds written. */
static void run_share(struct capw_worker *w) {
    struct capw_pool *p = w->pool;
    rec_capture *k = &w->copy;
    *k = p->tmpl;
    k->buf = w->buf;
    k->cap = w->cap;
    k->len = 0;
    k->scratch = w->scratch;
    memset(&k->st, 0, sizeof k->st);
    w->moved = 0;
    w->rc = REC_OK;
    w->err[0] = 0;
    for (;;) {
        if (atomic_load_explicit(&p->failed, memory_order_relaxed)) break;
        unsigned i = atomic_fetch_add_explicit(&p->next, 1, memory_order_relaxed);
        if (i >= p->n_todo) break;
        w->rc = capw_drain_slot(k, p->todo[i], &w->moved, w->err, sizeof w->err);
        if (w->rc != REC_OK) break;
    }
    if (w->rc == REC_OK && k->len) w->rc = capw_flush(k, w->err, sizeof w->err);
    if (w->rc != REC_OK) atomic_store(&p->failed, 1);
}

static void *worker_main(void *arg) {
    struct capw_worker *w = arg;
    struct capw_pool *p = w->pool;
    unsigned seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->go, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        pthread_mutex_unlock(&p->mu);
        run_share(w);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

/* Writes a worker copy's buffer into the capture's file: each record's
 * sequence number and check are given now, in file order. */
int capw_pool_write(rec_capture *k, char *err, size_t errlen) {
    rec_capture *c = k->parent;
    struct capw_pool *p = c->pool;
    pthread_mutex_lock(&p->mu);
    for (size_t at = 0; at < k->len;) {
        struct rec_cap_rec_header h;
        memcpy(&h, k->buf + at, sizeof h);
        uint64_t sum;
        memcpy(&sum, &h.seq, sizeof sum);
        h.seq = c->seq++;
        h.check = rec_cap_check(h.type, h.size, h.seq, sum);
        memcpy(k->buf + at, &h, sizeof h);
        at += sizeof h + ((h.size + (size_t)7) & ~(size_t)7);
    }
    /* The file's own buffer is empty while workers run: write through it. */
    unsigned char *buf = c->buf;
    size_t len = c->len;
    c->buf = k->buf;
    c->len = k->len;
    int rc = capw_failed(c, err, errlen);
    if (rc == REC_OK) rc = capw_flush(c, err, errlen);
    c->buf = buf;
    c->len = len;
    pthread_mutex_unlock(&p->mu);
    k->len = 0;
    return rc;
}

/* What a worker found, added to the capture's statistics. */
static void merge_stats(struct rec_capture_stats *to, const struct rec_capture_stats *st) {
    to->chunks += st->chunks;
    to->entries += st->entries;
    to->events += st->events;
    to->history = rec_sat_add(to->history, st->history);
    to->overwritten = rec_sat_add(to->overwritten, st->overwritten);
    to->dropped = rec_sat_add(to->dropped, st->dropped);
    to->bad = rec_sat_add(to->bad, st->bad);
}

int capw_pool_drain(rec_capture *c, size_t *moved, int *rc, char *err, size_t errlen) {
    struct capw_pool *p = c->pool;
    if (!p) return 0;
    /* A process of the tree followed live may have more slots than ours. */
    if (c->max_threads > p->cap_todo) {
        uint32_t *t = realloc(p->todo, (size_t)c->max_threads * sizeof *t);
        if (!t) return 0;   /* drained by the caller alone: slower, nothing lost */
        p->todo = t;
        p->cap_todo = c->max_threads;
    }
    uint32_t n = 0;
    for (uint32_t i = 0; i < c->max_threads; i++)
        if (c->slots[i].active) p->todo[n++] = i;
    if (n < 2) return 0;
    /* The THREAD (and PROCESS) records this pass wrote go first. */
    *rc = capw_flush(c, err, errlen);
    if (*rc != REC_OK) return 1;
    p->tmpl = *c;
    p->tmpl.pool = NULL;
    p->tmpl.parent = c;
    p->tmpl.live = NULL;
    p->tmpl.n_live = 0;
    p->n_todo = n;
    atomic_store(&p->next, 0);
    atomic_store(&p->failed, 0);
    pthread_mutex_lock(&p->mu);
    p->pending = p->n - 1;
    p->gen++;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    run_share(&p->w[0]);
    pthread_mutex_lock(&p->mu);
    while (p->pending) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
    *rc = REC_OK;
    for (unsigned i = 0; i < p->n; i++) {
        struct capw_worker *w = &p->w[i];
        merge_stats(&c->st, &w->copy.st);
        if (moved) *moved += w->moved;
        if (w->rc != REC_OK && *rc == REC_OK) {
            *rc = w->rc;
            rec__fail(err, errlen, w->rc, "%s", w->err);
        }
    }
    return 1;
}

void capw_pool_free(rec_capture *c) {
    struct capw_pool *p = c->pool;
    if (!p) return;
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->go);
    pthread_mutex_unlock(&p->mu);
    for (unsigned i = 0; i < p->n; i++) {
        if (p->w[i].started) pthread_join(p->w[i].th, NULL);
        free(p->w[i].buf);
        free(p->w[i].scratch);
    }
    pthread_mutex_destroy(&p->mu);
    pthread_cond_destroy(&p->go);
    pthread_cond_destroy(&p->done);
    free(p->w);
    free(p->todo);
    free(p);
    c->pool = NULL;
}

int rec_capture_set_consumers(rec_capture *c, unsigned n, char *err, size_t errlen) {
    if (n > MAX_CONSUMERS) n = MAX_CONSUMERS;
    capw_pool_free(c);
    if (n > 1 && capw_pool_start(c, n) != 0)
        return rec__fail(err, errlen, REC_ERR_NOMEM, "could not start %u consumer threads", n);
    return REC_OK;
}

/* n threads in all (the caller's one of them); 0, or -1 with nothing
 * started.  Fewer threads than asked are never silently used. */
int capw_pool_start(rec_capture *c, unsigned n) {
    if (n < 2) return 0;
    if (n > MAX_CONSUMERS) n = MAX_CONSUMERS;
    struct capw_pool *p = calloc(1, sizeof *p);
    if (!p) return -1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->go, NULL);
    pthread_cond_init(&p->done, NULL);
    c->pool = p;
    p->n = n;
    p->w = calloc(n, sizeof *p->w);
    if (!p->w) {
        p->n = 0;
        capw_pool_free(c);
        return -1;
    }
    for (unsigned i = 0; i < n; i++) {
        struct capw_worker *w = &p->w[i];
        w->pool = p;
        w->cap = c->cap;
        w->buf = malloc(w->cap);
        w->scratch = malloc(CAPW_SCRATCH_ENTRIES * sizeof *w->scratch);
        if (!w->buf || !w->scratch) {
            capw_pool_free(c);
            return -1;
        }
    }
    sigset_t all, old;
    sigfillset(&all);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int bad = 0;
    for (unsigned i = 1; i < n && !bad; i++) {
        if (pthread_create(&p->w[i].th, NULL, worker_main, &p->w[i]) != 0) bad = 1;
        else p->w[i].started = 1;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (bad) {
        capw_pool_free(c);
        return -1;
    }
    return 0;
}
