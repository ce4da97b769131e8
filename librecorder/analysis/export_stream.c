/*
 * export_stream.c -- the streaming exporter's core (export_stream.h):
 * per-thread queues of items in time order (their containers:
 * export_queue.h), the hold after a loss, the bounded lookahead, clean
 * threads that go straight through, and the walker that nests what leaves
 * a queue and hands it to the format.
 *
 * Invariants, per record R:
 *   - queued items [qhead, qtail) are in arrival order, their begins never
 *     decreasing (a thread's time never goes back); unmatched ends, which
 *     begin earlier than the last item queued, wait in the heap instead;
 *   - what enters the walker comes in begin order, and never begins before
 *     R->frontier (an unmatched end arriving after that point was written
 *     is moved to it, and one that would outlive a slice it overlaps moves
 *     past that slice: late_fits), so the file's events of a thread never
 *     go back in time and its slices nest strictly;
 *   - R->done counts items gone from the queue (written, left out by the
 *     window, or dropped); added - done items are queued.  An item still
 *     queued once xs_add has flushed gets an entry in the FIFO of the
 *     lookahead; one gone at once does not (R->passed counts those).  The
 *     FIFO keeps R's entries, added - passed - popped, >= added - done, so
 *     all queues together hold at most `limit` items.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export_queue.h"
#include "export_stream.h"
#include "grow.h"

_Static_assert(sizeof(struct xitem) == 32, "queued items stay 32 bytes");

#define POS_BITS 48
#define POS_MASK ((UINT64_C(1) << POS_BITS) - 1)

/* ---- records -------------------------------------------------------------- */

static struct xrec *rec_at(struct xs *x, uint32_t rec) {
    if (rec >= x->nr) {
        size_t had = x->nr;
        struct xrec *p = grow_zeroed(x->r, &x->nr, sizeof *p, rec, 64);
        if (!p) return NULL;
        for (size_t i = had; i < x->nr; i++) {
            p[i].hold = XS_NONE;
            p[i].last_b = INT64_MIN;
            p[i].frontier = INT64_MIN;
        }
        x->r = p;
    }
    return &x->r[rec];
}

/* The next item of R in time order: the queue's front or the heap's top.
 * At equal begins an unmatched end goes first only before a slice that is
 * strictly shorter (it is then that slice's parent); instants and the like
 * queued at that time stay ahead of it. */
static struct xitem *pick(struct xrec *R, int *from_heap) {
    struct xitem *d = R->qhead < R->qtail ? &R->q[R->qhead & (R->qcap - 1)] : NULL;
    struct xitem *h = R->nlate ? &R->late[0] : NULL;
    int th = h && (!d || h->b < d->b || (h->b == d->b && d->kind == REC_ITEM_SLICE && d->e < h->e));
    *from_heap = th;
    return th ? h : d;
}

static struct xitem take(struct xs *x, struct xrec *R, int from_heap, uint64_t *pos) {
    struct xitem it;
    if (from_heap) {
        it = R->late[0];
        heap_pop(R);
        *pos = XS_NONE;
    } else {
        *pos = R->qhead;
        it = R->q[R->qhead & (R->qcap - 1)];
        R->qhead++;
        q_shrink(x, R);
    }
    return it;
}

/* The heap's top is next; it must nest with the slices in the walker.
 * One of them that ends before it does could not hold it (it would be cut
 * at that end): then it begins just after the outermost such one instead,
 * a sibling (1 ns later, so that no importer pairs that end with this
 * begin).  Returns 1 if it moved (its place in time order may change). */
static int late_fits(struct xrec *R) {
    struct xitem *y = &R->late[0];
    int64_t nb = INT64_MIN;
    for (uint32_t i = R->n; i-- > 0;) {
        int64_t e = R->st[i].e;
        if (e == XS_OPEN || e >= y->e) break;
        nb = e;
    }
    if (nb == INT64_MIN || nb < y->b) return 0;
    struct xitem v = *y;
    v.b = nb + 1;   /* <= v.e: nb < v.e */
    sift_root(R, &v);
    return 1;
}

/* Items after the hold point wait for a possible unmatched end that would
 * wrap them (it can begin as early as the thread's last loss). */
