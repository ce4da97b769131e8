/*
 * recorder/analysis.h -- librecorder's analysis layer: decoded events in,
 * threads, slices, statistics, call trees and exports out.
 *
 * The model does not care where events come from: a live segment
 * (rec_model_poll_seg), a capture file (the capture reader feeds it the
 * same way), or a test.  Everything is in nanoseconds since the source's
 * calibration point (ticks0), as doubles.
 *
 * Memory is bounded: the event log keeps at most opts.max_events events
 * (oldest dropped first, and counted), statistics are fixed-size
 * histograms, and windows are rings of one-second buckets.  Exports of a
 * whole segment or capture stream instead of keeping a log
 * (rec_export_open_*).
 *
 * Not thread-safe: one thread polls and queries a model.  (recorder-web
 * publishes snapshots to its other thread with liburcu.)
 */
#ifndef RECORDER_ANALYSIS_H
#define RECORDER_ANALYSIS_H

#include <stdint.h>
#include <stdio.h>

#include "reader.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct rec_model rec_model;

/* Resolves a string id to text (NULL if unknown). */
typedef const char *(*rec_string_fn)(void *ctx, uint32_t id);

struct rec_model_opts {
    size_t max_events;        /* event log bound; 0 = 8M events */
    int keep_log;             /* 0: statistics only (viewers), 1: keep the log (export) */
    /* Names of wait scopes besides those recorded with REC_SCOPE_WAIT:
     * comma-separated, exact, or a prefix ending in '*' ("barrier,
     * ggml_barrier*").  NULL: the environment's RECORDER_WAIT_SCOPES;
     * "": none (docs/analysis.md, "Wait scopes"). */
    const char *wait_scopes;
};

struct rec_source_info {
    int pid;
    char process_name[64];
    double ticks_per_sec;
    uint64_t ticks0;          /* calibration point: time 0 */
    uint64_t real_ns0;        /* CLOCK_REALTIME at ticks0 */
    uint64_t mono_ns0;        /* CLOCK_MONOTONIC at ticks0 (0: unknown) */
    /* The machine (and boot) it was recorded on (recorder/machine.h):
     * TracePacket.machine_id of a Perfetto export; 0 = unknown, none written. */
    uint32_t machine_id;
};

rec_model *rec_model_new(const struct rec_source_info *src, rec_string_fn strings, void *ctx,
                         const struct rec_model_opts *opts);
void rec_model_free(rec_model *m);
/* A model of a segment: its pid, process name and clock as the source,
 * rec_seg_string for names.  s must outlive the model. */
rec_model *rec_model_new_seg(rec_seg *s, const struct rec_model_opts *opts);
/* The source a segment's model has (its pid, process name, clock). */
void rec_seg_source_info(rec_seg *s, struct rec_source_info *src);
/* The same for a capture file (recorder/capture.h): its SOURCE record as
 * the source, rec_cap_string for names.  c must outlive the model. */
struct rec_cap;
rec_model *rec_model_new_cap(struct rec_cap *c, const struct rec_model_opts *opts);
void rec_cap_source_info(const struct rec_cap *c, struct rec_source_info *si);
/* rec_cap_string as a rec_string_fn (ctx: the rec_cap). */
const char *rec_cap_string_fn(void *cap, uint32_t id);

/* A thread (slot, generation) is known or its metadata changed. */
void rec_model_thread(rec_model *m, const struct rec_thread_info *t);
/* Events of one slot, oldest first, as rec_decode produced them; loss is
 * what the read reported for the same call (may be NULL).  THREAD_START
 * events switch the slot to a new generation. */
void rec_model_feed(rec_model *m, uint32_t slot, const struct rec_event *ev, size_t n,
                    const struct rec_loss *loss);
/* Entries of one slot as rec_seg_read returned them (first: the ring
 * index of in[0]), decoded and fed in one pass: the same model as
 * rec_decode + rec_model_feed an event at a time, with rejected entries
 * counted (rec_model_add_bad) against the thread current where they
 * were, and about a third cheaper.  Returns the number of events. */
