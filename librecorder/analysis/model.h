/*
 * model.h -- the analysis model's interface inside librecorder/analysis/:
 * its state's layout and the functions of its core (names, records, the
 * clock, the record and track order, reading the event log) that the
 * exporters, the aggregates and the views depend on.  What changes the
 * model is model_write.h (the feed), the statistics tables aggregates.h;
 * the layering is docs/architecture-analysis.md, checked by
 * tests/analysis/test_layering.py.  The public contract is
 * recorder/analysis.h; docs/analysis.md explains the policies (unmatched
 * ends, windows, bounds).
 *
 * Layout of the state:
 *   names    string id -> a dense local index, the text (copied once)
 *   nodes    call paths (parent node, name) -> node: the tree's skeleton
 *   series   statistics are kept per tid; all threads (series 0) is their
 *            sum, made when asked
 *   aggs     one table of per-(series, node) sums and per-(series, name,
 *            bin) histogram cells for the whole run, and one per time
 *            bucket in two rings (10 x 100 ms for the 1 s window, 10 x 1 s
 *            for the 10 s window)
 *   records  one per thread (slot, generation): its open-scope stack,
 *            loss counters and per-second rings
 *   log      the event log (keep_log): compact items in a bounded ring
 */
#ifndef REC_ANALYSIS_MODEL_H
#define REC_ANALYSIS_MODEL_H

#include <stdint.h>

#include "histogram.h"
#include "recorder/analysis.h"
#include "u64map.h"

struct pyname;   /* pyname.h */

/* Internal to librecorder: not exported from the shared library. */
#pragma GCC visibility push(hidden)

#define NAME_MAX_LOCAL (1u << 20)      /* distinct names kept; the rest share one */
#define NODE_MAX (1u << 20)            /* distinct call paths kept; the rest share one */
/* Entries of one statistics table: (series, call path) sums, and as many
 * (series, name, bin) histogram cells.  Past it a slice of a new path goes
 * to the table's (other) and is counted (agg.over): memory stays bounded
 * with a million names (issue 22; docs/analysis.md). */
#define AGG_MAX_RUN (1u << 20)         /* the whole run's table */
#define AGG_MAX_BUCKET (1u << 15)      /* each bucket of the 1 s and 10 s windows */
#define SERIES_MAX 65535u              /* distinct tids kept; the rest share one */
#define REC_MAX_RECORDS 65535u         /* thread generations kept (uint16 in the log) */
#define LIST_MAX_THREADS 4096u         /* rec_model_threads lists at most this many */
#define WIN_BUCKETS 10
#define PEND_DENSE_NODES 65536u        /* per-thread dense pending sums cover nodes below this */
#define NODE_CACHE_BITS 12             /* (parent, name id) -> node, direct-mapped */

/* Internal item flags next to the public REC_SLICE_* ones (see view.h). */
#define ITEM_CLIPPED 0x80u             /* --last cut its beginning off */
#define ITEM_ARG REC_INSTANT_ARG        /* an instant that is a scope argument (REC_ARG) */

/* ---- names ---------------------------------------------------------- */
struct name {
    uint32_t id;              /* string id in the source */
    char *text;               /* our copy; NULL until the source resolves it */
    char *fallback;           /* shown until then: "(id N)"; kept (pointers to it stay valid) */
    char *json;               /* cached "name":"..." for the exporter, or NULL */
    uint32_t json_len;
    char *pyjson;             /* a Python scope's "name":"...","args":{file, line} (pyname.c), or NULL */
    uint32_t pyjson_len;
    struct pyname *py;        /* a Python scope's parts for the Perfetto exporter (pyname.c), or NULL */
    uint8_t py_checked;       /* py was looked for (only once the text is final) */
    char *fold_text;          /* fold.c: a representative's folded text, if it differs */
    uint32_t fold_rep;        /* fold.c: representative's local index + 1; 0 = not yet */
    uint8_t wait_marked;      /* a begin or end of it carried REC_EV_WAIT */
    uint8_t wait_named;       /* by the wait names: 0 not checked yet, 1 no, 2 yes */
};

