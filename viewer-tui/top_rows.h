/*
 * top_rows.h -- the Top view's rows: which scope names are shown and in
 * what order.  Pure: works on rec_stat arrays, not on a model.
 */
#ifndef TUI_TOP_ROWS_H
#define TUI_TOP_ROWS_H

#include <stddef.h>

#include "recorder/analysis.h"

/* The columns of recorder-web's table, in its order and with its names
 * (docs/web.md): scope, calls, calls/s, total%, self%, avg, p50, p95,
 * p99, max. */
enum top_col {
    TOP_NAME, TOP_CALLS, TOP_RATE, TOP_TOTAL, TOP_SELF, TOP_AVG, TOP_P50, TOP_P95, TOP_P99, TOP_MAX,
    TOP_NCOLS
};

/* Column titles, as the header row shows them (the page's, upper case). */
extern const char *const top_col_title[TOP_NCOLS];

/* Keeps, in order, the rows whose name contains needle (ASCII case
 * insensitive); returns how many remain. */
size_t top_rows_filter(struct rec_stat *rows, size_t n, const char *needle);

/* Sorts by a column: names A to Z, numbers largest first; reverse flips
 * that.  Ties go by name, so rows do not jump between refreshes. */
void top_rows_sort(struct rec_stat *rows, size_t n, enum top_col col, int reverse);

/* The value a numeric column sorts by. */
double top_col_value(const struct rec_stat *r, enum top_col col);

#endif
