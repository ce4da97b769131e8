/*
 * table.h -- what the list views (Threads, Counters, Messages) share:
 * their column titles, the selection kept in view, and where their rows
 * are for a mouse click.
 */
#ifndef TUI_TABLE_H
#define TUI_TABLE_H

#include "app.h"
#include "columns.h"

/* Columns on the left of every row: the partial mark, then a blank, so
 * that a name is never read as starting with the mark. */
#define TABLE_MARGIN 2

/* Lays out n columns for the terminal's width (x, w: columns_layout's,
 * relative to TABLE_MARGIN) and draws their titles on line y. */
void table_head(int y, const struct col_def *cols, int n, int *x, int *w);
/* Clamps *sel to the n rows and scrolls so that it is among the `rows`
 * shown from line y; records them for the mouse (app.hit). */
void table_place(struct app *a, int *sel, int *scroll, int n, int rows, int y);

#endif
