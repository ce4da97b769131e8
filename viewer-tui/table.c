/*
 * table.c -- the list views' column titles and selection (see table.h).
 */
#include "table.h"

#include "draw.h"

void table_head(int y, const struct col_def *cols, int n, int *x, int *w) {
    columns_layout(cols, n, COLS - TABLE_MARGIN - 1, 1, x, w);
    draw_fill(y, 0, COLS, theme_attr(R_COLHEAD));
    for (int c = 0; c < n; c++)
        if (w[c]) draw_text(y, TABLE_MARGIN + x[c], w[c], cols[c].title, cols[c].right ? FIT_RIGHT : FIT_LEFT,
                            theme_attr(R_COLHEAD));
}

void table_place(struct app *a, int *sel, int *scroll, int n, int rows, int y) {
    if (*sel >= n) *sel = n - 1;
    if (*sel < 0) *sel = 0;
    if (*sel < *scroll) *scroll = *sel;
    if (*sel >= *scroll + rows) *scroll = *sel - rows + 1;
    if (*scroll < 0) *scroll = 0;
    a->hit.rows_y = y;   /* where a click selects (mouse.c) */
    a->hit.rows_n = rows;
    a->hit.rows_first = *scroll;
}
