/*
 * view.c -- building the sorted per-thread view of the log (view.h), and
 * rec_model_items on top of it.  (Exports stream instead: export_stream.h.)
 *
 * The log is in begin order per thread already, except for the few items
 * logged late with an earlier time (unmatched ends, which start back at
 * the last loss).  So each thread's list is checked in one pass, and only
 * the items out of order are sorted and merged back: O(n) for the usual
 * log instead of a full sort.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "view.h"

int nest_push(struct nest *n, int64_t begin, int64_t end, uint32_t name_id, unsigned flags) {
    struct nest_frame *p = grow_to(n->f, &n->cap, n->n + 1, sizeof *p, 64, 0);
    if (!p) return -1;
    n->f = p;
    n->f[n->n++] = (struct nest_frame){begin, end, 0, name_id, flags, 0};
    return 0;
}

void nest_free(struct nest *n) {
    free(n->f);
    memset(n, 0, sizeof *n);
}

struct skey {
    int64_t b, e;
    uint32_t off;
};

static int cmp_key(const struct skey *x, const struct skey *y) {
    if (x->b != y->b) return x->b < y->b ? -1 : 1;
    if (x->e != y->e) return x->e > y->e ? -1 : 1;   /* the longer first: parents before children */
    return (x->off > y->off) - (x->off < y->off);    /* then log order */
}

static int cmp_skey(const void *a, const void *b) { return cmp_key(a, b); }

static struct skey key_of(const struct view *v, uint32_t off) {
    int64_t b, e;
    unsigned fl;
    view_span(v, view_item(v, off), &b, &e, &fl);
    return (struct skey){b, e, off};
}

/* Sorts one record's list: the in-order run stays, the rest is sorted and
 * merged into it. */
static int sort_group(const struct view *v, uint32_t *a, size_t n, struct skey *tmp_in, struct skey *tmp_out) {
    size_t nin = 0, nout = 0;
    for (size_t i = 0; i < n; i++) {
        struct skey k = key_of(v, a[i]);
        if (nin && cmp_key(&k, &tmp_in[nin - 1]) < 0) tmp_out[nout++] = k;
        else tmp_in[nin++] = k;
    }
    if (!nout) return 0;
    qsort(tmp_out, nout, sizeof *tmp_out, cmp_skey);
    size_t i = 0, j = 0, k = 0;
    while (i < nin || j < nout) {
        if (j == nout || (i < nin && cmp_key(&tmp_in[i], &tmp_out[j]) <= 0)) a[k++] = tmp_in[i++].off;
        else a[k++] = tmp_out[j++].off;
    }
    return 0;
}

static int included(const struct view *v, const struct litem *it) {
    if (v->cut == INT64_MIN) return 1;
    if (it->kind == REC_ITEM_SLICE) {
        int64_t b, e;
        unsigned fl;
        view_span(v, it, &b, &e, &fl);
        return e >= v->cut;
    }
    return it->ts >= v->cut;
}

void view_free(struct view *v) {
    free(v->order);
    free(v->start);
    free(v->off);
    free(v->close);
    memset(v, 0, sizeof *v);
}

int view_build(rec_model *m, double last_sec, struct view *v) {
    memset(v, 0, sizeof *v);
    v->m = m;
    v->now = model_round_ns(rec_model_now(m));
    v->cut = INT64_MIN;
    if (last_sec > 0 && isfinite(last_sec)) v->cut = model_round_ns(rec_model_now(m) - last_sec * 1e9);
    size_t nr = m->n_recs;
    struct elog *l = &m->log;
    size_t nlog = (size_t)(l->tail - l->head);
    v->order = malloc((nr ? nr : 1) * sizeof *v->order);
    v->start = calloc(nr + 1, sizeof *v->start);
    v->close = malloc((nr ? nr : 1) * sizeof *v->close);
    size_t *count = calloc(nr ? nr : 1, sizeof *count), *rank = malloc((nr ? nr : 1) * sizeof *rank);
    if (!v->order || !v->start || !v->close || !count || !rank) goto fail;
    v->nrec = model_record_order(m, v->order);
    for (size_t i = 0; i < nr; i++) {
        const struct trec *r = &m->recs[i];
        int64_t c = model_round_ns(model_close_ns(m, r));
        int64_t last = model_round_ns(r->last_ns);
        v->close[i] = c > last ? c : last;
    }
    for (size_t k = 0; k < nr; k++) rank[v->order[k]] = k;

    for (size_t i = 0; i < nlog; i++) {
        const struct litem *it = view_item(v, (uint32_t)i);
        if (it->rec < nr && included(v, it)) count[rank[it->rec]]++;
    }
    for (size_t k = 0; k < nr; k++) v->start[k + 1] = v->start[k] + count[k];
    v->n = v->start[nr];
    v->off = malloc((v->n ? v->n : 1) * sizeof *v->off);
    if (!v->off) goto fail;
    memset(count, 0, nr * sizeof *count);
    int have_t0 = 0;
    for (size_t i = 0; i < nlog; i++) {
        const struct litem *it = view_item(v, (uint32_t)i);
        if (it->rec >= nr || !included(v, it)) continue;
        size_t k = rank[it->rec];
        v->off[v->start[k] + count[k]++] = (uint32_t)i;
        if (it->kind == REC_ITEM_FLOW) v->n_flows++;
        int64_t b, e;
        unsigned fl;
        view_span(v, it, &b, &e, &fl);
        if (!have_t0 || b < v->t0) v->t0 = b;
        have_t0 = 1;
    }
    size_t biggest = 0;
    for (size_t k = 0; k < nr; k++)
        if (count[k] > biggest) biggest = count[k];
    struct skey *t1 = malloc((biggest ? biggest : 1) * sizeof *t1), *t2 = malloc((biggest ? biggest : 1) * sizeof *t2);
    if (!t1 || !t2) {
        free(t1);
        free(t2);
        goto fail;
    }
    for (size_t k = 0; k < nr; k++) sort_group(v, v->off + v->start[k], count[k], t1, t2);
    free(t1);
    free(t2);
    free(count);
    free(rank);
    return 0;
fail:
    free(count);
    free(rank);
    view_free(v);
    return -1;
}

