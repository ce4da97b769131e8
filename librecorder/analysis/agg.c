/*
 * agg.c -- statistics tables and the window rings.
 *
 * A completed slice updates, for its thread's series and for series 0
 * (all threads), one sum per call-path node and one histogram cell per
 * name, in three tables: the whole run, the 100 ms bucket of the 1 s
 * window ring and the 1 s bucket of the 10 s window ring (keyed by the
 * slice's end).  That is a dozen hash updates per slice whatever the
 * history, and a bucket that comes round again is cleared, so memory
 * depends on what happens within 10 s, not on how long the run is.
 *
 * Per-name totals are sums over the nodes of that name: a name that
 * nests inside itself counts each level (as most profilers do).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "model.h"

void agg_init(struct agg *a) {
    memset(a, 0, sizeof *a);
    a->id = INT64_MIN;
}

void agg_free(struct agg *a) {
    u64map_free(&a->acc_idx);
    u64map_free(&a->cells);
    free(a->accs);
    agg_init(a);
}

void agg_reset(struct agg *a, int64_t id) {
    u64map_clear(&a->acc_idx);
    u64map_clear(&a->cells);
    a->n_acc = 0;
    a->id = id;
}

static void acc_add(struct agg *a, uint64_t key, double dur, double self) {
    int isnew;
    uint64_t *v = u64map_put(&a->acc_idx, key, &isnew);
    if (!v) return;
    if (isnew) {
        if (a->n_acc == a->cap_acc) {
            size_t ncap = a->cap_acc ? a->cap_acc * 2 : 64;
            struct acc *p = realloc(a->accs, ncap * sizeof *p);
            if (!p) {
                *v = UINT64_MAX;
                return;
            }
            a->accs = p;
            a->cap_acc = ncap;
        }
        *v = a->n_acc;
        a->accs[a->n_acc++] = (struct acc){0, 0, 0, dur, dur};
    }
    if (*v == UINT64_MAX) return;
    struct acc *c = &a->accs[*v];
    c->calls++;
    c->total += dur;
    c->self += self;
    if (dur < c->min) c->min = dur;
    if (dur > c->max) c->max = dur;
}

static void cell_add(struct agg *a, uint64_t key) {
    int isnew;
    uint64_t *v = u64map_put(&a->cells, key, &isnew);
    if (v) (*v)++;
}

void agg_add(struct agg *a, uint16_t series, uint32_t node, uint32_t name, unsigned bin, double dur,
             double self) {
    uint64_t cell = (uint64_t)name << HIST_BIN_BITS | bin;
    acc_add(a, node, dur, self);
    cell_add(a, cell);
    if (series) {   /* 0 is all threads, just done */
        acc_add(a, (uint64_t)series << 32 | node, dur, self);
        cell_add(a, (uint64_t)series << 32 | cell);
    }
}

/* The bucket of a ring that holds time t, cleared if it held an older
 * period; NULL if it already moved on to a newer one (t is too old). */
static struct agg *ring_bucket(struct ring *w, double t) {
    int64_t id = (int64_t)floor(t / w->width_ns);
    struct agg *a = &w->b[((id % WIN_BUCKETS) + WIN_BUCKETS) % WIN_BUCKETS];
    if (a->id == id) return a;
    if (a->id != INT64_MIN && a->id > id) return NULL;
    agg_reset(a, id);
    return a;
}

void stats_add(rec_model *m, uint16_t series, uint32_t node, uint32_t name, double end_ns, double dur,
               double self) {
    unsigned bin = hist_bin(dur);
    agg_add(&m->all, series, node, name, bin, dur, self);
    struct agg *a = ring_bucket(&m->w1, end_ns);
    if (a) agg_add(a, series, node, name, bin, dur, self);
    a = ring_bucket(&m->w10, end_ns);
    if (a) agg_add(a, series, node, name, bin, dur, self);
}

size_t stats_window(rec_model *m, enum rec_window w, struct agg **out) {
    if (w != REC_WIN_1S && w != REC_WIN_10S) {
        out[0] = &m->all;
        return 1;
    }
    struct ring *r = w == REC_WIN_1S ? &m->w1 : &m->w10;
    int64_t cur = (int64_t)floor(rec_model_now(m) / r->width_ns);
    size_t n = 0;
    for (int i = 0; i < WIN_BUCKETS; i++) {
        struct agg *a = &r->b[i];
        if (a->id != INT64_MIN && a->id <= cur && a->id > cur - WIN_BUCKETS) out[n++] = a;
    }
    return n;
}

double rec_model_window_span(const rec_model *m, enum rec_window w) {
    if (!m->have_first) return 0;
    double now = rec_model_now(m), start = m->run_first_ns;
    if (w == REC_WIN_1S || w == REC_WIN_10S) {
        double width = w == REC_WIN_1S ? m->w1.width_ns : m->w10.width_ns;
        double s = (floor(now / width) - (WIN_BUCKETS - 1)) * width;
        if (s > start) start = s;
    }
    return now > start ? now - start : 0;
}
