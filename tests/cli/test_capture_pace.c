/*
 * test_capture_pace.c -- the rule that spaces a capture's passes
 * (librecorder/cli/capture_pace.h), alone: pure arithmetic, no clock.
 *
 * A capture on pace with its writers must settle at the rest that lets a
 * ring fill a quarter, and stay there: it must not come back at once
 * after every pass that found what the rest let come (the old rule did,
 * about 170 wake-ups a second at 580,000 events/s).  A pass that found
 * the writers ahead halves the rest; rests grow at most twofold.
 */
#include <stdio.h>

#include "../../librecorder/cli/capture_pace.h"
#include "check.h"

#define RING 65536u   /* a 1 MiB ring */

/* The loop of capture_loop.c, on a writer at rate entries per us that
 * the passes drain whole: how many passes in `span` us, and how many of
 * them came back at once. */
static void simulate(double rate, double span, long max_us, long *passes, long *at_once, long *last_rest) {
    long rest = CAPTURE_REST_MIN_US;
    double since = rest;
    *passes = *at_once = 0;
    for (double t = 0; t < span;) {
        uint64_t moved = (uint64_t)(rate * since);
        ++*passes;
        if (moved >= capture_behind_entries(RING)) {
            rest = capture_rest_behind_us(rest);
            ++*at_once;
            since = 1;   /* a pass takes about a microsecond here */
            t += since;
            continue;
        }
        rest = capture_rest_us(rest, moved, since, RING, max_us);
        since = (double)rest;
        t += since;
    }
    *last_rest = rest;
}

int main(void) {
    long passes, at_once, rest;
    /* 580,000 events/s (bench/watch): a quarter ring in 28 ms. */
    simulate(0.58, 10e6, 100000, &passes, &at_once, &rest);
    printf("580k/s: %ld passes in 10 s, %ld at once, last rest %ld us\n", passes, at_once, rest);
    CHECK(at_once == 0);
    CHECK(rest > 27000 && rest < 29000);
    CHECK(passes < 400);   /* about 36 a second once settled */
    /* A writer at full speed (50 M/s): short rests, never half a ring. */
    simulate(50.0, 1e6, 100000, &passes, &at_once, &rest);
    printf("50M/s: %ld passes in 1 s, %ld at once, last rest %ld us\n", passes, at_once, rest);
    CHECK(at_once == 0);
    CHECK(rest >= 300 && rest <= 330);
    /* Faster than a quarter ring per minimum rest: it keeps coming back. */
    simulate(400.0, 1e5, 100000, &passes, &at_once, &rest);
    printf("400M/s: %ld passes in 0.1 s, %ld at once\n", passes, at_once);
    CHECK(at_once > 0 && rest == CAPTURE_REST_MIN_US);
    /* Quiet: the rest doubles up to the bound (10 ms with -- CMD). */
    CHECK(capture_rest_us(100, 0, 100, RING, 10000) == 200);
    CHECK(capture_rest_us(8000, 0, 8000, RING, 10000) == 10000);
    /* A lull after short rests: at most twice the last one. */
    CHECK(capture_rest_us(500, 1, 500, RING, 100000) == 1000);
    /* Found the writers ahead: half, never under the minimum. */
    CHECK(capture_rest_behind_us(28000) == 14000);
    CHECK(capture_rest_behind_us(150) == CAPTURE_REST_MIN_US);
    CHECK_DONE();
}
