/*
 * stats.c -- rec_model_stats and rec_model_stats_top: per-name statistics
 * of a window, the rows a table shows.
 *
 * Sums come from the per-node tables grouped by the node's name, into a
 * scratch array by name that lives between queries (all zero outside
 * one); percentiles from the histogram cells (histogram.h): the
 * nearest-rank percentile's bin, reported as the bin's midpoint clamped
 * to the exact min and max.
 *
 * Only what is shown is sorted (issue 22, a million names): a bounded
 * heap keeps the cap best names in the order asked (O(names log cap)),
 * and only those rows get their cells gathered and their percentiles
 * computed.  An order by a percentile needs every name's: their cells are
 * then grouped by name in two counting passes, never sorted as a whole.
 * Nor are a row's: a window's buckets each hold their own cells of a
 * name, so a name's cells are summed by bin into a scratch of every bin
 * and walked in bin order (sorting the shown rows' cells took a sixth of
 * recorder-top's CPU watching a busy program of a few names).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"
#include "grow.h"

int model_cmp_cell(const void *a, const void *b) {
    const struct cellv *x = a, *y = b;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return (x->bin > y->bin) - (x->bin < y->bin);
}

/* One name's sums in a query.  row is its row in out + 1 (0: none);
 * cell0/ncell its cells in the grouped array (orders by a percentile). */
struct nsum {
    uint64_t calls;
    double total, self, min, max, tf, sf;
    uint32_t row, cell0, ncell, seen;
};

/* The query whose sums the scratch holds.  The next query of the same
 * tables, none changed since (their stamps), for the same series, span and
 * folding, takes them as they are: recorder-web asks a window's rows and
 * then its tree's names' shares, and at a million names each pass over
 * the tables took a tenth of a second. */
struct sums_key {
    int valid;
    size_t na;
    const struct agg *aggs[WIN_BUCKETS];
    uint64_t stamps[WIN_BUCKETS];
    int series, keys_are_names, fold_on, shares;
    double span_ns;
};

struct stats_scratch {
    struct nsum *sum;         /* by local name; outside a query zero, or key's sums */
    size_t cap;
    uint32_t *present;        /* names with sums in this query */
    size_t n_present, cap_present;
    struct cellv *cells;      /* gathered cells */
    size_t cap_cells;
    struct cellv *picked;     /* gather_cells: the shown rows' cells, as found */
    size_t cap_picked;
    uint64_t *bins;           /* percentiles' counts by bin; zero outside one */
    struct sums_key key;      /* what sum holds when key.valid */
};

void stats_scratch_free(rec_model *m) {
    struct stats_scratch *q = m->sq;
    if (!q) return;
    free(q->sum);
    free(q->present);
    free(q->cells);
    free(q->picked);
    free(q->bins);
    free(q);
    m->sq = NULL;
}

/* The queries' scratch grows from 1024 entries (grow.h): 0, or -1 with
 * *p as it was.  Asking for no more than it holds (none, say, while *p is
 * still NULL) is not a failure. */
static int grow(void **p, size_t *cap, size_t want, size_t sz, int zero) {
    if (want <= *cap) return 0;
    void *n = grow_to(*p, cap, want, sz, 1024, zero);
    if (!n) return -1;
    *p = n;
    return 0;
}

static struct stats_scratch *scratch(rec_model *m, size_t nn) {
    if (!m->sq && !(m->sq = calloc(1, sizeof *m->sq))) return NULL;
    struct stats_scratch *q = m->sq;
    if (!q->bins && !(q->bins = calloc((size_t)1 << HIST_BIN_BITS, sizeof *q->bins))) return NULL;
    if (grow((void **)&q->sum, &q->cap, nn, sizeof *q->sum, 1) != 0) return NULL;
    if (grow((void **)&q->present, &q->cap_present, nn, sizeof *q->present, 0) != 0) return NULL;
    return q;
}

/* Back to all zero: only the names the last query touched. */
static void scratch_clear(struct stats_scratch *q) {
    for (size_t i = 0; i < q->n_present; i++) memset(&q->sum[q->present[i]], 0, sizeof q->sum[0]);
    q->n_present = 0;
    q->key.valid = 0;
}