/* ---- statistics aggregation ---------------------------------------- */
struct acc {
    uint64_t calls;
    double total, self, min, max;  /* slices that ended in the table's time */
    double share, self_share;      /* the part of slices' time that lies in it (TOTAL%) */
};

/* A pending slice of a node past the dense range (struct trec's plog). */
struct pslice {
    uint32_t node;
    double dur, self, share;
};

/* One table: the whole run, or one time bucket of a window ring. */
struct agg {
    int64_t id;               /* time-bucket index held (rings); INT64_MIN = empty */
    struct u64map acc_idx;    /* series << 32 | node -> index in accs */
    struct acc *accs;
    size_t n_acc, cap_acc;
    struct u64map cells;      /* series << 32 | name << 11 | bin -> count */
    struct u64map cov;        /* series << 2 | kind -> events, lost entries, gap ns (cover.c) */
    uint32_t max;             /* entries of acc_idx, and of cells (AGG_MAX_*) */
    uint64_t over;            /* slices put in (other) because the table was full */
    uint64_t stamp;           /* moves on at every change (agg.c, cover.c): stats.c's sums of
                                 a window are reused while their tables' stamps stand */
};

/* Whether a table key (series << 32 | ...) counts for a query of series:
 * its own entries, or for series 0 (all threads) every series' (they are
 * stored once, under the slice's thread: agg.c). */
static inline int agg_in_series(uint64_t key, int series) {
    return !series || (int)(key >> 32) == series;
}

struct ring {
    double width_ns;          /* 1e8 or 1e9 */
    struct agg b[WIN_BUCKETS];
    /* Called with a bucket about to be cleared for a newer period (the
     * 10 s ring: scope_detail.c keeps each second's P99 from it). */
    void (*evict)(struct rec_model *m, const struct agg *a);
    struct rec_model *owner;
};

/* ---- counters, messages, P99 history (counters.c, messages.c,
 * scope_detail.c): bounded, see recorder/analysis.h ----------------- */
struct ctr_bucket {
    int64_t id;               /* period held; INT64_MIN = empty */
    uint64_t n;
    double min, max, sum;
};
struct ctr {
    uint32_t name_id;
    double last, last_ns;
    int tid, multi;           /* the latest writer; several threads write it */
    uint64_t n_all;
    double min_all, max_all, sum_all;
    struct ctr_bucket b100[WIN_BUCKETS];   /* the 1 s window: 100 ms each */
    struct ctr_bucket b1s[REC_HISTORY_SECS];   /* the 10 s window and the sparkline */
};
struct ctrs {
    struct u64map idx;        /* string id -> index in v */
    struct ctr *v;
    size_t n, cap;
    uint64_t untracked;
};
struct msg_ring;              /* messages.c */
struct p99_hist;              /* scope_detail.c */

/* ---- threads ------------------------------------------------------- */
struct frame {
    uint32_t name_id;
    uint32_t node;
    double ts;                /* begin, ns */
    double child_ns;          /* closed children's time, for self time */
    double child_end;         /* end of the last closed child */
    uint64_t seq;             /* its log item, UINT64_MAX if none */
    int gap;                  /* events were lost while it was open */
    double gap_at;            /* the thread's gap_ns when it began: busy time leaves out gaps since */
    uint8_t wait;             /* a wait scope, or inside one: not busy */
    uint8_t wait_outer;       /* the outermost of those: its time is counted in wait_ns */
};

struct sec_slot {
    int64_t sec;              /* which second this holds */
    double busy_ns;
    double wait_ns;           /* of busy_ns, inside wait scopes */
    double gap_ns;            /* time lost to gaps (no data) in this second */
    uint64_t events;
};

