/*
 * pace.h -- when a consumer reads a program's rings next: the one rule
 * that `recorder capture` (librecorder/cli/capture_loop.c), recorder-top
 * (viewer-tui/app.c) and recorder-web's reader (viewer-web/reader.c)
 * follow.  Header-only, so that tests/core/test_pace.c checks it alone,
 * with arithmetic and no clock.
 *
 * A consumer that keeps up loses nothing, and each wake-up costs a
 * program that keeps every core busy: one of its threads is preempted and
 * its peers wait for it at their barrier (docs/performance/watch.md,
 * "Fewer wake-ups").  So a consumer rests until, at the rate the last
 * pass saw, a ring would be a quarter full, and comes back at once only
 * when a pass found half a ring (the rest was too long for these writers:
 * they sped up, or the consumer was not scheduled) or stopped at a bound
 * of its own with more to read (a viewer reads a bounded amount a pass,
 * to keep answering its user).
 *
 * Three faults this rule was written against, when each consumer had a
 * copy of its own (the first and third in capture's, the second in
 * recorder-top's; recorder-web's still had the second and third):
 *   - the count a pass found, not the rate, set the rest: an eighth of a
 *     ring meant "come back at once", so every pass on pace came back at
 *     once, found nothing, and the rests grew again from the minimum
 *     (capture: about 170 wake-ups a second at 580,000 events/s, 35 now);
 *   - a pass that finishes what its predecessor left sees that backlog,
 *     not what the writers wrote since it: taken as a rate it cut the
 *     rest to the minimum after most passes (recorder-top: 57 wake-ups a
 *     second, 27 without);
 *   - a pass that found nothing right after one that came back at once
 *     says nothing of the writers: taken as quiet it doubled the rest and
 *     undid the halving that had followed the writers getting ahead.
 */
#ifndef RECORDER_PACE_H
#define RECORDER_PACE_H

#define REC_PACE_FILL 0.25    /* rest until a ring would be this full */
#define REC_PACE_BEHIND 0.5   /* a pass that found this much: the writers got ahead */

struct rec_pace {
    double rest_ms;   /* the rest after the last pass */
    double min_ms;    /* never less: a writer at full speed outruns any consumer */
    double max_ms;    /* never more: what a viewer shows stays this fresh */
    int backlog;      /* the last pass stopped at its bound: the next finds backlog */
};

static inline void rec_pace_init(struct rec_pace *p, double min_ms, double max_ms) {
    p->rest_ms = min_ms;
    p->min_ms = min_ms;
    p->max_ms = max_ms > min_ms ? max_ms : min_ms;
    p->backlog = 0;
}

/* The rest at which a ring would be REC_PACE_FILL full, for writers that
 * filled `found` rings in since_ms. */
static inline double rec_pace_rate_rest_ms(double found, double since_ms) {
    return since_ms * REC_PACE_FILL / found;
}

/* After a pass.  found: what it found, in rings -- the entries it read
 * over one ring's entries (several rings' entries counted as one ring's
 * make a bound, not a guess), or the fullest ring's fill; since_ms: the
 * time since the pass before it; stopped: it stopped at a bound of its
 * own with more to read.  Sets p->rest_ms, and returns 1 when the next
 * pass should come at once, 0 when it should rest p->rest_ms first.
 *
 * The rest: after a pass that finishes a predecessor's backlog, the same
 * (its count is not a rate); after one that found the writers ahead,
 * their rate's, at most half the last; after one that found nothing, the
 * last doubled, but only if a whole rest went by (right after a pass that
 * came back at once, nothing found is no sign of quiet); otherwise the
 * rate's, at most twice the last (a pass may have caught a lull).  Always
 * between min_ms and max_ms. */
static inline int rec_pace_pass(struct rec_pace *p, double found, double since_ms, int stopped) {
    int after_backlog = p->backlog;
    p->backlog = stopped != 0;
    if (after_backlog) return stopped != 0;
    double prev = p->rest_ms, want;
    int behind = found >= REC_PACE_BEHIND;
    if (found > 0) {
        want = rec_pace_rate_rest_ms(found, since_ms);
        double most = behind ? prev / 2 : 2 * prev;
        if (want > most) want = most;
    } else {
        want = since_ms >= prev ? 2 * prev : prev;
    }
    if (want > p->max_ms) want = p->max_ms;
    if (want < p->min_ms) want = p->min_ms;
    p->rest_ms = want;
    return behind || stopped;
}

#endif
