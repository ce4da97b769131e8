/*
 * counters.c -- counters for live viewers: each counter name's latest
 * value, and min / avg / max over the windows, without the event log.
 *
 * A counter keeps ten 100 ms buckets (the 1 s window), sixty 1 s buckets
 * (the 10 s window and a minute of per-second means for a sparkline) and
 * totals for the whole run: about 2 KiB a name, at most REC_COUNTERS_MAX
 * names (samples of any further names are counted, not kept).  Buckets
 * are keyed by the sample's time like the statistics' window rings
 * (agg.c), so a counter's windows are the scopes' windows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"
#include "grow.h"

static void bucket_add(struct ctr_bucket *b, int64_t id, double v) {
    if (b->id != id) {
        if (b->id != INT64_MIN && b->id > id) return;   /* older than the ring holds */
        b->id = id;
        b->n = 0;
        b->sum = 0;
        b->min = b->max = v;
    }
    b->n++;
    b->sum += v;
    if (v < b->min) b->min = v;
    if (v > b->max) b->max = v;
}

static struct ctr *ctr_of(rec_model *m, uint32_t name_id) {
    struct ctrs *c = &m->ctrs;
    uint64_t *v = u64map_get(&c->idx, name_id);
    if (v) return &c->v[*v];
    if (c->n >= REC_COUNTERS_MAX) return NULL;
    struct ctr *p = grow_to(c->v, &c->cap, c->n + 1, sizeof *p, 8, 0);
    if (!p) return NULL;
    c->v = p;
    int isnew;
    v = u64map_put(&c->idx, name_id, &isnew);
    if (!v) return NULL;
    *v = c->n;
    struct ctr *k = &c->v[c->n++];
    memset(k, 0, sizeof *k);
    k->name_id = name_id;
    k->last_ns = -INFINITY;
    for (int i = 0; i < WIN_BUCKETS; i++) k->b100[i].id = INT64_MIN;
    for (int i = 0; i < REC_HISTORY_SECS; i++) k->b1s[i].id = INT64_MIN;
    return k;
}

static int64_t mod(int64_t a, int64_t n) { return ((a % n) + n) % n; }

void counter_sample(rec_model *m, struct trec *r, uint32_t name_id, double value, double ts) {
    struct ctr *k = ctr_of(m, name_id);
    if (!k) {
        m->ctrs.untracked++;
        return;
    }
    /* Threads are fed one after another: the latest is the newest in time. */
    if (ts >= k->last_ns) {
        k->last = value;
        k->last_ns = ts;
    }
    if (k->n_all && k->tid != r->tid) k->multi = 1;
    k->tid = r->tid;
    if (k->n_all == 0 || value < k->min_all) k->min_all = value;
    if (k->n_all == 0 || value > k->max_all) k->max_all = value;
    k->n_all++;
    k->sum_all += value;
    if (!(ts > -4e18 && ts < 4e18)) return;   /* a hostile clock: no bucket index from it */
    int64_t id = (int64_t)floor(ts / m->w1.width_ns), sec = (int64_t)floor(ts / m->w10.width_ns);
    bucket_add(&k->b100[mod(id, WIN_BUCKETS)], id, value);
    bucket_add(&k->b1s[mod(sec, REC_HISTORY_SECS)], sec, value);
}

/* Sums the buckets of ids (cur - span, cur] into one. */
static void window_sum(const struct ctr_bucket *b, int nb, int64_t cur, int span, struct ctr_bucket *out) {
    *out = (struct ctr_bucket){0, 0, NAN, NAN, 0};
    for (int i = 0; i < nb; i++) {
        if (b[i].id == INT64_MIN || b[i].id > cur || b[i].id <= cur - span || !b[i].n) continue;
        if (!out->n || b[i].min < out->min) out->min = b[i].min;
        if (!out->n || b[i].max > out->max) out->max = b[i].max;
        out->n += b[i].n;
        out->sum += b[i].sum;
    }
}

static int cmp_ctr(const void *a, const void *b) {
    const struct rec_counter *x = a, *y = b;
    return (x->name_id > y->name_id) - (x->name_id < y->name_id);
}

size_t rec_model_counters(rec_model *m, enum rec_window w, struct rec_counter *out, size_t cap, size_t *n_total) {
    const struct ctrs *c = &m->ctrs;
    if (n_total) *n_total = c->n;
    double now = rec_model_now(m);
    int64_t cur100 = (int64_t)floor(now / m->w1.width_ns), cur_sec = (int64_t)floor(now / m->w10.width_ns);
    /* Whether the window is partial, per writer thread: the same tid is
     * asked once per query at most a few times (counters share writers). */
    size_t k = 0;
    struct rec_counter *all = malloc((c->n ? c->n : 1) * sizeof *all);
    if (!all) return 0;
    for (size_t i = 0; i < c->n; i++) {
        const struct ctr *x = &c->v[i];
        struct rec_counter *o = &all[k++];
        memset(o, 0, sizeof *o);
        o->name_id = x->name_id;
        o->name = model_name_text(m, model_name(m, x->name_id));
        o->last = x->last;
        o->last_ns = x->last_ns;
        o->tid = x->tid;
        struct ctr_bucket s;
        if (w == REC_WIN_1S) window_sum(x->b100, WIN_BUCKETS, cur100, WIN_BUCKETS, &s);
        else if (w == REC_WIN_10S) window_sum(x->b1s, REC_HISTORY_SECS, cur_sec, WIN_BUCKETS, &s);
        else s = (struct ctr_bucket){0, x->n_all, x->min_all, x->max_all, x->sum_all};
        o->samples = s.n;
        o->min = s.n ? s.min : NAN;
        o->max = s.n ? s.max : NAN;
        o->avg = s.n ? s.sum / (double)s.n : NAN;
        for (int j = 0; j < REC_HISTORY_SECS; j++) {
            int64_t sec = cur_sec - (REC_HISTORY_SECS - 1) + j;
            const struct ctr_bucket *b = &x->b1s[mod(sec, REC_HISTORY_SECS)];
            o->per_sec[j] = b->id == sec && b->n ? b->sum / (double)b->n : NAN;
        }
        struct rec_window_cover cov;
        if (rec_model_window_cover(m, w, x->multi ? -1 : x->tid, &cov) == 0) o->partial = cov.partial;
    }
    qsort(all, k, sizeof *all, cmp_ctr);
    size_t n = k < cap ? k : cap;
    if (n) memcpy(out, all, n * sizeof *out);
    free(all);
    return n;
}

uint64_t rec_model_counters_untracked(const rec_model *m) { return m->ctrs.untracked; }

void counters_free(rec_model *m) {
    free(m->ctrs.v);
    u64map_free(&m->ctrs.idx);
    memset(&m->ctrs, 0, sizeof m->ctrs);
}
