/*
 * export_stream.h -- the streaming exporter's core: items in, as the model
 * makes them, and out to a format (a "sink": JSON, CSV or folded stacks)
 * per thread, in time order and strictly nested, with memory bounded
 * whatever the length of the input (docs/analysis.md, "Streaming export").
 *
 * The model logs an item when it happens (a slice at its BEGIN, open) and
 * completes a slice at its END (elog_add / elog_close in event_log.c hand
 * both to xs_add / xs_close when a stream is attached).  A slice's flags
 * (open, begin_lost, end_lost, gap) are only known at its end, and a
 * thread's items must come out in begin order, so each thread (record)
 * has a queue:
 *
 *   - items wait in arrival order; the front is written as soon as it is
 *     ready (a closed slice, or anything else) and nothing holds it;
 *   - an unmatched end (a slice logged at its END, beginning earlier) goes
 *     into a small heap and is merged back by time;
 *   - after a loss, and from a thread's first item, items are held: a
 *     later unmatched end may begin at that point and wrap them
 *     (docs/analysis.md, "unmatched ends") -- unless a model that read
 *     the whole source (x->whole: the plan, or the logged model itself)
 *     says the thread has none;
 *   - all queues together hold at most `lookahead` items: past that, the
 *     thread of the oldest item is forced: its hold is released, or its
 *     oldest open slice is written now with the flags known so far (its E
 *     keeps that category; the sink says what was learnt later).
 *
 * Items leave a queue into the thread's walker, which keeps the stack of
 * slices entered and not yet ended (their E is written when the next item
 * begins after their end), applies the window [from, to] and nests
 * strictly, as view.h's walker does for a whole log.
 */
#ifndef REC_ANALYSIS_EXPORT_STREAM_H
#define REC_ANALYSIS_EXPORT_STREAM_H

#include <stdio.h>

#include "model.h"

/* Internal to librecorder: not exported from the shared library. */
#pragma GCC visibility push(hidden)

#define XS_OPEN INT64_MAX             /* the end of a slice not ended yet */
#define XS_NONE UINT64_MAX
#define XS_MAX_DEPTH REC_MAX_NESTING  /* walker frames per thread, as the model's; deeper slices are left out, counted */
#define XS_DEFAULT_LOOKAHEAD (((size_t)1 << 20) - 1)   /* one thread's queue then fits 2^20 items */

struct xitem {
    int64_t b, e;             /* ns; e = XS_OPEN while a slice is open, = b for the rest */
    uint64_t u;               /* counter bits, flow id, loss: overwritten; instant: message seq or XS_NONE */
    uint32_t name_id;         /* loss: dropped */
    uint16_t lseq;            /* unmatched ends: arrival order among them (ties only) */
    uint8_t kind;             /* REC_ITEM_* */
    uint8_t flags;            /* slices: REC_SLICE_*; flows: REC_EV_FLOW_* */
};                            /* 32 bytes: the lookahead's memory is this times its items */

/* A slice in the walker: entered (its B written or due), its E not yet. */
struct xframe {
    int64_t b, e;             /* as shown (window applied); e = XS_OPEN until known */
    int64_t child;            /* closed children's time, for self time */
    uint64_t dseq;            /* its queue position, to find it when a forced one ends */
    uint32_t name_id;
    uint32_t aux;             /* the sink's (folded stacks: its path) */
    uint8_t flags;            /* REC_SLICE_* | ITEM_CLIPPED; final once e is known */
    uint8_t wflags;           /* the flags its B was written with (JSON) */
    uint8_t emitted;          /* its B is written (JSON) */
    uint8_t forced;           /* entered before its end was known */
    uint8_t outside;          /* ended before the window: nothing of it is shown */
};

struct xrec {
    struct xitem *q;          /* ring of queued items, [qhead, qtail) by queue position */
    uint64_t qcap, qhead, qtail;
    struct xitem *late;       /* min-heap of unmatched ends, by (b, -e, lseq) */
    uint32_t nlate, late_cap;
    uint16_t lseq;
    uint64_t hold;            /* queue position from which items are held; XS_NONE */
    int64_t last_b;           /* begin of the last item queued */
    int64_t frontier;         /* latest time handed to the walker (begin entered, end popped) */
    int frontier_is_end;      /* ... and it was an end */
    struct xframe *st;        /* the walker's stack */
    uint32_t n, cap;
    char (*msg)[REC_MSG_MAX + 1];   /* messages of queued instants, in order */
    uint64_t mcap, mhead, mtail;
    uint64_t added, done, popped;   /* items queued, items gone from the queue, lookahead entries retired */
    uint64_t passed;          /* items gone as soon as they came: no lookahead entry */
    int seen;                 /* an item arrived */
    int queued;               /* on the worklist */
    int wraps;                /* unmatched ends may come: items are held (set with seen) */
    int eager;                /* its slices enter as they begin (export_stream.c: eager; set with seen) */
    struct xarg *args;        /* scope arguments of the open slices, by depth (scope_args.c) */
    uint32_t nargs;
    size_t args_cap;
    int args_folded;          /* a sink folded the "args" instant at args_at into its slice */
    int64_t args_at;
};

