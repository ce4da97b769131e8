/*
 * cover.c -- how much of a window the decoded data covers.
 *
 * A viewer behind a fast writer loses entries; a statistic computed from
 * what it decoded is then partial, and a time-based figure (TOTAL%, busy
 * %) divided by the whole window would understate the truth by the share
 * lost (docs/analysis.md, "Partial data").  So, per window and per series
 * (a thread, or all of them), the tables count:
 *
 *   events decoded       each event, in the bucket of its time;
 *   entries lost         overwritten, dropped or bad, in the bucket of the
 *                        first event after the loss;
 *   gap time             each thread's time between its last event before
 *                        a loss and its first after it: time the data does
 *                        not cover, split exactly across buckets.
 *
 * History a ring no longer kept when the reader first looked is none of
 * these: it is older than the reader, not a loss of its (reader.h).
 *
 * Counts live in each table's `cov` map under (series << 2 | kind); they
 * are touched once per 100 ms per thread for events and once per loss,
 * never per event.
 */
#include <math.h>
#include <string.h>

#include "aggregates.h"

enum { COV_EVENTS = 0, COV_LOST = 1, COV_GAP = 2 };

static void cov_add(struct agg *a, uint16_t series, unsigned kind, uint64_t v) {
    if (!a || !v) return;
    int isnew;
    a->stamp++;
    uint64_t *p = u64map_put(&a->cov, (uint64_t)series << 2 | kind, &isnew);
    if (p) *p = rec_sat_add(*p, v);
    if (series) {   /* and series 0, all threads */
        p = u64map_put(&a->cov, kind, &isnew);
        if (p) *p = rec_sat_add(*p, v);
    }
}

/* Adds v of kind at time ts to the run and to both window rings. */
static void add_at(rec_model *m, uint16_t series, unsigned kind, double ts, uint64_t v) {
    cov_add(&m->all, series, kind, v);
    cov_add(agg_ring_bucket(&m->w1, (int64_t)floor(ts / m->w1.width_ns)), series, kind, v);
    cov_add(agg_ring_bucket(&m->w10, (int64_t)floor(ts / m->w10.width_ns)), series, kind, v);
}

void cover_events_flush(rec_model *m, struct trec *r) {
    if (!r->ev_n) return;
    add_at(m, r->series, COV_EVENTS, r->ev_lo, r->ev_n);
    r->ev_n = 0;
}

void cover_events_roll(rec_model *m, struct trec *r, double ts) {
    cover_events_flush(m, r);
    double w = m->w1.width_ns;
    r->ev_lo = floor(ts / w) * w;
    r->ev_hi = r->ev_lo + w;
}

void cover_lost(rec_model *m, struct trec *r, double ts, uint64_t entries) {
    add_at(m, r->series, COV_LOST, ts, entries);
}

/* [lo, hi] of a ring's width, split over the buckets it overlaps; only
 * the last WIN_BUCKETS can still be in a window. */
static void gap_ring(rec_model *m, struct ring *w, uint16_t series, double lo, double hi) {
    int64_t last = (int64_t)floor(hi / w->width_ns);
    double oldest = (double)(last - WIN_BUCKETS + 1) * w->width_ns;
    if (lo < oldest) lo = oldest;
    for (int64_t id = (int64_t)floor(lo / w->width_ns); id <= last; id++) {
        double b0 = (double)id * w->width_ns, b1 = b0 + w->width_ns;
        double x = lo > b0 ? lo : b0, y = hi < b1 ? hi : b1;
        if (y > x) cov_add(agg_ring_bucket(w, id), series, COV_GAP, (uint64_t)llround(y - x));
    }
    (void)m;
}

/* The per-second ring of a thread gets its share too (busy % per second). */
static void gap_secs(struct trec *r, double lo, double hi) {
    int64_t last = (int64_t)floor(hi / 1e9);
    double oldest = (double)(last - 59) * 1e9;
    if (lo < oldest) lo = oldest;
    for (int64_t sec = (int64_t)floor(lo / 1e9); sec <= last; sec++) {
        double s0 = (double)sec * 1e9, s1 = s0 + 1e9;
        double x = lo > s0 ? lo : s0, y = hi < s1 ? hi : s1;
        struct sec_slot *ss = y > x ? model_sec_at(r, sec) : NULL;
        if (ss) ss->gap_ns += y - x;
    }
}

void cover_gap(rec_model *m, struct trec *r, double lo, double hi) {
    if (!(hi > lo)) return;
    r->gap_ns += hi - lo;
    cov_add(&m->all, r->series, COV_GAP, (uint64_t)llround(hi - lo));
    gap_ring(m, &m->w1, r->series, lo, hi);
    gap_ring(m, &m->w10, r->series, lo, hi);
    gap_secs(r, lo, hi);
}

void cover_fold_all(rec_model *m) {
    for (size_t i = 0; i < m->n_recs; i++) cover_events_flush(m, &m->recs[i]);
}

/* Sums of one series over a window's tables. */
static void sums(struct agg **aggs, size_t na, int series, uint64_t out[3]) {
    out[0] = out[1] = out[2] = 0;
    for (size_t i = 0; i < na; i++)
        for (unsigned k = 0; k < 3; k++) {
            const uint64_t *v = u64map_get(&aggs[i]->cov, (uint64_t)series << 2 | k);
            if (v) out[k] = rec_sat_add(out[k], *v);
        }
}

double cover_series_ns(struct agg **aggs, size_t na, int series, double span_ns) {
    uint64_t s[3];
    sums(aggs, na, series, s);
    double covered = span_ns - (double)s[COV_GAP];
    /* Never below a thousandth of the window: a figure over almost no
     * data is shown as partial, not divided by zero. */
    return covered > span_ns * 1e-3 ? covered : span_ns * 1e-3;
}

int rec_model_window_cover(rec_model *m, enum rec_window w, int tid, struct rec_window_cover *out) {
    memset(out, 0, sizeof *out);
    int series = model_series_of(m, tid);
    if (series < 0) return -1;
    cover_fold_all(m);
    struct agg *aggs[WIN_BUCKETS];
    size_t na = stats_window(m, w, aggs);
    uint64_t s[3];
    sums(aggs, na, series, s);
    out->span_ns = rec_model_window_span(m, w);
    out->decoded = s[COV_EVENTS];
    out->lost = s[COV_LOST];
    out->gap_ns = (double)s[COV_GAP];
    /* In doubles: never past 1, whatever the counts. */
    out->decoded_frac = out->decoded || out->lost ? (double)out->decoded / ((double)out->decoded + (double)out->lost) : 1;
    out->partial = out->lost > 0;
    return 0;
}

uint64_t cover_lost_in(const struct agg *a, int series) {
    const uint64_t *v = u64map_get(&a->cov, (uint64_t)series << 2 | COV_LOST);
    return v ? *v : 0;
}