static int held(const struct xrec *R, int from_heap) {
    return R->hold != XS_NONE && (from_heap || R->qhead >= R->hold);
}

/* ---- the walker ------------------------------------------------------------ */

static int should_pop(const struct xrec *R, int64_t b, int64_t e) {
    int64_t top = R->st[R->n - 1].e;
    return top < b || (top == b && e > b);
}

static void pop_frame(struct xs *x, uint32_t rec) {
    struct xrec *R = &x->r[rec];
    /* Read in place: the slot stays as it is until the next push, and a
     * sink's pop never pushes (xs_wake only queues a record for later). */
    const struct xframe *f = &R->st[--R->n];
    int64_t dur = f->e - f->b;
    if (R->n) R->st[R->n - 1].child += dur;
    if (x->sink && x->sink->pop) x->sink->pop(x, rec, f, dur, dur - f->child);
    if (f->e >= R->frontier) {
        R->frontier = f->e;
        R->frontier_is_end = 1;
    }
}

/* The next frame of R's stack, grown if full (NULL: out of memory). */
static struct xframe *push_slot(struct xrec *R) {
    if (R->n == R->cap) {
        uint32_t ncap = R->cap ? R->cap * 2 : 16;
        struct xframe *p = realloc(R->st, ncap * sizeof *p);
        if (!p) return NULL;
        R->st = p;
        R->cap = ncap;
    }
    return &R->st[R->n++];
}

/* An item that goes to the sink as is, shown from b to e with flags. */
static void show(struct xs *x, uint32_t rec, const struct xitem *it, int64_t b, int64_t e, unsigned flags,
                 const char *msg) {
    struct xitem shown = *it;
    shown.b = b;
    shown.e = e;
    shown.flags = (uint8_t)flags;
    if (x->sink && x->sink->item) x->sink->item(x, rec, &shown, msg);
}

/* A slice from *b to *e (XS_OPEN: not ended yet) cut to the window, and
 * flagged ITEM_CLIPPED if it was; 0 if none of it is inside. */
static inline int clip_slice(const struct xs *x, int64_t *b, int64_t *e, unsigned *fl) {
    if ((*e != XS_OPEN && *e < x->from) || *b > x->to) return 0;
    if (*b < x->from) {
        *b = x->from;
        *fl |= ITEM_CLIPPED;
    }
    if (*e != XS_OPEN && *e > x->to) {
        *e = x->to;
        *fl |= ITEM_CLIPPED;
    }
    return 1;
}

/* The walker moves on to an item from b to e: the slices it follows
 * leave, and b is the farthest point written if it is. */
static inline __attribute__((always_inline)) void advance(struct xs *x, uint32_t rec, int64_t b, int64_t e) {
    struct xrec *R = &x->r[rec];
    while (R->n && should_pop(R, b, e)) pop_frame(x, rec);
    if (b > R->frontier) {
        R->frontier = b;
        R->frontier_is_end = 0;
    }
}

/* A slice enters the walker from b to e (e = XS_OPEN if its end is not
 * known yet) with flags fl (window applied).  Inlined into its two
 * callers: enter, and xs_add's path for a closed slice in order, which is
 * nearly every item of an export. */
static inline __attribute__((always_inline)) void enter_slice(struct xs *x, uint32_t rec, const struct xitem *it,
                                                              int64_t b, int64_t e, unsigned fl, uint64_t pos,
                                                              int forced) {
    struct xrec *R = &x->r[rec];
    advance(x, rec, b, e);
    if (R->n && R->st[R->n - 1].e != XS_OPEN && e > R->st[R->n - 1].e) e = R->st[R->n - 1].e;
    if (e == b && x->sink && !x->sink->push_points) {
        show(x, rec, it, b, e, fl, "");
        return;
    }
    if (R->n >= XS_MAX_DEPTH) {
        x->too_deep++;
        return;
    }
    struct xframe *f = push_slot(R);
    if (!f) {
        x->oom = 1;
        return;
    }
    *f = (struct xframe){b, e, 0, pos, it->name_id, 0, (uint8_t)fl, 0, 0, (uint8_t)forced, 0};
    if (x->sink && x->sink->push) x->sink->push(x, rec);
}

