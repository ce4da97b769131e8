/*
 * model_feed.c -- decoded events in, slices out.
 *
 * Each thread record keeps a stack of its open scopes.  A BEGIN pushes;
 * an END pops, with these rules for the ends that do not pair up simply
 * (docs/analysis.md, "unmatched ends"):
 *
 *   - END with name 0 closes the innermost open scope.
 *   - END naming a scope deeper in the stack closes every scope above it
 *     first, at the same time, flagged REC_SLICE_NO_END (their own ends
 *     were lost or never written), then the named one.  Nesting stays
 *     strict and the stack cannot drift.
 *   - END naming no open scope is an unmatched end: its begin was lost
 *     (overwritten before we read it) or never written.  It becomes a
 *     REC_SLICE_NO_BEGIN slice from the latest point we know it covers
 *     (the thread's first event after the last loss, or the begin of the
 *     innermost open scope, whichever is later; 1 ns later if a sibling
 *     ended exactly there) to the END, one level inside the innermost
 *     open scope.  The stack is left alone.
 *
 * Statistics and the call tree count only slices whose begin and end were
 * both seen with nothing lost in between; the others are in the log (and
 * so in exports) with their flag, and in the per-thread counters.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "aggregates.h"

/* ---- per-second rings (utilization, event rate) ------------------------- */

/* The part of [b, e) in each second it crosses (at most the last 60). */
static __attribute__((noinline)) void add_secs(struct trec *r, double b, double e, int wait) {
    int64_t last = (int64_t)floor(e / 1e9);
    double lo = (double)(last - 59) * 1e9;
    if (b < lo) b = lo;
    for (int64_t sec = (int64_t)floor(b / 1e9); sec <= last; sec++) {
        double s0 = (double)sec * 1e9, s1 = s0 + 1e9;
        double x = (b > s0 ? b : s0), y = (e < s1 ? e : s1);
        struct sec_slot *ss = y > x ? model_sec_at(r, sec) : NULL;
        if (ss) *(wait ? &ss->wait_ns : &ss->busy_ns) += y - x;
    }
}

/* Top-level time [b, e] of a thread (or, wait, time in its outermost
 * wait scopes, which busy figures take off again): intervals arrive in
 * time order, and an unmatched end may cover intervals already added, so
 * only the part after the last one counts.  Inline, with wait a
 * constant at each call: it runs once or twice a slice, and nearly every
 * interval lies in the current second. */
static inline __attribute__((always_inline)) void add_time(struct trec *r, double b, double e, int wait) {
    double *until = wait ? &r->wait_until : &r->busy_until;
    if (b < *until) b = *until;
    if (e <= b) return;
    *until = e;
    *(wait ? &r->wait_ns : &r->busy_ns) += e - b;
    if (b >= r->sec_lo && e < r->sec_hi)   /* within the current second */
        *(wait ? &r->secs[r->sec_i].wait_ns : &r->secs[r->sec_i].busy_ns) += e - b;
    else
        add_secs(r, b, e, wait);
}

static void add_busy(struct trec *r, double b, double e) { add_time(r, b, e, 0); }

/* A closed child [b, e] of a frame: children arrive in time order; an
 * unmatched end may cover earlier ones. */
static void add_child(struct frame *f, double b, double e) {
    if (b < f->child_end) b = f->child_end;
    if (e <= b) return;
    f->child_end = e;
    f->child_ns += e - b;
}

/* ---- records ------------------------------------------------------------ */

/* A newer generation took the slot: the old thread is gone.  Its open
 * scopes stay in the log as REC_SLICE_OPEN, closed at its last event. */
void model_switch(rec_model *m, struct slot_state *s, int rec) {
    if (s->cur == rec) return;
    struct trec *old = model_rec(m, s->cur);
    if (old) {
        old->state = REC_SLOT_EXITED;
        old->flagged += (uint64_t)old->depth;   /* they end open */
        old->depth = 0;
        old->overflow = 0;
        stats_pend_release(m, old);
    }
    s->cur = rec;
}

