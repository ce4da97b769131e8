/*
 * agg.c -- statistics tables and the window rings.
 *
 * A completed slice updates, for its thread's series, one sum per
 * call-path node and one histogram cell per name, in three tables: the
 * whole run, the 100 ms bucket of the 1 s window ring and the 1 s bucket
 * of the 10 s window ring (keyed by the slice's end).  That is six hash
 * updates per slice whatever the history, and a bucket that comes round
 * again is cleared, so memory depends on what happens within 10 s, not on
 * how long the run is.
 *
 * All threads (series 0) are not stored: a query for them sums every
 * series' entries (agg_in_series).  Stored, they doubled the updates and
 * the entries of a table that, at a million names, misses the caches on
 * every update (docs/performance/names.md).
 *
 * Per-name totals are sums over the nodes of that name: a name that
 * nests inside itself counts each level (as most profilers do).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"

void agg_init(struct agg *a) {
    memset(a, 0, sizeof *a);
    a->id = INT64_MIN;
    a->max = UINT32_MAX;   /* the model's tables get their bound (model_life.c) */
}

void agg_free(struct agg *a) {
    uint32_t max = a->max;
    uint64_t stamp = a->stamp;
    u64map_free(&a->acc_idx);
    u64map_free(&a->cells);
    u64map_free(&a->cov);
    free(a->accs);
    agg_init(a);
    a->max = max;
    a->stamp = stamp + 1;   /* never back to a value a cached query saw */
}

void agg_reset(struct agg *a, int64_t id) {
    a->stamp++;
    u64map_clear(&a->acc_idx);
    u64map_clear(&a->cells);
    u64map_clear(&a->cov);
    a->n_acc = 0;
    a->over = 0;
    a->id = id;
}

/* (other) of key's series: where a full table puts what it has no room
 * for.  Node 1 and name 1 are both (other) (model.c). */
#define OTHER_OF(key, low) (((key) & ~(uint64_t)UINT32_MAX) | (low))

/* The acc of key, created empty; NULL if memory ran out.  Slices that
 * come as node 1 (the model's registries were full: model.c) or that a
 * full table gives its series' (other) are counted (each slice merges
 * into one key of a table), so that (other) says how much it holds. */
static struct acc *acc_at(struct agg *a, uint64_t key, uint64_t calls) {
    int isnew;
    if ((uint32_t)key == 1) {
        a->over += calls;
    } else if (a->acc_idx.n >= a->max && !u64map_get(&a->acc_idx, key)) {
        a->over += calls;
        key = OTHER_OF(key, 1);
    }
    uint64_t *v = u64map_put(&a->acc_idx, key, &isnew);
    if (!v) return NULL;
    if (isnew) {
        if (a->n_acc == a->cap_acc) {
            size_t ncap = a->cap_acc ? a->cap_acc * 2 : 64;
            struct acc *p = realloc(a->accs, ncap * sizeof *p);
            if (!p) {
                *v = UINT64_MAX;
                return NULL;
            }
            a->accs = p;
            a->cap_acc = ncap;
        }
        *v = a->n_acc;
        a->accs[a->n_acc++] = (struct acc){0, 0, 0, INFINITY, -INFINITY, 0, 0};
    }
    return *v == UINT64_MAX ? NULL : &a->accs[*v];
}

static void acc_merge(struct agg *a, uint64_t key, const struct acc *x) {
    a->stamp++;
    struct acc *c = acc_at(a, key, x->calls);
    if (!c) return;
    c->calls += x->calls;
    c->total += x->total;
    c->self += x->self;
    c->share += x->share;
    c->self_share += x->self_share;
    if (x->min < c->min) c->min = x->min;
    if (x->max > c->max) c->max = x->max;
}

static void cell_add(struct agg *a, uint64_t key, uint64_t n) {
    int isnew;
    a->stamp++;
    if (a->cells.n >= a->max && ((uint32_t)key >> HIST_BIN_BITS) != 1 && !u64map_get(&a->cells, key))
        key = OTHER_OF(key, 1u << HIST_BIN_BITS | (key & ((1u << HIST_BIN_BITS) - 1)));
    uint64_t *v = u64map_put(&a->cells, key, &isnew);
    if (v) *v += n;
}

/* One slice as a sum: share is the part of its time in the table's time
 * (TOTAL%), and self is shared out in the same proportion. */
static struct acc slice_acc(double dur, double self, double share) {
    return (struct acc){1, dur, self, dur, dur, share, dur > 0 ? self * (share / dur) : 0};
}

void agg_add(struct agg *a, uint16_t series, uint32_t node, uint32_t name, unsigned bin, double dur,
             double self, double share) {
    struct acc x = slice_acc(dur, self, share);
    uint64_t key = (uint64_t)series << 32;
    acc_merge(a, key | node, &x);
    cell_add(a, key | (uint64_t)name << HIST_BIN_BITS | bin, 1);
}

