/*
 * range.c -- a window of a capture file read on demand (see range.h).
 */
#include <stdlib.h>
#include <string.h>

#include "clamp.h"
#include "range.h"

int range_init(struct range *g, uint32_t max_slots, size_t budget) {
    memset(g, 0, sizeof *g);
    g->budget = budget;
    g->cur_save = calloc(max_slots ? max_slots : 1, sizeof *g->cur_save);
    if (fidx_init(&g->idx) != 0 || batch_init(&g->b) != 0 || !g->cur_save) return -1;
    g->b.replay = 1;
    /* Points close enough that an answer holds several stretches (a file
     * byte encodes to about one): never cut before its first. */
    uint64_t step = budget / 8;
    g->idx.step = step < FIDX_STEP_MIN ? FIDX_STEP_MIN : step > FIDX_STEP0 ? FIDX_STEP0 : step;
    return 0;
}

void range_destroy(struct range *g) {
    fidx_destroy(&g->idx);
    batch_destroy(&g->b);
    free(g->cur_save);
    g->cur_save = NULL;
}

/* The earliest event time from point j on: what a read cut there covers up to. */
static int64_t covered_from(const struct fidx *x, size_t j) {
    int64_t t = INT64_MAX;
    for (; j < x->n; j++)
        if (x->p[j].tmin <= x->p[j].tmax && x->p[j].tmin < t) t = x->p[j].tmin;
    return t;
}

struct frame *range_read(struct range *g, const struct wsrc *src, struct lanes *l, struct strtab *names,
                         struct rec_event *evs, size_t evcap, uint32_t id, double t0, double t1, double now) {
    rec_cap *c = src->cap;
    const struct fidx *x = &g->idx;
    int64_t a = web_ns(t0), b = web_ns(t1);
    size_t from = 0, to = 0, j = 0;
    uint64_t stop = UINT64_MAX;
    int ok = 1, cut = 0;
    memcpy(g->cur_save, l->cur, l->max_slots * sizeof *l->cur);
    g->b.from = a;
    if (b < a) {
        ok = 0;   /* nothing asked */
    } else if (fidx_find(x, a, b, &from, &to) != 0) {
        ok = rec_cap_rewind(c) == REC_OK;   /* no index: from the start, within the budget */
        if (ok) fidx_restore(x, 0, l);
        j = 0;
    } else if (from == to) {
        ok = 0;   /* no event of the file is in the window */
    } else {
        ok = rec_cap_seek(c, &x->p[from].pos) == REC_OK;
        if (ok) fidx_restore(x, from, l);
        j = from;
        if (to < x->n) stop = x->p[to].pos.off;
    }
    struct rec_cap_item it;
    int rc = 0;
    while (ok && rec_cap_offset(c) < stop && (rc = rec_cap_next(c, &it)) == 1) {
        while (j + 1 < x->n && x->p[j + 1].pos.off <= rec_cap_offset(c)) j++;
        if (it.kind != REC_CAP_ITEM_CHUNK) continue;
        size_t off = 0;
        int first = 1;
        while (off < it.n || first) {
            size_t used = 0;
            uint64_t bad = 0;
            size_t n = rec_decode(it.entries + off, it.n - off, it.first + off, evs, evcap, &used, &bad);
            batch_add(&g->b, l, names, src, it.slot, evs, n, first ? &it.loss : NULL);
            first = 0;
            if (!used) break;
            off += used;
        }
        if (batch_bytes(&g->b) >= g->budget) {
            cut = 1;
            break;
        }
    }
    if (rc < 0) cut = 1;   /* the file changed since it was read: what was read goes */
    batch_stacks(&g->b, l);
    memcpy(l->cur, g->cur_save, l->max_slots * sizeof *l->cur);
    int64_t upto = b;
    if (cut) {
        int64_t left = covered_from(x, j + 1 < x->n ? j + 1 : x->n);
        upto = left < b ? left : b;
        if (upto < a) upto = a;
    }
    struct frame *ev = batch_flush(&g->b, 0, now);
    struct wbuf m;
    wb_init(&m, 64 + (ev ? ev->len : 0));
    wb_u8(&m, MSG_RANGE);
    wb_varint(&m, id);
    wb_f64(&m, (double)a);
    wb_f64(&m, (double)upto);
    wb_u8(&m, cut ? RANGE_CUT : 0);
    if (ev) {
        wb_bytes(&m, frame_data(ev) + 1, ev->len - 1);   /* the EVENTS body: seq, base, now, chunks */
        frame_unref(ev);
    } else {
        wb_varint(&m, 0);
        wb_f64(&m, (double)a);
        wb_f64(&m, now);
        wb_varint(&m, 0);
    }
    struct frame *f = m.oom ? NULL : frame_from(&m);
    wb_free(&m);
    return f;
}