/* Which record an event of this slot belongs to. */
static int pick_record(rec_model *m, struct slot_state *s, uint32_t slot, const struct rec_event *e) {
    if (e->type == REC_EV_THREAD_START) {
        int idx = model_record(m, slot, e->gen);
        struct trec *r = model_rec(m, idx);
        if (!r) return -1;
        model_set_tid(m, r, e->tid);
        model_switch(m, s, idx);
        return idx;
    }
    /* rec_model_thread announced a newer generation: its events start at
     * its start_head even when its THREAD_START entry was overwritten. */
    struct trec *lat = model_rec(m, s->latest), *cur = model_rec(m, s->cur);
    if (lat && s->cur != s->latest && (!cur || cur->gen < lat->gen) &&
        (!lat->has_start_head || e->index >= lat->start_head))
        model_switch(m, s, s->latest);
    if (s->cur < 0) {
        /* Events from before the announced generation: an earlier thread
         * of this slot whose THREAD_START we never saw. */
        uint32_t gen = lat && lat->gen > 0 ? lat->gen - 1 : 0;
        int idx = model_record(m, slot, gen);
        if (idx < 0) return -1;
        model_switch(m, s, idx);
    }
    return s->cur;
}

/* Every open scope spans the gap: its end may be among what was lost. */
static void mark_open(struct trec *r) {
    for (int i = 0; i < r->depth; i++) r->stack[i].gap = 1;
    r->gap_frames = r->depth;
    if (r->seen) r->last_gap_from = r->last_ns;
}

/* Entries lost (or history not kept) before the thread's next event.
 * A loss is a gap in what we know: open scopes are marked, and the gap
 * runs from the last event seen to the next (place_loss).  History comes
 * before anything was seen: nothing is open, and it is no gap. */
static void mark_gap(struct trec *r, uint64_t over, uint64_t drop, uint64_t hist) {
    r->history = rec_sat_add(r->history, hist);
    r->pend_hist = rec_sat_add(r->pend_hist, hist);
    if (over || drop) {
        if (!r->pend_gap) r->loss_from = r->seen ? r->last_ns : NAN;
        r->overwritten = rec_sat_add(r->overwritten, over);
        r->dropped = rec_sat_add(r->dropped, drop);
        r->pend_over = rec_sat_add(r->pend_over, over);
        r->pend_drop = rec_sat_add(r->pend_drop, drop);
        r->pend_gap = 1;
        mark_open(r);
    }
    r->pend_loss = 1;
}

/* Entries a stream-mode writer dropped after the thread's last event we
 * have (its ring was full): counted and marked there at once -- a capture
 * may end without another event -- and the gap runs from there to the
 * next event. */
static void late_drop(rec_model *m, struct trec *r, int rec, uint64_t n) {
    double at = r->seen ? r->last_ns : rec_model_now(m);
    int64_t t = model_round_ns(at);
    uint64_t d = n > UINT32_MAX ? UINT32_MAX : n;
    struct litem it = {t, t, 0, (uint32_t)d, (uint16_t)rec, REC_ITEM_LOSS, 0};
    elog_add(&m->log, &it, NULL, 0);
    cover_lost(m, r, at, n);
    r->msg_gap = 1;
    r->dropped = rec_sat_add(r->dropped, n);
    if (!r->pend_gap) r->loss_from = r->seen ? r->last_ns : NAN;
    r->pend_gap = 1;
    r->pend_loss = 1;
    mark_open(r);
}

/* ---- slices ------------------------------------------------------------- */

static void close_top(rec_model *m, struct trec *r, double end, unsigned flags) {
    struct frame *f = &r->stack[--r->depth];
    if (f->gap && r->gap_frames > 0) r->gap_frames--;
    double dur = end > f->ts ? end - f->ts : 0;
    double self = dur - f->child_ns;
    if (self < 0) self = 0;
    /* Busy is time we saw: not the gaps inside this scope, where we know
     * nothing (its per-second share is clamped instead); wait time too. */
    double gapped = r->gap_ns - f->gap_at;
    if (f->wait_outer) {
        add_time(r, f->ts, end, 1);
        if (gapped > 0) r->wait_ns -= gapped < dur ? gapped : dur;
    }
    if (r->depth > 0) {
        add_child(&r->stack[r->depth - 1], f->ts, end);
    } else {
        add_busy(r, f->ts, end);
        if (gapped > 0) r->busy_ns -= gapped < dur ? gapped : dur;
    }
    if (f->gap) flags |= REC_SLICE_GAP;
    if (flags) r->flagged++;
    if (f->seq != UINT64_MAX) elog_close(&m->log, f->seq, end, flags);
    if (!flags && !m->no_stats) stats_slice_fast(m, r, f->node, m->node_name[f->node], end, dur, self);
}