struct trec {
    uint32_t slot, gen;
    int tid;
    int tid_known;
    char name[64];
    unsigned state;
    unsigned lane_kind;       /* REC_LANE_*: a thread, or a GPU stream or device, NVTX ranges */
    uint32_t lane_device;
    uint64_t lane_stream;
    uint16_t series;
    uint64_t events, overwritten, dropped, bad;
    uint64_t history;         /* not kept: older than the ring when first read */
    double gap_ns;            /* time between a loss's last and next event, summed */
    uint64_t unmatched;       /* ends whose begin was never seen */
    uint64_t too_deep;        /* scopes nested past REC_MAX_NESTING (not tracked) */
    uint64_t flagged;         /* slices that end with a flag: end lost, a gap, open when a newer
                                 generation took the slot (export_stream.c: eager) */
    int seen;                 /* any event yet */
    uint64_t last_ticks;      /* per-thread time never goes back */
    double first_ns, last_ns;
    double prev_ns;           /* the event before the last one */
    double epoch_ns;          /* first event after the last loss: the known history starts here */
    double exit_ns;           /* < 0 if unknown */
    uint64_t start_head;      /* ring index where this generation began */
    int has_start_head;
    struct frame *stack;
    int depth, stack_cap;
    int overflow;             /* open scopes past REC_MAX_NESTING */
    double busy_ns;           /* closed top-level time */
    double busy_until;        /* end of the last top-level interval counted */
    double wait_ns;           /* closed time inside wait scopes (outermost) */
    double wait_until;        /* end of the last wait interval counted */
    struct sec_slot secs[61]; /* a ring of 60 seconds, and a scratch slot */
    uint64_t pend_over, pend_drop; /* loss not yet placed in the log */
    uint64_t pend_hist;       /* history not kept, not yet placed */
    int pend_loss;            /* any is set, or pend_gap */
    int pend_gap;             /* a loss since the last event: a gap ends at the next one */
    double loss_from;         /* the last event before the pending loss (gap start) */
    double last_gap_from;     /* the start of the latest gap: every open scope was open then */
    int gap_frames;           /* open scopes marked gap (suspect: their end may be lost) */
    /* Events of the current 100 ms, counted into the tables when it ends
     * (cover.c). */
    double ev_lo, ev_hi;
    uint64_t ev_n;
    /* Statistics of the current 100 ms bucket (by slice end), kept here in
     * a dense array and a small map, and folded into the tables (agg.c)
     * when the bucket closes or a query comes: one update per slice on
     * the hot path instead of a dozen. */
    int64_t pend_id;
    double pend_lo, pend_hi;  /* the bucket's [lo, hi) in ns; empty: lo > hi */
    struct acc *pacc;         /* by node, below PEND_DENSE_NODES */
    uint32_t pacc_cap;
    uint32_t *touched;        /* nodes with pacc[node].calls > 0 */
    uint32_t n_touched, cap_touched;
    struct u64map pcells;     /* name << 11 | bin -> count */
    /* Slices of nodes past the dense range (a million names), as they
     * came: adding them to the tables when the bucket closes, with every
     * key known in advance, lets the fold prefetch (agg.c). */
    struct pslice *plog;
    uint32_t n_plog, cap_plog;
    /* the per-second slot events are counted in, and its [lo, hi); an
     * index, not a pointer: records move when their array grows */
    int sec_i;
    double sec_lo, sec_hi;
    uint8_t msg_gap;          /* entries lost since its last message (messages.c) */
};

struct slot_state {
    int32_t cur;              /* record that receives this slot's events, -1 none */
    int32_t latest;           /* newest generation announced by rec_model_thread, -1 none */
    uint64_t pend_over, pend_drop, pend_hist; /* loss read with no event to attribute it to yet */
};

/* ---- the event log --------------------------------------------------- */
struct litem {
    int64_t ts;               /* ns, rounded */
    int64_t end;              /* slices: end ns once closed */
    uint64_t u;               /* counter bits, flow id, msg seq, loss: overwritten */
    uint32_t name_id;         /* loss: dropped (clamped) */
    uint16_t rec;
    uint8_t kind;             /* REC_ITEM_* */
    uint8_t flags;            /* slices: REC_SLICE_*; flows: REC_EV_FLOW_* */
};

