/*
 * report_diff.h -- `recorder report A --diff B` (report_diff.c): two runs'
 * per-scope figures side by side, ordered by a change.
 */
#ifndef RECORDER_CLI_REPORT_DIFF_H
#define RECORDER_CLI_REPORT_DIFF_H

#include <stddef.h>

/* Prints the diff table of targets a and b (their top rows), ordered by
 * sort (enum rec_diff_key, recorder/diff.h); a status. */
int report_diff(const char *a, const char *b, int sort, int fold, size_t top);

#endif
