/*
 * fileidx.c -- a capture file's time index (see fileidx.h).
 */
#include <stdlib.h>
#include <string.h>

#include "fileidx.h"

int fidx_init(struct fidx *x) {
    memset(x, 0, sizeof *x);
    x->step = FIDX_STEP0;
    x->p = malloc(FIDX_POINTS * sizeof *x->p);
    if (!x->p) x->failed = 1;
    return x->p ? 0 : -1;
}

void fidx_destroy(struct fidx *x) {
    free(x->p);
    free(x->words);
    memset(x, 0, sizeof *x);
}

static int put(struct fidx *x, int64_t v) {
    if (x->nwords == x->capwords) {
        size_t cap = x->capwords ? 2 * x->capwords : 4096;
        int64_t *w = realloc(x->words, cap * sizeof *w);
        if (!w) return -1;
        x->words = w;
        x->capwords = cap;
    }
    x->words[x->nwords++] = v;
    return 0;
}

/* Every other point goes (its stretch joins the one before), the step
 * doubles, and the stacks of the points kept move down. */
static void coarsen(struct fidx *x) {
    size_t k = 0, w = 0;
    for (size_t i = 0; i < x->n; i += 2, k++) {
        struct fidx_point p = x->p[i];
        if (i + 1 < x->n) {
            const struct fidx_point *q = &x->p[i + 1];
            if (q->tmin < p.tmin) p.tmin = q->tmin;
            if (q->tmax > p.tmax) p.tmax = q->tmax;
        }
        memmove(x->words + w, x->words + p.stk, p.nstk * sizeof *x->words);
        p.stk = w;
        w += p.nstk;
        x->p[k] = p;
    }
    x->n = k;
    x->nwords = w;
    x->step *= 2;
}

void fidx_mark(struct fidx *x, const struct rec_cap_pos *pos, const struct lanes *l) {
    if (x->failed || (x->n && pos->off < x->next_at)) return;
    while (x->n == FIDX_POINTS || (x->nwords * sizeof *x->words > FIDX_STACK_BYTES && x->n > 1)) coarsen(x);
    struct fidx_point *p = &x->p[x->n];
    p->pos = *pos;
    p->tmin = INT64_MAX;
    p->tmax = INT64_MIN;
    p->stk = x->nwords;
    for (uint32_t s = 0; s < l->max_slots; s++) {
        uint32_t h = l->cur[s];
        if (!h) continue;
        const struct lane *ln = &l->v[h];
        int k = ln->depth < LANE_STACK ? ln->depth : LANE_STACK;
        int bad = put(x, s) || put(x, h) || put(x, ln->id) || put(x, ln->depth) || put(x, k);
        for (int i = 0; i < k && !bad; i++) bad = put(x, ln->stk_name[i]) || put(x, ln->stk_ts[i]);
        if (bad) {
            x->failed = 1;
            return;
        }
    }
    p->nstk = x->nwords - p->stk;
    if (x->nwords * sizeof *x->words > FIDX_STACK_BYTES && x->n == 0) {
        x->failed = 1;   /* one point's stacks past the bound: no index */
        return;
    }
    x->n++;
    x->next_at = pos->off + x->step;
}

void fidx_note(struct fidx *x, int64_t a, int64_t b) {
    if (x->failed || !x->n) return;
    struct fidx_point *p = &x->p[x->n - 1];
    if (a < p->tmin) p->tmin = a;
    if (b > p->tmax) p->tmax = b;
}

int fidx_find(const struct fidx *x, int64_t t0, int64_t t1, size_t *from, size_t *to) {
    if (x->failed || !x->n) return -1;
    size_t i = 0;
    while (i < x->n && (x->p[i].tmin > x->p[i].tmax || x->p[i].tmax < t0)) i++;
    *from = *to = i;
    for (size_t j = i; j < x->n; j++)
        if (x->p[j].tmin <= x->p[j].tmax && x->p[j].tmin <= t1) *to = j + 1;
    return 0;
}

void fidx_restore(const struct fidx *x, size_t i, struct lanes *l) {
    for (uint32_t h = 1; h < l->top; h++) {
        struct lane *ln = &l->v[h];
        ln->depth = 0;
        ln->seen = 0;
        ln->lost_over = ln->lost_drop = 0;
    }
    memset(l->cur, 0, l->max_slots * sizeof *l->cur);
    if (i >= x->n) return;   /* no point: every stack empty */
    const int64_t *w = x->words + x->p[i].stk, *end = w + x->p[i].nstk;
    while (end - w >= 5) {
        uint32_t s = (uint32_t)w[0], h = (uint32_t)w[1], id = (uint32_t)w[2];
        int depth = (int)w[3], k = (int)w[4];
        w += 5;
        if (s < l->max_slots && h < l->top && l->v[h].id == id) {
            struct lane *ln = &l->v[h];
            l->cur[s] = h;
            ln->depth = depth;
            for (int j = 0; j < k; j++) {
                ln->stk_name[j] = (uint32_t)w[2 * j];
                ln->stk_ts[j] = w[2 * j + 1];
            }
        }
        w += 2 * k;
    }
}
