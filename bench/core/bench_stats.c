/*
 * bench_stats.c -- medians and quartiles.  Medians, not means: on a shared,
 * noisy machine a trial that lost the CPU is an outlier to ignore, not a
 * cost to average in.
 */
#include "bench_stats.h"

#include <math.h>
#include <stdlib.h>

static int cmp_double(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

/* Linear interpolation between closest ranks. */
static double quantile(const double *s, size_t n, double q) {
    double pos = q * (double)(n - 1);
    size_t i = (size_t)pos;
    if (i + 1 >= n) return s[n - 1];
    return s[i] + (pos - (double)i) * (s[i + 1] - s[i]);
}

struct bench_summary bench_summarize(const double *x, size_t n) {
    struct bench_summary r = {NAN, NAN, NAN, NAN, 0};
    double *s = (double *)malloc((n ? n : 1) * sizeof *s);
    if (!s) return r;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (isfinite(x[i])) s[k++] = x[i];
    if (k) {
        qsort(s, k, sizeof *s, cmp_double);
        r.median = quantile(s, k, 0.5);
        r.q1 = quantile(s, k, 0.25);
        r.q3 = quantile(s, k, 0.75);
        r.min = s[0];
        r.n = k;
    }
    free(s);
    return r;
}