static void unmatched_end(rec_model *m, struct trec *r, int rec, uint32_t id, int wait, double ts) {
    r->unmatched++;
    double b = r->epoch_ns;
    struct frame *top = r->depth > 0 ? &r->stack[r->depth - 1] : NULL;
    if (top && top->ts > b) b = top->ts;
    /* A sibling that ended exactly there only touches it: start 1 ns
     * later, so that no importer pairs that sibling's end with this begin
     * (speedscope does, when the names match). */
    double level_start = top ? top->ts : r->first_ns, last_end = top ? top->child_end : r->busy_until;
    if (last_end > level_start && b <= last_end && b >= last_end - 0.5) b = last_end + 1;
    if (b > ts) b = ts;
    if (top) add_child(top, b, ts);
    else add_busy(r, b, ts);
    /* A wait's end, outside any wait scope: that time was waiting. */
    if ((!top || !top->wait) && (wait || (id && model_name_wait(m, model_name(m, id))))) add_time(r, b, ts, 1);
    struct litem it = {model_round_ns(b), model_round_ns(ts), 0, id, (uint16_t)rec, REC_ITEM_SLICE, REC_SLICE_NO_BEGIN};
    elog_add(&m->log, &it, NULL, 0);
}

/* A scope that was open across a loss, and begins again: its end (and
 * those of the scopes opened inside it) was among the lost entries --
 * a loop's next iteration, not a recursion.  Close them where we last
 * knew them open, end lost, instead of nesting every new iteration under
 * stale ones.  Only the top of the stack, and only scopes all open across
 * the loss, are taken so: a recursion across a gap is mislabelled at
 * worst, and flagged.  They end at the thread's previous event: nothing
 * after the loss closed them, so everything logged since lies inside. */
static void close_stale(rec_model *m, struct trec *r, uint32_t id) {
    /* Scopes marked at a loss are the bottom gap_frames of the stack
     * (scopes close from the top); new ones above them mean the thread
     * went on inside them after the gap: leave them be. */
    if (r->depth != r->gap_frames) return;
    int k = -1;
    for (int i = r->depth - 1; i >= 0; i--)
        if (r->stack[i].name_id == id) {
            k = i;
            break;
        }
    if (k < 0) return;
    /* At the thread's event before this one: what the log holds inside
     * them (events after the gap, while they looked open) stays inside. */
    double end = r->prev_ns > r->last_gap_from ? r->prev_ns : r->last_gap_from;
    while (r->depth > k) close_top(m, r, end, REC_SLICE_NO_END);
}

static void on_begin(rec_model *m, struct trec *r, int rec, uint32_t id, int wait, double ts) {
    if (r->gap_frames > 0) close_stale(m, r, id);
    if (r->depth >= REC_MAX_NESTING) {
        r->overflow++;
        r->too_deep++;
        return;
    }
    if (r->depth >= r->stack_cap) {
        int ncap = r->stack_cap ? r->stack_cap * 2 : 8;
        if (ncap > REC_MAX_NESTING) ncap = REC_MAX_NESTING;
        struct frame *p = realloc(r->stack, (size_t)ncap * sizeof *p);
        if (!p) {
            r->overflow++;
            r->too_deep++;
            return;
        }
        r->stack = p;
        r->stack_cap = ncap;
    }
    uint32_t parent = r->depth ? r->stack[r->depth - 1].node : 0;
    uint32_t node = model_node_of(m, parent, id);
    /* A wait scope: marked by its writer, or named so (one test when no
     * wait names are set). */
    if (wait) m->names[m->node_name[node]].wait_marked = 1;
    else if (m->n_wait_pats) wait = model_name_wait(m, m->node_name[node]);
    int in_wait = r->depth > 0 && r->stack[r->depth - 1].wait;
    struct frame *f = &r->stack[r->depth++];
    f->wait = (uint8_t)(in_wait || wait);
    f->wait_outer = (uint8_t)(!in_wait && wait);
    f->name_id = id;
    f->node = node;
    f->ts = ts;
    f->child_ns = 0;
    f->child_end = ts;
    f->gap = 0;
    f->gap_at = r->gap_ns;
    f->seq = UINT64_MAX;
    if (m->log.max) {
        int64_t t = model_round_ns(ts);
        struct litem it = {t, t, 0, id, (uint16_t)rec, REC_ITEM_SLICE, REC_SLICE_OPEN};
        f->seq = elog_add(&m->log, &it, NULL, 0);
    }
}