/* An item leaves R's queue into the walker (forced: an open slice whose B
 * is due before its end is known). */
static void enter(struct xs *x, uint32_t rec, struct xitem *it, uint64_t pos, int forced) {
    struct xrec *R = &x->r[rec];
    R->done++;
    int64_t b = it->b, e = it->e;
    if (it->kind == REC_ITEM_SLICE) {
        unsigned fl = it->flags;
        if (!clip_slice(x, &b, &e, &fl)) return;
        if (forced) fl &= ~REC_SLICE_OPEN;   /* its flags are those known so far */
        enter_slice(x, rec, it, b, e, fl, pos, forced);
        return;
    }
    const char *msg = "";
    if (it->kind == REC_ITEM_INSTANT && it->u != XS_NONE) {   /* messages leave in the order they came */
        msg = R->msg[it->u & (R->mcap - 1)];
        R->mhead = it->u + 1;
    }
    if (b < x->from || b > x->to) return;
    advance(x, rec, b, b);
    show(x, rec, it, b, e, it->flags, msg);
}

/* May it leave the queue now? */
static int ready(struct xs *x, uint32_t rec, const struct xrec *R, const struct xitem *it) {
    if (it->kind == REC_ITEM_SLICE) return it->e != XS_OPEN;
    if (it->kind != REC_ITEM_FLOW || it->flags == REC_EV_FLOW_BEGIN || !x->sink || !x->sink->ready) return 1;
    if (it->b < x->from || it->b > x->to) return 1;        /* left out anyway */
    if (!R->n || R->st[0].e < it->b) return 1;               /* inside no slice: cannot bind, goes at once */
    return x->sink->ready(x, rec, it);
}

static void flush(struct xs *x, uint32_t rec) {
    struct xrec *R = &x->r[rec];
    for (;;) {
        int h;
        struct xitem *p = pick(R, &h);
        if (!p || held(R, h) || !ready(x, rec, R, p)) return;
        if (h && late_fits(R)) continue;
        uint64_t pos;
        struct xitem it = take(x, R, h, &pos);
        enter(x, rec, &it, pos, 0);
    }
}

/* Past the lookahead: R must let at least one item go now. */
static void force(struct xs *x, uint32_t rec) {
    struct xrec *R = &x->r[rec];
    uint64_t done0 = R->done;
    if (R->hold != XS_NONE) {
        R->hold = XS_NONE;
        flush(x, rec);
        if (R->done != done0) return;
    }
    int h;
    do
        if (!pick(R, &h)) return;
    while (h && late_fits(R));
    uint64_t pos;
    struct xitem it = take(x, R, h, &pos);
    if (it.kind == REC_ITEM_SLICE && it.e == XS_OPEN) {
        x->forced++;
        enter(x, rec, &it, pos, 1);
    } else if (!ready(x, rec, R, &it)) {
        R->done++;
        if (x->sink->unready) x->sink->unready(x, rec, &it);
    } else {
        enter(x, rec, &it, pos, 0);
    }
    flush(x, rec);
}

void xs_wake(struct xs *x, uint32_t rec) {
    struct xrec *R = &x->r[rec];
    if (R->queued) return;
    uint32_t *p = grow_to(x->work, &x->wcap, x->nwork + 1, sizeof *p, 64, 0);
    if (!p) {
        x->oom = 1;
        return;
    }
    x->work = p;
    R->queued = 1;
    x->work[x->nwork++] = rec;
}

static void drain(struct xs *x) {
    while (x->nwork) {
        uint32_t rec = x->work[--x->nwork];
        x->r[rec].queued = 0;
        flush(x, rec);
    }
}

/* The oldest entry of the lookahead goes: its record must have let as many
 * items go as entries it had retired. */
static void fifo_retire(struct xs *x) {
    uint32_t rec = x->fifo[x->fhead++ & (x->fcap - 1)];
    struct xrec *R = &x->r[rec];
    while (R->done - R->passed <= R->popped && R->done < R->added) force(x, rec);
    R->popped++;
}

/* ---- in --------------------------------------------------------------------- */

