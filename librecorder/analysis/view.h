/*
 * view.h -- the event log as rec_model_items sees it: per thread record,
 * in (slot, generation) order, items sorted by time, open slices closed,
 * --last applied; and the nesting rule that makes the slices of a thread
 * strictly nested whatever the log holds (the streaming exporter's walker,
 * export_stream.c, follows the same rule).
 *
 * Times are integer nanoseconds from here on: rounding happened once, when
 * the item was logged, so a child's begin and end can never cross its
 * parent's after formatting.
 */
#ifndef REC_ANALYSIS_VIEW_H
#define REC_ANALYSIS_VIEW_H

#include "model.h"

/* Internal to librecorder: not exported from the shared library. */
#pragma GCC visibility push(hidden)

struct view {
    rec_model *m;
    size_t nrec;              /* records, in (slot, gen) order */
    uint32_t *order;          /* record indexes */
    size_t *start;            /* nrec + 1 offsets into off[] */
    uint32_t *off;            /* items as seq - log.head, grouped by record, sorted */
    size_t n;
    size_t n_flows;           /* flow items among them */
    int64_t cut;              /* INT64_MIN: everything */
    int64_t t0;               /* earliest time shown (0 if nothing) */
    int64_t now;
    int64_t *close;           /* per record index: where its open slices end */
};

int view_build(rec_model *m, double last_sec, struct view *v);
void view_free(struct view *v);

static inline const struct litem *view_item(const struct view *v, uint32_t off) {
    const struct elog *l = &v->m->log;
    return elog_item(l, l->head + off);
}

/* An item's span and flags as shown. */
static inline void view_span(const struct view *v, const struct litem *it, int64_t *b, int64_t *e,
                             unsigned *flags) {
    *b = it->ts;
    *e = it->end;
    *flags = it->kind == REC_ITEM_SLICE ? it->flags : 0;
    if (it->kind == REC_ITEM_SLICE && (it->flags & REC_SLICE_OPEN)) {
        int64_t c = v->close[it->rec];
        *e = c > *b ? c : *b;
    }
    if (*b < v->cut) {
        *b = v->cut;
        *flags |= ITEM_CLIPPED;
    }
}

/* ---- the nesting walker ------------------------------------------------
 * Items of one thread come in (begin asc, end desc) order.  Before an item
 * [b, e] enters, every open slice that ended before it goes (one ending
 * exactly at b stays only if the item is a point inside it, e == b); an
 * item that would outlive the innermost open slice is cut at its end.
 * What remains is strictly nested, which trace viewers require. */
struct nest_frame {
    int64_t begin, end;
    int64_t child;            /* closed children's time (self time users) */
    uint32_t name_id;
    unsigned flags;
    uint32_t aux;             /* the user's (a path id for folded stacks) */
};

struct nest {
    struct nest_frame *f;
    size_t n, cap;
};

static inline int nest_should_pop(const struct nest *n, int64_t b, int64_t e) {
    if (!n->n) return 0;
    int64_t top = n->f[n->n - 1].end;
    return top < b || (top == b && e > b);
}

static inline int64_t nest_clamp(const struct nest *n, int64_t e) {
    if (n->n && e > n->f[n->n - 1].end) return n->f[n->n - 1].end;
    return e;
}

int nest_push(struct nest *n, int64_t begin, int64_t end, uint32_t name_id, unsigned flags);
void nest_free(struct nest *n);

#pragma GCC visibility pop

#endif