size_t rec_model_feed_entries(rec_model *m, uint32_t slot, const struct rec_entry *in, size_t n, uint64_t first,
                              const struct rec_loss *loss);
/* Read every slot of a live segment once and feed the model; returns the
 * number of events decoded. */
size_t rec_model_poll_seg(rec_model *m, rec_seg *s);
/* Entries of a slot that the caller's decoder rejected (rec_decode's *bad),
 * for sources fed through rec_model_feed; rec_model_poll_seg counts its own. */
void rec_model_add_bad(rec_model *m, uint32_t slot, uint64_t n);
/* The source's "now", for windows and open scopes: the newest timestamp
 * seen, or a live clock (rec_model_set_now). */
void rec_model_set_now(rec_model *m, double now_ns);
double rec_model_now(const rec_model *m);
/* rec_model_set_now with the segment's clock read right now (what a live
 * viewer calls before each query so that idle windows still slide). */
void rec_model_set_now_live(rec_model *m, rec_seg *s);

/* ---- threads ---------------------------------------------------------- */

/* Nesting.  The model tracks a thread's scopes up to REC_MAX_NESTING
 * levels, and the exports write them as deep (docs/cli.md, "Deep
 * nesting"): deeper ones are counted (too_deep, deep_scopes), never
 * silently dropped.  Python recursion or `import torch` nest hundreds
 * deep.  A thread's snapshot below shows its outermost REC_MAX_DEPTH
 * (depth itself may be larger). */
#define REC_MAX_NESTING 65536
#define REC_MAX_DEPTH 128

struct rec_model_thread {
    uint32_t slot, gen;
    int tid;
    char name[64];
    unsigned state;           /* REC_SLOT_LIVE / REC_SLOT_EXITED */
    uint64_t events;          /* decoded, ever */
    uint64_t overwritten, dropped, bad;   /* lost entries, by cause (reader.h, struct rec_loss) */
    uint64_t history;         /* not kept: older than the ring when first read (not lost) */
    double gap_ns;            /* time with no data: from the last event before each loss to the next */
    double first_ns, last_ns; /* first and last event seen */
    double end_ns;            /* where its open scopes end, and busy_ns stops: now while
                                 it runs, its exit (or last event) once it is gone */
    int depth;                /* open scopes now (known part of the stack, up to REC_MAX_NESTING) */
    uint32_t stack[REC_MAX_DEPTH];        /* name ids, outermost first (the first REC_MAX_DEPTH) */
    double stack_ns[REC_MAX_DEPTH];       /* their begin times */
    double busy_ns;           /* time inside top-level scopes, ever, but not inside
                                 wait scopes (docs/analysis.md, "Wait scopes") */
    double util[60];          /* busy fraction per second, util[59] newest: of the
                                 part of the second the data covers (not the gaps) */
    double events_per_sec;    /* over the last full second */
    /* Added by the analysis layer (docs/analysis.md, "unmatched ends"): */
    uint64_t unmatched;       /* ends whose begin was never seen (REC_SLICE_NO_BEGIN slices) */
    uint64_t too_deep;        /* scopes nested past REC_MAX_NESTING: counted, not tracked */
    double wait_ns;           /* time inside wait scopes (outermost), ever: not in busy_ns */
    /* What the record is (reader.h, struct rec_thread_info): REC_LANE_THREAD,
     * or a GPU stream or device lane, or NVTX ranges, and its device and
     * stream (docs/gpu.md). */
    unsigned lane_kind;
    uint32_t lane_device;
    uint64_t lane_stream;
};
/* The threads known, in slot order; valid until the next feed/poll. */
size_t rec_model_threads(const rec_model *m, const struct rec_model_thread **out);
/* Is this name (a string id) a wait scope: recorded with REC_SCOPE_WAIT,
 * or named by the wait names (rec_model_opts.wait_scopes)? */
int rec_model_name_is_wait(rec_model *m, uint32_t name_id);

/* ---- statistics ------------------------------------------------------- */

enum rec_window { REC_WIN_1S = 0, REC_WIN_10S = 1, REC_WIN_ALL = 2 };

