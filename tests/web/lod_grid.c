/*
 * lod_grid.c -- recorder-web's time grid (viewer-web/lod.c): the bucket
 * lod_bucket gives a time, by a division by the constant finest width and
 * a shift, is the one a plain division by the grid's width gives (the
 * reference), as the grid coarsens from 1 ms to its widest, for times
 * before its start, at bucket edges, past its end and past the limit.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "lod.h"

char web_grace_period;   /* shared.h's, defined by recorder-web's main.c */

static unsigned long fails, checked;

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

int main(void) {
    struct lod *l = calloc(1, sizeof *l);
    if (!l || lod_init(l, 4, NULL) != 0) return 1;
    int64_t start = 1234567891;   /* not on a millisecond: the grid starts at the one before */
    same(l, start);
    uint64_t x = 88172645463325252ull;
    for (int64_t span = 1000; span > 0 && span < INT64_MAX / 4; span *= 2) {
        /* The edges of every bucket that this width can have, and random times up to 2 spans on. */
        for (uint32_t k = 0; k <= LOD_BUCKETS; k += 37)
            for (int d = -1; d <= 1; d++) same(l, l->t0 + (int64_t)k * l->width + d);
        for (int i = 0; i < 2000; i++) {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            same(l, start + (int64_t)(x % (uint64_t)(2 * span)));
        }
        same(l, start - span);   /* a hostile clock: before the start */
    }
    int64_t ends[] = {INT64_MIN, -1, 0, l->limit, l->limit + 1, INT64_MAX};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) same(l, ends[i]);
    lod_destroy(l);
    free(l);
    printf("%lu times, %lu wrong\n", checked, fails);
    return fails != 0;
}