/* A scope's argument (REC_ARG) waiting for its slice's end. */
#define XS_ARGS_MAX 8u                /* arguments shown a slice; more are counted (args_over) */
#define XS_ARG_KEY_MAX 64u            /* bytes of a key shown */
struct xarg {
    uint32_t depth;           /* the walker frame it belongs to */
    uint32_t key;             /* name id */
    char val[REC_MSG_MAX + 1];
};

struct xs;

/* A format.  Times are ns (subtract x->t0 for the file); rec is the model's
 * record index.  Every callback may be NULL. */
struct xs_sink {
    int push_points;          /* zero-length slices enter the walker (statistics) or are points (JSON) */
    /* A slice entered: r->st[r->n - 1]. */
    void (*push)(struct xs *x, uint32_t rec);
    /* A slice leaves the walker: dur and self (its time minus its children's). */
    void (*pop)(struct xs *x, uint32_t rec, const struct xframe *f, int64_t dur, int64_t self);
    /* Anything else that entered: instants (msg, "" if none), counters,
     * flows, loss markers, and zero-length slices when !push_points. */
    void (*item)(struct xs *x, uint32_t rec, const struct xitem *it, const char *msg);
    /* A flow step or end inside a slice of its thread: may it be written
     * now?  0 holds its thread's queue until xs_wake (JSON: its start has
     * not been written yet). */
    int (*ready)(struct xs *x, uint32_t rec, const struct xitem *it);
    /* ... and one that has to go without waiting longer (forced). */
    void (*unready)(struct xs *x, uint32_t rec, const struct xitem *it);
};

enum xs_mode { XS_WRITE = 0, XS_PLAN = 1 };

struct xs {
    rec_model *m;             /* the model fed (its records, names, clock) */
    rec_model *whole;         /* a model that read all of it (the plan, or m with its log), or NULL: its
                                 threads without unmatched ends need no hold */
    enum xs_mode mode;
    const struct xs_sink *sink;
    void *ctx;                /* the sink's */
    int64_t t0;               /* the trace start: ts 0 in the file */
    struct rec_export_part *part;   /* one of several sources in the file (NULL: the only one) */
    int64_t from, to;         /* the window, INT64_MIN / INT64_MAX when open */
    struct xrec *r;           /* by record index */
    size_t nr;
    uint16_t *fifo;           /* record of every item queued, oldest first: the lookahead */
    size_t fcap, fhead, ftail, limit;
    uint64_t qcap_all;        /* the rings' capacity, all records together (items) */
    uint32_t *work;           /* records to flush (woken) */
    size_t nwork, wcap;
    int finishing;
    size_t saved_max;         /* the model's log bound, while attached */
    int oom;                  /* memory ran out: the output is incomplete */
    uint64_t forced;          /* slices written before their end was known */
    uint64_t too_deep;        /* slices nested past XS_MAX_DEPTH, left out */
    uint64_t args_over;       /* scope arguments past XS_ARGS_MAX on one slice, left out */
    uint64_t args_outside;    /* scope arguments with no slice open on their thread */
    /* XS_PLAN: what an export would see */
    uint64_t n_slices, n_instants, n_counters, n_flows, n_losses;
    int64_t first_b;          /* earliest begin of any item; INT64_MAX before any */
};

/* export_life.c: starts a stream on model m (fed from now on, or replayed by the caller
 * with xs_add); lookahead 0 = XS_DEFAULT_LOOKAHEAD.  NULL if out of memory. */
struct xs *xs_new(rec_model *m, enum xs_mode mode, const struct xs_sink *sink, void *ctx, size_t lookahead);
/* Makes the model feed x (through its event log calls) until xs_detach. */
void xs_attach(struct xs *x);
void xs_detach(struct xs *x);
void xs_free(struct xs *x);

/* The item the model logs; returns the handle elog_close passes back for
 * a slice still open, XS_NONE otherwise. */
uint64_t xs_add(struct xs *x, const struct litem *it, const char *msg, unsigned msg_len);
void xs_close(struct xs *x, uint64_t handle, int64_t end, unsigned flags);
/* A record waiting on its sink's ready() may go on. */
void xs_wake(struct xs *x, uint32_t rec);
/* The end: open slices close where their thread's do (model_close_ns),
 * everything is written, threads in (slot, generation) order. */
void xs_finish(struct xs *x);

/* A format (export_json.c, export_perfetto.c, export_csv.c,
 * export_folded.c): start makes its context, sets x->sink and x->ctx and
 * writes what comes first (span: the window's length, for CSV rates); end
 * writes the rest after xs_finish and fills *c; free frees the context.
 * The steps every format's end shares are xs_sink_end's (export_model.c). */
struct xs_format {
    int timeline;             /* JSON, Perfetto: trace events, forced and too-deep slices counted */
    int (*start)(struct xs *x, rec_model *plan, FILE *out, double span);
    int (*end)(struct xs *x, const struct rec_export_opts *o, struct rec_export_counts *c);
    void (*free)(void *ctx);
};
extern const struct xs_format xs_json_format, xs_pf_format, xs_csv_format, xs_folded_format;