struct rec_stat {
    uint32_t name_id;
    const char *name;
    uint64_t calls;
    double calls_per_sec;     /* over the window (ALL: over the run) */
    double total_ns, self_ns; /* completed slices in the window */
    double min_ns, avg_ns, max_ns;
    double p50_ns, p95_ns, p99_ns;  /* log histogram, within 3% */
    /* Time inside the scope (total) and in its own code (self) per second
     * of the time the decoded data covers, summed over threads: TOTAL% and
     * SELF% / 100.  Without loss, total_ns / span.  With loss, each
     * thread's part is divided by the time its data covers (the window
     * minus its gaps), so a figure is not understated by the share lost;
     * see rec_model_window_cover for whether the window is partial. */
    double total_frac, self_frac;
    int wait;                 /* a wait scope (REC_SCOPE_WAIT or a wait name): its
                                 time is waiting, and not in busy figures */
};

/* What a window's statistics are computed from (docs/analysis.md,
 * "Partial data"). */
struct rec_window_cover {
    double span_ns;           /* the window (rec_model_window_span) */
    uint64_t decoded;         /* events decoded in it */
    uint64_t lost;            /* entries lost in it: overwritten, dropped or bad */
    double gap_ns;            /* time its threads' data does not cover, summed over threads */
    double decoded_frac;      /* decoded / (decoded + lost); 1 when nothing was lost */
    int partial;              /* lost > 0: every statistic of the window is partial */
};
/* For one thread (tid) or all (-1); 0, or -1 for an unknown tid. */
int rec_model_window_cover(rec_model *m, enum rec_window w, int tid, struct rec_window_cover *out);
/* Per-name statistics of completed slices in the window, for one thread
 * (tid) or all (tid = -1); sorted by total_ns, descending.  Returns the
 * number written (at most cap); *n_total gets the number available. */
size_t rec_model_stats(rec_model *m, enum rec_window w, int tid, struct rec_stat *out, size_t cap,
                       size_t *n_total);
/* The rows a table shows, without sorting every name: the cap first
 * names of the window in an order, ties by name (A to Z) then string id.
 * Only those rows are sorted and get their percentiles (a bounded heap
 * picks them), so a frame of a million names costs a pass over the
 * window's tables.  keep (NULL: every name) filters by name first.
 * *n_total gets the names with completed slices, *n_kept those keep let
 * through (either may be NULL). */
enum rec_stat_key {
    REC_KEY_NAME, REC_KEY_CALLS, REC_KEY_RATE, REC_KEY_TOTAL, REC_KEY_SELF, REC_KEY_AVG, REC_KEY_P50,
    REC_KEY_P95, REC_KEY_P99, REC_KEY_MAX
};
struct rec_stat_order {
    enum rec_stat_key key;    /* names A to Z, numbers largest first */
    int reverse;              /* flips that (not the ties) */
    int (*keep)(void *ctx, uint32_t name_id, const char *name);
    void *ctx;
};
size_t rec_model_stats_top(rec_model *m, enum rec_window w, int tid, const struct rec_stat_order *order,
                           struct rec_stat *out, size_t cap, size_t *n_total, size_t *n_kept);
/* Slices in the window's (other) rows because a statistics table was
 * full (the whole run's holds 2^20 (thread, call path) sums, each bucket
 * of the 1 s and 10 s windows 2^15) or the model's registries of names
 * and call paths (2^20 each) were (docs/analysis.md, "Bounds").  Their
 * time and calls are in (other), never dropped; this says how many. */
uint64_t rec_model_stats_past_limit(rec_model *m, enum rec_window w);
/* How every tool says it: "N slices in (other): names past the tables'
 * limit" ("" for 0), in buf. */
const char *rec_past_limit_str(uint64_t n, char *buf, size_t cap);
/* Time span the window covers, in ns (<= the window's nominal length). */
double rec_model_window_span(const rec_model *m, enum rec_window w);

/* Folding layer numbers (docs/analysis.md): with fold on, rec_model_stats
 * merges names that differ only in layer numbers (ffn_up-0 ... ffn_up-7
 * -> one row "ffn_up-*", name_id the first such name's).  Off by default. */
