/*
 * report_diff.h -- `recorder report A --diff B` (report_diff.c): two runs'
 * per-scope figures side by side, sorted by a change.
 */
#ifndef RECORDER_CLI_REPORT_DIFF_H
#define RECORDER_CLI_REPORT_DIFF_H

#include <stddef.h>

/* --sort's word: its index, or -1 (mean, p50, p99, calls, total, name). */
int report_diff_sort(const char *s);
/* Prints the diff table of targets a and b (their top rows); a status. */
int report_diff(const char *a, const char *b, int sort, int fold, size_t top);

#endif
