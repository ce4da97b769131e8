/*
 * gaps.c -- rec_gaps (recorder/gaps.h): idle gaps per thread, bucketed,
 * from the streaming core (export_stream.h) as a sink, so that `recorder
 * report` needs no event log: its memory does not grow with the events.
 *
 * The stream hands each thread's slices over in begin order, strictly
 * nested: a slice is pushed when it begins and popped when it ends.  A
 * thread's work is its top-level slices less the outermost wait scopes
 * inside them; a top-level wait scope is idle as a whole (the gap runs
 * on through it).  Each stretch of work ends where the next wait begins,
 * and the next stretch starts where that wait ends.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export_stream.h"
#include "grow.h"
#include "recorder/gaps.h"

/* Rings of 2^18 items (8 MiB): enough to hold a thread across the short
 * stretches where an unmatched end may still wrap what came before. */
#define GAPS_LOOKAHEAD ((size_t)1 << 18)

struct gthread {
    int have;                 /* prev_end is known */
    double prev_end;          /* end of the last stretch of work */
    int top;                  /* inside a top-level slice that is work */
    double from;              /* where its current stretch began */
    int from_known, cut;
    int hole;                 /* depth of the outermost wait inside it, -1 none */
    struct rec_gap_row b[REC_GAPS_MAX_BUCKETS];
};

struct rec_gaps {
    rec_model *m;
    struct xs *x;
    double hi[REC_GAPS_MAX_BUCKETS];
    size_t nb;
    struct gthread *t;        /* by the model's record index */
    size_t nt;
    int oom, finished;
};

static struct gthread *thread_of(rec_gaps *g, uint32_t rec) {
    if (rec >= g->nt) {
        size_t had = g->nt;
        struct gthread *p = grow_zeroed(g->t, &g->nt, sizeof *p, rec, 16);
        if (!p) {
            g->oom = 1;
            return NULL;
        }
        for (size_t i = had; i < g->nt; i++) p[i].hole = -1;
        g->t = p;
    }
    return &g->t[rec];
}

/* A stretch of work [b, e]: the gap before it, if both sides are known. */
static void work(rec_gaps *g, struct gthread *t, double b, double e, int b_known, int e_known) {
    if (t->have && b_known) {
        double gap = b - t->prev_end;
        if (gap >= 0) {
            size_t k = 0;
            while (k + 1 < g->nb && gap >= g->hi[k]) k++;
            struct rec_gap_row *r = &t->b[k];
            if (!r->calls || gap < r->min_ns) r->min_ns = gap;
            if (!r->calls || gap > r->max_ns) r->max_ns = gap;
            r->total_ns += gap;
            r->calls++;
        }
    }
    t->have = e_known;
    t->prev_end = e;
}

static void g_push(struct xs *x, uint32_t rec) {
    rec_gaps *g = x->ctx;
    struct xrec *R = &x->r[rec];
    const struct xframe *f = &R->st[R->n - 1];
    int depth = (int)R->n - 1;
    struct gthread *t = thread_of(g, rec);
    if (!t) return;
    int wait = rec_model_name_is_wait(g->m, f->name_id);
    if (depth == 0) {
        t->hole = -1;
        if (f->flags & REC_SLICE_NO_BEGIN) t->have = 0;   /* what came before it is unknown */
        t->top = !wait;
        t->from = (double)f->b;
        t->from_known = !(f->flags & REC_SLICE_NO_BEGIN);
        t->cut = 0;
        return;
    }
    if (!t->top || (t->hole >= 0 && depth > t->hole)) return;   /* inside a wait */
    t->hole = wait ? depth : -1;
}

static void g_pop(struct xs *x, uint32_t rec, const struct xframe *f, int64_t dur, int64_t self) {
    (void)dur;
    (void)self;
    rec_gaps *g = x->ctx;
    int depth = (int)x->r[rec].n;   /* f is off the stack already */
    struct gthread *t = thread_of(g, rec);
    if (!t) return;
    if (depth == 0) {
        if (t->top) {   /* the rest of the top-level slice */
            if (!t->cut || (double)f->e > t->from)
                work(g, t, t->from, (double)f->e, t->from_known, !(f->flags & REC_SLICE_OPEN));
        } else if (f->flags & REC_SLICE_OPEN) {
            t->have = 0;   /* an idle wait still open: no gap after it is known */
        }
        t->top = 0;
        t->hole = -1;
        return;
    }
    if (!t->top || depth != t->hole) return;
    /* A wait inside work: the work stops at its begin, goes on at its end. */
    if ((double)f->b > t->from) work(g, t, t->from, (double)f->b, t->from_known, !(f->flags & REC_SLICE_NO_BEGIN));
    t->from = (double)f->e;
    t->from_known = !(f->flags & REC_SLICE_OPEN);
    t->cut = 1;
}

static const struct xs_sink gaps_sink = {1, g_push, g_pop, NULL, NULL, NULL};

rec_gaps *rec_gaps_new(rec_model *m, const double *hi_ns, size_t n) {
    if (!m || !hi_ns || n == 0 || n > REC_GAPS_MAX_BUCKETS || m->opts.keep_log) return NULL;
    rec_gaps *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->m = m;
    g->nb = n;
    for (size_t i = 0; i < n; i++) g->hi[i] = hi_ns[i];
    g->x = xs_new(m, XS_WRITE, &gaps_sink, g, GAPS_LOOKAHEAD);
    if (!g->x) {
        free(g);
        return NULL;
    }
    xs_attach(g->x);
    return g;
}

int rec_gaps_finish(rec_gaps *g) {
    if (!g->finished) {
        xs_detach(g->x);
        xs_finish(g->x);
        g->finished = 1;
    }
    return g->oom || g->x->oom ? -1 : 0;
}

void rec_gaps_thread(const rec_gaps *g, uint32_t slot, uint32_t gen, struct rec_gap_row *out) {
    memset(out, 0, g->nb * sizeof *out);
    uint64_t *v = u64map_get(&g->m->rec_idx, (uint64_t)slot << 32 | gen);
    if (v && *v < g->nt) memcpy(out, g->t[*v].b, g->nb * sizeof *out);
}

void rec_gaps_free(rec_gaps *g) {
    if (!g) return;
    xs_free(g->x);
    free(g->t);
    free(g);
}