void rec_model_set_fold(rec_model *m, int on);
int rec_model_fold(const rec_model *m);
/* The rule itself: each maximal run of decimal digits that follows '-',
 * '.' or '_' and ends the name or is followed by one of them becomes '*'.
 * Writes at most cap bytes, NUL included (out may be NULL if cap is 0);
 * returns the folded length, as snprintf does. */
size_t rec_name_fold(const char *in, char *out, size_t cap);

/* ---- call-path tree (flame graphs) ------------------------------------ */

struct rec_tree_node {
    uint32_t name_id;         /* 0 for the root */
    const char *name;
    uint32_t parent;          /* index; the root (index 0) is its own parent */
    uint32_t first_child, next_sibling;   /* 0 = none; children by total desc */
    uint32_t depth;
    uint64_t calls;
    double total_ns, self_ns;
};
/* The window's call-path tree for one thread or all (-1).  Node 0 is the
 * root, whose total is the sum of its children.  Returns the node count
 * (at most cap; a smaller cap drops the smallest subtrees). */
size_t rec_model_tree(rec_model *m, enum rec_window w, int tid, struct rec_tree_node *out, size_t cap);

/* ---- counters, messages and one scope's details (live viewers) --------
 * Kept whether or not the model keeps its log, in bounded memory
 * (docs/tui.md, "Memory"). */

#define REC_COUNTERS_MAX 1024     /* counter names tracked; samples of others are counted */
#define REC_HISTORY_SECS 60       /* per-second histories: the last minute */

struct rec_counter {
    uint32_t name_id;
    const char *name;         /* valid until the next query */
    double last, last_ns;     /* the latest sample and its time */
    int tid;                  /* the thread of the latest sample */
    uint64_t samples;         /* in the window */
    double min, avg, max;     /* over the window's samples (NAN when none) */
    /* Mean of each second's samples, [REC_HISTORY_SECS - 1] the current
     * second (NAN: no sample that second). */
    double per_sec[REC_HISTORY_SECS];
    int partial;              /* entries were lost in the window on the thread(s) writing it */
};
/* The counters, in the order the program first used their names (string
 * ids), with their statistics over window w.  Returns the number written
 * (at most cap); *n_total gets the number available. */
size_t rec_model_counters(rec_model *m, enum rec_window w, struct rec_counter *out, size_t cap, size_t *n_total);
/* Samples of counters past REC_COUNTERS_MAX names: not tracked, counted. */
uint64_t rec_model_counters_untracked(const rec_model *m);

#define REC_MESSAGES_MAX 1024     /* the most recent instants kept */

struct rec_message {
    double ts_ns;
    int tid;
    uint32_t name_id;
    const char *name;         /* valid until the next query */
    char msg[REC_MSG_MAX + 1];/* as recorded: any bytes (sanitize before display) */
    int after_loss;           /* entries of its thread were lost since its previous
                                 message: messages may be missing before it */
};
/* The most recent instants read (at most REC_MESSAGES_MAX), newest first.
 * Returns the number written (at most cap); *n_seen (may be NULL) gets
 * the number of instants read since the model began. */
size_t rec_model_messages(rec_model *m, struct rec_message *out, size_t cap, uint64_t *n_seen);

#define REC_HIST_OCTAVES 64
struct rec_scope_detail {
    uint32_t name_id;
    uint64_t calls;           /* completed in the window */
    double min_ns, max_ns;
    double p50_ns, p90_ns, p99_ns, p999_ns;   /* log histogram, within 3% */
    /* Calls by duration: octave[k] holds [2^k, 2^(k+1)) ns (octave 0 also
     * everything under 1 ns). */
    uint64_t octave[REC_HIST_OCTAVES];
    /* P99 of each of the last seconds, all threads, [REC_HISTORY_SECS - 1]
     * the current second; NAN: no call that second, or not kept. */
    double p99_sec[REC_HISTORY_SECS];
    uint8_t p99_sec_partial[REC_HISTORY_SECS];  /* entries were lost that second */
    int partial;              /* entries were lost in the window */
};
/* One scope name's duration histogram and percentiles over window w for a
 * thread (tid) or all (-1), and its P99 per second over the last minute.
 * 0, or -1 for an unknown tid. */
