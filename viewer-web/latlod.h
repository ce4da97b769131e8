/*
 * latlod.h -- the whole run's latency, per scope, on the summary's grid
 * (docs/web.md, "Latency panel" and "History").
 *
 * The page computes a scope's percentiles exactly from the calls it
 * holds, which is the last stretch of a long run only.  So that its
 * "percentiles per second" plot can cover the whole run, the reader
 * thread also folds every call it pairs (an END matched to its BEGIN on
 * the lane's stack, batch.c) into a duration histogram per scope name
 * (dense name id, raw: folding names is the page's business) per time
 * bucket of the LOD grid (lod.h: same t0 and width, so the plot lines up
 * with the timeline).  Bins are log-scale, LAT_BPD per decade (the page's
 * histogram's): bin i holds [10^(i/10), 10^((i+1)/10)) ns, bin 0 also
 * what is shorter, the last also what is longer.  A percentile read from
 * a bucket is exact to its bin.  When the grid coarsens, buckets merge by
 * adding their histograms: nothing is approximated twice.
 *
 * A call goes in the bucket of its end.  Buckets in which any lane lost
 * entries are flagged (the page marks them partial).
 *
 * Bounds: at most LAT_SCOPES scopes are summarised (the first that have
 * calls); calls of later ones are counted as left out (and so are calls
 * met without memory), and every answer says how many.  A scope holds a
 * pointer per bucket (4 KiB) and a histogram of LAT_BINS x 4 bytes (440
 * bytes) per bucket that has calls of it: at most 224 KiB per scope, 56
 * MiB for LAT_SCOPES, whatever the run's length.  Its published answer
 * (sparse) is at most about 6 bytes per non-empty bin and 4 per bucket
 * more, 340 KB per scope, kept only for scopes a page asked for in the
 * last LAT_KEEP_MS: 87 MB if pages kept asking for all LAT_SCOPES at
 * once, usually a few KB.  So 224 KiB x 256 + 87 MB = 146 MB worst case.
 *
 * Threads: the reader owns the histograms.  Answers are encoded only for
 * scopes a page asked for (want flags set by the service thread), and
 * RCU-published per scope (struct lat_pub) for the service thread to send.
 */
#ifndef WEB_LATLOD_H
#define WEB_LATLOD_H

#include <stdint.h>

#include "frame.h"
#include "lod.h"

#define LAT_SCOPES 256u
#define LAT_BPD 10u
#define LAT_BINS 110u          /* 1 ns .. 100 s */
#define LAT_HASH 1024u         /* a power of two, 4 x LAT_SCOPES */

/* Shared with the service thread (web.h). */
struct lat_pub {
    uint32_t ids[LAT_SCOPES];      /* by scope slot: its name id, written before n is released */
    uint32_t n;                    /* slots in use (release/acquire) */
    uint8_t want[LAT_SCOPES];      /* a page asked for this slot's answer (atomic) */
    struct frame *ans[LAT_SCOPES]; /* MSG_LATENCY of each slot (RCU) */
    uint64_t left_out;             /* calls not summarised (atomic) */
};

struct lat_scope {
    uint32_t name;
    uint32_t *h[LOD_BUCKETS];      /* LAT_BINS counts each, allocated on first call */
};

struct latlod {
    struct lat_scope *s[LAT_SCOPES];
    uint32_t n;
    /* name -> slot + 1 (0 = empty), open addressing: a call finds its
     * scope in a probe or two, not a scan of 256 */
    uint32_t hkey[LAT_HASH];
    uint16_t hval[LAT_HASH];
    double asked_ms[LAT_SCOPES];   /* when each slot was last asked for (reader's clock) */
    int64_t width;                 /* the grid's width the buckets are on (follows lod) */
    uint8_t lost[LOD_BUCKETS];     /* entries were lost in the bucket */
    void *spare;                   /* histograms freed by merging, for reuse (a list
                                      through their first bytes; never more than were in use) */
    uint64_t left_out;
    uint64_t version;
    struct lat_pub *pub;
};

void latlod_init(struct latlod *t, struct lat_pub *pub);
void latlod_destroy(struct latlod *t);
/* The bin of a duration (ns). */
unsigned latlod_bin(int64_t dur);
/* The same by a binary search over the edges: the reference latlod_bin is
 * tested against (tests/web/latlod_bins.c). */
unsigned latlod_bin_search(int64_t dur);
/* A call of name from s to e; entries lost from a to b. */
void latlod_call(struct latlod *t, struct lod *l, uint32_t name, int64_t s, int64_t e);
void latlod_lost(struct latlod *t, struct lod *l, int64_t a, int64_t b);
/* Encode and publish anew the answers pages asked for; 1 if any was.
 * Answers no page asked for in LAT_KEEP_MS are unpublished (freed). */
#define LAT_KEEP_MS 10000.0
int latlod_publish(struct latlod *t, const struct lod *l, double now_ms);

#endif