struct agg *agg_ring_bucket(struct ring *w, int64_t id) {
    struct agg *a = &w->b[((id % WIN_BUCKETS) + WIN_BUCKETS) % WIN_BUCKETS];
    if (a->id == id) return a;
    if (a->id != INT64_MIN && a->id > id) return NULL;
    if (a->id != INT64_MIN && w->evict) w->evict(w->owner, a);
    agg_reset(a, id);
    return a;
}

/* ---- the per-thread pending bucket ---------------------------------------- */

/* How far ahead the fold prefetches: enough keys in flight to cover a
 * miss to memory with the updates of those before. */
#define FOLD_AHEAD 12u
/* A thread's pending slices past the dense range (struct trec's plog):
 * at most this many (32 bytes each) before they are folded early. */
#define PLOG_MAX 16384u

/* One table's share of the pending bucket.  At a million names every key
 * misses the caches (a table of the whole run is tens of MB); the keys
 * are all known here, so each is prefetched FOLD_AHEAD updates before
 * its own (docs/performance/names.md). */
static void fold_into(struct agg *t, struct trec *r, uint64_t series) {
    const struct u64map *ai = &t->acc_idx;
    for (uint32_t i = 0; i < r->n_touched; i++) {
        if (i + FOLD_AHEAD < r->n_touched) u64map_prefetch(ai, series | r->touched[i + FOLD_AHEAD]);
        uint32_t node = r->touched[i];
        acc_merge(t, series | node, &r->pacc[node]);
    }
    for (uint32_t i = 0; i < r->n_plog; i++) {
        if (i + FOLD_AHEAD < r->n_plog) u64map_prefetch(ai, series | r->plog[i + FOLD_AHEAD].node);
        const struct pslice *p = &r->plog[i];
        struct acc x = slice_acc(p->dur, p->self, p->share);
        acc_merge(t, series | p->node, &x);
    }
    /* The cells' map is at most half full: the slot 2 * FOLD_AHEAD on is
     * about FOLD_AHEAD cells ahead. */
    const struct u64map *c = &r->pcells;
    for (size_t i = 0; i < c->cap; i++) {
        size_t j = i + 2 * FOLD_AHEAD;
        if (j < c->cap && c->keys[j] != U64MAP_EMPTY) u64map_prefetch(&t->cells, series | c->keys[j]);
        if (c->keys[i] != U64MAP_EMPTY) cell_add(t, series | c->keys[i], c->vals[i]);
    }
}

/* The tables a slice of the pending bucket goes to: the whole run's, and
 * the 1 s and 10 s windows' buckets (NULL: a bucket already rotated out). */
static void pend_tables(rec_model *m, const struct trec *r, struct agg *t[3]) {
    /* 100 ms bucket id -> the 1 s window's bucket and the 10 s window's */
    int64_t id = r->pend_id, sec = (int64_t)floor((double)id / 10.0);
    t[0] = &m->all;
    t[1] = agg_ring_bucket(&m->w1, id);
    t[2] = agg_ring_bucket(&m->w10, sec);
}

void stats_fold(rec_model *m, struct trec *r) {
    if (!r->n_touched && !r->pcells.n && !r->n_plog) return;
    struct agg *t[3];
    pend_tables(m, r, t);
    uint64_t series = (uint64_t)r->series << 32;
    for (int k = 0; k < 3; k++)
        if (t[k]) fold_into(t[k], r, series);
    for (uint32_t i = 0; i < r->n_touched; i++) r->pacc[r->touched[i]].calls = 0;
    r->n_touched = 0;
    /* Freed, not kept: a model holds up to REC_MAX_RECORDS threads, and
     * logs kept at their largest (512 KiB) would be bounded by that times
     * the threads, not by what is pending.  Growing it again costs a few
     * reallocs per thread per 100 ms, where it is used at all. */
    free(r->plog);
    r->plog = NULL;
    r->n_plog = r->cap_plog = 0;
    u64map_clear(&r->pcells);
}

/* Room for one more slice in the plog, folding it when full; 0 if memory
 * ran out (the slice then goes to the tables at once). */
static int plog_room(rec_model *m, struct trec *r) {
    if (r->n_plog < r->cap_plog) return 1;
    if (r->cap_plog == PLOG_MAX) stats_fold(m, r);
    uint32_t ncap = r->cap_plog ? r->cap_plog * 2 : 256;
    struct pslice *p = realloc(r->plog, ncap * sizeof *p);
    if (!p) return 0;
    r->plog = p;
    r->cap_plog = ncap;
    return 1;
}

void stats_pend_release(rec_model *m, struct trec *r) {
    stats_fold(m, r);
    free(r->pacc);
    free(r->touched);
    r->pacc = NULL;
    r->touched = NULL;
    r->pacc_cap = 0;
    r->n_touched = r->cap_touched = 0;
    u64map_free(&r->pcells);
}

void stats_fold_all(rec_model *m) {
    for (size_t i = 0; i < m->n_recs; i++) stats_fold(m, &m->recs[i]);
}

