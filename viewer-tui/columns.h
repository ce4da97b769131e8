/*
 * columns.h -- a table's column layout for a given terminal width.
 *
 * One column may be flexible (a name): it takes the room the others leave.
 * When the row is too narrow, the columns with the lowest priority are
 * hidden first, as htop does, until the flexible column has its minimum.
 * Pure.
 */
#ifndef TUI_COLUMNS_H
#define TUI_COLUMNS_H

struct col_def {
    const char *title;
    int width;          /* fixed width, or the minimum of the flexible column; 0: not shown */
    int priority;       /* higher stays longer; the flexible column is never hidden */
    int flex;           /* takes the remaining width */
    int right;          /* right-aligned (numbers) */
};

/* Fills x[i] and w[i] for each column (w[i] = 0: hidden); columns are
 * separated by `gap` spaces.  Returns the number shown. */
int columns_layout(const struct col_def *defs, int n, int total_width, int gap, int *x, int *w);

/* After columns_layout: the flexible column is made no wider than `want`
 * (what its widest entry needs; never below its minimum), and the columns
 * after it move left, so that on a wide terminal the numbers sit next to
 * the names, not far to the right of a column of blanks.  The room given
 * up stays empty at the right.  Returns the columns given up. */
int columns_fit_flex(const struct col_def *defs, int n, int *x, int *w, int want);

/* The column shown at screen column col of a layout (the gap after a
 * column counts as its own, so a click between titles still sorts), or
 * -1.  For mouse clicks on a table's titles. */
int columns_at(const int *x, const int *w, int n, int gap, int col);

#endif
