/*
 * export_json.c -- Perfetto / Chrome trace-event JSON, written as the
 * streaming core (export_stream.h) hands items over.
 *
 * The rules (docs/analysis.md, "JSON export"), each because an importer
 * silently drops or mangles what breaks it:
 *   - {"traceEvents":[...], "otherData":{...}}, traceEvents first;
 *   - ts in microseconds from the trace start, at most 3 decimals, written
 *     from integer nanoseconds;
 *   - slices as B/E pairs with the same name and category, strictly nested
 *     per thread (the core's walker).  Not X events: importers compute
 *     ts + dur in floating point, and a child can then end a hair after its
 *     parent.  A slice of zero length is a B/E pair at one time (ev_point):
 *     a slice of duration 0, never an instant;
 *   - pid and tid non-negative integers, a tid never shared by two threads
 *     alive at once; M events name the process and the threads;
 *   - instants "i" with "s":"t" and a tid; counters "C" with a numeric
 *     value; flows in the slice-level form: a zero-length X "flow" with an
 *     integer "bind_id" and "flow_out"/"flow_in" (ev_flow), bound to that
 *     very slice, only inside a slice of their thread, and a step
 *     or end only after a start written earlier in time (flows.c-like
 *     bookkeeping below: a thread whose step or end waits for its start
 *     waits for it);
 *   - strings escaped by json_escape; never NaN or Inf;
 *   - loss shown where it happened (an instant) and totalled in otherData;
 *   - a slice written before its end was known (the lookahead ran out)
 *     keeps the category of its B on its E, and a marker instant just
 *     before its E says which flags it turned out to have.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "json_write.h"

/* ---- deferred begins (windows) --------------------------------------------
 * A slice the lookahead forced out while it began before the window, at a
 * time its thread had not reached the window yet, may still end before
 * it: its B waits until something of the window is written inside it, or
 * until it ends. */
static void emit_pending(struct jctx *c, uint32_t rec, struct jrec *j) {
    if (!j->pending) return;
    struct xrec *R = &c->x->r[rec];
    for (uint32_t i = 0; i < R->n; i++) {
        struct xframe *f = &R->st[i];
        if (f->emitted) continue;
        ev_b(c, j, f->b, f->name_id, f->wflags);
        f->emitted = 1;
        j->pending--;
    }
}

static void j_push(struct xs *x, uint32_t rec) {
    struct jctx *c = x->ctx;
    struct jrec *j = thread_of(c, rec);
    if (!j) return;
    struct xframe *f = &x->r[rec].st[x->r[rec].n - 1];
    f->wflags = (uint8_t)arg_bits(f->forced ? (f->flags & ITEM_CLIPPED) : f->flags);
    if (f->forced && (f->flags & ITEM_CLIPPED) && model_round_ns(c->m->recs[rec].last_ns) < x->from) {
        j->pending++;   /* emitted = 0 */
        return;
    }
    f->emitted = 1;   /* first, so that emit_pending leaves it to us */
    emit_pending(c, rec, j);
    const char *args = xs_args_take(x, rec, f->b);   /* a GPU slice's: folded in */
    if (args) ev_b_args(c, j, f->b, f->name_id, f->wflags, args);
    else ev_b(c, j, f->b, f->name_id, f->wflags);
}

static void j_pop(struct xs *x, uint32_t rec, const struct xframe *f, int64_t dur, int64_t self) {
    struct jctx *c = x->ctx;
    (void)dur;
    (void)self;
    struct jrec *j = thread_of(c, rec);
    if (!j) return;
    const struct xarg *a;
    uint32_t na = xs_scope_args(x, rec, x->r[rec].n, &a);   /* its frame was st[n] */
    if (!f->emitted) {   /* deferred: shown now that all is known, if it reached the window */
        j->pending--;
        if (f->outside) return;
        emit_pending(c, rec, j);
        unsigned ab = arg_bits(f->flags);
        if (f->e == f->b && na == 0) {
            ev_point(c, j, f->b, f->name_id, ab);
        } else {
            ev_b(c, j, f->b, f->name_id, ab);
            ev_e_args(c, j, f->e, f->name_id, ab, a, na);
        }
        return;
    }
    if (f->forced && arg_bits(f->flags) != f->wflags) ev_late_flags(c, j, f);
    ev_e_args(c, j, f->e, f->name_id, f->wflags, a, na);
}