static void on_end(rec_model *m, struct trec *r, int rec, uint32_t id, int wait, double ts) {
    if (r->overflow > 0) {   /* closes a scope we could not track */
        r->overflow--;
        return;
    }
    int k = -1;
    if (r->depth > 0) {
        if (id == 0 || r->stack[r->depth - 1].name_id == id) k = r->depth - 1;
        else
            for (int i = r->depth - 2; i >= 0; i--)
                if (r->stack[i].name_id == id) {
                    k = i;
                    break;
                }
    }
    if (k < 0) {
        unmatched_end(m, r, rec, id, wait, ts);
        return;
    }
    while (r->depth - 1 > k) close_top(m, r, ts, REC_SLICE_NO_END);
    close_top(m, r, ts, 0);
}

/* ---- events ------------------------------------------------------------- */

static void set_name(rec_model *m, struct trec *r, uint32_t id) {
    const char *s = m->strings ? m->strings(m->ctx, id) : NULL;
    if (s) rec__copy_printable(r->name, sizeof r->name, s, SIZE_MAX);
}

/* The slow parts of process(), out of its way. */
static void first_event(rec_model *m, struct trec *r, double ts) {
    r->seen = 1;
    r->first_ns = ts;
    r->epoch_ns = ts;
    r->busy_until = ts;
    r->wait_until = ts;
    if (ts < m->run_first_ns) m->run_first_ns = ts;   /* a thread's first event is its earliest */
}

static void new_second(struct trec *r, double ts) {
    int64_t sec = (int64_t)floor(ts / 1e9);
    struct sec_slot *ss = model_sec_at(r, sec);
    r->sec_i = ss ? (int)(ss - r->secs) : 60;      /* 60: a scratch slot */
    r->sec_lo = (double)sec * 1e9;
    r->sec_hi = r->sec_lo + 1e9;
}

/* What follows a loss is the start of the known history again. */
static void place_loss(rec_model *m, struct trec *r, int rec, double ts) {
    int64_t t = model_round_ns(ts);
    if (r->pend_hist) {
        struct litem it = {t, t, r->pend_hist, 0, (uint16_t)rec, REC_ITEM_LOSS, REC_LOSS_NOT_KEPT};
        elog_add(&m->log, &it, NULL, 0);
    }
    if (r->pend_over || r->pend_drop) {
        uint64_t d = r->pend_drop > UINT32_MAX ? UINT32_MAX : r->pend_drop;
        struct litem it = {t, t, r->pend_over, (uint32_t)d, (uint16_t)rec, REC_ITEM_LOSS, 0};
        elog_add(&m->log, &it, NULL, 0);
        cover_lost(m, r, ts, r->pend_over + r->pend_drop);
        r->msg_gap = 1;
    }
    /* From the last event we saw to this one, we know nothing. */
    if (r->pend_gap && !isnan(r->loss_from)) cover_gap(m, r, r->loss_from, ts);
    r->pend_over = r->pend_drop = r->pend_hist = 0;
    r->pend_gap = 0;
    r->pend_loss = 0;
    r->epoch_ns = ts;
}

/* What every event does first: its time, and the thread's counters. */
static inline double event_time(rec_model *m, struct trec *r, int rec, uint64_t ticks) {
    if (ticks < r->last_ticks) ticks = r->last_ticks;  /* a thread's time never goes back */
    r->last_ticks = ticks;
    double ts = model_ticks_to_ns(m, ticks);
    if (!r->seen) first_event(m, r, ts);
    r->prev_ns = r->last_ns;
    r->last_ns = ts;
    if (ts > m->newest_ns) m->newest_ns = ts;
    r->events++;
    if (!(ts >= r->sec_lo && ts < r->sec_hi)) new_second(r, ts);
    r->secs[r->sec_i].events++;
    if (!(ts >= r->ev_lo && ts < r->ev_hi)) cover_events_roll(m, r, ts);
    r->ev_n++;
    if (r->pend_loss) place_loss(m, r, rec, ts);
    return ts;
}