/* The key of a query's sums. */
static struct sums_key sums_key_of(rec_model *m, struct agg **aggs, size_t na, int series, int keys_are_names,
                                   double span_ns) {
    struct sums_key k;
    memset(&k, 0, sizeof k);
    k.valid = na <= WIN_BUCKETS;
    k.na = na;
    for (size_t i = 0; k.valid && i < na; i++) {
        k.aggs[i] = aggs[i];
        k.stamps[i] = aggs[i]->stamp;
    }
    k.series = series;
    k.keys_are_names = keys_are_names;
    k.fold_on = m->fold_on;
    k.span_ns = span_ns;
    return k;
}

static int same_sums(const struct sums_key *a, const struct sums_key *b) {
    if (!a->valid || !b->valid || a->na != b->na || a->series != b->series ||
        a->keys_are_names != b->keys_are_names || a->fold_on != b->fold_on || a->span_ns != b->span_ns)
        return 0;
    for (size_t i = 0; i < a->na; i++)
        if (a->aggs[i] != b->aggs[i] || a->stamps[i] != b->stamps[i]) return 0;
    return 1;
}

static struct nsum *touch(struct stats_scratch *q, uint32_t name) {
    struct nsum *s = &q->sum[name];
    if (!s->seen) {
        s->seen = 1;
        q->present[q->n_present++] = name;
    }
    return s;
}

/* The nearest-rank percentiles of one name's cells, in any order and with
 * a bin given more than once (each bucket of a window has its own cells):
 * their counts are summed by bin into bins (all zero, 2^HIST_BIN_BITS of
 * them, left all zero), then walked in bin order over the bins used. */
static void percentiles(const struct cellv *c, size_t n, uint64_t *bins, double min, double max, double out[3]) {
    uint64_t total = 0;
    unsigned lo = 1u << HIST_BIN_BITS, hi = 0;
    for (size_t i = 0; i < n; i++) {
        bins[c[i].bin] += c[i].count;
        total += c[i].count;
        if (c[i].bin < lo) lo = c[i].bin;
        if (c[i].bin > hi) hi = c[i].bin;
    }
    const double ps[3] = {0.50, 0.95, 0.99};
    unsigned b = lo;
    uint64_t cum = n ? bins[lo] : 0;
    for (int k = 0; k < 3; k++) {
        uint64_t rank = (uint64_t)ceil(ps[k] * (double)total - 1e-7);
        if (rank < 1) rank = 1;
        /* The ranks rise: each search goes on from the last one's bin. */
        while (b < hi && cum < rank) cum += bins[++b];
        double v = n && cum >= rank ? hist_mid(b) : max;
        if (v < min) v = min;
        if (v > max) v = max;
        out[k] = v;
    }
    for (size_t i = 0; i < n; i++) bins[c[i].bin] = 0;
}

struct query {
    rec_model *m;
    struct stats_scratch *q;
    const struct stats_order *o;
    double span_s;
};

static const char *text_of(rec_model *m, uint32_t name) {
    return m->fold_on ? model_fold_text(m, name) : model_name_text(m, name);
}

/* The value a numeric order sorts by. */
static double key_of(const struct query *x, uint32_t name) {
    const struct nsum *s = &x->q->sum[name];
    switch (x->o->key) {
    case REC_KEY_CALLS: return (double)s->calls;
    case REC_KEY_RATE: return x->span_s > 0 ? (double)s->calls / x->span_s : 0;
    case REC_KEY_SELF: return s->self;
    case REC_KEY_AVG: return s->total / (double)s->calls;
    case REC_KEY_MAX: return s->max;
    case REC_KEY_P50:
    case REC_KEY_P95:
    case REC_KEY_P99: {
        double p[3];
        percentiles(x->q->cells + s->cell0, s->ncell, x->q->bins, s->min, s->max, p);
        return p[x->o->key - REC_KEY_P50];
    }
    default: return s->total;
    }
}

struct cand {
    double key;
    uint32_t name;
};

static int by_text(const struct query *x, uint32_t a, uint32_t b) {
    int c = strcmp(text_of(x->m, a), text_of(x->m, b));
    if (c) return c;
    uint32_t p = x->m->names[a].id, q = x->m->names[b].id;
    return (p > q) - (p < q);
}

/* < 0: a's row comes before b's. */
static int cmp_cand(const struct query *x, const struct cand *a, const struct cand *b) {
    int c = x->o->key == REC_KEY_NAME ? by_text(x, a->name, b->name) : (a->key < b->key) - (a->key > b->key);
    if (x->o->reverse) c = -c;
    if (c) return c;
    if (x->o->tie_by_text) return x->o->key == REC_KEY_NAME ? 0 : by_text(x, a->name, b->name);
    uint32_t p = x->m->names[a->name].id, q = x->m->names[b->name].id;
    return (p > q) - (p < q);
}

