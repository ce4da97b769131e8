/*
 * aggregate.c -- STATS messages and the download snapshots (see aggregate.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "shared.h"

int aggregate_init(struct aggregate *a) {
    memset(a, 0, sizeof *a);
    a->rows = calloc(AGG_ROWS, sizeof *a->rows);
    a->tree_rows = calloc(AGG_NODES, sizeof *a->tree_rows);
    a->shares = calloc(AGG_NODES, sizeof *a->shares);
    a->nodes = calloc(AGG_NODES, sizeof *a->nodes);
    a->set = calloc((size_t)1 << AGG_SET_BITS, sizeof *a->set);
    if (!a->rows || !a->tree_rows || !a->shares || !a->nodes || !a->set) {
        aggregate_destroy(a);
        return -1;
    }
    return 0;
}

void aggregate_destroy(struct aggregate *a) {
    free(a->rows);
    free(a->tree_rows);
    free(a->shares);
    free(a->nodes);
    free(a->set);
    a->rows = NULL;
    a->tree_rows = NULL;
    a->shares = NULL;
    a->nodes = NULL;
    a->set = NULL;
}

/* The tree's names, for the shares query: an open-addressing set of
 * string ids (0, the unknown name, is never in it: its frames take the
 * window's share). */
static uint32_t *set_slot(uint32_t *set, uint32_t id) {
    uint32_t i = (id * 2654435761u) >> (32 - AGG_SET_BITS);
    while (set[i] && set[i] != id) i = (i + 1) & ((1u << AGG_SET_BITS) - 1);
    return &set[i];
}

static int in_tree(void *ctx, uint32_t name_id, const char *name) {
    (void)name;
    return *set_slot(ctx, name_id) == name_id;
}

/* The shares of the tree's names (not only the rows sent: a frame may be
 * of a name past them), from one query that keeps those names only: the
 * model sorts no more than the tree holds (issue 22). */
static size_t tree_stats(struct aggregate *a, rec_model *m, enum rec_window w, size_t nn) {
    memset(a->set, 0, sizeof(uint32_t) << AGG_SET_BITS);
    for (size_t i = 1; i < nn; i++)
        if (a->nodes[i].name_id) *set_slot(a->set, a->nodes[i].name_id) = a->nodes[i].name_id;
    struct rec_stat_order o = {REC_KEY_TOTAL, 0, in_tree, a->set};
    return rec_model_stats_top(m, w, -1, &o, a->tree_rows, AGG_NODES, NULL, NULL);
}

static int by_name(const void *x, const void *y) {
    uint32_t p = ((const struct agg_share *)x)->name_id, q = ((const struct agg_share *)y)->name_id;
    return p < q ? -1 : p > q;
}

/* A frame's share of the window is weighed as its name's is in the top
 * table (rec_stat.total_frac / total_ns, which folds in each thread's
 * covered time), as recorder-top's Flame view does: exact for a name on
 * one thread, close for a name on threads that lost different shares. */
static void share_of(const struct aggregate *a, size_t n, const struct rec_tree_node *t, double span, double *tot,
                     double *self) {
    struct agg_share key = {.name_id = t->name_id};
    const struct agg_share *s = n ? bsearch(&key, a->shares, n, sizeof key, by_name) : NULL;
    double pt = s ? s->per_total : span > 0 ? 1 / span : 0;
    double ps = s ? s->per_self : span > 0 ? 1 / span : 0;
    *tot = t->total_ns * pt;
    *self = t->self_ns * ps;
}

