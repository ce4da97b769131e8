/*
 * export_perfetto.c -- Perfetto's native protobuf trace (a stream of
 * TracePackets, docs/perfetto.md), written as the streaming core
 * (export_stream.h) hands items over: the same items, the same walker and
 * the same bounded memory as the JSON.  The encoder is pb_write.h's.
 *
 * What goes where (field numbers from Perfetto's trace_packet.proto,
 * track_event.proto, track_descriptor.proto, pf_clock_snapshot.proto,
 * interned_data.proto, debug_annotation.proto; tests/perfetto keeps the
 * subset the tests decode with):
 *   - every packet: the machine it was recorded on (TracePacket.machine_id,
 *     recorder/machine.h), when the source knows it;
 *   - sequence 1: a ClockSnapshot (MONOTONIC, BOOTTIME, REALTIME), the
 *     process's and threads' TrackDescriptors, counter tracks as they come,
 *     and at the end the statistics instants; absolute MONOTONIC times;
 *   - one sequence per thread (2 + its record): its first packet clears
 *     the incremental state and defines clock 64, incremental, from
 *     MONOTONIC, and the defaults (that clock, the thread's track), so an
 *     event is a time delta, a type and an interned name: about 12 bytes
 *     against 70 in JSON.  A time earlier than the last (it cannot happen
 *     with the walker, but costs nothing to handle) is written absolute;
 *   - names are interned per sequence (EventName iid / name_iid) and
 *     categories (a slice's flags) as EventCategory iids = the flag bits;
 *     a name not published yet goes as a plain string; past PF_INTERN_MAX
 *     names on all sequences together every sequence starts afresh;
 *   - flows are instants named "flow" inside the slice they bind to,
 *     carrying flow_ids (start, step) or terminating_flow_ids (end): an
 *     event of their own, written in time order, rather than ids on the
 *     slice's begin, which was written before the flow was known.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto_write.h"

/* ---- the sink (what export_json.c does, for this format) --------------------------
 * A slice the lookahead forced out while it began before the window, at a
 * time its thread had not reached the window yet, may still end before
 * it: its begin waits until something of the window is written inside it,
 * or until it ends. */
static void emit_pending(struct pctx *c, uint32_t rec, struct prec *P) {
    if (!P->pending) return;
    struct xrec *R = &c->x->r[rec];
    for (uint32_t i = 0; i < R->n; i++) {
        struct xframe *f = &R->st[i];
        if (f->emitted) continue;
        pf_slice_begin(c, rec, P, f->b, f->name_id, f->wflags);
        f->emitted = 1;
        P->pending--;
    }
}

static void p_push(struct xs *x, uint32_t rec) {
    struct pctx *c = x->ctx;
    struct prec *P = pf_prec(c, rec);
    if (!P) return;
    struct xframe *f = &x->r[rec].st[x->r[rec].n - 1];
    f->wflags = (uint8_t)arg_bits(f->forced ? (f->flags & ITEM_CLIPPED) : f->flags);
    if (f->forced && (f->flags & ITEM_CLIPPED) && model_round_ns(c->m->recs[rec].last_ns) < x->from) {
        P->pending++;
        return;
    }
    f->emitted = 1;
    emit_pending(c, rec, P);
    const char *args = xs_args_take(x, rec, f->b);   /* a GPU slice's: folded in */
    if (args) pf_slice_args(c, rec, P, f->b, f->name_id, f->wflags, args);
    else pf_slice_begin(c, rec, P, f->b, f->name_id, f->wflags);
}

static void p_pop(struct xs *x, uint32_t rec, const struct xframe *f, int64_t dur, int64_t self) {
    struct pctx *c = x->ctx;
    (void)dur;
    (void)self;
    struct prec *P = pf_prec(c, rec);
    if (!P) return;
    const struct xarg *a;
    uint32_t na = xs_scope_args(x, rec, x->r[rec].n, &a);   /* its frame was st[n] */
    if (!f->emitted) {   /* deferred: shown now that all is known, if it reached the window */
        P->pending--;
        if (f->outside) return;
        emit_pending(c, rec, P);
        unsigned ab = arg_bits(f->flags);
        pf_slice_begin(c, rec, P, f->b, f->name_id, ab);
        pf_slice_end_args(c, rec, P, f->e, a, na);
        return;
    }
    if (f->forced && arg_bits(f->flags) != f->wflags) pf_late_flags(c, rec, P, f);
    if (na) pf_slice_end_args(c, rec, P, f->e, a, na);
    else pf_slice_end(c, rec, P, f->e);
}

/* Flows bind to the slice around them: one outside every slice of its
 * thread cannot, and is left out and counted.  A step or end whose start
 * is missing is written all the same: Perfetto draws no arrow for it. */