int rec_model_scope_detail(rec_model *m, enum rec_window w, int tid, uint32_t name_id, struct rec_scope_detail *out);

/* ---- the event log (keep_log = 1) ------------------------------------- */

enum rec_item_kind {
    REC_ITEM_SLICE = 1,       /* a begin/end pair (or a partial one) */
    REC_ITEM_INSTANT,
    REC_ITEM_COUNTER,
    REC_ITEM_FLOW,
    REC_ITEM_LOSS,            /* entries lost here: value = how many, msg says why */
};
#define REC_SLICE_OPEN 1u        /* no end yet (open at the snapshot) */
#define REC_SLICE_NO_BEGIN 2u    /* its begin was lost: starts at the first event seen */
#define REC_SLICE_NO_END 4u      /* its end was never seen: closed where an enclosing scope ended */
#define REC_SLICE_GAP 8u         /* entries were lost while it was open: begin and end may not pair */
#define REC_INSTANT_ARG 32u      /* a REC_ITEM_INSTANT that is a scope argument (REC_ARG): name_id
                                    its key, msg its value; it belongs to the innermost slice open */
#define REC_LOSS_NOT_KEPT 16u    /* a REC_ITEM_LOSS of history: value entries the ring no
                                    longer held when first read (not lost by the reader) */

struct rec_item {
    unsigned kind;
    unsigned flags;           /* REC_SLICE_* */
    uint32_t slot, gen;
    int tid;
    uint32_t name_id;
    uint32_t depth;           /* slices: nesting level, 0 = outermost */
    double ts_ns, dur_ns;     /* dur_ns: slices only */
    double value;             /* counters */
    unsigned flow_phase;      /* REC_EV_FLOW_BEGIN/STEP/END */
    uint64_t flow_id;
    char msg[REC_MSG_MAX + 1];/* instants */
};
/* The log in time order per thread, threads in slot order.  Open slices
 * are closed at the source's now with REC_SLICE_OPEN. */
size_t rec_model_items(rec_model *m, const struct rec_item **out);
uint64_t rec_model_items_dropped(const rec_model *m);

/* ---- GPU devices (docs/gpu.md, "Exports and report") -------------------
 * Per device, from its stream lanes in the event log: its span (first
 * work to last), its busy time (the union of its streams' work: every
 * slice but the syncs, which are the host waiting), one row per slice
 * name (kernels, copies, memsets, syncs) and one per idle-gap bucket
 * (the gaps between stretches of work), like rocm-timeline-generator's
 * rpt.  Loss: what its lanes lost (overwritten, dropped -- CUPTI's own
 * dropped records are added to its device lane's -- or bad). */
#define REC_GPU_GAP_BUCKETS 5     /* <10us, 10-100us, 100us-1ms, 1-10ms, >=10ms */
extern const char *const rec_gpu_gap_label[REC_GPU_GAP_BUCKETS];
struct rec_gpu_row {
    const char *name;         /* the slice's, or "gap <10us" ...; valid while the model is */
    uint64_t calls;
    double total_ns, min_ns, max_ns, p50_ns, p99_ns;   /* P50 / P99: nearest rank, exact */
    int sync;                 /* a sync slice: not work */
    int gap;                  /* an idle-gap bucket */
};
struct rec_gpu_device {
    uint32_t device;
    unsigned streams;         /* its stream lanes (overflow sub-lanes count too) */
    double first_ns, last_ns; /* its span: first work begin, last work end (0, 0: no work) */
    double busy_ns;           /* the union of its work in the span */
    uint64_t events;          /* decoded on its lanes */
    uint64_t overwritten, dropped, bad, history;   /* lost on its lanes; history: not kept */
    struct rec_gpu_row *rows; /* names then gap buckets, by total_ns descending */
    size_t n_rows;
};
/* The devices that have lanes, by device number: *out is malloc'd (free
 * with rec_gpu_devices_free), *n its count.  0, or -1 out of memory. */
