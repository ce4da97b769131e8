/*
 * stats.c -- rec_model_stats: per-name statistics of a window.
 *
 * Sums come from the per-node tables grouped by the node's name;
 * percentiles from the histogram cells (histogram.h): the nearest-rank
 * percentile's bin, reported as the bin's midpoint clamped to the exact
 * min and max.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"

int model_cmp_cell(const void *a, const void *b) {
    const struct cellv *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->bin > y->bin) - (x->bin < y->bin);
}

static int cmp_stat(const void *a, const void *b) {
    const struct rec_stat *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    return (x->name_id > y->name_id) - (x->name_id < y->name_id);
}

/* The nearest-rank percentiles of one name's sorted cells. */
static void percentiles(const struct cellv *c, size_t n, struct rec_stat *s) {
    uint64_t total = 0;
    for (size_t i = 0; i < n; i++) total += c[i].count;
    const double ps[3] = {0.50, 0.95, 0.99};
    double *outs[3] = {&s->p50_ns, &s->p95_ns, &s->p99_ns};
    for (int k = 0; k < 3; k++) {
        uint64_t rank = (uint64_t)ceil(ps[k] * (double)total - 1e-7);
        if (rank < 1) rank = 1;
        uint64_t cum = 0;
        double v = s->max_ns;
        for (size_t i = 0; i < n; i++) {
            cum += c[i].count;
            if (cum >= rank) {
                v = hist_mid(c[i].bin);
                break;
            }
        }
        if (v < s->min_ns) v = s->min_ns;
        if (v > s->max_ns) v = s->max_ns;
        *outs[k] = v;
    }
}

size_t stats_query(rec_model *m, struct agg **aggs, size_t na, int series, int keys_are_names, double span_ns,
                   struct rec_stat *out, size_t cap, size_t *n_total) {
    if (n_total) *n_total = 0;
    size_t nn = m->n_names, ncells = 0;
    for (size_t i = 0; i < na; i++) ncells += aggs[i]->cells.n;
    struct rec_stat *st = calloc(nn ? nn : 1, sizeof *st);
    struct cellv *cells = malloc((ncells ? ncells : 1) * sizeof *cells);
    if (!st || !cells) {
        free(st);
        free(cells);
        return 0;
    }

    /* Shares (rec_stat.total_frac): a thread's time over the time its
     * data covers (cover.c); all threads (series 0) add up their threads'
     * shares.  covered caches each series' figure as double bits. */
    struct u64map covered = {0};
    int thread_shares = 0;
    for (size_t i = 0; i < na; i++) {
        const struct agg *a = aggs[i];
        for (size_t j = 0; j < a->acc_idx.cap; j++) {
            uint64_t key = a->acc_idx.keys[j];
            if (key == U64MAP_EMPTY || a->acc_idx.vals[j] == UINT64_MAX) continue;
            int ks = (int)(key >> 32);
            int share = series ? ks == series : ks != 0;
            if (ks != series && !share) continue;
            uint32_t name = keys_are_names ? (uint32_t)key : m->node_name[(uint32_t)key];
            if (name >= nn) continue;
            if (m->fold_on) name = model_fold_rep(m, name);
            const struct acc *c = &a->accs[a->acc_idx.vals[j]];
            struct rec_stat *s = &st[name];
            if (share) {
                int isnew;
                uint64_t *cv = u64map_put(&covered, (uint64_t)ks, &isnew);
                double cov = span_ns;
                if (cv && isnew) {
                    cov = cover_series_ns(aggs, na, ks, span_ns);
                    memcpy(cv, &cov, sizeof cov);
                } else if (cv) {
                    memcpy(&cov, cv, sizeof cov);
                }
                /* The time that lies in the window, not whole slices that
                 * end in it: a share never counts time before the window. */
                s->total_frac += cov > 0 ? c->share / cov : 0;
                s->self_frac += cov > 0 ? c->self_share / cov : 0;
                thread_shares = 1;
            }
            if (ks != series) continue;
            if (s->calls == 0 || c->min < s->min_ns) s->min_ns = c->min;
            if (s->calls == 0 || c->max > s->max_ns) s->max_ns = c->max;
            s->calls += c->calls;
            s->total_ns += c->total;
            s->self_ns += c->self;
        }
    }
    size_t nc = 0;
    for (size_t i = 0; i < na; i++) {
        const struct agg *a = aggs[i];
        for (size_t j = 0; j < a->cells.cap; j++) {
            uint64_t key = a->cells.keys[j];
            if (key == U64MAP_EMPTY || (int)(key >> 32) != series) continue;
            uint32_t low = (uint32_t)key, name = low >> HIST_BIN_BITS;
            if (m->fold_on && name < nn) name = model_fold_rep(m, name);
            cells[nc++] = (struct cellv){name, low & ((1u << HIST_BIN_BITS) - 1), a->cells.vals[j]};
        }
    }
    qsort(cells, nc, sizeof *cells, model_cmp_cell);
    u64map_free(&covered);

    double span = span_ns / 1e9;
    size_t n = 0, ci = 0;
    for (uint32_t name = 0; name < nn; name++) {
        size_t c0 = ci;
        while (ci < nc && cells[ci].name == name) ci++;
        if (st[name].calls == 0) continue;
        struct rec_stat s = st[name];
        s.name_id = m->names[name].id;
        s.name = m->fold_on ? model_fold_text(m, name) : model_name_text(m, name);
        s.wait = model_name_wait(m, name);
        s.avg_ns = s.total_ns / (double)s.calls;
        if (!thread_shares) {   /* tables without per-thread sums */
            s.total_frac = span_ns > 0 ? s.total_ns / span_ns : 0;
            s.self_frac = span_ns > 0 ? s.self_ns / span_ns : 0;
        }
        s.calls_per_sec = span > 0 ? (double)s.calls / span : 0;
        percentiles(cells + c0, ci - c0, &s);
        st[n++] = s;
    }
    qsort(st, n, sizeof *st, cmp_stat);
    size_t k = n < cap ? n : cap;
    if (k) memcpy(out, st, k * sizeof *out);
    if (n_total) *n_total = n;
    free(st);
    free(cells);
    return k;
}

size_t rec_model_stats(rec_model *m, enum rec_window w, int tid, struct rec_stat *out, size_t cap,
                       size_t *n_total) {
    if (n_total) *n_total = 0;
    int series = model_series_of(m, tid);
    if (series < 0) return 0;
    stats_fold_all(m);
    struct agg *aggs[WIN_BUCKETS];
    size_t na = stats_window(m, w, aggs);
    return stats_query(m, aggs, na, series, 0, rec_model_window_span(m, w), out, cap, n_total);
}
