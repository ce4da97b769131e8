/*
 * export_queue.h -- the streaming exporter's per-thread containers
 * (export_stream.c's alone): each record's queue, a ring indexed by
 * queue position, the ring of its queued instants' messages, and the heap
 * of its unmatched ends.  Static inline: they are on the path of every
 * item queued.
 */
#ifndef REC_ANALYSIS_EXPORT_QUEUE_H
#define REC_ANALYSIS_EXPORT_QUEUE_H

#include <stdlib.h>
#include <string.h>

#include "export_stream.h"

/* ---- the queue: a ring indexed by queue position --------------------------- */

static inline int ring_resize(struct xs *x, struct xrec *R, uint64_t ncap) {
    struct xitem *q = malloc(ncap * sizeof *q);
    if (!q) return -1;
    for (uint64_t p = R->qhead; p < R->qtail; p++) q[p & (ncap - 1)] = R->q[p & (R->qcap - 1)];
    free(R->q);
    x->qcap_all += ncap - R->qcap;
    R->q = q;
    R->qcap = ncap;
    return 0;
}

static inline int q_push(struct xs *x, struct xrec *R, const struct xitem *it) {
    if (R->qtail - R->qhead == R->qcap && ring_resize(x, R, R->qcap ? R->qcap * 2 : 16) != 0) return -1;
    R->q[R->qtail & (R->qcap - 1)] = *it;
    R->qtail++;
    return 0;
}

/* A queue that emptied gives its memory back: a thread that once queued a
 * lot (a long open slice) must not keep it for the rest of the run.  Up
 * to XS_QUEUE_KEEP items it keeps its ring while all rings together stay
 * within the lookahead's size: a thread whose queue fills and empties
 * with every outer slice (a token's layers) does not copy it back and
 * forth each time. */
#define XS_QUEUE_KEEP 4096u

static inline void q_shrink(struct xs *x, struct xrec *R) {
    uint64_t n = R->qtail - R->qhead;
    if (R->qcap > 256 && n * 8 < R->qcap && (R->qcap > XS_QUEUE_KEEP || x->qcap_all > x->limit))
        ring_resize(x, R, R->qcap / 2);
    if (R->mcap > 64 && R->mhead == R->mtail) {
        free(R->msg);
        R->msg = NULL;
        R->mcap = 0;
    }
}

static inline uint64_t msg_push(struct xrec *R, const char *msg, unsigned len) {
    if (R->mtail - R->mhead == R->mcap) {
        uint64_t ncap = R->mcap ? R->mcap * 2 : 16;
        char (*m)[REC_MSG_MAX + 1] = malloc(ncap * sizeof *m);
        if (!m) return XS_NONE;
        for (uint64_t p = R->mhead; p < R->mtail; p++) memcpy(m[p & (ncap - 1)], R->msg[p & (R->mcap - 1)], sizeof *m);
        free(R->msg);
        R->msg = m;
        R->mcap = ncap;
    }
    char *d = R->msg[R->mtail & (R->mcap - 1)];
    if (len > REC_MSG_MAX) len = REC_MSG_MAX;
    memcpy(d, msg, len);
    d[len] = 0;
    return R->mtail++;
}

/* ---- the heap of unmatched ends -------------------------------------------- */

static inline int late_less(const struct xitem *a, const struct xitem *b) {
    if (a->b != b->b) return a->b < b->b;
    if (a->e != b->e) return a->e > b->e;   /* the longer first: it is the parent */
    return (int16_t)(a->lseq - b->lseq) < 0;
}

static inline int heap_push(struct xrec *R, const struct xitem *it) {
    if (R->nlate == R->late_cap) {
        uint32_t ncap = R->late_cap ? R->late_cap * 2 : 8;
        struct xitem *p = realloc(R->late, ncap * sizeof *p);
        if (!p) return -1;
        R->late = p;
        R->late_cap = ncap;
    }
    uint32_t i = R->nlate++;
    while (i > 0 && late_less(it, &R->late[(i - 1) / 2])) {
        R->late[i] = R->late[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    R->late[i] = *it;
    return 0;
}

/* Puts v at the root and sifts it down (v is not smaller than the root's children's parent). */
static inline void sift_root(struct xrec *R, const struct xitem *v) {
    uint32_t i = 0, n = R->nlate;
    for (;;) {
        uint32_t c = 2 * i + 1;
        if (c >= n) break;
        if (c + 1 < n && late_less(&R->late[c + 1], &R->late[c])) c++;
        if (!late_less(&R->late[c], v)) break;
        R->late[i] = R->late[c];
        i = c;
    }
    if (n) R->late[i] = *v;
}

static inline void heap_pop(struct xrec *R) {
    struct xitem last = R->late[--R->nlate];
    uint32_t n = R->nlate;
    sift_root(R, &last);
    if (!n && R->late_cap > 64) {
        free(R->late);
        R->late = NULL;
        R->late_cap = 0;
    }
}

#endif
