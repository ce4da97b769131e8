/*
 * scope_detail.c -- one scope name in depth, for a viewer's details panel:
 * its duration histogram over a window (by octave), P50/P90/P99/P99.9,
 * and its P99 in each of the last 60 seconds.
 *
 * The histogram and percentiles come from the window's histogram cells
 * (histogram.h; the same cells as rec_model_stats).  The per-second P99
 * needs a minute, and the 10 s ring holds ten seconds: when a second's
 * table is about to be cleared (p99_evict, the ring's evict hook), the P99
 * of every name in it is kept in a ring of 60 seconds.  Bounded: at most
 * P99_NAMES names a second (those with the most calls), 8 bytes each --
 * under 0.5 MiB in all.  Seconds still in the 10 s ring are read from it.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"

#define P99_NAMES 1024
#define NBINS (1u << HIST_BIN_BITS)

struct p99_ent {
    uint32_t name;            /* local index */
    float p99;
};
struct p99_sec {
    int64_t sec;              /* INT64_MIN: empty */
    uint32_t n;               /* entries, sorted by name */
    uint8_t partial;
    struct p99_ent e[P99_NAMES];
};
struct p99_hist {
    struct p99_sec s[REC_HISTORY_SECS];
};

/* Nearest-rank percentile p of dense bins holding total calls, as the
 * bin's midpoint within [lo, hi]. */
static double dense_pct(const uint64_t *bins, uint64_t total, double p, double lo, double hi) {
    uint64_t rank = (uint64_t)ceil(p * (double)total - 1e-7), cum = 0;
    if (rank < 1) rank = 1;
    double v = hi;
    for (unsigned b = 0; b < NBINS; b++) {
        cum += bins[b];
        if (cum >= rank) {
            v = hist_mid(b);
            break;
        }
    }
    return v < lo ? lo : v > hi ? hi : v;
}

/* The name a cell or node name counts as: its fold representative when
 * folding is on. */
static uint32_t as_name(rec_model *m, uint32_t local) {
    return m->fold_on && local < m->n_names ? model_fold_rep(m, local) : local;
}

/* Adds a table's cells and min/max of series for name into bins. */
static void gather(rec_model *m, const struct agg *a, int series, uint32_t name, uint64_t *bins, uint64_t *calls,
                   double *mn, double *mx) {
    for (size_t j = 0; j < a->cells.cap; j++) {
        uint64_t key = a->cells.keys[j];
        if (key == U64MAP_EMPTY || !agg_in_series(key, series)) continue;
        uint32_t low = (uint32_t)key;
        if (as_name(m, low >> HIST_BIN_BITS) != name) continue;
        bins[low & (NBINS - 1)] += a->cells.vals[j];
        *calls += a->cells.vals[j];
    }
    for (size_t j = 0; j < a->acc_idx.cap; j++) {
        uint64_t key = a->acc_idx.keys[j];
        if (key == U64MAP_EMPTY || a->acc_idx.vals[j] == UINT64_MAX || !agg_in_series(key, series)) continue;
        uint32_t node = (uint32_t)key;
        if (node >= m->n_nodes || as_name(m, m->node_name[node]) != name) continue;
        const struct acc *c = &a->accs[a->acc_idx.vals[j]];
        if (!c->calls) continue;
        if (c->min < *mn) *mn = c->min;
        if (c->max > *mx) *mx = c->max;
    }
}

/* ---- the minute of P99s --------------------------------------------- */

struct named {
    uint32_t name;
    uint64_t calls;
};
static int cmp_name(const void *a, const void *b) {
    const struct p99_ent *x = a, *y = b;
    return (x->name > y->name) - (x->name < y->name);
}
/* The order names are kept in: more calls first, then the lower name. */
static int busier(const struct named *x, const struct named *y) {
    return x->calls != y->calls ? x->calls > y->calls : x->name < y->name;
}
/* h[0, n) is a heap whose root is the least busy: restore it below i. */
static void heap_down(struct named *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, least = i;
        if (l < n && busier(&h[least], &h[l])) least = l;
        if (l + 1 < n && busier(&h[least], &h[l + 1])) least = l + 1;
        if (least == i) return;
        struct named t = h[i];
        h[i] = h[least];
        h[least] = t;
        i = least;
    }
}