static void plan_add(struct xs *x, const struct litem *it) {
    switch (it->kind) {
    case REC_ITEM_SLICE: x->n_slices++; break;
    case REC_ITEM_INSTANT: x->n_instants++; break;
    case REC_ITEM_COUNTER: x->n_counters++; break;
    case REC_ITEM_FLOW: x->n_flows++; break;
    case REC_ITEM_LOSS: x->n_losses++; break;
    }
    if (it->ts < x->first_b) x->first_b = it->ts;
}

/* Can an unmatched end come on this record?  Only if the whole source has
 * one on its thread (or nobody read it all).  Without them nothing goes
 * back in time, and holding items only fills the lookahead: a thread's
 * first million items would wait in its queue. */
static int may_wrap(struct xs *x, uint32_t rec) {
    if (!x->whole) return 1;
    long p = rec < x->m->n_recs ? xs_plan_rec(x->m, x->whole, rec) : -1;
    return p < 0 || x->whole->recs[p].unmatched > 0;
}

/* May R's slices enter the walker as they begin, before their end is
 * known?  When the whole source shows that every one of them ends, in
 * order, with no flag and no clipping: a thread (not a GPU lane, whose
 * args wait in the queue) with no loss, no unmatched end, nothing open
 * or too deep at its end, and no window.  Such a slice is entered as a
 * forced one is (its B written with the flags it will end with) but not
 * counted forced; its E comes when it ends.  Without this, a thread
 * inside one long slice (a program's main(), a script's <module>) queued
 * its whole run until that slice ended: tens of MiB copied and faulted
 * in for nothing (about a sixth of `-o x.json`'s conversion time). */
static int eager(struct xs *x, uint32_t rec) {
    if (!x->whole || x->whole == x->m || x->from != INT64_MIN || x->to != INT64_MAX) return 0;
    long p = rec < x->m->n_recs ? xs_plan_rec(x->m, x->whole, rec) : -1;
    if (p < 0) return 0;
    const struct trec *t = &x->whole->recs[p];
    return t->lane_kind == REC_LANE_THREAD && t->depth == 0 && !t->overflow && !t->too_deep && !t->unmatched &&
           !t->flagged && !t->overwritten && !t->dropped && !t->bad && !t->history && t->gap_ns == 0 &&
           !t->gap_frames && !t->pend_loss;
}

/* Where an item beginning at b meets an eager record's walker: 1 if a
 * slice may enter before its end is known (the slices there that ended,
 * ended before b: they leave whatever its length); 0 if it must wait for
 * its end as usual (one ended at b: a slice of no length would go inside
 * it, a longer one after it); -1 if any item must wait: the innermost
 * open slice began at b, and if it ends there too it is a point, with
 * what comes at that time after it, not inside it. */
static int early_at(const struct xrec *R, int64_t b) {
    for (uint32_t i = R->n; i-- > 0;) {
        const struct xframe *f = &R->st[i];
        if (f->e == XS_OPEN) return f->forced && f->b == b ? -1 : 1;
        if (f->e >= b) return 0;
    }
    return 1;
}

