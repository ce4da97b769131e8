/*
 * capture_pace.h -- when a stream-mode capture polls the rings next
 * (capture_loop.c), apart so that a test can check the rule alone
 * (tests/cli/test_capture_pace.c).
 *
 * A capture that keeps up loses nothing, and each wake-up costs a program
 * that keeps every core busy: one of its threads is preempted and its
 * peers wait for it at their barrier.  So the loop rests until, at the
 * rate the last pass saw, a ring would be a quarter full -- every ring's
 * entries counted as one ring's, so a quarter is a bound, not a guess --
 * and comes back at once only when a pass found half a ring: the rest
 * was too long for these writers (they sped up, a scheduler hiccup, or a
 * writer at full speed, which fills a 1 MiB ring in about a millisecond);
 * the next rest is then the one their rate gives.
 *
 * The rate, not the count a pass found, sets the rest.  It was the count
 * (an eighth of a ring: come back at once): every pass on pace found a
 * quarter ring, came back at once, found nothing, and the rests grew
 * again from 100 us, about 170 wake-ups a second at 580,000 events/s
 * against about 35 at the rate's rest.
 */
#ifndef RECORDER_CLI_CAPTURE_PACE_H
#define RECORDER_CLI_CAPTURE_PACE_H

#include <stdint.h>

#define CAPTURE_REST_MIN_US 100

/* A pass that moved this many entries comes back at once. */
static inline uint64_t capture_behind_entries(uint64_t ring_entries) { return ring_entries / 2; }

/* The rest a rate gives: a quarter ring at moved entries per since_us. */
static inline double capture_rate_rest_us(uint64_t moved, double since_us, uint64_t ring_entries) {
    return since_us * 0.25 * (double)ring_entries / (double)moved;
}

/* The rest after a pass that moved `moved` entries, since_us after the
 * pass before it: a quarter ring at that rate, at most twice the last
 * rest (a pass that found little may have caught a lull), between
 * CAPTURE_REST_MIN_US and max_us.  A pass that found nothing doubles the
 * rest only if it came a whole rest after the last one: right after a
 * pass that came back at once, finding nothing says nothing of the
 * writers (taken as quiet, it undid the halving below at every turn). */
static inline long capture_rest_us(long prev_us, uint64_t moved, double since_us, uint64_t ring_entries,
                                   long max_us) {
    double want = moved ? capture_rate_rest_us(moved, since_us, ring_entries)
                  : since_us >= (double)prev_us ? 2.0 * (double)prev_us
                                                : (double)prev_us;
    if (want > 2.0 * (double)prev_us) want = 2.0 * (double)prev_us;
    if (want > (double)max_us) want = (double)max_us;
    return want < CAPTURE_REST_MIN_US ? CAPTURE_REST_MIN_US : (long)want;
}

/* After a pass that found the writers ahead (moved >= the behind mark):
 * the rest their rate gives, and at most half the last one. */
static inline long capture_rest_behind_us(long prev_us, uint64_t moved, double since_us, uint64_t ring_entries) {
    double want = capture_rate_rest_us(moved, since_us, ring_entries);
    if (want > (double)prev_us / 2) want = (double)prev_us / 2;
    return want < CAPTURE_REST_MIN_US ? CAPTURE_REST_MIN_US : (long)want;
}

#endif
