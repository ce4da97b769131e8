/*
 * lod.c -- the run's summary per lane on a doubling time grid (see lod.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "clamp.h"
#include "lod.h"
#include "recorder/analysis.h"   /* REC_COUNTERS_MAX: the one bound on counter names */
#include "wire.h"

int lod_init(struct lod *l, uint32_t n_handles, struct frame **slot) {
    memset(l, 0, sizeof *l);
    l->lane = calloc(n_handles, sizeof *l->lane);
    l->n_handles = n_handles;
    l->limit = WEB_NS_MAX;
    l->slot = slot;
    return l->lane ? 0 : -1;
}

void lod_destroy(struct lod *l) {
    if (l->lane)
        for (uint32_t h = 0; h < l->n_handles; h++) free(l->lane[h]);
    free(l->lane);
    l->lane = NULL;
    for (uint32_t i = 0; i < l->n_ctr; i++) free(l->ctr[i]);
    free(l->ctr);
    free(l->ctr_of);
    l->ctr = NULL;
    l->ctr_of = NULL;
}

static void cmerge(struct lod_cbucket *d, const struct lod_cbucket *a, const struct lod_cbucket *b) {
    if (!a->n || !b->n) {
        *d = a->n ? *a : *b;
        return;
    }
    struct lod_cbucket m = *(b->last_ts >= a->last_ts ? b : a);
    m.min = a->min < b->min ? a->min : b->min;
    m.max = a->max > b->max ? a->max : b->max;
    m.n = a->n + b->n < a->n ? UINT32_MAX : a->n + b->n;
    *d = m;
}

static void merge(struct lod_bucket *d, const struct lod_bucket *a, const struct lod_bucket *b) {
    struct lod_bucket m;
    m.busy = (a->busy + b->busy) / 2;
    const struct lod_bucket *t = a->top_share >= b->top_share ? a : b;
    m.top = t->top;
    m.top_share = t->top_share / 2;
    uint32_t n = (a->events & ~LOD_LOST) + (b->events & ~LOD_LOST);
    if (n >= LOD_LOST) n = LOD_LOST - 1;
    m.events = n | ((a->events | b->events) & LOD_LOST);
    *d = m;
}

/* Double the bucket width: every lane's pairs of buckets become one. */
static void coarsen(struct lod *l) {
    l->width *= 2;
    l->shift++;
    for (uint32_t h = 0; h < l->n_handles; h++) {
        struct lod_lane *ll = l->lane[h];
        if (!ll) continue;
        for (uint32_t i = 0; i < LOD_BUCKETS / 2; i++) merge(&ll->b[i], &ll->b[2 * i], &ll->b[2 * i + 1]);
        memset(&ll->b[LOD_BUCKETS / 2], 0, LOD_BUCKETS / 2 * sizeof ll->b[0]);
        ll->used = (ll->used + 1) / 2;
    }
    for (uint32_t c = 0; c < l->n_ctr; c++) {
        struct lod_ctr *lc = l->ctr[c];
        for (uint32_t i = 0; i < LOD_BUCKETS / 2; i++) cmerge(&lc->b[i], &lc->b[2 * i], &lc->b[2 * i + 1]);
        memset(&lc->b[LOD_BUCKETS / 2], 0, LOD_BUCKETS / 2 * sizeof lc->b[0]);
        lc->used = (lc->used + 1) / 2;
    }
    l->dirty = 1;
}

/* bucket_of's rare cases: the first event, a time before the grid's
 * start, a time past its end (the grid coarsens).  Out of line so that
 * the common case stays a few instructions in each caller: as one
 * function that could coarsen it saved and restored registers on every
 * call, half of its instructions (cachegrind, issue 22). */
static __attribute__((noinline)) int bucket_slow(struct lod *l, int64_t ts) {
    if (!l->started) {
        /* The grid starts at a whole millisecond at or before the first event. */
        int64_t q = ts / LOD_WIDTH0_NS - (ts % LOD_WIDTH0_NS < 0);
        l->t0 = q * LOD_WIDTH0_NS;
        l->width = LOD_WIDTH0_NS;
        l->shift = 0;
        l->started = 1;
    }
    if (ts <= l->t0) return 0;   /* a time before the start (a hostile clock) joins the first */
    uint64_t off = (uint64_t)ts - (uint64_t)l->t0;
    uint64_t k = (off / LOD_WIDTH0_NS) >> l->shift;
    while (k >= LOD_BUCKETS) {
        if (l->width >= LOD_WIDTH_MAX_NS) return LOD_BUCKETS - 1;
        coarsen(l);
        k = (off / LOD_WIDTH0_NS) >> l->shift;
    }
    return (int)k;
}

/* The bucket of ts, coarsening the grid until it holds ts; -1 if ts is
 * past the limit. */