/* What takes the log's items instead of the log while it is attached:
 * the streaming export (export_stream.c), called through these pointers
 * so that the log, below it, never calls it by name.  add returns the
 * handle close gets back for a slice still open. */
struct elog_tap {
    uint64_t (*add)(void *ctx, const struct litem *it, const char *msg, unsigned msg_len);
    void (*close)(void *ctx, uint64_t handle, int64_t end, unsigned flags);
};

#define ELOG_BLOCK_BITS 16     /* items live in blocks of 64 Ki (2 MiB) */
#define ELOG_BLOCK (1u << ELOG_BLOCK_BITS)

struct elog {
    struct litem **blk;       /* ring of block pointers, by (seq >> ELOG_BLOCK_BITS) */
    size_t nblk;              /* power of two, enough for max items */
    struct litem *spare;      /* a block the head left, for the tail to reuse */
    size_t max;
    uint64_t head, tail;      /* sequence numbers: items [head, tail) are kept */
    uint64_t dropped;
    char (*msgs)[REC_MSG_MAX + 1];
    size_t mcap;
    uint64_t mhead, mtail;
    const struct elog_tap *tap;   /* a streaming export takes the items instead (export_stream.h) */
    void *tap_ctx;
};

/* ---- the model ------------------------------------------------------- */
struct rec_model {
    struct rec_source_info src;
    rec_string_fn strings;
    void *ctx;
    struct rec_model_opts opts;
    double ns_per_tick;
    uint64_t ticks0;
    rec_seg *conv;            /* during rec_model_poll_seg: the segment read */
    int no_stats;             /* an export's second read: the per-name statistics are the plan's, not kept again */
    int no_shortcut;          /* tests only: every event takes feed_one's dispatch (test_feed_entries) */

    double newest_ns;         /* newest event seen; -inf before any */
    double set_now_ns;
    int have_set_now;
    double run_first_ns;      /* first event of any thread; +inf before any */

    char **wait_pats;         /* wait names (rec_model_opts.wait_scopes), a '*' kept at the end */
    size_t n_wait_pats;
    struct u64map name_idx;   /* string id -> local index */
    struct name *names;
    size_t n_names, cap_names;
    struct u64map fold_idx;   /* fold.c: folded text's hash -> representative */
    int fold_on;              /* rec_model_set_fold */

    struct u64map node_idx;   /* parent << 32 | string id -> node */
    struct node_cache {
        uint64_t key;         /* parent << 32 | string id */
        uint32_t node;
    } ncache[1u << NODE_CACHE_BITS];
    uint32_t *node_parent, *node_name, *node_depth;
    size_t n_nodes, cap_nodes;

    struct u64map series_idx; /* tid -> series */
    size_t n_series;

    struct agg all;
    struct ring w1, w10;

    struct u64map rec_idx;    /* slot << 32 | gen -> record */
    struct trec *recs;
    size_t n_recs, cap_recs;
    struct slot_state *slots;
    size_t n_slots;

    struct elog log;
    uint64_t nonfinite_counters;
    struct ctrs ctrs;         /* counters.c */
    struct msg_ring *msgs;    /* messages.c; NULL until the first instant */
    struct p99_hist *p99;     /* scope_detail.c; NULL until the first second ends */
    struct stats_scratch *sq; /* stats.c: per-name sums of a query, kept between them */

    uint64_t untracked_events;/* events of threads past REC_MAX_RECORDS */
    rec_seg *live_seg;        /* rec_model_set_now_live's cached clock */
    unsigned live_clock;
    uint64_t live_mono0;

    /* poll buffers */
    struct rec_entry *ent_buf;
    struct rec_thread_info *th_buf;
    size_t th_cap;

