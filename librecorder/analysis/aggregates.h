/*
 * aggregates.h -- the statistics the model keeps as events arrive: the
 * per-(series, node) tables and histograms of agg.c and stats.c, the
 * coverage of cover.c, counters.c, messages.c and scope_detail.c's P99
 * history.  Included by those files, by the feed that fills them
 * (model_feed.c), the lifetime (model_life.c) and the exporters that read
 * statistics (CSV, the call tree); never by the core (model.h).
 */
#ifndef REC_ANALYSIS_AGGREGATES_H
#define REC_ANALYSIS_AGGREGATES_H

#include "model_write.h"

#pragma GCC visibility push(hidden)

/* agg.c */
void agg_init(struct agg *a);
/* The bucket of a ring for period id, cleared if it held an older period;
 * NULL if it already moved on to a newer one (id is too old). */
struct agg *agg_ring_bucket(struct ring *w, int64_t id);
void agg_free(struct agg *a);
void agg_reset(struct agg *a, int64_t id);
void stats_cell_slow(struct trec *r, uint32_t name, double dur);
/* A completed slice of thread r: into its pending bucket (the slow path:
 * a new bucket, or room to make; stats_slice_fast is the usual one). */
void stats_slice(rec_model *m, struct trec *r, uint32_t node, uint32_t name, double end_ns, double dur,
                 double self);
/* The part of a slice's time before its end's 100 ms bucket, into the
 * tables of the buckets it lies in (a slice's calls and sums go by its
 * end; its time share by where the time was). */
void stats_share_before(rec_model *m, struct trec *r, uint32_t node, double begin, double lo, double dur, double self);
/* Add a slice to the thread's pending bucket, which has room for node. */
static inline void stats_pend_add(struct trec *r, uint32_t node, uint32_t name, double dur, double self,
                                  double in_bucket) {
    struct acc *a = &r->pacc[node];
    if (a->calls == 0) {
        r->touched[r->n_touched++] = node;
        a->total = a->self = a->share = a->self_share = 0;
        a->min = a->max = dur;
    }
    a->calls++;
    a->total += dur;
    a->self += self;
    a->share += in_bucket;
    a->self_share += dur > 0 ? self * (in_bucket / dur) : 0;
    if (dur < a->min) a->min = dur;
    if (dur > a->max) a->max = dur;
    uint64_t *c = u64map_get(&r->pcells, (uint64_t)name << HIST_BIN_BITS | hist_bin(dur));
    if (c) (*c)++;
    else stats_cell_slow(r, name, dur);
}

static inline void stats_slice_fast(rec_model *m, struct trec *r, uint32_t node, uint32_t name, double end,
                                    double dur, double self) {
    if (!(end >= r->pend_lo && end < r->pend_hi) || node >= r->pacc_cap || r->n_touched >= r->cap_touched ||
        end - dur < r->pend_lo)
        stats_slice(m, r, node, name, end, dur, self);
    else
        stats_pend_add(r, node, name, dur, self, dur);
}
/* Pending buckets into the tables: one thread's, or all (before queries). */
void stats_fold(rec_model *m, struct trec *r);
void stats_fold_all(rec_model *m);
/* A thread that ended: its pending bucket folded, and the memory behind
 * it freed (the dense sums alone reach 3.5 MiB for a thread that touched
 * a path near the dense range's end, and a model keeps up to
 * REC_MAX_RECORDS threads).  Events that still come for it grow it anew. */
void stats_pend_release(rec_model *m, struct trec *r);
void agg_add(struct agg *a, uint16_t series, uint32_t node, uint32_t name, unsigned bin, double dur, double self,
             double share);
/* The tables a window covers right now; returns how many (<= WIN_BUCKETS). */
size_t stats_window(rec_model *m, enum rec_window w, struct agg **out);

/* stats.c: a histogram cell of one name, and their order (name, then bin). */
struct cellv {
    uint32_t name;
    uint32_t bin;
    uint64_t count;
};
int model_cmp_cell(const void *a, const void *b);
/* stats.c: per-name statistics of some tables, for one series; the
 * tables' acc keys are nodes, or names if keys_are_names. */
size_t stats_query(rec_model *m, struct agg **aggs, size_t na, int series, int keys_are_names, double span_ns,
                   struct rec_stat *out, size_t cap, size_t *n_total);
/* stats.c: the cap first rows in an order (rec_model_stats_top's), ties
 * by name text if tie_by_text, else by string id; n_kept: the names keep
 * let through (of n_total with calls). */
struct stats_order {
    enum rec_stat_key key;
    int reverse, tie_by_text;
    int (*keep)(void *ctx, uint32_t name_id, const char *name);
    void *ctx;
};
size_t stats_top(rec_model *m, struct agg **aggs, size_t na, int series, int keys_are_names, double span_ns,
                 const struct stats_order *o, struct rec_stat *out, size_t cap, size_t *n_total, size_t *n_kept);
void stats_scratch_free(rec_model *m);   /* the queries' scratch (rec_model_free) */

/* cover.c: events, loss and gaps per window (see there) */
void cover_events_flush(rec_model *m, struct trec *r);
void cover_events_roll(rec_model *m, struct trec *r, double ts);
void cover_lost(rec_model *m, struct trec *r, double ts, uint64_t entries);
void cover_gap(rec_model *m, struct trec *r, double lo, double hi);
void cover_fold_all(rec_model *m);
/* The time a series' data covers in a window of span_ns. */
double cover_series_ns(struct agg **aggs, size_t na, int series, double span_ns);
/* Entries lost in one table for a series. */
uint64_t cover_lost_in(const struct agg *a, int series);

/* counters.c, messages.c, scope_detail.c */
void counter_sample(rec_model *m, struct trec *r, uint32_t name_id, double value, double ts);
void counters_free(rec_model *m);
void message_add(rec_model *m, struct trec *r, uint32_t name_id, const char *msg, unsigned len, double ts);
void messages_free(rec_model *m);
void p99_evict(rec_model *m, const struct agg *a);
void p99_free(rec_model *m);

#pragma GCC visibility pop

#endif
