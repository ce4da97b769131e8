/*
 * lod.h -- the whole run, summarised: a level-of-detail history per lane
 * (docs/web.md, "History").
 *
 * The page keeps the detail of recent events (store.js, bounded by items);
 * older detail is dropped.  So that the whole run can still be seen, the
 * reader folds every event into a coarse summary: LOD_BUCKETS time
 * buckets per lane on one grid shared by all lanes, each with how busy the
 * lane was (the share of the bucket covered by top-level scopes), the
 * scope that covered most of it, how many events fell in it, and whether
 * entries were lost in it.  When the run outgrows the grid, neighbouring
 * buckets merge and the bucket width doubles: the summary of a 30-minute
 * run has 512 buckets of about 4 s per lane, of a 1-second one 512 of 2 ms.
 *
 * Bounds: LOD_BUCKETS x 16 bytes = 8 KiB per lane that has events, at most
 * (LANES_CAP + 1) lanes: 42 MB worst case, whatever the run's length; the
 * LOD message is at most about 13 bytes per bucket with data.
 *
 * Counters are summarised on the same grid (lod_counter): per counter
 * name and bucket the lowest, highest and last value recorded in it, so
 * a counter track can be drawn where the page has no detail.  Bound: the
 * first REC_COUNTERS_MAX names (as the model's), LOD_BUCKETS x 40 bytes =
 * 20 KiB each, 20 MB in all; 25 bytes per bucket with values in the LOD
 * message.
 *
 * Beside it, latlod.h keeps per-scope latency histograms on this grid,
 * with its own bound (at most 146 MB).
 *
 * The reader thread owns it; lod_publish hands the LOD message to the
 * service thread like STATS (an RCU-published frame).
 */
#ifndef WEB_LOD_H
#define WEB_LOD_H

#include <stdint.h>

#include "frame.h"
#include "lanes.h"

#define LOD_BUCKETS 512u
#define LOD_WIDTH0_NS 1000000     /* the finest bucket: 1 ms */
#define LOD_WIDTH_MAX_NS ((int64_t)1 << 52)   /* ~52 days: past it, times pile into the last bucket */

struct lod_bucket {
    float busy;               /* share of the bucket inside top-level scopes, 0..1 */
    float top_share;          /* the share of its top scope */
    uint32_t top;             /* dense name id of the scope that covered most of it, 0 = none */
    uint32_t events;          /* events in it (saturating); bit 31: entries were lost in it */
};
#define LOD_LOST 0x80000000u

struct lod_lane {
    uint32_t id;              /* the lane id these buckets are of */
    uint32_t used;            /* buckets 0 .. used-1 may hold data */
    struct lod_bucket b[LOD_BUCKETS];
};

struct lod_cbucket {
    double min, max, last;    /* of the values recorded in the bucket */
    int64_t last_ts;          /* when last was recorded */
    uint32_t n;               /* values in it (saturating), 0 = none */
};

struct lod_ctr {
    uint32_t name;            /* the counter's dense name id */
    uint32_t used;            /* buckets 0 .. used-1 may hold values */
    struct lod_cbucket b[LOD_BUCKETS];
};

struct lod {
    int started;
    int64_t t0, width;        /* bucket i covers [t0 + i*width, t0 + (i+1)*width) */
    unsigned shift;           /* width = LOD_WIDTH0_NS << shift */
    int64_t limit;            /* times past it are not summarised (bogus: from the future) */
    struct lod_lane **lane;   /* by lane handle */
    uint32_t n_handles;
    struct lod_ctr **ctr;     /* counters in the order first seen, at most REC_COUNTERS_MAX */
    uint32_t n_ctr;
    uint16_t *ctr_of;         /* by dense name id: 1 + index in ctr, 0 = not a counter yet */
    uint32_t ctr_of_n;
    int dirty;
    uint64_t version;
    struct frame **slot;      /* where the LOD message is published */
};

int lod_init(struct lod *l, uint32_t n_handles, struct frame **slot);
void lod_destroy(struct lod *l);

/* n events of lane handle h (with its id), all in the bucket of ts; a
 * top-level scope of h from s to e named name; entries lost on h from a
 * to b. */
void lod_events(struct lod *l, uint32_t h, uint32_t id, int64_t ts, uint32_t n);
void lod_slice(struct lod *l, uint32_t h, uint32_t id, int64_t s, int64_t e, uint32_t name);
void lod_lost(struct lod *l, uint32_t h, uint32_t id, int64_t a, int64_t b);
/* A value v of the counter named name (dense id) at ts; not finite: not
 * summarised (the page cannot draw it either). */
void lod_counter(struct lod *l, uint32_t name, int64_t ts, double v);

/* The bucket of ts (coarsening the grid until it holds it), -1 if past
 * the limit; latlod.c puts its histograms on the same grid. */
int lod_bucket(struct lod *l, int64_t ts);

/* Counting events a run at a time.  Most events fall in the same bucket
 * and lane as the one before; one call per event was a twelfth of the
 * server's instructions (bench/web/server_instr.sh).  So batch.c counts
 * a run of events of one lane within [lo, hi) -- where every time maps to
 * the run's bucket, and is not past the limit -- and hands the count
 * over once, with the run's first time.  Should the grid coarsen
 * meanwhile, the run's bucket lies wholly inside one of the new grid's
 * (widths double, from the same t0), the one its first time maps to. */
struct lod_run {
    uint32_t h, id, n;        /* n = 0: no run */
    int64_t ts, lo, hi;       /* the first event's time; the run takes times in [lo, hi) */
};

/* Count an event of lane h (id) at ts into run u, handing the run over
 * when this event is not part of it. */
void lod_run_start(struct lod *l, struct lod_run *u, uint32_t h, uint32_t id, int64_t ts);
static inline void lod_run_add(struct lod *l, struct lod_run *u, uint32_t h, uint32_t id, int64_t ts) {
    if (u->n && u->h == h && u->id == id && ts >= u->lo && ts < u->hi && u->n < UINT32_MAX) u->n++;
    else lod_run_start(l, u, h, id, ts);
}
/* Hand the run over (before anything reads the counts). */
static inline void lod_run_end(struct lod *l, struct lod_run *u) {
    if (u->n) lod_events(l, u->h, u->id, u->ts, u->n);
    u->n = 0;
}

/* Encode the LOD message of the lanes in the table (forgetting retired
 * ones) and publish it, if anything changed since the last time. */
void lod_publish(struct lod *l, const struct lanes *lanes);

#endif