uint64_t xs_add(struct xs *x, const struct litem *li, const char *msg, unsigned msg_len) {
    if (x->mode == XS_PLAN) {
        plan_add(x, li);
        return XS_NONE;
    }
    struct xrec *R = rec_at(x, li->rec);
    if (!R) {
        x->oom = 1;
        return XS_NONE;
    }
    if (li->kind == REC_ITEM_SLICE && !(li->flags & REC_SLICE_OPEN) && R->seen && !R->eager &&
        li->ts >= R->last_b && li->ts >= x->t0 && R->qhead == R->qtail && !R->nlate && R->hold == XS_NONE) {
        /* Nearly every item of an export: a closed slice, in order, on a
         * thread with nothing queued or held.  What the general path
         * below does with it (ready, so it enters at once), without the
         * tests that cannot apply. */
        struct xitem it = {li->ts, li->end < li->ts ? li->ts : li->end, li->u, li->name_id, 0, li->kind, li->flags};
        R->last_b = li->ts;
        R->qhead = ++R->qtail;
        R->added++;
        R->passed++;
        R->done++;
        int64_t b = it.b, e = it.e;
        unsigned fl = it.flags;
        if (clip_slice(x, &b, &e, &fl)) enter_slice(x, li->rec, &it, b, e, fl, R->qtail - 1, 0);
        drain(x);
        return XS_NONE;
    }
    struct xitem it = {li->ts, li->ts, li->u, li->name_id, 0, li->kind, li->flags};
    if (li->kind == REC_ITEM_SLICE) it.e = (li->flags & REC_SLICE_OPEN) ? XS_OPEN : li->end < li->ts ? li->ts : li->end;
    if (li->kind == REC_ITEM_INSTANT) it.u = msg && msg_len ? msg_push(R, msg, msg_len) : XS_NONE;
    if (it.b < x->t0) {   /* before the trace start: only a hostile clock gets here */
        it.b = x->t0;
        if (it.e < it.b) it.e = it.b;
    }
    if (!R->seen) {   /* a thread's first items may be wrapped by an unmatched end too */
        R->seen = 1;
        R->wraps = may_wrap(x, li->rec);
        if (R->wraps) R->hold = R->qtail;
        R->eager = !R->wraps && eager(x, li->rec);
    }
    uint64_t handle = XS_NONE;
    int rc;
    if (it.b < R->last_b && it.e != XS_OPEN) {
        /* An unmatched end beginning back in time: merged by time.  Not
         * before what was written already, nor at a sibling's end (an
         * importer could pair that end with this begin). */
        if (it.b < R->frontier || (it.b == R->frontier && R->frontier_is_end)) {
            it.b = R->frontier + (R->frontier_is_end ? 1 : 0);
            if (it.b > it.e) it.b = it.e;
        }
        it.lseq = R->lseq++;
        rc = heap_push(R, &it);
    } else {
        if (it.b < R->last_b) it.b = R->last_b;
        R->last_b = it.b;
        if (it.kind == REC_ITEM_LOSS && R->wraps && R->hold == XS_NONE) R->hold = R->qtail;
        int early = 0, at = R->eager && R->qhead == R->qtail ? early_at(R, it.b) : 1;
        if (at < 0 && R->hold == XS_NONE) R->hold = R->qtail;   /* released when that slice ends (xs_close) */
        if (R->qhead == R->qtail && !R->nlate && R->hold == XS_NONE &&
            (ready(x, li->rec, R, &it) || (early = at > 0 && R->eager && it.kind == REC_ITEM_SLICE && it.e == XS_OPEN))) {
            /* Nothing queued or held before it and it is ready (or may go
             * early): it would be queued and taken back at once (flush),
             * so it enters straight away at the position it would have had. */
            uint64_t pos = R->qtail++;
            R->qhead = R->qtail;
            R->added++;
            R->passed++;
            enter(x, li->rec, &it, pos, early);
            drain(x);
            return early ? (uint64_t)li->rec << POS_BITS | (pos & POS_MASK) : XS_NONE;
        }
        if (it.e == XS_OPEN) handle = (uint64_t)li->rec << POS_BITS | (R->qtail & POS_MASK);
        rc = q_push(x, R, &it);
    }
    if (rc != 0) {
        x->oom = 1;
        return XS_NONE;
    }
    R->added++;
    flush(x, li->rec);
    /* Most items leave at once (the thread is not held, the slice was
     * closed): only those still queued take a place in the lookahead. */
    if (R->done == R->added) R->passed++;
    else if (x->fifo) {
        x->fifo[x->ftail++ & (x->fcap - 1)] = li->rec;
        if (x->ftail - x->fhead > x->limit) fifo_retire(x);
    }
    drain(x);
    return handle;
}

/* A forced slice (in the walker) ends: its end, window and parent applied. */
static void close_frame(struct xs *x, struct xrec *R, uint32_t i, int64_t e, unsigned flags) {
    struct xframe *f = &R->st[i];
    unsigned fl = (flags & ~(unsigned)ITEM_CLIPPED) | (f->flags & ITEM_CLIPPED);
    if (e > x->to) {
        e = x->to;
        fl |= ITEM_CLIPPED;
    }
    if (e < f->b) {   /* it began before the window and ended before it too */
        e = f->b;
        f->outside = 1;
    }
    if (i > 0 && R->st[i - 1].e != XS_OPEN && e > R->st[i - 1].e) e = R->st[i - 1].e;
    f->e = e;
    f->flags = (uint8_t)fl;
}