/* A heap whose root is the worst row kept. */
static void sift_down(const struct query *x, struct cand *h, size_t n, size_t i) {
    for (;;) {
        size_t l = 2 * i + 1, r = l + 1, w = i;
        if (l < n && cmp_cand(x, &h[l], &h[w]) > 0) w = l;
        if (r < n && cmp_cand(x, &h[r], &h[w]) > 0) w = r;
        if (w == i) return;
        struct cand t = h[i];
        h[i] = h[w];
        h[w] = t;
        i = w;
    }
}

static void heap_offer(const struct query *x, struct cand *h, size_t *n, size_t cap, struct cand c) {
    if (*n < cap) {
        size_t i = (*n)++;
        h[i] = c;
        while (i > 0 && cmp_cand(x, &h[i], &h[(i - 1) / 2]) > 0) {
            struct cand t = h[i];
            h[i] = h[(i - 1) / 2];
            h[(i - 1) / 2] = t;
            i = (i - 1) / 2;
        }
    } else if (cap && cmp_cand(x, &c, &h[0]) < 0) {
        h[0] = c;
        sift_down(x, h, *n, 0);
    }
}

/* Pass 1: each name's sums (and each series' share of its covered time). */
static int sum_accs(struct query *x, struct agg **aggs, size_t na, int series, int keys_are_names, double span_ns) {
    rec_model *m = x->m;
    size_t nn = m->n_names;
    struct u64map covered = {0};
    int thread_shares = 0;
    for (size_t i = 0; i < na; i++) {
        const struct agg *a = aggs[i];
        for (size_t j = 0; j < a->acc_idx.cap; j++) {
            uint64_t key = a->acc_idx.keys[j];
            if (key == U64MAP_EMPTY || a->acc_idx.vals[j] == UINT64_MAX) continue;
            int ks = (int)(key >> 32);
            int share = series ? ks == series : ks != 0;
            int mine = agg_in_series(key, series);
            if (!mine && !share) continue;
            uint32_t name = keys_are_names ? (uint32_t)key : m->node_name[(uint32_t)key];
            if (name >= nn) continue;
            if (m->fold_on) name = model_fold_rep(m, name);
            const struct acc *c = &a->accs[a->acc_idx.vals[j]];
            struct nsum *s = touch(x->q, name);
            if (share) {
                /* covered caches each series' figure as double bits: a
                 * thread's time over the time its data covers (cover.c). */
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
                s->tf += cov > 0 ? c->share / cov : 0;
                s->sf += cov > 0 ? c->self_share / cov : 0;
                thread_shares = 1;
            }
            if (!mine) continue;
            if (s->calls == 0 || c->min < s->min) s->min = c->min;
            if (s->calls == 0 || c->max > s->max) s->max = c->max;
            s->calls += c->calls;
            s->total += c->total;
            s->self += c->self;
        }
    }
    u64map_free(&covered);
    return thread_shares;
}

/* Calls f(x, cell) for each histogram cell of series of a name with calls. */
#define EACH_CELL(aggs, na, series, body)                                                                    \
    for (size_t i_ = 0; i_ < (na); i_++) {                                                                   \
        const struct agg *a_ = (aggs)[i_];                                                                  \
        for (size_t j_ = 0; j_ < a_->cells.cap; j_++) {                                                      \
            uint64_t key_ = a_->cells.keys[j_];                                                              \
            if (key_ == U64MAP_EMPTY || !agg_in_series(key_, (series))) continue;                            \
            uint32_t low_ = (uint32_t)key_, name = low_ >> HIST_BIN_BITS;                                   \
            if (name >= m->n_names) continue;                                                               \
            if (m->fold_on) name = model_fold_rep(m, name);                                                 \
            struct nsum *s = &x->q->sum[name];                                                              \
            if (!s->calls) continue;                                                                        \
            struct cellv cell = {name, low_ & ((1u << HIST_BIN_BITS) - 1), a_->cells.vals[j_]};             \
            body                                                                                            \
        }                                                                                                   \
    }