static inline void process(rec_model *m, struct trec *r, int rec, const struct rec_event *e) {
    uint64_t keep = r->last_ticks;
    double ts = event_time(m, r, rec, e->ticks);
    /* A lane's start and name are written when it is opened, after the
     * events it then receives may have happened (lanes.h: NVTX ranges
     * and GPU work are written late, with their own times): they are not
     * slices, so they do not hold the lane's time back from going there. */
    if (e->type == REC_EV_THREAD_START || e->type == REC_EV_THREAD_NAME) r->last_ticks = keep;
    int64_t t = m->log.max ? model_round_ns(ts) : 0;   /* only the log needs it */
    switch (e->type) {
    case REC_EV_BEGIN: on_begin(m, r, rec, e->name_id, e->wait, ts); break;
    case REC_EV_END: on_end(m, r, rec, e->name_id, e->wait, ts); break;
    case REC_EV_INSTANT: {
        struct litem it = {t, t, UINT64_MAX, e->name_id, (uint16_t)rec, REC_ITEM_INSTANT, 0};
        unsigned len = e->msg_len <= REC_MSG_MAX ? e->msg_len : REC_MSG_MAX;
        elog_add(&m->log, &it, e->msg, len);
        message_add(m, r, e->name_id, e->msg, len, ts);
        break;
    }
    case REC_EV_ARG: {   /* logged as a flagged instant: its slice's exports take it (scope_args.c) */
        struct litem it = {t, t, UINT64_MAX, e->name_id, (uint16_t)rec, REC_ITEM_INSTANT, ITEM_ARG};
        elog_add(&m->log, &it, e->msg, e->msg_len <= REC_MSG_MAX ? e->msg_len : REC_MSG_MAX);
        break;
    }
    case REC_EV_COUNTER: {
        if (!isfinite(e->value)) {  /* JSON has no NaN or Inf: counted, not kept */
            m->nonfinite_counters++;
            break;
        }
        struct litem it = {t, t, 0, e->name_id, (uint16_t)rec, REC_ITEM_COUNTER, 0};
        memcpy(&it.u, &e->value, sizeof it.u);
        elog_add(&m->log, &it, NULL, 0);
        counter_sample(m, r, e->name_id, e->value, ts);
        break;
    }
    case REC_EV_FLOW_BEGIN:
    case REC_EV_FLOW_STEP:
    case REC_EV_FLOW_END: {
        struct litem it = {t, t, e->flow_id, 0, (uint16_t)rec, REC_ITEM_FLOW, (uint8_t)e->type};
        elog_add(&m->log, &it, NULL, 0);
        break;
    }
    case REC_EV_THREAD_NAME: set_name(m, r, e->name_id); break;
    case REC_EV_THREAD_START: break;  /* pick_record switched the generation */
    default: r->bad++; break;
    }
}

/* One event of a slot; the pending loss goes to the record it lands in. */
static void feed_one(rec_model *m, struct slot_state *s, uint32_t slot, const struct rec_event *e, uint64_t *over,
                     uint64_t *drop, uint64_t *hist) {
    int idx = s->cur;
    if (e->type == REC_EV_THREAD_START || idx < 0 || (s->latest != idx && s->latest >= 0))
        idx = pick_record(m, s, slot, e);
    struct trec *r = model_rec(m, idx);
    if (!r) {
        m->untracked_events++;
        return;
    }
    if (*over || *drop || *hist) {   /* the loss came before this call's first event */
        mark_gap(r, *over, *drop, *hist);
        *over = *drop = *hist = 0;
    }
    process(m, r, idx, e);
}

/* Nearly every event: a begin or an end of the slot's current thread, with
 * no loss to place before it, straight to its stack, as feed_one would
 * take it but without filling or dispatching on a struct rec_event (both
 * feeds below).  Returns 0 for anything else, which takes feed_one's
 * path. */
static inline int feed_slice(rec_model *m, struct slot_state *s, unsigned type, uint64_t ticks, uint32_t id,
                             int wait, int lossy) {
    int idx = s->cur;
    struct trec *r;
    if ((type != REC_EV_BEGIN && type != REC_EV_END) || lossy || idx < 0 || (s->latest != idx && s->latest >= 0) ||
        (r = model_rec(m, idx)) == NULL)
        return 0;
    double ts = event_time(m, r, idx, ticks);
    if (type == REC_EV_BEGIN) on_begin(m, r, idx, id, wait, ts);
    else on_end(m, r, idx, id, wait, ts);
    return 1;
}

/* The slot's loss so far; *over and *drop are placed at its next event. */
/* Where a read's loss goes.  Overwritten entries and history are older
 * than everything the read returned: they go before its first event.
 * Dropped ones are newer: a stream-mode writer drops only when its ring is
 * full, after every entry the ring holds, so they go after its last event
 * (keep_loss, with the read's dropped count). */
