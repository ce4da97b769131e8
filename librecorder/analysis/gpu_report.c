/*
 * gpu_report.c -- rec_model_gpus: what `recorder report` prints as
 * "Resource=GPU0", in rocm-timeline-generator's rpt shape (seed 004), for
 * each device that has lanes (docs/gpu.md): busy share of its span, one
 * row per kernel / copy / memset / sync name with count, total, average,
 * exact P50 and P99, and its idle gaps bucketed.  Computed from the event
 * log (rec_model_items), so it is as complete as the log: the caller says
 * when that is partial.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

const char *const rec_gpu_gap_label[REC_GPU_GAP_BUCKETS] = {"gap <10us", "gap 10us-100us", "gap 100us-1ms",
                                                            "gap 1ms-10ms", "gap >=10ms"};
static const double gap_hi[REC_GPU_GAP_BUCKETS - 1] = {10e3, 100e3, 1e6, 10e6};

struct dur {                  /* one slice (or gap): its row key and length */
    uint32_t key;             /* local name index, or n_names + bucket for gaps */
    double ns;
};
struct span {
    double b, e;
};

static int cmp_dev(const void *a, const void *b) {
    uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;
    return (x > y) - (x < y);
}
static int cmp_dur(const void *a, const void *b) {
    const struct dur *x = a, *y = b;
    if (x->key != y->key) return x->key < y->key ? -1 : 1;
    return (x->ns > y->ns) - (x->ns < y->ns);
}
static int cmp_span(const void *a, const void *b) {
    const struct span *x = a, *y = b;
    return (x->b > y->b) - (x->b < y->b);
}
static int cmp_row(const void *a, const void *b) {
    const struct rec_gpu_row *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns < y->total_ns ? 1 : -1;
    return strcmp(x->name, y->name);
}

static int is_sync(const char *name) { return strncmp(name, "sync", 4) == 0 && (!name[4] || name[4] == ' '); }

static int is_gpu(const struct trec *r) {
    return r->lane_kind == REC_LANE_GPU_STREAM || r->lane_kind == REC_LANE_GPU_DEVICE;
}

/* The record an item belongs to, or NULL. */
static const struct trec *rec_of(rec_model *m, const struct rec_item *it) {
    uint64_t *v = u64map_get(&m->rec_idx, (uint64_t)it->slot << 32 | it->gen);
    return v && *v < m->n_recs ? &m->recs[*v] : NULL;
}

/* Nearest rank of sorted v[0..n). */
static double pct(const struct dur *v, size_t n, double p) {
    size_t k = (size_t)(p * (double)n + 0.999999999);
    if (k < 1) k = 1;
    if (k > n) k = n;
    return v[k - 1].ns;
}

/* Rows from durations (sorted here), one per key. */
static int make_rows(rec_model *m, struct dur *d, size_t nd, struct rec_gpu_device *g) {
    qsort(d, nd, sizeof *d, cmp_dur);
    size_t nr = 0;
    for (size_t i = 0; i < nd; i++)
        if (i == 0 || d[i].key != d[i - 1].key) nr++;
    g->rows = calloc(nr ? nr : 1, sizeof *g->rows);
    if (!g->rows) return -1;
    for (size_t i = 0, j; i < nd; i = j) {
        for (j = i; j < nd && d[j].key == d[i].key; j++) {}
        struct rec_gpu_row *r = &g->rows[g->n_rows++];
        if (d[i].key >= m->n_names) {
            r->name = rec_gpu_gap_label[d[i].key - m->n_names];
            r->gap = 1;
        } else {
            r->name = model_name_text(m, d[i].key);
            r->sync = is_sync(r->name);
        }
        r->calls = j - i;
        r->min_ns = d[i].ns;
        r->max_ns = d[j - 1].ns;
        for (size_t k = i; k < j; k++) r->total_ns += d[k].ns;
        r->p50_ns = pct(d + i, j - i, 0.50);
        r->p99_ns = pct(d + i, j - i, 0.99);
    }
    qsort(g->rows, g->n_rows, sizeof *g->rows, cmp_row);
    return 0;
}

/* One device: its streams' slices (the items `idx` names), their union
 * and the gaps between. */