void aggregate_publish(struct aggregate *a, rec_model *m, struct strtab *names, enum rec_window w,
                       double now_ns, struct frame **slot) {
    size_t total = 0;
    size_t nr = rec_model_stats(m, w, -1, a->rows, AGG_ROWS, &total);
    size_t nn = rec_model_tree(m, w, -1, a->nodes, AGG_NODES);
    size_t ns = tree_stats(a, m, w, nn);
    double span = rec_model_window_span(m, w);
    struct rec_window_cover cv;
    if (rec_model_window_cover(m, w, -1, &cv) != 0) memset(&cv, 0, sizeof cv);
    for (size_t i = 0; i < ns; i++) {
        const struct rec_stat *st = &a->tree_rows[i];
        a->shares[i].name_id = st->name_id;
        a->shares[i].per_total = st->total_ns > 0 ? st->total_frac / st->total_ns : span > 0 ? 1 / span : 0;
        a->shares[i].per_self = st->self_ns > 0 ? st->self_frac / st->self_ns : span > 0 ? 1 / span : 0;
    }
    qsort(a->shares, ns, sizeof *a->shares, by_name);
    struct wbuf b;
    wb_init(&b, 96 + nr * 106 + nn * 40);
    wb_u8(&b, MSG_STATS);
    wb_u8(&b, (unsigned)w);
    wb_f64(&b, span);
    wb_f64(&b, now_ns);
    /* What the window's figures are computed from (docs/web.md, "Partial
     * data"): the page marks them partial when entries were lost in it. */
    wb_varint(&b, cv.decoded);
    wb_varint(&b, cv.lost);
    wb_f64(&b, cv.gap_ns);
    wb_f64(&b, cv.decoded_frac);
    wb_varint(&b, total);
    wb_varint(&b, nr);
    for (size_t i = 0; i < nr; i++) {
        const struct rec_stat *s = &a->rows[i];
        wb_varint(&b, strtab_id_named(names, s->name_id, s->name));
        wb_varint(&b, s->calls);
        wb_f64(&b, s->calls_per_sec);
        wb_f64(&b, s->total_ns);
        wb_f64(&b, s->self_ns);
        wb_f64(&b, s->min_ns);
        wb_f64(&b, s->avg_ns);
        wb_f64(&b, s->max_ns);
        wb_f64(&b, s->p50_ns);
        wb_f64(&b, s->p95_ns);
        wb_f64(&b, s->p99_ns);
        wb_f64(&b, s->total_frac);
        wb_f64(&b, s->self_frac);
    }
    /* The root's share is its children's (it has no time of its own). */
    double root_tot = 0, tot, self;
    for (size_t i = 1; i < nn; i++)
        if (a->nodes[i].parent == 0) {
            share_of(a, ns, &a->nodes[i], span, &tot, &self);
            root_tot += tot;
        }
    wb_varint(&b, nn);
    for (size_t i = 0; i < nn; i++) {
        const struct rec_tree_node *t = &a->nodes[i];
        if (i) share_of(a, ns, t, span, &tot, &self);
        else tot = root_tot, self = 0;
        wb_varint(&b, i ? strtab_id_named(names, t->name_id, t->name) : 0);
        wb_varint(&b, t->parent < nn ? t->parent : 0);
        wb_varint(&b, t->calls);
        wb_f64(&b, t->total_ns);
        wb_f64(&b, t->self_ns);
        wb_f64(&b, tot);
        wb_f64(&b, self);
    }
    struct frame *f = frame_from(&b);
    wb_free(&b);
    if (!f) return;
    f->version = ++a->version;
    frame_publish(slot, f);
}

struct snapshot *aggregate_export(rec_model *m, enum snap_fmt fmt) {
    struct snapshot *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->fmt = fmt;
    FILE *out = open_memstream(&s->data, &s->len);
    if (!out) {
        free(s);
        return NULL;
    }
    struct rec_export_opts o = {0};
    int rc = fmt == SNAP_PERFETTO ? rec_export_perfetto(m, out, &o) : rec_export_json(m, out, &o);
    if (fclose(out) != 0) rc = -1;
    if (rc != 0) {
        free(s->data);
        free(s);
        return NULL;
    }
    s->refs = 1;
    return s;
}

void snapshot_ref(struct snapshot *s) { __atomic_fetch_add(&s->refs, 1, __ATOMIC_RELAXED); }

void snapshot_unref(struct snapshot *s) {
    if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(s->data);
        free(s);
    }
}