/* The busiest P99_NAMES names of tot (name -> calls) into h; their count.
 * A heap of the kept, the least busy at its root: O(n log P99_NAMES) for
 * n names, where sorting them all cost O(n log n) (a million names). */
static size_t busiest(const struct u64map *tot, struct named *h) {
    size_t n = 0;
    for (size_t j = 0; j < tot->cap; j++) {
        if (tot->keys[j] == U64MAP_EMPTY) continue;
        struct named x = {(uint32_t)tot->keys[j], tot->vals[j]};
        if (n < P99_NAMES) {
            size_t i = n++;   /* sift up */
            while (i > 0 && busier(&h[(i - 1) / 2], &x)) {
                h[i] = h[(i - 1) / 2];
                i = (i - 1) / 2;
            }
            h[i] = x;
        } else if (busier(&x, &h[0])) {
            h[0] = x;
            heap_down(h, n, 0);
        }
    }
    return n;
}

/* Keeps the P99 of the busiest P99_NAMES names of a second (the 10 s
 * ring's bucket a about to be cleared), ties to the lower name.  Three
 * passes over its cells, none sorting them all: each name's calls; the
 * busiest; then only their cells, sorted to find each one's P99. */
void p99_evict(rec_model *m, const struct agg *a) {
    if (!a->cells.n) return;
    if (!m->p99) {
        m->p99 = malloc(sizeof *m->p99);
        if (!m->p99) return;
        for (int i = 0; i < REC_HISTORY_SECS; i++) m->p99->s[i].sec = INT64_MIN;
    }
    struct p99_sec *ps = &m->p99->s[((a->id % REC_HISTORY_SECS) + REC_HISTORY_SECS) % REC_HISTORY_SECS];
    if (ps->sec != INT64_MIN && ps->sec > a->id) return;
    struct u64map tot = {0}, kept = {0};
    struct named *h = malloc(P99_NAMES * sizeof *h);
    struct cellv *c = NULL;
    int isnew, ok = h != NULL;
    for (size_t j = 0; ok && j < a->cells.cap; j++) {
        uint64_t key = a->cells.keys[j];
        if (key == U64MAP_EMPTY) continue;   /* every thread's cells */
        uint64_t *v = u64map_put(&tot, (uint32_t)key >> HIST_BIN_BITS, &isnew);
        if (!v) ok = 0;
        else *v += a->cells.vals[j];
    }
    size_t nn = ok ? busiest(&tot, h) : 0;
    for (size_t i = 0; ok && i < nn; i++)
        if (!u64map_put(&kept, h[i].name, &isnew)) ok = 0;
    size_t nc = 0;
    if (ok && nn) c = malloc(a->cells.n * sizeof *c);
    for (size_t j = 0; c && j < a->cells.cap; j++) {
        uint64_t key = a->cells.keys[j];
        if (key == U64MAP_EMPTY) continue;
        uint32_t low = (uint32_t)key;
        if (u64map_get(&kept, low >> HIST_BIN_BITS))
            c[nc++] = (struct cellv){low >> HIST_BIN_BITS, low & (NBINS - 1), a->cells.vals[j]};
    }
    if (ok && (c || !nn)) {   /* out of memory: the second is not kept, as it was not before */
        if (nc > 1) qsort(c, nc, sizeof *c, model_cmp_cell);   /* by name, then bin: ps->e comes out by name */
        uint32_t n = 0;
        for (size_t i = 0; i < nc;) {
            size_t j = i;
            uint64_t total = 0;
            while (j < nc && c[j].name == c[i].name) total += c[j++].count;
            uint64_t rank = (uint64_t)ceil(0.99 * (double)total - 1e-7), cum = 0;
            if (rank < 1) rank = 1;
            double v = 0;
            for (size_t k = i; k < j; k++)
                if ((cum += c[k].count) >= rank) {
                    v = hist_mid(c[k].bin);
                    break;
                }
            ps->e[n++] = (struct p99_ent){c[i].name, (float)v};
            i = j;
        }
        ps->sec = a->id;
        ps->n = n;
        ps->partial = cover_lost_in(a, 0) > 0;
    }
    free(c);
    free(h);
    u64map_free(&tot);
    u64map_free(&kept);
}

