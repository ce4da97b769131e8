/*
 * lod_grid.c -- recorder-web's time grid (viewer-web/lod.c): the bucket
 * lod_bucket gives a time, by a division by the constant finest width and
 * a shift, is the one a plain division by the grid's width gives (the
 * reference), as the grid coarsens from 1 ms to its widest, for times
 * before its start, at bucket edges, past its end and past the limit.
 *
 * Then the events' counts: batch.c counts a run of events at a time
 * (lod_run_add, lod.h); the same events counted one by one (lod_events
 * of 1, the reference) must give every lane the same buckets, through
 * lane switches, slices that coarsen the grid in the middle of a run,
 * times before the grid, past its end and past a limit that moves
 * between reads.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "clamp.h"
#include "lod.h"

char web_grace_period;   /* shared.h's, defined by recorder-web's main.c */

static unsigned long fails, checked;
static uint64_t rng = 88172645463325252ull;

static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void same(struct lod *l, int64_t ts) {
    checked++;
    int got = lod_bucket(l, ts);   /* first: it may coarsen the grid */
    int want;
    if (ts > l->limit) want = -1;
    else if (ts <= l->t0) want = 0;
    else {
        uint64_t k = ((uint64_t)ts - (uint64_t)l->t0) / (uint64_t)l->width;
        want = k < LOD_BUCKETS ? (int)k : (int)LOD_BUCKETS - 1;
    }
    int grid = l->width == ((int64_t)LOD_WIDTH0_NS << l->shift);
    if ((got != want || !grid) && fails++ < 10)
        fprintf(stderr, "FAIL: time %" PRId64 " ns: bucket %d, width %" PRId64 " (shift %u): the division says %d\n",
                ts, got, l->width, l->shift, want);
}

/* Two summaries fed the same reads, one counting runs, one each event. */
static int runs_match(void) {
    enum { HANDLES = 4 };
    struct lod *a = calloc(1, sizeof *a), *b = calloc(1, sizeof *b);
    if (!a || !b || lod_init(a, HANDLES, NULL) != 0 || lod_init(b, HANDLES, NULL) != 0) return 1;
    int64_t t = 5000000123;
    unsigned long events = 0, bad = 0;
    for (int read = 0; read < 20000; read++) {
        /* A limit per read, as the reader sets it: sometimes just ahead. */
        int64_t limit = next() % 8 ? WEB_NS_MAX : t + (int64_t)(next() % 3000000);
        a->limit = b->limit = limit;
        struct lod_run run = {0};
        int n = 1 + (int)(next() % 64);
        uint32_t h = (uint32_t)(next() % HANDLES), id = 100 + h + (uint32_t)(next() % 2) * 10;
        for (int i = 0; i < n; i++) {
            uint64_t r = next() % 1000;
            if (r < 20) h = (uint32_t)(next() % HANDLES), id = 100 + h + (uint32_t)(next() % 2) * 10;
            if (r < 900) t += (int64_t)(next() % 20000);                    /* the usual: a little later */
            else if (r < 990) t += (int64_t)(next() % 5000000);             /* a few buckets on */
            else if (r < 996) t += (int64_t)(next() % 4000000000ull);       /* far: the grid coarsens */
            int64_t ts = r >= 997 ? t - (int64_t)(next() % 100000000000ull) /* a clock gone back */
                                  : t;
            if (r == 999 && next() % 4 == 0) ts = a->t0 - 1;                /* before the grid */
            lod_events(a, h, id, ts, 1);
            lod_run_add(b, &run, h, id, ts);
            events++;
            if (next() % 50 == 0) {
                /* A top-level slice closes meanwhile: it may coarsen the grid mid-run. */
                int64_t s = t - (int64_t)(next() % 10000000);
                lod_slice(a, h, id, s, ts, 7);
                lod_slice(b, h, id, s, ts, 7);
            }
        }
        lod_run_end(b, &run);
    }
    if (a->width != b->width || a->t0 != b->t0) bad++;
    for (uint32_t h = 0; h < HANDLES; h++) {
        const struct lod_lane *x = a->lane[h], *y = b->lane[h];
        if (!x || !y) {
            bad += x != y;
            continue;
        }
        if (x->id != y->id || x->used != y->used) bad++;
        for (uint32_t k = 0; k < LOD_BUCKETS; k++)
            if (x->b[k].events != y->b[k].events && fails + bad < 10) {
                fprintf(stderr, "FAIL: lane %u bucket %u: %u events counted one by one, %u by runs\n", h, k,
                        x->b[k].events, y->b[k].events);
                bad++;
            }
    }
    printf("%lu events counted by runs and one by one, grid %" PRId64 " ns wide: %lu differences\n", events, a->width,
           bad);
    fails += bad;
    lod_destroy(a);
    lod_destroy(b);
    free(a);
    free(b);
    return 0;
}

int main(void) {
    struct lod *l = calloc(1, sizeof *l);
    if (!l || lod_init(l, 4, NULL) != 0) return 1;
    int64_t start = 1234567891;   /* not on a millisecond: the grid starts at the one before */
    same(l, start);
    for (int64_t span = 1000; span > 0 && span < INT64_MAX / 4; span *= 2) {
        /* The edges of every bucket that this width can have, and random times up to 2 spans on. */
        for (uint32_t k = 0; k <= LOD_BUCKETS; k += 37)
            for (int d = -1; d <= 1; d++) same(l, l->t0 + (int64_t)k * l->width + d);
        for (int i = 0; i < 2000; i++) {
            same(l, start + (int64_t)(next() % (uint64_t)(2 * span)));
        }
        same(l, start - span);   /* a hostile clock: before the start */
    }
    int64_t ends[] = {INT64_MIN, -1, 0, l->limit, l->limit + 1, INT64_MAX};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) same(l, ends[i]);
    lod_destroy(l);
    free(l);
    printf("%lu times, %lu wrong\n", checked, fails);
    if (runs_match() != 0) return 1;
    return fails != 0;
}
