/*
 * columns.c -- fit a table's columns into the terminal width (see columns.h).
 */
#include "columns.h"

int columns_layout(const struct col_def *defs, int n, int total_width, int gap, int *x, int *w) {
    int shown = 0, need = 0, flex = -1;
    for (int i = 0; i < n; i++) {
        w[i] = defs[i].width;
        if (defs[i].flex && flex < 0) flex = i;
        if (!w[i] && !defs[i].flex) continue;   /* width 0: a column this table leaves out */
        need += defs[i].width + (shown++ ? gap : 0);
    }
    /* Hide the least important fixed column until the minimum fits. */
    while (need > total_width) {
        int drop = -1;
        for (int i = 0; i < n; i++)
            if (w[i] && i != flex && (drop < 0 || defs[i].priority < defs[drop].priority)) drop = i;
        if (drop < 0) break;
        need -= w[drop] + (shown > 1 ? gap : 0);
        w[drop] = 0;
        shown--;
    }
    if (flex >= 0) {
        int extra = total_width - need;
        w[flex] += extra;          /* grows, or shrinks when even it alone is too wide */
        if (w[flex] < 1) w[flex] = 1;
    }
    int pos = 0;
    for (int i = 0; i < n; i++) {
        x[i] = pos;
        if (w[i]) pos += w[i] + gap;
    }
    return shown;
}

int columns_fit_flex(const struct col_def *defs, int n, int *x, int *w, int want) {
    int flex = -1;
    for (int i = 0; i < n && flex < 0; i++)
        if (defs[i].flex) flex = i;
    if (flex < 0) return 0;
    if (want < defs[flex].width) want = defs[flex].width;
    int spare = w[flex] - want;
    if (spare <= 0) return 0;
    w[flex] = want;
    for (int i = flex + 1; i < n; i++) x[i] -= spare;
    return spare;
}

int columns_at(const int *x, const int *w, int n, int gap, int col) {
    for (int i = 0; i < n; i++)
        if (w[i] && col >= x[i] && col < x[i] + w[i] + gap) return i;
    return -1;
}