int rec_model_gpus(rec_model *m, struct rec_gpu_device **out, size_t *n);
void rec_gpu_devices_free(struct rec_gpu_device *d, size_t n);

/* ---- export ----------------------------------------------------------- */

/* A window (docs/analysis.md, "Windows"): items from `from` to `to`, in
 * seconds; every field 0 = no bound.  last_sec counts back from the end
 * of the trace (now), from_sec and to_sec forward from its start (the
 * first item: ts 0 in the JSON). */
struct rec_export_opts {
    double last_sec;          /* > 0: only the last N seconds */
    double from_sec;          /* > 0: only from N seconds after the start */
    double to_sec;            /* > 0: only up to N seconds after the start */
    size_t lookahead;         /* streaming: items held back at most; 0 = 2^20 - 1 */
};

/* What an export wrote.  JSON: trace events by phase ("M" not counted in
 * trace_events); CSV and folded stacks: rows (lines). */
struct rec_export_counts {
    uint64_t slices;          /* B/E pairs (zero-length slices too: a B and an E at one time) */
    uint64_t instants;        /* "i": instants, loss and late-flags markers */
    uint64_t counters;        /* "C" */
    uint64_t flows;           /* flow events: zero-length "flow" X slices carrying bind_id */
    uint64_t threads;         /* thread_name M events */
    uint64_t trace_events;    /* 2 * slices + instants + counters + flows */
    uint64_t rows;            /* CSV rows, folded lines */
    uint64_t events_read;     /* events decoded from the source (whole-source exports) */
    uint64_t overwritten, dropped, bad;   /* entries lost, all threads */
    uint64_t forced;          /* slices whose B was written before their end was known */
    uint64_t late_flags;      /* ... of which ended with other flags (a marker says which) */
    /* left out, and counted (also in the JSON's otherData): */
    uint64_t unbound_flows;   /* flow events with no slice or no start to bind to */
    uint64_t too_deep;        /* slices nested past REC_MAX_NESTING levels in the export */
    uint64_t deep_scopes;     /* scopes nested past REC_MAX_NESTING in the model */
    uint64_t nonfinite_counters;   /* NaN or Inf values: JSON has none */
    uint64_t untracked_events;     /* of threads past the model's 65535 records */
};

/* The JSON and protobuf writers (here and rec_export_write below) hand
 * each full megabyte to a thread of their own, which writes it to out
 * while the next is formatted, and is joined before they return: nothing
 * else may use out during the call. */

/* Perfetto / Chrome trace-event JSON ({"traceEvents":[...]}) of a model
 * that kept its log; 0 or -1.  Slices are B/E pairs, their REC_SLICE_*
 * flags in "cat"; loss totals in "otherData" (docs/analysis.md, "JSON
 * export").  The same writer as the streaming export, fed the log. */
int rec_export_json(rec_model *m, FILE *out, const struct rec_export_opts *o);
/* Perfetto's native protobuf trace (a stream of TracePackets, docs/perfetto.md)
 * of a model that kept its log; 0 or -1.  The same events as the JSON. */
int rec_export_perfetto(rec_model *m, FILE *out, const struct rec_export_opts *o);
/* CSV: one row per scope name (docs/analysis.md, "CSV", gives the columns). */
int rec_export_csv(rec_model *m, FILE *out, const struct rec_export_opts *o);
/* Folded stacks ("a;b;c <ns>") for flamegraph.pl and speedscope. */
int rec_export_folded(rec_model *m, FILE *out, const struct rec_export_opts *o);

/* ---- streaming export of a whole source -------------------------------
 * Everything a segment or a capture holds, in bounded memory whatever its
 * size (docs/analysis.md, "Streaming export"): rec_export_open_* reads the
 * source once (the trace's start, end and threads, and what an export
 * would hold), rec_export_write reads it again and writes as it goes. */
typedef struct rec_export rec_export;
typedef struct rec_cap rec_cap;   /* recorder/capture.h */

enum rec_export_format { REC_EXPORT_JSON = 1, REC_EXPORT_CSV = 2, REC_EXPORT_FOLDED = 3, REC_EXPORT_PERFETTO = 4 };

