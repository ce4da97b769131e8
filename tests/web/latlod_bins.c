/*
 * latlod_bins.c -- recorder-web's latency bins (viewer-web/latlod.c): the
 * table lookup that latlod_bin does on every call gives the same bin as
 * a binary search over the edges (latlod_bin_search, the reference), for
 * every edge and its neighbours, every step of the lookup's table and its
 * neighbours, the ends of the range and a million random durations.
 */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "latlod.h"

char web_grace_period;   /* shared.h's, defined by recorder-web's main.c */

static unsigned long fails, checked;

static void same(int64_t d) {
    checked++;
    unsigned a = latlod_bin(d), b = latlod_bin_search(d);
    if (a != b && fails++ < 10) fprintf(stderr, "FAIL: duration %" PRId64 " ns: bin %u, the search says %u\n", d, a, b);
}

/* The durations within 3 ns of x (those that fit in an int64_t). */
static void around(double x) {
    int64_t c = x < 0x1p62 ? (int64_t)llround(x) : INT64_MAX - 3;
    for (int k = -3; k <= 3; k++) same(c + k);
}

int main(void) {
    struct latlod *t = calloc(1, sizeof *t);
    struct lat_pub *pub = calloc(1, sizeof *pub);
    if (!t || !pub) return 1;
    latlod_init(t, pub);
    for (unsigned i = 0; i <= LAT_BINS + 10; i++) around(pow(10.0, (double)i / LAT_BPD));   /* edges */
    for (int e = 0; e < 64; e++)   /* the table's steps (16 an octave) */
        for (int m = 0; m < 16; m++) around(ldexp(1.0 + m / 16.0, e));
    int64_t ends[] = {INT64_MIN, -1, 0, 1, 2, 3, INT64_MAX, INT64_MAX - 1, (int64_t)1 << 62, 99999999999, 100000000000};
    for (size_t i = 0; i < sizeof ends / sizeof ends[0]; i++) same(ends[i]);
    uint64_t x = 88172645463325252u;   /* xorshift64: log-uniform durations, 1 ns .. 2^63 */
    for (int i = 0; i < 1000000; i++) {
        x ^= x << 13, x ^= x >> 7, x ^= x << 17;
        same((int64_t)((x >> 1) >> (x % 63)));
    }
    latlod_destroy(t);
    free(t);
    free(pub);
    printf("%s: %lu durations, %lu differ\n", fails ? "FAIL" : "ok", checked, fails);
    return fails ? 1 : 0;
}
