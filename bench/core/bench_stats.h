/*
 * bench_stats.h -- order statistics of a small sample of ratios.
 */
#ifndef BENCH_STATS_H
#define BENCH_STATS_H

#include <stddef.h>

struct bench_summary {
    double median, min, q1, q3;   /* q1, q3: quartiles, for the spread */
    size_t n;                     /* samples that were finite */
};

/* Summarizes x[0..n) (NaNs are skipped).  Sorts a copy; x is left alone. */
struct bench_summary bench_summarize(const double *x, size_t n);

#endif
