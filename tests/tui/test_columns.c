/*
 * test_columns.c -- columns.c: the name column takes the spare width, and
 * a narrow terminal hides the least important columns first; a column
 * of width 0 takes no room.
 */
#include "check.h"
#include "columns.h"

int main(void) {
    const struct col_def cols[] = {
        {"NAME", 10, 100, 1, 0},
        {"CALLS/S", 7, 90, 0, 1},
        {"TOTAL%", 6, 95, 0, 1},
        {"P50", 7, 50, 0, 1},
        {"MAX", 7, 60, 0, 1},
    };
    int x[5], w[5];
    /* Wide: everything shown, the name grows. */
    CHECK_EQ_U(columns_layout(cols, 5, 80, 1, x, w), 5);
    CHECK_EQ_U(w[1], 7);
    CHECK_EQ_U(w[0], 80 - (7 + 6 + 7 + 7) - 4);
    CHECK_EQ_U(x[0], 0);
    CHECK_EQ_U(x[1], w[0] + 1);
    CHECK_EQ_U(x[4] + w[4], 80);
    /* Exactly the minimum. */
    CHECK_EQ_U(columns_layout(cols, 5, 10 + 7 + 6 + 7 + 7 + 4, 1, x, w), 5);
    CHECK_EQ_U(w[0], 10);
    /* One less: P50 (lowest priority) goes, the name gets its 7 columns back. */
    CHECK_EQ_U(columns_layout(cols, 5, 10 + 7 + 6 + 7 + 7 + 3, 1, x, w), 4);
    CHECK_EQ_U(w[3], 0);
    CHECK_EQ_U(w[0], 10 + 7);
    CHECK_EQ_U(x[4], x[2] + w[2] + 1);   /* MAX follows TOTAL% */
    /* Narrower: MAX goes next, then CALLS/S. */
    CHECK_EQ_U(columns_layout(cols, 5, 25, 1, x, w), 3);
    CHECK(w[0] == 10 && w[1] == 7 && w[2] == 6 && w[3] == 0 && w[4] == 0);
    CHECK_EQ_U(columns_layout(cols, 5, 24, 1, x, w), 2);
    CHECK(w[0] == 17 && w[1] == 0 && w[2] == 6);
    /* Tiny: only the name, cut down. */
    CHECK_EQ_U(columns_layout(cols, 5, 5, 1, x, w), 1);
    CHECK_EQ_U(w[0], 5);

    /* A column of width 0 is left out: no room, not even its gap (the
     * Threads view's KIND when every row is a thread). */
    const struct col_def some[] = {{"NAME", 10, 100, 1, 0}, {"KIND", 0, 84, 0, 0}, {"MAX", 7, 60, 0, 1}};
    int xs[3], ws[3];
    CHECK_EQ_U(columns_layout(some, 3, 10 + 1 + 7, 1, xs, ws), 2);
    CHECK(ws[0] == 10 && ws[1] == 0 && ws[2] == 7 && xs[2] == 11);

    /* 200 columns (issue 20, item 2): the name column takes what its
     * widest name needs, not 150 blank columns; the numbers follow it,
     * every one whole (a unit is never cut: they are hidden, not cut). */
    CHECK_EQ_U(columns_layout(cols, 5, 200, 1, x, w), 5);
    CHECK_EQ_U(columns_fit_flex(cols, 5, x, w, 30), 200 - 31 - 30);
    CHECK(w[0] == 30 && x[1] == 31 && w[1] == 7 && x[2] == 39 && x[4] + w[4] == 30 + 31);
    CHECK(w[2] == 6 && w[3] == 7 && w[4] == 7);
    /* Never below the minimum; never wider than the layout gave. */
    columns_layout(cols, 5, 200, 1, x, w);
    CHECK_EQ_U(columns_fit_flex(cols, 5, x, w, 3), 200 - 31 - 10);
    CHECK_EQ_U(w[0], 10);
    columns_layout(cols, 5, 40, 1, x, w);
    int w0 = w[0];
    CHECK_EQ_U(columns_fit_flex(cols, 5, x, w, 500), 0);
    CHECK_EQ_U(w[0], w0);

    /* Clicks: which column a screen column is in; hidden ones never. */
    columns_layout(cols, 5, 10 + 7 + 6 + 7 + 7 + 3, 1, x, w);   /* P50 hidden */
    CHECK(columns_at(x, w, 5, 1, 0) == 0);
    CHECK(columns_at(x, w, 5, 1, x[1]) == 1);
    CHECK(columns_at(x, w, 5, 1, x[1] + w[1]) == 1);             /* the gap after it */
    CHECK(columns_at(x, w, 5, 1, x[2] + w[2]) == 2);
    CHECK(columns_at(x, w, 5, 1, x[4]) == 4);                    /* MAX, right after TOTAL% */
    CHECK(columns_at(x, w, 5, 1, x[4] + w[4] + 1) == -1);
    CHECK(columns_at(x, w, 5, 1, -1) == -1);
    CHECK_DONE();
}
