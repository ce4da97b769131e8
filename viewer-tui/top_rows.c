/*
 * top_rows.c -- filter and sort the Top view's rows (see top_rows.h).
 */
#include "top_rows.h"

#include <stdlib.h>
#include <string.h>

#include "text.h"

const char *const top_col_title[TOP_NCOLS] = {
    "SCOPE", "CALLS", "CALLS/S", "TOTAL%", "SELF%", "AVG", "P50", "P95", "P99", "MAX",
};

size_t top_rows_filter(struct rec_stat *rows, size_t n, const char *needle) {
    if (!needle || !*needle) return n;
    size_t k = 0;
    for (size_t i = 0; i < n; i++)
        if (text_contains(rows[i].name ? rows[i].name : "", needle)) rows[k++] = rows[i];
    return k;
}

double top_col_value(const struct rec_stat *r, enum top_col col) {
    switch (col) {
    case TOP_CALLS: return (double)r->calls;
    case TOP_RATE: return r->calls_per_sec;
    case TOP_TOTAL: return r->total_ns;
    case TOP_SELF: return r->self_ns;
    case TOP_AVG: return r->avg_ns;
    case TOP_P50: return r->p50_ns;
    case TOP_P95: return r->p95_ns;
    case TOP_P99: return r->p99_ns;
    case TOP_MAX: return r->max_ns;
    default: return 0;
    }
}

/* qsort has no context argument: the key lives here for one sort. */
static enum top_col sort_col;
static int sort_rev;

static int by_name(const struct rec_stat *a, const struct rec_stat *b) {
    int c = strcmp(a->name ? a->name : "", b->name ? b->name : "");
    return c ? c : (a->name_id > b->name_id) - (a->name_id < b->name_id);
}

static int cmp(const void *pa, const void *pb) {
    const struct rec_stat *a = pa, *b = pb;
    int c = 0;
    if (sort_col == TOP_NAME) c = by_name(a, b);
    else {
        double x = top_col_value(a, sort_col), y = top_col_value(b, sort_col);
        c = (x < y) - (x > y);      /* largest first */
    }
    if (sort_rev) c = -c;
    return c ? c : by_name(a, b);
}

void top_rows_sort(struct rec_stat *rows, size_t n, enum top_col col, int reverse) {
    sort_col = col;
    sort_rev = reverse;
    qsort(rows, n, sizeof *rows, cmp);
}
