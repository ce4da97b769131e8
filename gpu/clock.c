/*
 * clock.c -- CUPTI's timestamps on the segment's timeline (docs/gpu.md,
 * "Clocks").  CUPTI counts nanoseconds close to CLOCK_REALTIME; the
 * segment counts ticks of CLOCK_MONOTONIC's calibration.  Pairs
 * (cuptiGetTimestamp() read between two CLOCK_MONOTONIC reads) give the
 * map: linear between neighbouring pairs, so a drift over a run is
 * corrected piece by piece, and extrapolated with the nearest piece's
 * slope before the first pair and after the last.  With one pair it is a
 * constant offset; with none, CUPTI is taken for CLOCK_REALTIME.
 * Results are clamped to +-2^52 ns (52 days) of the conversion's start:
 * hostile timestamps must not overflow the writer's tick arithmetic.
 */
#include <string.h>
#include <time.h>

#include "convert_int.h"

#define CLAMP_NS (UINT64_C(1) << 52)

static uint64_t now_ns(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gpu_clock_init(struct gpu_clock *k) {
    uint64_t m = now_ns(CLOCK_MONOTONIC), r = now_ns(CLOCK_REALTIME);
    k->n = 0;
    k->fallback = (int64_t)(m - r);
    k->mono_lo = m > CLAMP_NS ? m - CLAMP_NS : 0;
    k->mono_hi = m + CLAMP_NS;
}

void gpu_clock_add(struct gpu_clock *k, uint64_t cupti_ns, uint64_t mono_ns) {
    /* Insert sorted by cupti; a pair that would make the map go back
     * (mono not increasing with cupti) or repeats a cupti time is noise. */
    unsigned i = k->n;
    while (i > 0 && k->cupti[i - 1] > cupti_ns) i--;
    if (i > 0 && (k->cupti[i - 1] == cupti_ns || k->mono[i - 1] >= mono_ns)) return;
    if (i < k->n && (k->cupti[i] == cupti_ns || k->mono[i] <= mono_ns)) return;
    if (k->n == GPU_CLOCK_PAIRS) {
        /* Full: drop the second oldest (the first anchors the run's start). */
        if (i <= 1) return;
        memmove(&k->cupti[1], &k->cupti[2], (size_t)(k->n - 2) * sizeof k->cupti[0]);
        memmove(&k->mono[1], &k->mono[2], (size_t)(k->n - 2) * sizeof k->mono[0]);
        k->n--;
        i--;
    }
    memmove(&k->cupti[i + 1], &k->cupti[i], (size_t)(k->n - i) * sizeof k->cupti[0]);
    memmove(&k->mono[i + 1], &k->mono[i], (size_t)(k->n - i) * sizeof k->mono[0]);
    k->cupti[i] = cupti_ns;
    k->mono[i] = mono_ns;
    k->n++;
}

static uint64_t clamp(const struct gpu_clock *k, double v) {
    if (!(v > (double)k->mono_lo)) return k->mono_lo;   /* NaN too */
    if (v > (double)k->mono_hi) return k->mono_hi;
    return (uint64_t)v;
}

/* An offset in integers: CUPTI's ns are ~2^61, past double's precision. */
static uint64_t clamp_off(const struct gpu_clock *k, uint64_t c, __int128 off) {
    __int128 v = (__int128)c + off;
    if (v < (__int128)k->mono_lo) return k->mono_lo;
    if (v > (__int128)k->mono_hi) return k->mono_hi;
    return (uint64_t)v;
}

uint64_t gpu_clock_mono(const struct gpu_clock *k, uint64_t c) {
    if (k->n == 0) return clamp_off(k, c, k->fallback);
    if (k->n == 1) return clamp_off(k, c, (__int128)k->mono[0] - (__int128)k->cupti[0]);
    /* The piece: the pair at or before c and the next one (binary search). */
    unsigned lo = 0, hi = k->n - 1;
    if (c <= k->cupti[0]) hi = 1;
    else if (c >= k->cupti[k->n - 1]) lo = k->n - 2;
    else {
        while (hi - lo > 1) {
            unsigned mid = (lo + hi) / 2;
            if (k->cupti[mid] <= c) lo = mid;
            else hi = mid;
        }
    }
    if (hi != lo + 1) hi = lo + 1;
    double slope = (double)(k->mono[hi] - k->mono[lo]) / (double)(k->cupti[hi] - k->cupti[lo]);
    double dc = c >= k->cupti[lo] ? (double)(c - k->cupti[lo]) : -(double)(k->cupti[lo] - c);
    return clamp(k, (double)k->mono[lo] + dc * slope);
}

uint64_t gpu_clock_ticks(const struct gpu_clock *k, uint64_t c) {
    return rec_ticks_of_mono_ns(gpu_clock_mono(k, c));
}