/* Room for node in the pending sums; 0 if there is none (memory, or a
 * node past the dense range): the slice then goes to the tables at once. */
static int pend_grow(struct trec *r, uint32_t node);

static inline int pend_room(struct trec *r, uint32_t node) {
    if (node < r->pacc_cap && r->n_touched < r->cap_touched) return 1;
    return pend_grow(r, node);
}

static int pend_grow(struct trec *r, uint32_t node) {
    if (node >= PEND_DENSE_NODES) return 0;
    if (node >= r->pacc_cap) {
        uint32_t ncap = r->pacc_cap ? r->pacc_cap : 64;
        while (ncap <= node) ncap *= 2;
        struct acc *p = realloc(r->pacc, ncap * sizeof *p);
        if (!p) return 0;
        memset(p + r->pacc_cap, 0, (ncap - r->pacc_cap) * sizeof *p);
        r->pacc = p;
        r->pacc_cap = ncap;
    }
    if (r->n_touched == r->cap_touched) {
        uint32_t ncap = r->cap_touched ? r->cap_touched * 2 : 64;
        uint32_t *p = realloc(r->touched, ncap * sizeof *p);
        if (!p) return 0;
        r->touched = p;
        r->cap_touched = ncap;
    }
    return 1;
}

void stats_share_before(rec_model *m, struct trec *r, uint32_t node, double begin, double lo, double dur,
                        double self) {
    double part = lo - begin;   /* the time before the end's bucket */
    if (!(part > 0)) return;
    double k = dur > 0 ? self / dur : 0;
    uint64_t series = (uint64_t)r->series << 32;
    struct acc x = {0, 0, 0, INFINITY, -INFINITY, part, part * k};
    acc_merge(&m->all, series | node, &x);
    /* Only the last WIN_BUCKETS of each ring can be in a window. */
    struct ring *rings[2] = {&m->w1, &m->w10};
    for (int w = 0; w < 2; w++) {
        double width = rings[w]->width_ns;
        int64_t last = (int64_t)floor((lo - 1e-9) / width);
        double from = begin > (double)(last - WIN_BUCKETS + 1) * width ? begin : (double)(last - WIN_BUCKETS + 1) * width;
        for (int64_t id = (int64_t)floor(from / width); id <= last; id++) {
            double b0 = (double)id * width, b1 = b0 + width;
            double x0 = from > b0 ? from : b0, x1 = lo < b1 ? lo : b1;
            struct agg *t = x1 > x0 ? agg_ring_bucket(rings[w], id) : NULL;
            if (!t) continue;
            struct acc y = {0, 0, 0, INFINITY, -INFINITY, x1 - x0, (x1 - x0) * k};
            acc_merge(t, series | node, &y);
        }
    }
}

void stats_slice(rec_model *m, struct trec *r, uint32_t node, uint32_t name, double end, double dur,
                 double self) {
    if (!(end >= r->pend_lo && end < r->pend_hi)) {
        stats_fold(m, r);
        int64_t id = (int64_t)floor(end / m->w1.width_ns);
        r->pend_id = id;
        r->pend_lo = (double)id * m->w1.width_ns;
        r->pend_hi = r->pend_lo + m->w1.width_ns;
    }
    /* A slice that began in an earlier bucket: its time there goes there. */
    double begin = end - dur, in_bucket = dur;
    if (begin < r->pend_lo) {
        stats_share_before(m, r, node, begin, r->pend_lo, dur, self);
        in_bucket = end - r->pend_lo;
    }
    int dense = pend_room(r, node);
    if (!dense && plog_room(m, r)) {
        /* Past the dense range: logged, its cell counted as any slice's. */
        r->plog[r->n_plog++] = (struct pslice){node, dur, self, in_bucket};
        stats_cell_slow(r, name, dur);
        return;
    }
    if (!dense) {
        struct agg *t[3];
        pend_tables(m, r, t);
        for (int k = 0; k < 3; k++)
            if (t[k]) agg_add(t[k], r->series, node, name, hist_bin(dur), dur, self, in_bucket);
        return;
    }
    stats_pend_add(r, node, name, dur, self, in_bucket);
}

void stats_cell_slow(struct trec *r, uint32_t name, double dur) {
    int isnew;
    uint64_t *c = u64map_put(&r->pcells, (uint64_t)name << HIST_BIN_BITS | hist_bin(dur), &isnew);
    if (c) (*c)++;
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
    if (m->run_first_ns == INFINITY) return 0;
    double now = rec_model_now(m), start = m->run_first_ns;
    if (w == REC_WIN_1S || w == REC_WIN_10S) {
        double width = w == REC_WIN_1S ? m->w1.width_ns : m->w10.width_ns;
        double s = (floor(now / width) - (WIN_BUCKETS - 1)) * width;
        if (s > start) start = s;
    }
    return now > start ? now - start : 0;
}