void p99_free(rec_model *m) {
    free(m->p99);
    m->p99 = NULL;
}

/* The P99 of second sec for name: from the 10 s ring if it still holds
 * that second, else from the kept minute. */
static double p99_at(rec_model *m, int64_t sec, uint32_t name, uint64_t *bins, uint8_t *partial) {
    *partial = 0;
    for (int i = 0; i < WIN_BUCKETS; i++) {
        const struct agg *a = &m->w10.b[i];
        if (a->id != sec) continue;
        memset(bins, 0, NBINS * sizeof *bins);
        uint64_t calls = 0;
        double mn = INFINITY, mx = -INFINITY;
        gather(m, a, 0, name, bins, &calls, &mn, &mx);
        *partial = cover_lost_in(a, 0) > 0;
        return calls ? dense_pct(bins, calls, 0.99, mn, mx) : NAN;
    }
    const struct p99_sec *ps = m->p99 ? &m->p99->s[((sec % REC_HISTORY_SECS) + REC_HISTORY_SECS) % REC_HISTORY_SECS] : NULL;
    if (!ps || ps->sec != sec) return NAN;
    *partial = ps->partial;
    struct p99_ent key = {name, 0};
    const struct p99_ent *e = bsearch(&key, ps->e, ps->n, sizeof key, cmp_name);
    return e ? (double)e->p99 : NAN;
}

/* ---- the query ------------------------------------------------------- */

int rec_model_scope_detail(rec_model *m, enum rec_window w, int tid, uint32_t name_id, struct rec_scope_detail *out) {
    memset(out, 0, sizeof *out);
    out->name_id = name_id;
    for (int i = 0; i < REC_HISTORY_SECS; i++) out->p99_sec[i] = NAN;
    int series = model_series_of(m, tid);
    if (series < 0) return -1;
    uint64_t *v = u64map_get(&m->name_idx, name_id);
    struct rec_window_cover cov;
    if (rec_model_window_cover(m, w, tid, &cov) == 0) out->partial = cov.partial;
    if (!v) return 0;
    uint32_t name = as_name(m, (uint32_t)*v);
    uint64_t *bins = calloc(NBINS, sizeof *bins);
    if (!bins) return 0;
    stats_fold_all(m);
    struct agg *aggs[WIN_BUCKETS];
    size_t na = stats_window(m, w, aggs);
    double mn = INFINITY, mx = -INFINITY;
    for (size_t i = 0; i < na; i++) gather(m, aggs[i], series, name, bins, &out->calls, &mn, &mx);
    if (out->calls) {
        out->min_ns = mn;
        out->max_ns = mx;
        out->p50_ns = dense_pct(bins, out->calls, 0.50, mn, mx);
        out->p90_ns = dense_pct(bins, out->calls, 0.90, mn, mx);
        out->p99_ns = dense_pct(bins, out->calls, 0.99, mn, mx);
        out->p999_ns = dense_pct(bins, out->calls, 0.999, mn, mx);
        /* Bins are 32 to an octave (bin 0: under 1 ns, with octave 0). */
        for (unsigned b = 0; b < NBINS; b++) {
            if (!bins[b]) continue;
            unsigned oct = b ? (b - 1) >> HIST_SUB_BITS : 0;
            out->octave[oct < REC_HIST_OCTAVES ? oct : REC_HIST_OCTAVES - 1] += bins[b];
        }
    }
    int64_t cur = (int64_t)floor(rec_model_now(m) / m->w10.width_ns);
    for (int j = 0; j < REC_HISTORY_SECS; j++)
        out->p99_sec[j] = p99_at(m, cur - (REC_HISTORY_SECS - 1) + j, name, bins, &out->p99_sec_partial[j]);
    free(bins);
    return 0;
}