/* export_model.c: the format of f on x, and its end: the rest written,
 * the counts completed and copied to c (may be NULL), the context freed
 * (x has no sink any more); 0, or -1 if a step failed or memory ran out. */
int xs_sink_start(struct xs *x, rec_model *plan, enum rec_export_format f, FILE *out, double span);
int xs_sink_end(struct xs *x, enum rec_export_format f, const struct rec_export_opts *o, struct rec_export_counts *c);
/* The window's length for rates: from its start (or the first event) to
 * its end (or now). */
double xs_window_span(const rec_model *m, int64_t from, int64_t to, double now);

/* Whole-run CSV and folded stacks from a model's statistics (no log). */
int csv_write_stats(rec_model *m, FILE *out, double last, uint64_t *rows);
int folded_write_tree(rec_model *m, FILE *out, double last, uint64_t *rows);

/* export_plan.c, for every format that writes threads and flags:
 *   - a slice's flags as the 5 bits of its category (open, begin_lost,
 *     end_lost, gap, clipped), and those bits as "open,gap" (needs 64 bytes);
 *   - where a thread's slices end (its last event, or its open ones' close);
 *   - the tid written for each plan record: its own, unless invalid or
 *     shared with a thread alive at the same time (then SYNTH_TID_BASE + i);
 *     malloc'd, NULL if out of memory;
 *   - the plan's record of one of m's, or -1 (a thread the plan never saw). */
#define SYNTH_TID_BASE 0x7ffe0000
static inline unsigned arg_bits(unsigned fl) { return (fl & 0xfu) | ((fl & ITEM_CLIPPED) ? 16u : 0); }
size_t flag_list(char *p, unsigned f);
int64_t close_of(rec_model *m, const struct trec *r);
int *xs_plan_tids(rec_model *plan);
long xs_plan_rec(rec_model *m, rec_model *plan, uint32_t rec);

/* gpu_args.c: a GPU slice's "args" instant (docs/gpu.md), folded by the
 * timeline sinks into the slice.  xs_args_take, as a slice of rec that
 * begins at b is entered: the message of the args instant queued right
 * behind it (NULL if none), marked as folded; xs_args_folded: is this item
 * that instant (then the sink leaves it out).  gpu_args_parse splits a
 * message into fields (0: not in that form); gpu_args_json writes it as a
 * JSON object, dst 6 * strlen(msg) + 16 bytes. */
#define GPU_ARGS_MAX 16
#define GPU_ARG_KEY_MAX 64
struct gpu_arg {
    const char *k;
    size_t kl;
    const char *v;
    size_t vl;
    int num;                  /* v is an unsigned integer */
};
/* scope_args.c: an item that is a scope argument is kept for the
 * innermost slice open (1; counted if none or too many), else 0.
 * xs_scope_args: the arguments of the frame at depth, taken (valid until
 * the next xs_arg_keep); xs_arg_key: the key of a[i] among a slice's
 * arguments a[0..i], cut to XS_ARG_KEY_MAX bytes, and a key that came
 * before in the same slice numbered ("step", "step (2)"), so that no
 * value is hidden behind another of the same key: into buf, which holds
 * XS_ARG_KEY_BUF bytes. */
int xs_arg_keep(struct xs *x, uint32_t rec, const struct xitem *it, const char *msg);
uint32_t xs_scope_args_take(struct xs *x, uint32_t rec, uint32_t depth, const struct xarg **out);
static inline uint32_t xs_scope_args(struct xs *x, uint32_t rec, uint32_t depth, const struct xarg **out) {
    /* A thread with no argument kept (almost every slice's end): one test, inline. */
    if (!x->r[rec].nargs) {
        *out = NULL;
        return 0;
    }
    return xs_scope_args_take(x, rec, depth, out);
}
#define XS_ARG_KEY_BUF (XS_ARG_KEY_MAX + 8)
const char *xs_arg_key(struct xs *x, const struct xarg *a, uint32_t i, char *buf, size_t *len);
const char *xs_args_take_lane(struct xs *x, uint32_t rec, int64_t b);
static inline const char *xs_args_take(struct xs *x, uint32_t rec, int64_t b) {
    /* A thread's slice (almost all of them): one test, inline. */
    if (rec >= x->m->n_recs || x->m->recs[rec].lane_kind == REC_LANE_THREAD) return NULL;
    return xs_args_take_lane(x, rec, b);
}
int xs_args_folded(struct xs *x, uint32_t rec, const struct xitem *it);
int gpu_args_parse(const char *msg, struct gpu_arg *a, int max);
size_t gpu_args_json(char *dst, const char *msg);

/* export_plan.c: the window [from, to] in ns from opts, the trace start
 * t0 and its end. */
void xs_window(const struct rec_export_opts *o, int64_t t0, double end_ns, int64_t *from, int64_t *to);

#pragma GCC visibility pop

#endif
