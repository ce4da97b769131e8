/*
 * view_counters.c -- the Counters view: one row per counter (REC_COUNTER)
 * with its latest value, min / avg / max over the window and a sparkline
 * of its per-second means over the last minute.
 *
 * Rows are in the order the program first used the counters' names, so a
 * program's headline counter, recorded first (the demo's tokens_per_s),
 * is the first row.  A row whose writer lost entries in the window has
 * PARTIAL_MARK in its first column: min, avg and max are of the samples
 * that were read.  A name too long for its column loses what it shares
 * with the other rows on screen (text_elide), as in Top.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "table.h"
#include "draw.h"
#include "format.h"
#include "sparkline.h"

enum { C_NAME, C_LAST, C_MIN, C_AVG, C_MAX, C_N, C_HIST, C_COLS };

void view_counters_draw(struct app *a, int y, int h) {
    int hist = COLS >= 150 ? 60 : COLS >= 110 ? 40 : 20;
    const struct col_def cols[C_COLS] = {
        [C_NAME] = {"COUNTER", 18, 1000, 1, 0},
        [C_LAST] = {"LATEST", 8, 95, 0, 1},
        [C_MIN] = {"MIN", 8, 80, 0, 1},
        [C_AVG] = {"AVG", 8, 85, 0, 1},
        [C_MAX] = {"MAX", 8, 82, 0, 1},
        [C_N] = {"SAMPLES", 8, 60, 0, 1},
        [C_HIST] = {hist >= 40 ? "PER SECOND, LAST MINUTE" : "LAST MINUTE", hist, 90, 0, 0},
    };
    int x[C_COLS], w[C_COLS];
    const int margin = TABLE_MARGIN;
    table_head(y, cols, C_COLS, x, w);
    const struct snap *s = &a->snap;
    int rows = h - 2, n = (int)s->n_counters;
    if (rows < 1) return;
    table_place(a, &a->ctr_sel, &a->ctr_scroll, n, rows, y + 1);
    /* The names on screen, each cut against the others. */
    const char *peers[REC_COUNTERS_MAX];
    size_t n_peers = 0;
    for (int r = 0; r < rows && a->ctr_scroll + r < n && n_peers < REC_COUNTERS_MAX; r++) {
        const char *nm = s->counters[a->ctr_scroll + r].name;
        peers[n_peers++] = nm ? nm : "?";
    }
    int any_partial = 0;
    for (int r = 0; r < rows && a->ctr_scroll + r < n; r++) {
        int i = a->ctr_scroll + r, yy = y + 1 + r, sel = i == a->ctr_sel;
        const struct rec_counter *k = &s->counters[i];
        attr_t base = sel ? theme_attr(R_SELECTED) : A_NORMAL;
        if (sel) draw_fill(yy, 0, COLS, base);
        if (k->partial) {
            any_partial = 1;
            draw_text(yy, 0, 1, PARTIAL_MARK, FIT_LEFT, sel ? base : theme_attr(R_WARN));
        }
        char v[512];
        double scaled[REC_HISTORY_SECS];
        for (int c = 0; c < C_COLS; c++) {
            if (!w[c]) continue;
            attr_t at = base;
            switch (c) {
            case C_NAME: text_elide(v, sizeof v, k->name ? k->name : "?", peers, n_peers, w[c], 0, draw_utf8); break;
            case C_LAST: fmt_si(v, sizeof v, k->last); break;
            case C_MIN: fmt_si(v, sizeof v, k->min); break;
            case C_AVG: fmt_si(v, sizeof v, k->avg); break;
            case C_MAX: fmt_si(v, sizeof v, k->max); break;
            case C_N: fmt_si(v, sizeof v, (double)k->samples); break;
            case C_HIST:
                sparkline_scale(k->per_sec, REC_HISTORY_SECS, scaled, 0);
                sparkline(v, sizeof v, scaled, REC_HISTORY_SECS, w[c], draw_utf8);
                if (!sel) at = theme_attr(R_SPARK);
                break;
            }
            draw_text(yy, margin + x[c], w[c], v, c == C_NAME ? FIT_NO_PAD : cols[c].right ? FIT_RIGHT : FIT_LEFT, at);
        }
    }
    if (n == 0)
        draw_center(y + 1 + rows / 2, "No counter yet: the program records none (REC_COUNTER).", theme_attr(R_DIM));
    char msg[320], d[FMT_BUF];
    int k = 0;
    if (any_partial)
        k = snprintf(msg, sizeof msg, "%s partial (entries lost): of the samples read %s", PARTIAL_MARK, sym(SYM_SEP));
    else msg[0] = 0;
    k += snprintf(msg + k, sizeof msg - (size_t)k, " %d counters %s min/avg/max over %s", n, sym(SYM_SEP),
                  fmt_duration(d, sizeof d, s->span_ns, draw_utf8));
    if (s->counters_untracked && k > 0 && (size_t)k < sizeof msg)
        snprintf(msg + k, sizeof msg - (size_t)k, " %s %llu samples of names past %d not shown", sym(SYM_SEP),
                 (unsigned long long)s->counters_untracked, REC_COUNTERS_MAX);
    draw_text(y + h - 1, 0, COLS, msg, FIT_LEFT, theme_attr(R_DIM));
    if (any_partial) draw_text(y + h - 1, 0, 1, PARTIAL_MARK, FIT_LEFT, theme_attr(R_WARN));
}

int view_counters_key(struct app *a, enum action act, int page) {
    int sel;
    if (!list_move(act, a->ctr_sel, (int)a->snap.n_counters, page, &sel)) return 0;
    a->ctr_sel = sel;
    return 1;
}
