/*
 * histogram.h -- log-bucketed duration histograms.
 *
 * A duration in ns maps to a bin from its double's exponent and the top 5
 * bits of its mantissa: 32 linear bins per octave, so a bin is at most
 * 1/32 of its lower edge wide and its midpoint is within 1.6% of anything
 * in it (the statistics promise 3%).  No log() on the hot path.  Bin 0
 * holds everything under 1 ns; durations of 2^63 ns and more share the
 * last bin.  Bins fit in 11 bits (HIST_BIN_BITS).
 */
#ifndef REC_ANALYSIS_HISTOGRAM_H
#define REC_ANALYSIS_HISTOGRAM_H

#include <stdint.h>
#include <string.h>

#define HIST_SUB_BITS 5
#define HIST_BIN_BITS 11
#define HIST_MAX_EXP 62

static inline unsigned hist_bin(double ns) {
    if (!(ns >= 1.0)) return 0;   /* also NaN */
    uint64_t bits;
    memcpy(&bits, &ns, sizeof bits);
    int e = (int)((bits >> 52) & 0x7ff) - 1023;
    if (e > HIST_MAX_EXP) return ((HIST_MAX_EXP + 1) << HIST_SUB_BITS) + 1;
    unsigned sub = (unsigned)(bits >> (52 - HIST_SUB_BITS)) & ((1u << HIST_SUB_BITS) - 1);
    return ((unsigned)e << HIST_SUB_BITS) + sub + 1;
}

/* The midpoint of a bin, the value a percentile in it reports. */
static inline double hist_mid(unsigned bin) {
    if (bin == 0) return 0.5;
    bin--;
    unsigned e = bin >> HIST_SUB_BITS, sub = bin & ((1u << HIST_SUB_BITS) - 1);
    double lo = (double)(UINT64_C(1) << e);
    return lo * (1.0 + (sub + 0.5) / (double)(1u << HIST_SUB_BITS));
}

#endif