/* ---- flows ------------------------------------------------------------------
 * A flow event binds to the slice around it; one outside every slice of
 * its thread cannot, and a step or end with no start written strictly
 * earlier would dangle: both are left out and counted.  Starts written are
 * remembered (the latest FLOW_STARTS_MAX to 2x that many ids); a step or
 * end inside a slice whose start has not been written yet holds its
 * thread's queue until it is (ready / wake), or until the lookahead or the
 * end forces it out. */
static int start_of(struct jctx *c, uint64_t id, int64_t *ts) {
    uint64_t *a = idmap_get(&c->starts[c->cur], id), *b = idmap_get(&c->starts[!c->cur], id);
    if (!a && !b) return 0;
    uint64_t v = a && b ? (*a < *b ? *a : *b) : a ? *a : *b;
    *ts = (int64_t)v + c->x->t0;
    return 1;
}

static void waiter_unlink(struct jctx *c, uint32_t rec) {
    struct jrec *j = &c->jr[rec];
    if (!j->waiting) return;
    j->waiting = 0;
    c->n_waiting--;
    uint64_t *head = idmap_get(&c->waiters, j->wait_id);
    if (!head) return;
    for (uint64_t *p = head; *p; p = &c->jr[*p - 1].wait_next)
        if (*p - 1 == rec) {
            *p = j->wait_next;
            break;
        }
    j->wait_next = 0;
}

/* The table of waiters never deletes keys: rebuilt when mostly stale. */
static void waiters_compact(struct jctx *c) {
    if (c->waiters.map.n < 4 * c->n_waiting + 65536) return;
    idmap_clear(&c->waiters);
    for (size_t r = 0; r < c->njr; r++) c->jr[r].wait_next = 0;
    for (size_t r = 0; r < c->njr; r++) {
        struct jrec *j = &c->jr[r];
        if (!j->waiting) continue;
        int isnew;
        uint64_t *head = idmap_put(&c->waiters, j->wait_id, &isnew);
        if (!head) {
            c->x->oom = 1;
            return;
        }
        j->wait_next = *head;
        *head = r + 1;
    }
}

static int j_ready(struct xs *x, uint32_t rec, const struct xitem *it) {
    struct jctx *c = x->ctx;
    int64_t s;
    if (start_of(c, it->u, &s) && s < it->b) return 1;
    struct jrec *j = jrec_of(c, rec);
    if (!j) return 1;
    if (j->waiting && j->wait_id == it->u && j->wait_ts == it->b) return 0;
    waiter_unlink(c, rec);
    waiters_compact(c);
    int isnew;
    uint64_t *head = idmap_put(&c->waiters, it->u, &isnew);
    if (!head) return 1;   /* out of memory: it goes now, unbound */
    j->waiting = 1;
    j->wait_id = it->u;
    j->wait_ts = it->b;
    j->wait_next = *head;
    *head = rec + 1;
    c->n_waiting++;
    return 0;
}

static void j_unready(struct xs *x, uint32_t rec, const struct xitem *it) {
    struct jctx *c = x->ctx;
    (void)it;
    if (rec < c->njr) waiter_unlink(c, rec);
    c->c.unbound_flows++;
}

static void start_written(struct jctx *c, uint64_t id, int64_t ts) {
    struct idmap *m = &c->starts[c->cur];
    int isnew;
    uint64_t *v = idmap_put(m, id, &isnew);
    if (!v) {
        c->x->oom = 1;
        return;
    }
    uint64_t rel = (uint64_t)(ts - c->x->t0);
    if (isnew || rel < *v) *v = rel;
    if (m->map.n >= FLOW_STARTS_MAX) {   /* the older generation goes */
        c->cur = !c->cur;
        idmap_clear(&c->starts[c->cur]);
    }
    uint64_t *head = idmap_get(&c->waiters, id);
    if (!head) return;
    /* Wake the threads waiting on this id for a time after it. */
    for (uint64_t *p = head; *p;) {
        uint32_t r = (uint32_t)(*p - 1);
        struct jrec *w = &c->jr[r];
        if (w->wait_ts > ts) {
            *p = w->wait_next;
            w->wait_next = 0;
            w->waiting = 0;
            c->n_waiting--;
            xs_wake(c->x, r);
        } else {
            p = &w->wait_next;
        }
    }
}