static int one_device(rec_model *m, const struct rec_item *items, const uint32_t *idx, size_t ni,
                      struct rec_gpu_device *g, struct dur *d, struct span *sp) {
    size_t nd = 0, ns = 0;
    for (size_t k = 0; k < ni; k++) {
        const struct rec_item *x = &items[idx[k]];
        uint32_t local = model_name(m, x->name_id);
        double dur = x->dur_ns > 0 ? x->dur_ns : 0;
        d[nd++] = (struct dur){local, dur};
        if (x->depth == 0 && !is_sync(model_name_text(m, local))) sp[ns++] = (struct span){x->ts_ns, x->ts_ns + dur};
    }
    qsort(sp, ns, sizeof *sp, cmp_span);
    double cur_b = 0, cur_e = 0;
    for (size_t i = 0; i < ns; i++) {
        if (i == 0) {
            g->first_ns = cur_b = sp[0].b;
            cur_e = sp[0].e;
            continue;
        }
        if (sp[i].b <= cur_e) {
            if (sp[i].e > cur_e) cur_e = sp[i].e;
            continue;
        }
        g->busy_ns += cur_e - cur_b;
        double gap = sp[i].b - cur_e;
        int k = 0;
        while (k < REC_GPU_GAP_BUCKETS - 1 && gap >= gap_hi[k]) k++;
        d[nd++] = (struct dur){(uint32_t)(m->n_names + (size_t)k), gap};
        cur_b = sp[i].b;
        cur_e = sp[i].e;
    }
    if (ns) {
        g->busy_ns += cur_e - cur_b;
        g->last_ns = cur_e;
    }
    return make_rows(m, d, nd, g);
}

int rec_model_gpus(rec_model *m, struct rec_gpu_device **out, size_t *n) {
    *out = NULL;
    *n = 0;
    uint32_t *dev = malloc((m->n_recs ? m->n_recs : 1) * sizeof *dev);
    if (!dev) return -1;
    size_t nd = 0;
    for (size_t i = 0; i < m->n_recs; i++)
        if (is_gpu(&m->recs[i])) dev[nd++] = m->recs[i].lane_device;
    qsort(dev, nd, sizeof *dev, cmp_dev);
    size_t u = 0;
    for (size_t i = 0; i < nd; i++)
        if (!u || dev[i] != dev[u - 1]) dev[u++] = dev[i];
    if (!u) {
        free(dev);
        return 0;
    }
    const struct rec_item *it;
    size_t ni = rec_model_items(m, &it);
    struct rec_gpu_device *g = calloc(u, sizeof *g);
    /* Slices and gaps together are fewer than twice the items. */
    struct dur *d = malloc((2 * ni + 1) * sizeof *d);
    struct span *sp = malloc((ni + 1) * sizeof *sp);
    /* The stream lanes' slices grouped by device in one pass (stable, so
     * each device's stay in order), however many devices a segment says. */
    uint32_t *dv = malloc((ni + 1) * sizeof *dv), *idx = malloc((ni + 1) * sizeof *idx);
    size_t *start = calloc(u + 1, sizeof *start);
    int rc = g && d && sp && dv && idx && start ? 0 : -1;
    for (size_t i = 0; i < ni && rc == 0; i++) {
        const struct trec *r = it[i].kind == REC_ITEM_SLICE ? rec_of(m, &it[i]) : NULL;
        dv[i] = UINT32_MAX;
        if (!r || r->lane_kind != REC_LANE_GPU_STREAM) continue;
        const uint32_t *f = bsearch(&r->lane_device, dev, u, sizeof *dev, cmp_dev);
        dv[i] = (uint32_t)(f - dev);   /* found: its device has lanes */
        start[dv[i] + 1]++;
    }
    for (size_t k = 0; k < u && rc == 0; k++) start[k + 1] += start[k];
    for (size_t i = 0; i < ni && rc == 0; i++)   /* start[k] moves to device k's end ... */
        if (dv[i] != UINT32_MAX) idx[start[dv[i]]++] = (uint32_t)i;
    for (size_t k = u; k > 0 && rc == 0; k--) start[k] = start[k - 1];   /* ... and back */
    if (rc == 0) start[0] = 0;
    for (size_t k = 0; k < u && rc == 0; k++) {
        g[k].device = dev[k];
        for (size_t i = 0; i < m->n_recs; i++) {
            const struct trec *r = &m->recs[i];
            if (!is_gpu(r) || r->lane_device != dev[k]) continue;
            if (r->lane_kind == REC_LANE_GPU_STREAM) g[k].streams++;
            g[k].events = rec_sat_add(g[k].events, r->events);
            g[k].overwritten = rec_sat_add(g[k].overwritten, r->overwritten);
            g[k].dropped = rec_sat_add(g[k].dropped, r->dropped);
            g[k].bad = rec_sat_add(g[k].bad, r->bad);
            g[k].history = rec_sat_add(g[k].history, r->history);
        }
        rc = one_device(m, it, idx + start[k], start[k + 1] - start[k], &g[k], d, sp);
    }
    free(dv);
    free(idx);
    free(start);
    free(dev);
    free(d);
    free(sp);
    if (rc != 0) {
        rec_gpu_devices_free(g, g ? u : 0);
        return -1;
    }
    *out = g;
    *n = u;
    return 0;
}

void rec_gpu_devices_free(struct rec_gpu_device *d, size_t n) {
    for (size_t i = 0; i < n; i++) free(d[i].rows);
    free(d);
}