    /* query results, valid until the next query of the same kind */
    struct rec_model_thread *th_out;
    struct rec_item *items_out;
    size_t items_n;
    int items_valid;
};

/* ==== the interface: what every file above the model's core uses ======
 * (exporters, aggregates, views, the viewers' drains).  The core is
 * model.c (registries, clock, record order), wait.c, fold.c and
 * event_log.c; none of them calls anything above it. */

/* model.c: names */
uint32_t model_name(rec_model *m, uint32_t id);              /* local index */
const char *model_name_text(rec_model *m, uint32_t local);   /* never NULL */

/* Every thread record's losses, summed (the exporters' statistics). */
struct model_loss_sum {
    uint64_t overwritten, dropped, bad, unmatched, history;
};
void model_loss_totals(const rec_model *m, struct model_loss_sum *out);

/* fold.c: the name local folds into (itself when it has no layer number
 * or is not resolved yet), and a representative's folded text. */
uint32_t model_fold_rep(rec_model *m, uint32_t local);
const char *model_fold_text(rec_model *m, uint32_t rep);
int model_name_wait(rec_model *m, uint32_t local);           /* wait.c: a wait scope's name */

/* model.c: records, series, the clock */
static inline struct trec *model_rec(rec_model *m, int idx) {
    return idx >= 0 && (size_t)idx < m->n_recs ? &m->recs[idx] : NULL;
}
double model_close_ns(const rec_model *m, const struct trec *r); /* where its open slices end */
/* The series of a tid (-1: all, series 0), or -1 if none. */
int model_series_of(rec_model *m, int tid);
/* A thread's slot for second sec, cleared if it held an older one; NULL
 * if sec is older than the ring. */
struct sec_slot *model_sec_at(struct trec *r, int64_t sec);
/* Ticks to ns: the source's calibration, or during rec_model_poll_seg the
 * segment's (the reader refines the rate; see model_poll.c). */
static inline double model_ticks_to_ns(const rec_model *m, uint64_t ticks) {
    if (ticks >= m->ticks0) return (double)(ticks - m->ticks0) * m->ns_per_tick;
    return -(double)(m->ticks0 - ticks) * m->ns_per_tick;
}
/* ns to the log's integer ns: rounded half away from zero (as llround,
 * inline), clamped to +-4e18 so that a hostile clock cannot overflow the
 * differences exporters take.  Everything rounds through here, once. */
static inline int64_t model_round_ns(double x) {
    if (!(x > -4e18)) return -(int64_t)4000000000000000000;   /* NaN too */
    if (x > 4e18) return (int64_t)4000000000000000000;
    int64_t i = (int64_t)x;
    double f = x - (double)i;
    if (f >= 0.5) i++;
    else if (f <= -0.5) i--;
    return i;
}
/* Record indexes in (slot, generation) order; order has n_recs entries. */
size_t model_record_order(rec_model *m, uint32_t *order);
/* The order of tracks in a timeline export: threads by (slot, generation),
 * then NVTX range lanes, then each GPU by device: its device lane (the
 * counters), then its streams; slot order within each (a capture file
 * keeps no stream id: the order is the same from a segment or a capture). */
size_t model_track_order(rec_model *m, uint32_t *order);
/* Does it hold a lane that is not a thread (a GPU's, NVTX ranges)? */
int model_has_lanes(const rec_model *m);

/* event_log.c: reading the log. */
static inline struct litem *elog_item(const struct elog *l, uint64_t seq) {
    return &l->blk[(seq >> ELOG_BLOCK_BITS) & (l->nblk - 1)][seq & (ELOG_BLOCK - 1)];
}
static inline struct litem *elog_at(struct elog *l, uint64_t seq) {  /* NULL if dropped */
    return seq >= l->head && seq < l->tail ? elog_item(l, seq) : NULL;
}
const char *elog_msg(const struct elog *l, const struct litem *it); /* "" if none */

#pragma GCC visibility pop

#endif