/* ---- rec_model_items ---------------------------------------------------- */

static void fill_item(const struct view *v, const struct litem *it, int64_t b, int64_t e, unsigned fl, size_t depth,
                      struct rec_item *o) {
    const rec_model *m = v->m;
    const struct trec *r = &m->recs[it->rec];
    memset(o, 0, offsetof(struct rec_item, msg));
    o->msg[0] = 0;
    o->kind = it->kind;
    o->flags = fl & (REC_SLICE_OPEN | REC_SLICE_NO_BEGIN | REC_SLICE_NO_END | REC_SLICE_GAP);
    if (fl & ITEM_CLIPPED) o->flags |= REC_SLICE_NO_BEGIN;   /* --last cut it: its begin is not shown */
    o->slot = r->slot;
    o->gen = r->gen;
    o->tid = r->tid;
    o->depth = (uint32_t)depth;
    o->ts_ns = (double)b;
    switch (it->kind) {
    case REC_ITEM_SLICE:
        o->name_id = it->name_id;
        o->dur_ns = (double)(e - b);
        break;
    case REC_ITEM_INSTANT:
        o->flags = it->flags & REC_INSTANT_ARG;
        o->name_id = it->name_id;
        snprintf(o->msg, sizeof o->msg, "%s", elog_msg(&m->log, it));
        break;
    case REC_ITEM_COUNTER:
        o->name_id = it->name_id;
        memcpy(&o->value, &it->u, sizeof o->value);
        break;
    case REC_ITEM_FLOW:
        o->flow_phase = it->flags;
        o->flow_id = it->u;
        break;
    case REC_ITEM_LOSS:
        o->value = (double)it->u + (double)it->name_id;
        o->flags = it->flags;
        if (it->flags & REC_LOSS_NOT_KEPT)
            snprintf(o->msg, sizeof o->msg, "%llu older entries not kept", (unsigned long long)it->u);
        else
            snprintf(o->msg, sizeof o->msg, "%llu overwritten, %u dropped", (unsigned long long)it->u, it->name_id);
        break;
    }
}

size_t rec_model_items(rec_model *m, const struct rec_item **out) {
    *out = m->items_out;
    if (m->items_valid) return m->items_n;
    struct view v;
    m->items_n = 0;
    if (view_build(m, 0, &v) != 0) return 0;
    struct rec_item *a = realloc(m->items_out, (v.n ? v.n : 1) * sizeof *a);
    struct nest ns = {0};
    if (!a) goto done;
    m->items_out = a;
    size_t k = 0;
    for (size_t g = 0; g < v.nrec; g++) {
        ns.n = 0;
        for (size_t i = v.start[g]; i < v.start[g + 1]; i++) {
            const struct litem *it = view_item(&v, v.off[i]);
            int64_t b, e;
            unsigned fl;
            view_span(&v, it, &b, &e, &fl);
            while (nest_should_pop(&ns, b, e)) ns.n--;
            e = nest_clamp(&ns, e);
            fill_item(&v, it, b, e, fl, ns.n, &a[k++]);
            if (it->kind == REC_ITEM_SLICE && nest_push(&ns, b, e, it->name_id, fl) != 0) goto done;
        }
    }
    m->items_n = k;
    m->items_valid = 1;
done:
    nest_free(&ns);
    view_free(&v);
    *out = m->items_out;
    return m->items_n;
}

uint64_t rec_model_items_dropped(const rec_model *m) { return m->log.dropped; }