/* Every name's cells, grouped by name (two counting passes). */
static int group_cells(struct query *x, struct agg **aggs, size_t na, int series) {
    rec_model *m = x->m;
    size_t total = 0;
    EACH_CELL(aggs, na, series, { (void)cell; s->ncell++; total++; });
    if (grow((void **)&x->q->cells, &x->q->cap_cells, total ? total : 1, sizeof *x->q->cells, 0) != 0) return -1;
    uint32_t at = 0;
    for (size_t i = 0; i < x->q->n_present; i++) {
        struct nsum *s = &x->q->sum[x->q->present[i]];
        s->cell0 = at;
        at += s->ncell;
        s->ncell = 0;
    }
    EACH_CELL(aggs, na, series, { x->q->cells[s->cell0 + s->ncell++] = cell; });
    return 0;
}

/* The cells of the k rows chosen only, grouped by row: one pass over the
 * tables collects them (with their row), one counting pass over what it
 * collected groups them.  out[r]'s are cells[at[r] .. at[r + 1]).  A
 * name's row field is its row + 1 (0: not shown). */
static int gather_cells(struct query *x, struct agg **aggs, size_t na, int series, size_t k, uint32_t *at) {
    rec_model *m = x->m;
    struct stats_scratch *q = x->q;
    size_t n = 0;
    memset(at, 0, (k + 1) * sizeof *at);
    EACH_CELL(aggs, na, series, {
        if (!s->row) continue;
        if (grow((void **)&q->picked, &q->cap_picked, n + 1, sizeof *q->picked, 0) != 0) return -1;
        cell.name = s->row - 1;
        q->picked[n++] = cell;
        at[s->row]++;
    });
    for (size_t r = 1; r <= k; r++) at[r] += at[r - 1];
    if (grow((void **)&q->cells, &q->cap_cells, n ? n : 1, sizeof *q->cells, 0) != 0) return -1;
    /* at[r] is where out[r] starts; used as its cursor it ends where
     * out[r] does, which is where out[r + 1] starts: moved up one place. */
    for (size_t i = 0; i < n; i++) q->cells[at[q->picked[i].name]++] = q->picked[i];
    for (size_t r = k; r > 0; r--) at[r] = at[r - 1];
    at[0] = 0;
    return 0;
}

static void fill_row(struct query *x, uint32_t name, int thread_shares, double span_ns, struct rec_stat *o) {
    const struct nsum *s = &x->q->sum[name];
    memset(o, 0, sizeof *o);
    o->name_id = x->m->names[name].id;
    o->name = text_of(x->m, name);
    o->wait = model_name_wait(x->m, name);
    o->calls = s->calls;
    o->total_ns = s->total;
    o->self_ns = s->self;
    o->min_ns = s->min;
    o->max_ns = s->max;
    o->avg_ns = s->total / (double)s->calls;
    o->total_frac = thread_shares ? s->tf : span_ns > 0 ? s->total / span_ns : 0;
    o->self_frac = thread_shares ? s->sf : span_ns > 0 ? s->self / span_ns : 0;
    o->calls_per_sec = x->span_s > 0 ? (double)s->calls / x->span_s : 0;
}

static void set_pcts(struct stats_scratch *q, struct rec_stat *o, const struct cellv *c, size_t n) {
    double p[3];
    percentiles(c, n, q->bins, o->min_ns, o->max_ns, p);
    o->p50_ns = p[0];
    o->p95_ns = p[1];
    o->p99_ns = p[2];
}

