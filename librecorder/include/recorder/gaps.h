/*
 * recorder/gaps.h -- each thread's idle gaps, bucketed by length, computed
 * while a model is fed (no event log): what `recorder report` shows as
 * "gap <10us" ... rows, in memory bounded by the threads and a fixed
 * lookahead, not by the number of events (docs/cli.md, "report").
 *
 * A gap is the time between two stretches of a thread's work.  Work is
 * its top-level slices less the wait scopes in them (a wait scope and
 * what it holds is idle: docs/analysis.md, "Wait scopes").  A gap next
 * to a slice whose begin was lost, or after one still open, is not known
 * and not counted.
 */
#ifndef RECORDER_GAPS_H
#define RECORDER_GAPS_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

#define REC_GAPS_MAX_BUCKETS 16

struct rec_gap_row {
    uint64_t calls;           /* gaps in the bucket */
    double total_ns, min_ns, max_ns;
};

typedef struct rec_gaps rec_gaps;

/* Starts computing m's gaps as it is fed from now on (call before the
 * first feed).  hi_ns: the buckets' upper bounds, ascending, n of them (at
 * most REC_GAPS_MAX_BUCKETS); a gap goes into the first bucket whose
 * bound is above it, the last bucket takes the rest.  m must keep no log
 * (rec_model_opts.keep_log = 0).  NULL if out of memory or bad arguments. */
rec_gaps *rec_gaps_new(rec_model *m, const double *hi_ns, size_t n);
/* After the last feed (and rec_model_set_now): open slices end where
 * their thread's do, and every gap is counted.  0, or -1 if memory ran
 * out on the way (the figures are then incomplete). */
int rec_gaps_finish(rec_gaps *g);
/* Thread (slot, generation)'s buckets into out[n] (zeros if it had no
 * gap); valid after rec_gaps_finish. */
void rec_gaps_thread(const rec_gaps *g, uint32_t slot, uint32_t gen, struct rec_gap_row *out);
/* Detaches from the model and frees. */
void rec_gaps_free(rec_gaps *g);

#ifdef __cplusplus
}
#endif

#endif
