/*
 * recorder/diff.h -- two runs side by side, as Tracy's compare: the
 * per-scope statistics of run A and run B (rec_model_stats) joined by
 * name and ordered by how much a figure changed.  `recorder report A
 * --diff B` prints it, recorder-top A.rec B.rec shows it (docs/cli.md,
 * docs/tui.md).
 */
#ifndef RECORDER_DIFF_H
#define RECORDER_DIFF_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

/* What the rows are ordered by: the size of the change (B - A) of the
 * mean, P50, P99, calls or total time, largest first; or the name. */
enum rec_diff_key { REC_DIFF_MEAN, REC_DIFF_P50, REC_DIFF_P99, REC_DIFF_CALLS, REC_DIFF_TOTAL, REC_DIFF_NAME,
                    REC_DIFF_NKEYS };
extern const char *const rec_diff_key_name[REC_DIFF_NKEYS];   /* "mean", "p50", "p99", "calls", "total", "name" */

struct rec_diff_row {
    const struct rec_stat *a, *b;     /* the name's figures in A and in B; NULL: not in that run */
};

/* Joins a[na] and b[nb] (names must be set) by name and orders the rows
 * by key, ties by name: *out is malloc'd (free it), *n its rows.  The
 * rows point into a and b.  0, or -1 if out of memory. */
int rec_stats_diff(const struct rec_stat *a, size_t na, const struct rec_stat *b, size_t nb, enum rec_diff_key key,
                   struct rec_diff_row **out, size_t *n);
/* s's figure for key (ns, or calls); 0 for NULL or REC_DIFF_NAME. */
double rec_diff_value(const struct rec_stat *s, enum rec_diff_key key);
/* The key named s ("mean", "p50", ...), or -1. */
int rec_diff_key_parse(const char *s);

/* One run read whole from a capture file (diff_run.c), as recorder-top
 * A.rec B.rec and recorder-web A.rec B.rec read each: every record fed to
 * a model without an event log, open scopes ended at the capture's end;
 * st[n] the whole run's per-scope figures of all threads (names set, "?"
 * for one not recorded), in rec_model_stats's order.  A capture's warning
 * (cut short) is in rec_cap_get_info(cap)->warning, for the caller to say. */
struct rec_diff_run {
    struct rec_cap *cap;
    rec_model *m;
    uint64_t events;          /* events fed */
    uint64_t lost;            /* entries lost: overwritten, dropped or bad */
    struct rec_stat *st;
    size_t n;
};
/* REC_OK, or a rec_status with err (a capture of several processes is
 * REC_ERR_USAGE).  Free r with rec_diff_run_free either way. */
int rec_diff_run_read(const char *path, struct rec_diff_run *r, char *err, size_t errlen);
void rec_diff_run_free(struct rec_diff_run *r);

#ifdef __cplusplus
}
#endif

#endif