static inline int bucket_of(struct lod *l, int64_t ts) {
    if (ts > l->limit) return -1;
    if (l->started && ts > l->t0) {
        /* width is LOD_WIDTH0_NS << shift: a division by a constant (a
         * multiply) and a shift instead of two divisions by a variable,
         * which were a twentieth of the server's time (three calls per
         * slice). */
        uint64_t k = (((uint64_t)ts - (uint64_t)l->t0) / LOD_WIDTH0_NS) >> l->shift;
        if (k < LOD_BUCKETS) return (int)k;
    }
    return bucket_slow(l, ts);
}

int lod_bucket(struct lod *l, int64_t ts) { return bucket_of(l, ts); }

static struct lod_lane *lane_of(struct lod *l, uint32_t h, uint32_t id) {
    if (h >= l->n_handles) return NULL;
    struct lod_lane *ll = l->lane[h];
    if (ll && ll->id == id) return ll;
    /* A handle taken over by a new lane starts empty. */
    if (!ll && !(ll = l->lane[h] = malloc(sizeof *ll))) return NULL;
    memset(ll, 0, sizeof *ll);
    ll->id = id;
    return ll;
}

static void touch(struct lod *l, struct lod_lane *ll, int k) {
    if ((uint32_t)k + 1 > ll->used) ll->used = (uint32_t)k + 1;
    l->dirty = 1;
}

void lod_events(struct lod *l, uint32_t h, uint32_t id, int64_t ts, uint32_t n) {
    int k = bucket_of(l, ts);
    struct lod_lane *ll = k < 0 ? NULL : lane_of(l, h, id);
    if (!ll) return;
    struct lod_bucket *b = &ll->b[k];
    uint32_t have = b->events & ~LOD_LOST, room = LOD_LOST - 1 - have;   /* saturating below the flag */
    b->events = (b->events & LOD_LOST) | (have + (n < room ? n : room));
    touch(l, ll, k);
}

void lod_run_start(struct lod *l, struct lod_run *u, uint32_t h, uint32_t id, int64_t ts) {
    lod_run_end(l, u);
    int k = bucket_of(l, ts);
    if (k < 0) return;            /* past the limit: not summarised */
    u->h = h;
    u->id = id;
    u->n = 1;
    u->ts = ts;
    u->lo = u->hi = 0;            /* empty: a run of one */
    /* The times bucket_of's common case puts in bucket k: after t0
     * (earlier ones join bucket 0 by its rare case), before the bucket's
     * end (later ones coarsen the grid, or pile into the last bucket),
     * not past the limit (not summarised).  Else a run of one. */
    if (ts > l->t0) {
        int64_t lo = l->t0 + (int64_t)k * l->width, hi = lo + l->width;
        if (k == 0) lo = l->t0 + 1;
        if (l->limit < hi - 1) hi = l->limit + 1;
        if (ts >= lo && ts < hi) {
            u->lo = lo;
            u->hi = hi;
        }
    }
}

void lod_slice(struct lod *l, uint32_t h, uint32_t id, int64_t s, int64_t e, uint32_t name) {
    if (e > l->limit) e = l->limit;
    if (e < s) return;
    int ke = bucket_of(l, e);          /* first: it may coarsen the grid */
    int ks = bucket_of(l, s);
    struct lod_lane *ll = ke < 0 || ks < 0 ? NULL : lane_of(l, h, id);
    if (!ll) return;
    for (int k = ks; k <= ke; k++) {
        /* The overlap of [s, e] with bucket k, as a share of the bucket. */
        double b0 = (double)l->t0 + (double)k * (double)l->width, b1 = b0 + (double)l->width;
        double a = (double)s > b0 ? (double)s : b0, z = (double)e < b1 ? (double)e : b1;
        if (k == LOD_BUCKETS - 1 && (double)e > z) z = b1;   /* piled past the grid's end */
        float share = z > a ? (float)((z - a) / (double)l->width) : 0.0f;
        struct lod_bucket *b = &ll->b[k];
        b->busy += share;
        if (b->busy > 1.0f) b->busy = 1.0f;   /* overlapping scopes of a broken stack */
        if (share > b->top_share || !b->top) {
            b->top_share = share;
            b->top = name;
        }
    }
    touch(l, ll, ke);
}

void lod_lost(struct lod *l, uint32_t h, uint32_t id, int64_t a, int64_t b) {
    if (b < a) b = a;
    if (b > l->limit) b = l->limit;
    if (a > b) return;
    int kb = bucket_of(l, b), ka = bucket_of(l, a);
    struct lod_lane *ll = ka < 0 || kb < 0 ? NULL : lane_of(l, h, id);
    if (!ll) return;
    for (int k = ka; k <= kb; k++) ll->b[k].events |= LOD_LOST;
    touch(l, ll, kb);
}

/* The summary of counter name, made on its first value; NULL past
 * REC_COUNTERS_MAX names (or out of memory). */