static void p_item(struct xs *x, uint32_t rec, const struct xitem *it, const char *msg) {
    struct pctx *c = x->ctx;
    if (it->kind == REC_ITEM_FLOW && x->r[rec].n == 0) {
        c->c.unbound_flows++;
        return;
    }
    if (xs_args_folded(x, rec, it)) return;   /* in its slice's annotations */
    if (xs_arg_keep(x, rec, it, msg)) return;  /* a scope's: with its end */
    struct prec *P = pf_prec(c, rec);
    if (!P) return;
    emit_pending(c, rec, P);
    const char *args;
    switch (it->kind) {
    case REC_ITEM_SLICE:   /* zero length: a slice all the same (docs/perfetto.md) */
        args = xs_args_take(x, rec, it->b);
        if (args) pf_slice_args(c, rec, P, it->b, it->name_id, arg_bits(it->flags), args);
        else pf_slice_begin(c, rec, P, it->b, it->name_id, arg_bits(it->flags));
        pf_slice_end(c, rec, P, it->b);
        break;
    case REC_ITEM_INSTANT: pf_instant(c, rec, P, it, msg); break;
    case REC_ITEM_COUNTER: pf_counter(c, rec, P, it); break;
    case REC_ITEM_FLOW: pf_flow(c, rec, P, it); break;
    case REC_ITEM_LOSS: pf_loss(c, rec, P, it); break;
    }
}

static const struct xs_sink pf_sink = {0, p_push, p_pop, p_item, NULL, NULL};

/* ---- start and end ------------------------------------------------------------- */

/* TracePacket.machine_id as every packet carries it (pf_pk_open): 2 bytes
 * of tag and up to 5 of value; none when the source's machine is unknown. */
static void machine_init(struct pctx *c, uint32_t machine) {
    c->machine = machine;
    c->mach_len = machine ? (uint8_t)(pb_uint(c->mach, TP_MACHINE_ID, machine) - c->mach) : 0;
}

static void free_ctx(void *ctx) {
    struct pctx *c = ctx;
    for (size_t i = 0; i < c->npr; i++) u64map_free(&c->pr[i].iid);
    free(c->pr);
    u64map_free(&c->counters);
    free(c->plan_tid);
    free(c->plan_uuid);
    free(c);
}

static int pf_start(struct xs *x, rec_model *plan, FILE *out, double span) {
    (void)span;
    struct pctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->x = x;
    c->m = x->m;
    c->plan = plan;
    c->gen = 1;
    c->pid = c->m->src.pid > 0 ? c->m->src.pid : 0;
    c->mono0 = c->m->src.mono_ns0;
    machine_init(c, c->m->src.machine_id);
    /* Several sources in one file: each on sequences of its own (a
     * record index stays below 2^17: the model has at most 65535). */
    c->seq_base = x->part ? x->part->index << 17 : 0;
    c->puuid = pf_uuid(c, 0, 1);
    x->sink = &pf_sink;
    x->ctx = c;
    c->plan_n = plan->n_recs;
    c->plan_tid = xs_plan_tids(plan);
    c->plan_uuid = calloc(c->plan_n ? c->plan_n : 1, sizeof *c->plan_uuid);
    uint32_t *order = malloc((c->plan_n ? c->plan_n : 1) * sizeof *order);
    if (!c->plan_tid || !c->plan_uuid || !order || ob_init_thread(&c->ob, out, (size_t)1 << 20) != 0) {
        free(order);
        return -1;
    }
    pf_clock_snapshot(c);
    pf_describe_process(c);
    /* The threads, by slot and generation, then the lanes that are not
     * threads (a GPU's streams and counters: tracks of the process, named
     * for the lane): with a window, those it meets. */
    int window = x->from != INT64_MIN || x->to != INT64_MAX;
    size_t n = model_track_order(plan, order);
    for (size_t g = 0; g < n; g++) {
        const struct trec *r = &plan->recs[order[g]];
        if (window && (!r->seen || close_of(plan, r) < x->from || model_round_ns(r->first_ns) > x->to)) continue;
        c->plan_uuid[order[g]] = pf_uuid(c, 1, order[g]);
        if (r->lane_kind != REC_LANE_THREAD) pf_describe_lane(c, c->plan_uuid[order[g]], r->name);
        else pf_describe_thread(c, c->plan_uuid[order[g]], c->plan_tid[order[g]], r->name);
    }
    free(order);
    return 0;
}

/* The rest after xs_finish: the statistics instants. */
static int pf_end(struct xs *x, const struct rec_export_opts *o, struct rec_export_counts *out) {
    struct pctx *c = x->ctx;
    c->end = model_round_ns(rec_model_now(c->m));
    pf_write_stats(c, o);
    int rc = ob_finish(&c->ob);
    *out = c->c;
    return rc;
}

const struct xs_format xs_pf_format = {1, pf_start, pf_end, free_ctx};