void xs_close(struct xs *x, uint64_t handle, int64_t e, unsigned flags) {
    if (handle == XS_NONE || x->mode == XS_PLAN || (handle >> POS_BITS) >= x->nr) return;
    uint32_t rec = (uint32_t)(handle >> POS_BITS);
    struct xrec *R = &x->r[rec];
    uint64_t pos = (R->qtail & ~POS_MASK) | (handle & POS_MASK);
    if (pos > R->qtail) pos -= UINT64_C(1) << POS_BITS;
    if (pos >= R->qhead && pos < R->qtail) {
        struct xitem *it = &R->q[pos & (R->qcap - 1)];
        it->e = e < it->b ? it->b : e;
        it->flags = (uint8_t)flags;
        if (pos == R->qhead) {
            flush(x, rec);
            drain(x);
        }
        return;
    }
    /* Entered already: a forced slice on the walker's stack, or left out. */
    for (uint32_t i = R->n; i-- > 0;)
        if (R->st[i].dseq == pos && R->st[i].forced && R->st[i].e == XS_OPEN) {
            close_frame(x, R, i, e, flags);
            /* One that entered early and took no time is the point it
             * would have been had it waited: over before anything else at
             * that time enters (it is the top: what it held ended first). */
            if (R->eager && i + 1 == R->n && R->st[i].e == R->st[i].b && x->sink && !x->sink->push_points)
                pop_frame(x, rec);
            if (R->eager && R->hold != XS_NONE) {   /* what waited for this end (early_at) goes now */
                R->hold = XS_NONE;
                flush(x, rec);
                drain(x);
            }
            return;
        }
}

/* ---- the end ------------------------------------------------------------------ */

void xs_finish(struct xs *x) {
    if (x->mode == XS_PLAN) return;
    rec_model *m = x->m;
    x->finishing = 1;
    size_t n = m->n_recs < x->nr ? m->n_recs : x->nr;
    /* What is still open ends where its thread's open slices do. */
    for (size_t rec = 0; rec < n; rec++) {
        struct xrec *R = &x->r[rec];
        if (!R->seen) continue;
        const struct trec *t = &m->recs[rec];
        int64_t c = model_round_ns(model_close_ns(m, t)), last = model_round_ns(t->last_ns);
        if (c < last) c = last;
        if (c < x->t0) c = x->t0;
        for (uint64_t p = R->qhead; p < R->qtail; p++) {
            struct xitem *it = &R->q[p & (R->qcap - 1)];
            if (it->kind != REC_ITEM_SLICE || it->e != XS_OPEN) continue;
            it->e = c < it->b ? it->b : c;
            it->flags = REC_SLICE_OPEN;
        }
        for (uint32_t i = 0; i < R->n; i++)
            if (R->st[i].e == XS_OPEN) close_frame(x, R, i, c, REC_SLICE_OPEN);
        R->hold = XS_NONE;
    }
    /* Thread by thread in (slot, generation) order, each to its last E; a
     * thread whose flow waits for a start on a later thread resumes when
     * that start is written. */
    uint32_t *order = malloc((m->n_recs ? m->n_recs : 1) * sizeof *order);
    if (!order) {
        x->oom = 1;
        return;
    }
    size_t no = model_record_order(m, order);
    for (size_t k = 0; k < no; k++) {
        if (order[k] >= n) continue;
        struct xrec *R = &x->r[order[k]];
        flush(x, order[k]);
        drain(x);
        if (R->qhead == R->qtail && !R->nlate)
            while (R->n) pop_frame(x, order[k]);
    }
    /* Flows still waiting: their start never comes (it was left out, or
     * there is none).  The one with the earliest time cannot be waiting on
     * another (a start comes before what it starts), so this ends. */
    for (size_t k = 0; k < no; k++) {
        if (order[k] >= n) continue;
        struct xrec *R = &x->r[order[k]];
        while (R->qhead < R->qtail || R->nlate) {
            force(x, order[k]);
            drain(x);
        }
    }
    for (size_t k = 0; k < no; k++)
        if (order[k] < n)
            while (x->r[order[k]].n) pop_frame(x, order[k]);
    free(order);
}
