/*
 * export_plan.c -- what every exporter takes from the plan (the model
 * that read the whole source first, or the logged model itself) before
 * it writes: each thread's tid in the file and its record in the plan,
 * where a thread's slices end, the window in ns, and the names of a
 * slice's flags.  Below the streaming core and the formats, which all use
 * it; it uses only the model's interface (model.h).
 */
#define _GNU_SOURCE 1     /* qsort_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "export_stream.h"

static const char *const flag_names[5] = {"open", "begin_lost", "end_lost", "gap", "clipped"};

size_t flag_list(char *p, unsigned f) {
    char *s = p;
    int any = 0;
    for (int b = 0; b < 5; b++)
        if (f & (1u << b)) p += sprintf(p, "%s%s", any++ ? "," : "", flag_names[b]);
    return (size_t)(p - s);
}

/* ---- threads: tids and names, fixed from the plan --------------------------
 * Exported tids: the record's, unless it is not a valid one or another
 * record with the same tid overlaps it in time (tids are reused, and a
 * hostile segment can claim anything): then a synthetic one.  The plan
 * (the source read beforehand, or the model itself) knows every thread's
 * span before anything is written. */
static int cmp_tid(const void *a, const void *b, void *ctx) {
    const struct trec *r = ctx;
    const struct trec *x = &r[*(const uint32_t *)a], *y = &r[*(const uint32_t *)b];
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return (x->first_ns > y->first_ns) - (x->first_ns < y->first_ns);
}

int64_t close_of(rec_model *m, const struct trec *r) {
    int64_t c = model_round_ns(model_close_ns(m, r)), last = model_round_ns(r->last_ns);
    return c > last ? c : last;
}

int *xs_plan_tids(rec_model *p) {
    size_t n = p->n_recs;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    int *tid = calloc(n ? n : 1, sizeof *tid);
    if (!idx || !tid) {
        free(idx);
        free(tid);
        return NULL;
    }
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
    qsort_r(idx, n, sizeof *idx, cmp_tid, p->recs);
    double busy_until = 0;
    for (size_t i = 0; i < n; i++) {
        const struct trec *r = &p->recs[idx[i]];
        int same = i > 0 && p->recs[idx[i - 1]].tid == r->tid;
        double close = (double)close_of(p, r);
        if (r->tid < 0 || (same && r->first_ns <= busy_until)) {
            tid[idx[i]] = SYNTH_TID_BASE + (int)idx[i];
            continue;
        }
        tid[idx[i]] = r->tid;
        busy_until = same && busy_until > close ? busy_until : close;
    }
    free(idx);
    return tid;
}

/* The plan's record for one of the model's (the same one when they are
 * one model), or -1: a thread the plan never saw (a live segment that
 * changed between the two reads). */
long xs_plan_rec(rec_model *m, rec_model *plan, uint32_t rec) {
    if (plan == m) return rec;
    const struct trec *r = &m->recs[rec];
    uint64_t *v = u64map_get(&plan->rec_idx, (uint64_t)r->slot << 32 | r->gen);
    return v ? (long)*v : -1;
}

/* The window [from, to] in ns from the options, the trace start t0 and
 * its end (--last counts back from it). */
void xs_window(const struct rec_export_opts *o, int64_t t0, double end_ns, int64_t *from, int64_t *to) {
    *from = INT64_MIN;
    *to = INT64_MAX;
    if (!o) return;
    if (o->from_sec > 0 && isfinite(o->from_sec)) *from = t0 + model_round_ns(o->from_sec * 1e9);
    if (o->last_sec > 0 && isfinite(o->last_sec)) {
        int64_t c = model_round_ns(end_ns - o->last_sec * 1e9);
        if (c > *from) *from = c;
    }
    if (o->to_sec > 0 && isfinite(o->to_sec)) *to = t0 + model_round_ns(o->to_sec * 1e9);
}
