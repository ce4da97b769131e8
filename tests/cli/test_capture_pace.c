/*
 * test_capture_pace.c -- the rule that spaces a capture's passes
 * (librecorder/cli/capture_pace.h), alone: pure arithmetic, no clock.
 *
 * A capture on pace with its writers must settle at the rest that lets a
 * ring fill a quarter, and stay there: it must not come back at once
 * after every pass that found what the rest let come (the old rule did,
 * about 170 wake-ups a second at 580,000 events/s).  A pass that found
 * the writers ahead takes the rest their rate gives, at most half the
 * last; rests grow at most twofold, and only after a whole rest.
 */
#include <stdio.h>

#include "../../librecorder/cli/capture_pace.h"
#include "check.h"

#define RING 65536u   /* a 1 MiB ring */

/* The loop of capture_loop.c on writers that are quiet for `quiet` us,
 * then write `rate` entries per us, drained whole by each pass: how many
 * passes in `span` us after the writers started, how many of them came
 * back at once, and the last rest.  A pass takes about a microsecond. */
static void simulate(double quiet, double rate, double span, long max_us, long *passes, long *at_once,
                     long *last_rest) {
    long rest = CAPTURE_REST_MIN_US;
    double since = rest, t = 0, last = 0;   /* now, and the last pass */
    *passes = *at_once = 0;
    while (t < quiet + span) {
        /* What the writers wrote between the last pass and this one. */
        double from = last > quiet ? last : quiet, to = t > quiet ? t : quiet;
        uint64_t moved = (uint64_t)(rate * (to - from));
        since = t - last;
        last = t;
        if (t >= quiet) ++*passes;
        if (moved >= capture_behind_entries(RING)) {
            rest = capture_rest_behind_us(rest, moved, since, RING);
            if (t >= quiet) ++*at_once;
            t += 1;
            continue;
        }
        rest = capture_rest_us(rest, moved, since, RING, max_us);
        t += (double)rest + 1;
    }
    *last_rest = rest;
}

int main(void) {
    long passes, at_once, rest;
    /* 580,000 events/s (bench/watch): a quarter ring in 28 ms. */
    simulate(0, 0.58, 10e6, 100000, &passes, &at_once, &rest);
    printf("580k/s: %ld passes in 10 s, %ld at once, last rest %ld us\n", passes, at_once, rest);
    CHECK(at_once == 0);
    CHECK(rest > 27000 && rest < 29000);
    CHECK(passes < 400);   /* about 36 a second once settled */
    /* The same after a second of quiet, when the rest has grown to its
     * bound: the first passes find the writers ahead, then it settles.
     * (It was caught in a cycle: a 81 ms rest, half a ring found, at once,
     * nothing found so soon taken as quiet, 81 ms again.) */
    simulate(1e6, 0.58, 10e6, 100000, &passes, &at_once, &rest);
    printf("580k/s after 1 s quiet: %ld passes in 10 s, %ld at once, last rest %ld us\n", passes, at_once, rest);
    CHECK(at_once <= 2);
    CHECK(rest > 27000 && rest < 29000);
    CHECK(passes > 300 && passes < 400);
    /* A writer at full speed (50 M/s): short rests, never half a ring. */
    simulate(0, 50.0, 1e6, 100000, &passes, &at_once, &rest);
    printf("50M/s: %ld passes in 1 s, %ld at once, last rest %ld us\n", passes, at_once, rest);
    CHECK(at_once == 0);
    CHECK(rest >= 300 && rest <= 330);
    /* Faster than a quarter ring per minimum rest: it keeps coming back. */
    simulate(0, 400.0, 1e5, 100000, &passes, &at_once, &rest);
    printf("400M/s: %ld passes in 0.1 s, %ld at once\n", passes, at_once);
    CHECK(at_once > 0 && rest == CAPTURE_REST_MIN_US);
    /* Quiet: the rest doubles up to the bound (10 ms with -- CMD)... */
    CHECK(capture_rest_us(100, 0, 100, RING, 10000) == 200);
    CHECK(capture_rest_us(8000, 0, 8000, RING, 10000) == 10000);
    /* ...but not on a pass that came right after another. */
    CHECK(capture_rest_us(28000, 0, 20, RING, 100000) == 28000);
    /* A lull after short rests: at most twice the last one. */
    CHECK(capture_rest_us(500, 1, 500, RING, 100000) == 1000);
    /* Found the writers ahead: the rate's rest, at most half the last. */
    CHECK(capture_rest_behind_us(100000, 40000, 100000, RING) == 40960);
    CHECK(capture_rest_behind_us(28000, 40000, 28000, RING) == 11468);
    CHECK(capture_rest_behind_us(150, 40000, 150, RING) == CAPTURE_REST_MIN_US);
    CHECK_DONE();
}