static void j_item(struct xs *x, uint32_t rec, const struct xitem *it, const char *msg) {
    struct jctx *c = x->ctx;
    int64_t s;
    if (xs_arg_keep(x, rec, it, msg)) return;  /* a scope's: written with its E */
    if (it->kind == REC_ITEM_FLOW) {
        int bound = x->r[rec].n > 0 &&
                    (it->flags == REC_EV_FLOW_BEGIN || (start_of(c, it->u, &s) && s < it->b));
        if (!bound) {
            c->c.unbound_flows++;
            return;
        }
    }
    if (xs_args_folded(x, rec, it)) return;   /* in its slice's args */
    struct jrec *j = thread_of(c, rec);
    if (!j) return;
    emit_pending(c, rec, j);
    const char *args;
    switch (it->kind) {
    case REC_ITEM_SLICE:
        args = xs_args_take(x, rec, it->b);
        if (args) {
            ev_b_args(c, j, it->b, it->name_id, arg_bits(it->flags), args);
            ev_e(c, j, it->b, it->name_id, arg_bits(it->flags));
        } else {
            ev_point(c, j, it->b, it->name_id, arg_bits(it->flags));
        }
        break;
    case REC_ITEM_INSTANT: ev_instant(c, j, it, msg); break;
    case REC_ITEM_COUNTER: ev_counter(c, j, it); break;
    case REC_ITEM_FLOW:
        ev_flow(c, j, it);
        if (it->flags == REC_EV_FLOW_BEGIN) start_written(c, it->u, it->b);
        break;
    case REC_ITEM_LOSS: ev_loss(c, j, it); break;
    }
}

static const struct xs_sink json_sink = {0, j_push, j_pop, j_item, j_ready, j_unready};

/* ---- start and end ------------------------------------------------------- */

static void free_ctx(void *ctx) {
    struct jctx *c = ctx;
    for (int i = 0; i < 32; i++) free(c->args[i]);
    for (size_t i = 0; i < c->n_temp; i++) free(c->temp[i]);
    free(c->temp);
    free(c->plan_tid);
    free(c->plan_named);
    free(c->jr);
    for (int i = 0; i < 2; i++) u64map_free(&c->starts[i].map);
    u64map_free(&c->waiters.map);
    free(c);
}

static int json_start(struct xs *x, rec_model *plan, FILE *out, double span) {
    (void)span;
    struct jctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->x = x;
    c->m = x->m;
    c->plan = plan;
    c->first = !x->part || !x->part->written;
    if (ob_init_thread(&c->ob, out, (size_t)1 << 20) != 0) {
        free_ctx(c);
        return -1;
    }
    x->sink = &json_sink;
    x->ctx = c;
    build_args(c);
    uint32_t *order = malloc((plan->n_recs ? plan->n_recs : 1) * sizeof *order);
    if (!order || assign_tids(c) != 0) {
        free(order);
        return -1;
    }
    if (!x->part || x->part->index == 0) OB_LIT(&c->ob, "{\"traceEvents\":[\n");
    /* Process and thread names first, threads by slot and generation,
     * then the GPU's lanes by device (model_track_order): with a window,
     * those it meets. */
    int window = x->from != INT64_MIN || x->to != INT64_MAX;
    size_t n = model_track_order(plan, order);
    for (size_t g = 0; g < n; g++) {
        const struct trec *r = &plan->recs[order[g]];
        if (window && (!r->seen || close_of(plan, r) < x->from || model_round_ns(r->first_ns) > x->to)) continue;
        struct jrec t = {0};
        set_prefix(c, &t, c->plan_tid[order[g]]);
        write_names(c, &t, r->name, (int64_t)g);
        c->plan_named[order[g]] = 1;
    }
    free(order);
    return 0;
}

/* The rest after xs_finish: otherData and the closing bracket. */
static int json_end(struct xs *x, const struct rec_export_opts *o, struct rec_export_counts *out) {
    struct jctx *c = x->ctx;
    c->end = model_round_ns(rec_model_now(c->m));
    int rc = write_other(c, o);
    if (ob_finish(&c->ob) != 0) rc = -1;
    if (x->part && !c->first) x->part->written = 1;
    *out = c->c;
    return rc;
}

const struct xs_format xs_json_format = {1, json_start, json_end, free_ctx};