static struct lod_ctr *counter_of(struct lod *l, uint32_t name) {
    if (name < l->ctr_of_n && l->ctr_of[name]) return l->ctr[l->ctr_of[name] - 1];
    if (l->n_ctr >= REC_COUNTERS_MAX) return NULL;
    if (!l->ctr && !(l->ctr = calloc(REC_COUNTERS_MAX, sizeof *l->ctr))) return NULL;
    if (name >= l->ctr_of_n) {
        /* Grows with the names the input really has (dense ids). */
        uint32_t n = l->ctr_of_n ? l->ctr_of_n : 64;
        while (n <= name) n *= 2;
        uint16_t *v = realloc(l->ctr_of, n * sizeof *v);
        if (!v) return NULL;
        memset(v + l->ctr_of_n, 0, (n - l->ctr_of_n) * sizeof *v);
        l->ctr_of = v;
        l->ctr_of_n = n;
    }
    struct lod_ctr *lc = calloc(1, sizeof *lc);
    if (!lc) return NULL;
    lc->name = name;
    l->ctr[l->n_ctr++] = lc;
    l->ctr_of[name] = (uint16_t)l->n_ctr;
    return lc;
}

void lod_counter(struct lod *l, uint32_t name, int64_t ts, double v) {
    if (!isfinite(v) || name >= UINT32_MAX / 2) return;
    int k = bucket_of(l, ts);
    struct lod_ctr *lc = k < 0 ? NULL : counter_of(l, name);
    if (!lc) return;
    struct lod_cbucket *b = &lc->b[k];
    if (!b->n || v < b->min) b->min = v;
    if (!b->n || v > b->max) b->max = v;
    if (!b->n || ts >= b->last_ts) {
        b->last = v;
        b->last_ts = ts;
    }
    if (b->n < UINT32_MAX) b->n++;
    if ((uint32_t)k + 1 > lc->used) lc->used = (uint32_t)k + 1;
    l->dirty = 1;
}

/* MSG_LOD (docs/web.md, "Protocol"): t0, width, the grid's length, then
 * per lane with data its id, first bucket and count, and per bucket busy
 * (0..255, any time at all is at least 1), top name, events, flags;
 * then per counter with values its name, first bucket and count, and per
 * bucket a flag (1: values in it) and then min, max and last. */
void lod_publish(struct lod *l, const struct lanes *lanes) {
    /* Retired lanes' summaries go with them (the page forgets the lane). */
    for (uint32_t h = 0; h < l->n_handles; h++) {
        struct lod_lane *ll = l->lane[h];
        if (ll && (h >= lanes->cap || lanes->v[h].id != ll->id)) {
            free(ll);
            l->lane[h] = NULL;
            l->dirty = 1;
        }
    }
    if (!l->dirty || !l->started) return;
    struct wbuf m;
    wb_init(&m, 4096);
    wb_u8(&m, MSG_LOD);
    wb_f64(&m, (double)l->t0);
    wb_f64(&m, (double)l->width);
    wb_varint(&m, LOD_BUCKETS);
    uint32_t n = 0;
    for (uint32_t h = 0; h < l->n_handles; h++)
        if (l->lane[h] && l->lane[h]->used) n++;
    wb_varint(&m, n);
    for (uint32_t h = 0; h < l->n_handles; h++) {
        const struct lod_lane *ll = l->lane[h];
        if (!ll || !ll->used) continue;
        uint32_t first = 0;
        while (first < ll->used && !ll->b[first].events && !ll->b[first].top) first++;
        wb_varint(&m, ll->id);
        wb_varint(&m, first);
        wb_varint(&m, ll->used - first);
        for (uint32_t i = first; i < ll->used; i++) {
            const struct lod_bucket *b = &ll->b[i];
            unsigned busy = b->busy > 0 ? (unsigned)(b->busy * 254.0f) + 1u : 0u;
            wb_u8(&m, busy > 255 ? 255 : busy);
            wb_varint(&m, b->top);
            wb_varint(&m, b->events & ~LOD_LOST);
            wb_u8(&m, b->events & LOD_LOST ? LOD_FLAG_LOST : 0);
        }
    }
    n = 0;
    for (uint32_t c = 0; c < l->n_ctr; c++) n += l->ctr[c]->used > 0;
    wb_varint(&m, n);
    for (uint32_t c = 0; c < l->n_ctr; c++) {
        const struct lod_ctr *lc = l->ctr[c];
        if (!lc->used) continue;
        uint32_t first = 0;
        while (first < lc->used && !lc->b[first].n) first++;
        wb_varint(&m, lc->name);
        wb_varint(&m, first);
        wb_varint(&m, lc->used - first);
        for (uint32_t i = first; i < lc->used; i++) {
            const struct lod_cbucket *b = &lc->b[i];
            wb_u8(&m, b->n ? LOD_FLAG_VALUES : 0);
            if (!b->n) continue;
            wb_f64(&m, b->min);
            wb_f64(&m, b->max);
            wb_f64(&m, b->last);
        }
    }
    struct frame *f = m.oom ? NULL : frame_from(&m);
    wb_free(&m);
    if (!f) return;   /* out of memory: the page keeps the last one; tried again next time */
    f->version = ++l->version;
    l->dirty = 0;
    frame_publish(l->slot, f);
}