struct rec_export_info {
    uint64_t events;          /* events in the source */
    uint64_t threads;         /* thread records */
    uint64_t slices, instants, counters, flows, losses;   /* items, whole trace */
    double start_ns, end_ns;  /* the first item, and now (the end) */
    double window_ns;         /* the window's length (the whole trace without one) */
    double json_bytes;        /* the JSON's size, estimated */
    double start_mono_ns, end_mono_ns;   /* start_ns and end_ns on CLOCK_MONOTONIC (several sources) */
};

/* A source of one's own: feed(ctx, m, pass) gives m everything the source
 * holds (rec_model_thread, rec_model_feed or _feed_entries, and
 * rec_model_set_now for its end), the same way for pass 0 (the plan) and
 * pass 1 (the write); returns 0 or a rec_status.  m is made from src,
 * strings and sctx as rec_model_new makes it. */
typedef int (*rec_export_feed_fn)(void *ctx, rec_model *m, int pass);
int rec_export_open(const struct rec_source_info *src, rec_string_fn strings, void *sctx, rec_export_feed_fn feed,
                    void *fctx, const struct rec_export_opts *o, rec_export **out, char *err, size_t errlen);
/* A segment or a capture (s or c must stay open; a live segment's
 * snapshot is what the first read sees).  0, or a rec_status with err
 * filled. */
int rec_export_open_seg(rec_seg *s, const struct rec_export_opts *o, rec_export **out, char *err, size_t errlen);
int rec_export_open_cap(rec_cap *c, const struct rec_export_opts *o, rec_export **out, char *err, size_t errlen);
void rec_export_get_info(const rec_export *x, struct rec_export_info *info);
/* Reads the source again and writes it, in any format (as often as
 * asked); 0, or a rec_status (REC_ERR_IO: writing failed, REC_ERR_NOMEM)
 * with err filled.  *c (may be NULL) gets the counts. */
int rec_export_write(rec_export *x, enum rec_export_format f, FILE *out, struct rec_export_counts *c, char *err,
                     size_t errlen);
void rec_export_free(rec_export *x);

/* ---- several sources in one trace --------------------------------------
 * A process tree (recorder run, capture -- CMD), or `recorder dump PID1
 * PID2`: each source is a process, written in turn into the same file as
 * its own process track, every timestamp on one CLOCK_MONOTONIC time line
 * (docs/analysis.md, "Several processes").  JSON and Perfetto only.  The
 * caller opens every source first (rec_export_get_info: start_mono_ns,
 * end_mono_ns), then writes part 0 ... count - 1 to the same FILE with the
 * same struct. */
struct rec_export_part {
    double origin_mono_ns;    /* ts 0 of the file: the earliest start_mono_ns of all */
    double end_mono_ns;       /* the trace's end, the latest end_mono_ns: --last counts back from it */
    uint32_t index, count;    /* this source's place: index 0 opens the file, count - 1 closes it */
    /* carried from part to part (zero the struct before the first): */
    uint64_t written;         /* JSON: non-zero once an event is written */
    char *blocks;             /* JSON: the processes' otherData so far (the last part frees it) */
    size_t blocks_len;
};
/* Writes x as part->index of a trace of part->count sources (index <
 * 32768).  JSON: the first part opens {"traceEvents":[, the last closes it
 * with otherData {"recorder":{"format":"recorder trace 1","processes":
 * [...]}}, one object per source as a single-source file's "recorder".
 * Perfetto: each part's sequences are its own (part index * 2^17 + ...),
 * track uuids hold the pid.  Returns as rec_export_write. */
int rec_export_write_part(rec_export *x, enum rec_export_format f, FILE *out, struct rec_export_part *part,
                          struct rec_export_counts *c, char *err, size_t errlen);
/* After a failed part: frees what part carried (the next part is not written). */
void rec_export_part_free(struct rec_export_part *part);

/* JSON string escaping as the exporter does it: quotes, backslashes,
 * control characters as \u00XX, invalid UTF-8 as U+FFFD. */
void rec_json_string(FILE *out, const char *s, size_t len);

#ifdef __cplusplus
}
#endif

#endif