static void take_loss(struct slot_state *s, const struct rec_loss *loss, uint64_t *over, uint64_t *drop,
                      uint64_t *hist) {
    *over = s->pend_over + (loss ? loss->overwritten : 0);
    *drop = s->pend_drop;
    *hist = s->pend_hist + (loss ? loss->history : 0);
    s->pend_over = s->pend_drop = s->pend_hist = 0;
}

/* Loss with no event to place it at yet: the slot's next event will be.
 * The read's dropped entries came after its last event: they count at
 * once against the thread that wrote it (and mark its open scopes), and
 * their gap starts there. */
static void keep_loss(rec_model *m, struct slot_state *s, uint64_t over, uint64_t drop, uint64_t hist,
                      const struct rec_loss *loss) {
    s->pend_over = rec_sat_add(s->pend_over, over);
    s->pend_drop = rec_sat_add(s->pend_drop, drop);
    s->pend_hist = rec_sat_add(s->pend_hist, hist);
    uint64_t late = loss ? loss->dropped : 0;
    struct trec *r = late ? model_rec(m, s->cur) : NULL;
    if (r) late_drop(m, r, s->cur, late);
    else s->pend_drop = rec_sat_add(s->pend_drop, late);
}
void rec_model_feed(rec_model *m, uint32_t slot, const struct rec_event *ev, size_t n,
                    const struct rec_loss *loss) {
    struct slot_state *s = model_slot(m, slot);
    if (!s) {
        m->untracked_events += n;
        return;
    }
    model_invalidate(m);
    uint64_t over, drop, hist;
    take_loss(s, loss, &over, &drop, &hist);
    const int plain = m->no_shortcut;   /* read once: the calls below could change it, for all the compiler knows */
    for (size_t i = 0; i < n; i++) {
        const struct rec_event *e = &ev[i];
        if (plain || !feed_slice(m, s, e->type, e->ticks, e->name_id, e->wait, (over | drop | hist) != 0))
            feed_one(m, s, slot, e, &over, &drop, &hist);
    }
    keep_loss(m, s, over, drop, hist, loss);
    if (loss && loss->bad) rec_model_add_bad(m, slot, loss->bad);
}

/* rec_decode and rec_model_feed in one pass.  Begins and ends of the
 * slot's current thread (nearly every entry) go straight from the entry to
 * the stack, without filling a struct rec_event; anything else -- other
 * types, continuations, malformed entries, a generation switch -- is
 * decoded one event at a time and takes rec_model_feed's path, so both
 * give the same model. */
size_t rec_model_feed_entries(rec_model *m, uint32_t slot, const struct rec_entry *in, size_t n, uint64_t first,
                              const struct rec_loss *loss) {
    struct slot_state *s = model_slot(m, slot);
    struct rec_event ev;
    size_t i = 0, events = 0;
    if (!s) {
        uint64_t bad = 0;
        while (i < n) {
            size_t used = 0;
            events += rec_decode(in + i, n - i, first + i, &ev, 1, &used, &bad);
            i += used ? used : 1;
        }
        m->untracked_events += events + bad;
        return events;
    }
    model_invalidate(m);
    uint64_t over, drop, hist;
    take_loss(s, loss, &over, &drop, &hist);
    while (i < n) {
        const struct rec_entry *e = &in[i];
        if (feed_slice(m, s, REC_EV_TYPE(e->w1), e->w0, REC_EV_ID(e->w1), (e->w1 & REC_EV_WAIT) != 0,
                       (over | drop | hist) != 0)) {
            i++;
            events++;
            continue;
        }
        size_t used = 0;
        uint64_t bad = 0;
        size_t k = rec_decode(e, n - i, first + i, &ev, 1, &used, &bad);
        if (bad) rec_model_add_bad(m, slot, bad);   /* to the thread they came from */
        if (k) {
            feed_one(m, s, slot, &ev, &over, &drop, &hist);
            events++;
        }
        i += used ? used : 1;
    }
    keep_loss(m, s, over, drop, hist, loss);
    if (loss && loss->bad) rec_model_add_bad(m, slot, loss->bad);
    return events;
}

void rec_model_add_bad(rec_model *m, uint32_t slot, uint64_t n) {
    struct slot_state *s = model_slot(m, slot);
    struct trec *r = s ? model_rec(m, s->cur >= 0 ? s->cur : s->latest) : NULL;
    if (r) {
        r->bad = rec_sat_add(r->bad, n);
        /* Bad entries are lost events too: the window is partial. */
        cover_lost(m, r, r->seen ? r->last_ns : rec_model_now(m), n);
    } else {
        m->untracked_events += n;
    }
}