size_t stats_top(rec_model *m, struct agg **aggs, size_t na, int series, int keys_are_names, double span_ns,
                 const struct stats_order *o, struct rec_stat *out, size_t cap, size_t *n_total, size_t *n_kept) {
    if (n_total) *n_total = 0;
    if (n_kept) *n_kept = 0;
    struct query x = {m, scratch(m, m->n_names), o, span_ns / 1e9};
    if (!x.q) return 0;
    struct sums_key key = sums_key_of(m, aggs, na, series, keys_are_names, span_ns);
    if (same_sums(&x.q->key, &key)) {
        key.shares = x.q->key.shares;
    } else {
        scratch_clear(x.q);
        key.shares = sum_accs(&x, aggs, na, series, keys_are_names, span_ns);
    }
    int shares = key.shares;   /* kept with the sums for the next query (below) */
    int by_pct = o->key == REC_KEY_P50 || o->key == REC_KEY_P95 || o->key == REC_KEY_P99;
    struct cand *h = malloc((cap ? cap : 1) * sizeof *h);
    uint32_t *rows = malloc((cap ? cap : 1) * sizeof *rows);   /* each row's name, to unmark them after */
    size_t nh = 0, total = 0, kept = 0, k = 0;
    int keep_sums = 0;
    if (!h || !rows || (by_pct && group_cells(&x, aggs, na, series) != 0)) goto done;
    for (size_t i = 0; i < x.q->n_present; i++) {
        uint32_t name = x.q->present[i];
        if (!x.q->sum[name].calls) continue;
        total++;
        if (o->keep && !o->keep(o->ctx, m->names[name].id, text_of(m, name))) continue;
        kept++;
        heap_offer(&x, h, &nh, cap, (struct cand){o->key == REC_KEY_NAME ? 0 : key_of(&x, name), name});
    }
    /* The heap popped from its worst: rows from the last up. */
    for (k = nh; k > 0; k--) {
        fill_row(&x, h[0].name, shares, span_ns, &out[k - 1]);
        x.q->sum[h[0].name].row = (uint32_t)k;
        rows[k - 1] = h[0].name;
        h[0] = h[--nh];
        sift_down(&x, h, nh, 0);
    }
    k = kept < cap ? kept : cap;
    uint32_t *at = k ? malloc((k + 1) * sizeof *at) : NULL;
    if (at && gather_cells(&x, aggs, na, series, k, at) == 0)
        for (size_t r = 0; r < k; r++) set_pcts(x.q, &out[r], x.q->cells + at[r], at[r + 1] - at[r]);
    free(at);
    if (n_total) *n_total = total;
    if (n_kept) *n_kept = kept;
    /* The sums stay for the next query; what this one marked goes (a
     * grouping by percentile marked every name: then all of it goes). */
    for (size_t r = 0; r < k; r++) x.q->sum[rows[r]].row = 0;
    keep_sums = !by_pct;
done:
    free(h);
    free(rows);
    if (keep_sums) x.q->key = key;
    else scratch_clear(x.q);
    return k;
}

size_t stats_query(rec_model *m, struct agg **aggs, size_t na, int series, int keys_are_names, double span_ns,
                   struct rec_stat *out, size_t cap, size_t *n_total) {
    const struct stats_order o = {REC_KEY_TOTAL, 0, 0, NULL, NULL};
    return stats_top(m, aggs, na, series, keys_are_names, span_ns, &o, out, cap, n_total, NULL);
}

static size_t window_top(rec_model *m, enum rec_window w, int tid, const struct stats_order *o, struct rec_stat *out,
                         size_t cap, size_t *n_total, size_t *n_kept) {
    if (n_total) *n_total = 0;
    if (n_kept) *n_kept = 0;
    int series = model_series_of(m, tid);
    if (series < 0) return 0;
    stats_fold_all(m);
    struct agg *aggs[WIN_BUCKETS];
    size_t na = stats_window(m, w, aggs);
    return stats_top(m, aggs, na, series, 0, rec_model_window_span(m, w), o, out, cap, n_total, n_kept);
}

size_t rec_model_stats(rec_model *m, enum rec_window w, int tid, struct rec_stat *out, size_t cap,
                       size_t *n_total) {
    const struct stats_order o = {REC_KEY_TOTAL, 0, 0, NULL, NULL};
    return window_top(m, w, tid, &o, out, cap, n_total, NULL);
}

size_t rec_model_stats_top(rec_model *m, enum rec_window w, int tid, const struct rec_stat_order *order,
                           struct rec_stat *out, size_t cap, size_t *n_total, size_t *n_kept) {
    struct stats_order o = {REC_KEY_TOTAL, 0, 1, NULL, NULL};
    if (order) {
        o.key = order->key <= REC_KEY_MAX ? order->key : REC_KEY_TOTAL;
        o.reverse = order->reverse;
        o.keep = order->keep;
        o.ctx = order->ctx;
    }
    return window_top(m, w, tid, &o, out, cap, n_total, n_kept);
}

const char *rec_past_limit_str(uint64_t n, char *buf, size_t cap) {
    if (n == 0) snprintf(buf, cap, "%s", "");
    else snprintf(buf, cap, "%llu slice%s in (other): names past the tables' limit", (unsigned long long)n,
                  n == 1 ? "" : "s");
    return buf;
}

uint64_t rec_model_stats_past_limit(rec_model *m, enum rec_window w) {
    stats_fold_all(m);
    struct agg *aggs[WIN_BUCKETS];
    size_t na = stats_window(m, w, aggs);
    uint64_t n = 0;
    for (size_t i = 0; i < na; i++) n += aggs[i]->over;
    return n;
}
