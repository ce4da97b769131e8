/*
 * view_top.c -- the Top view: one row per scope name with calls/s, total
 * and self time as a share of the window, and the latency distribution.
 *
 * TOTAL% is time inside the scope per unit of wall time in the window,
 * summed over threads, as top counts CPU: 100% is one thread inside it all
 * the time, so a scope run by four threads at once can show 400%.
 *
 * When entries were lost in the window, every figure is computed from
 * partial data and each row says so with PARTIAL_MARK in its first
 * column (a margin, a blank after it, so no name is mistaken for it).  TOTAL% and SELF%
 * then come from librecorder's shares over the time the decoded data
 * covers (rec_stat.total_frac), not over the whole window: a thread
 * inside one scope all the time reads ~100%, not the share we decoded.
 */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "columns.h"
#include "draw.h"
#include "format.h"
#include "proc_view.h"

/* The least used columns go first.  The name column is as wide as the
 * widest name needs (columns_fit_flex), so that on a wide terminal the
 * numbers sit beside the names; a name too long for it loses what it
 * shares with the rows on screen (text_elide), so rows that differ only
 * inside ("…blk.3.ffn_down", "…blk.11.ffn_down") stay distinct.  It
 * takes at most half the terminal.  The
 * details panel (Enter) shows the whole name. */
static const struct col_def cols[TOP_NCOLS] = {
    [TOP_NAME] = {"SCOPE", 16, 1000, 1, 0},
    [TOP_CALLS] = {"CALLS", 7, 50, 0, 1},
    [TOP_RATE] = {"CALLS/S", 8, 80, 0, 1},
    [TOP_TOTAL] = {"TOTAL%", 7, 95, 0, 1},
    [TOP_SELF] = {"SELF%", 7, 90, 0, 1},
    [TOP_AVG] = {"AVG", 8, 70, 0, 1},
    [TOP_P50] = {"P50", 8, 60, 0, 1},
    [TOP_P95] = {"P95", 8, 55, 0, 1},
    [TOP_P99] = {"P99", 8, 75, 0, 1},
    [TOP_MAX] = {"MAX", 8, 65, 0, 1},
};

static attr_t pct_attr(double pct) {
    return theme_attr(pct >= 50 ? R_HOT : pct >= 10 ? R_WARM : R_NORMAL);
}

/* Keeps the selection on the same name across refreshes and re-sorts. */
static void place_selection(struct app *a, int rows) {
    int n = (int)a->snap.n_rows;
    for (int i = 0; i < n; i++)
        if (a->snap.rows[i].name_id == a->top_sel_id) {
            a->top_sel = i;
            break;
        }
    if (a->top_sel >= n) a->top_sel = n - 1;
    if (a->top_sel < 0) a->top_sel = 0;
    if (a->top_sel < a->top_scroll) a->top_scroll = a->top_sel;
    if (a->top_sel >= a->top_scroll + rows) a->top_scroll = a->top_sel - rows + 1;
    if (a->top_scroll > n - rows) a->top_scroll = n - rows;
    if (a->top_scroll < 0) a->top_scroll = 0;
}

/* A row's name as the SCOPE column shows it, marks included. */
static const char *row_name(struct app *a, const struct rec_stat *st, char *nm, size_t cap) {
    const char *txt = st->name ? st->name : "?";
    /* Ran on GPU lanes (gpu_rows.h): which; Enter on that lane in
     * Threads gives its own P50/P99. */
    const char *where = gpu_rows_where(a, st->name_id);
    if (where) snprintf(nm, cap, "%s [%s]", txt, where);
    /* A wait scope (docs/analysis.md): its time is not busy. */
    else if (st->wait) snprintf(nm, cap, "%s [wait]", txt);
    else return txt;
    return nm;
}

#define TOP_WIDEST_ROWS 4096   /* rows measured for the name column's width */
#define TOP_SHOWN_MAX 256      /* rows on screen whose names are compared */

void view_top_draw(struct app *a, int y, int h) {
    int x[TOP_NCOLS], w[TOP_NCOLS];
    /* Two columns on the left: the partial mark, then a blank before the
     * name, so that a name is never read as starting with the mark. */
    const int margin = 2;
    columns_layout(cols, TOP_NCOLS, COLS - margin - 1, 1, x, w);
    /* Several programs: the NAME column starts with whose it is (PROC). */
    int pw = proc_view_multi(a) ? (w[TOP_NAME] / 3 < 20 ? w[TOP_NAME] / 3 : 20) : 0;
    const struct snap *s = &a->snap;
    char nm[400];
    int widest = 0;
    for (size_t i = 0; i < s->n_rows && i < TOP_WIDEST_ROWS; i++) {
        int tw = text_width(row_name(a, &s->rows[i], nm, sizeof nm), draw_utf8);
        if (tw > widest) widest = tw;
    }
    /* Up to half the terminal: past that, the longest names are cut
     * rather than every row's numbers pushed away from its name. */
    int want = widest + (pw ? pw + 1 : 0) + 1;
    columns_fit_flex(cols, TOP_NCOLS, x, w, want < COLS / 2 ? want : COLS / 2);
    if (pw) {
        draw_fill(y, 0, COLS, theme_attr(R_COLHEAD));
        draw_text(y, margin + x[TOP_NAME], pw, "PROC", FIT_LEFT, theme_attr(R_COLHEAD));
        x[TOP_NAME] += pw + 1;
        w[TOP_NAME] -= pw + 1;
    }
    a->hit.head_y = y;   /* where a click sorts (mouse.c) */
    for (int c = 0; c < TOP_NCOLS; c++) {
        a->hit.col_x[c] = margin + x[c];
        a->hit.col_w[c] = w[c];
    }
    char t[32];
    if (!pw) draw_fill(y, 0, COLS, theme_attr(R_COLHEAD));
    for (int c = 0; c < TOP_NCOLS; c++) {
        if (!w[c]) continue;
        int sorted = c == (int)a->sort;
        snprintf(t, sizeof t, "%s%s", cols[c].title, sorted ? sym(a->sort_rev ? SYM_UP : SYM_DOWN) : "");
        draw_text(y, margin + x[c], w[c], t, cols[c].right ? FIT_RIGHT : FIT_LEFT,
                  theme_attr(sorted ? R_COLHEAD_SORT : R_COLHEAD));
    }
    int rows = h - 2;   /* column titles above, a summary below */
    if (rows < 1) return;
    place_selection(a, rows);
    a->hit.rows_y = y + 1;
    a->hit.rows_n = rows;
    a->hit.rows_first = a->top_scroll;
    /* The names on screen, each cut against the others. */
    static char shown_nm[TOP_SHOWN_MAX][400];
    const char *peers[TOP_SHOWN_MAX];
    size_t n_peers = 0;
    for (int r = 0; r < rows && r < TOP_SHOWN_MAX && a->top_scroll + r < (int)s->n_rows; r++) {
        const char *t = row_name(a, &s->rows[a->top_scroll + r], shown_nm[r], sizeof shown_nm[r]);
        if (t != shown_nm[r]) snprintf(shown_nm[r], sizeof shown_nm[r], "%s", t);
        peers[n_peers++] = shown_nm[r];
    }
    double span = s->span_ns;
    int partial = s->cover.partial;
    for (int r = 0; r < rows; r++) {
        int i = a->top_scroll + r;
        if (i >= (int)s->n_rows) break;
        const struct rec_stat *st = &s->rows[i];
        int yy = y + 1 + r, sel = i == a->top_sel;
        attr_t base = sel ? theme_attr(R_SELECTED) : A_NORMAL;
        if (sel) draw_fill(yy, 0, COLS, base);
        if (partial) draw_text(yy, 0, 1, PARTIAL_MARK, FIT_LEFT, sel ? base : theme_attr(R_WARN));
        if (pw) draw_text(yy, margin + x[TOP_NAME] - pw - 1, pw, proc_view_of_name(a, st->name_id), FIT_LEFT, base);
        char v[FMT_BUF];
        for (int c = 0; c < TOP_NCOLS; c++) {
            if (!w[c]) continue;
            attr_t at = base;
            const char *txt = v;
            double pct;
            switch (c) {
            case TOP_NAME: txt = r < (int)n_peers ? peers[r] : row_name(a, st, nm, sizeof nm); break;
            case TOP_CALLS: fmt_si(v, sizeof v, (double)st->calls); break;
            case TOP_RATE: fmt_si(v, sizeof v, st->calls_per_sec); break;
            case TOP_TOTAL:
            case TOP_SELF:
                pct = span > 0 ? 100 * (c == TOP_TOTAL ? st->total_frac : st->self_frac) : -1;
                if (pct < 0) snprintf(v, sizeof v, "-");
                else fmt_pct(v, sizeof v, pct);
                if (!sel) at = pct_attr(pct);
                break;
            case TOP_AVG: fmt_duration(v, sizeof v, st->avg_ns, draw_utf8); break;
            case TOP_P50: fmt_duration(v, sizeof v, st->p50_ns, draw_utf8); break;
            case TOP_P95: fmt_duration(v, sizeof v, st->p95_ns, draw_utf8); break;
            case TOP_P99: fmt_duration(v, sizeof v, st->p99_ns, draw_utf8); break;
            case TOP_MAX: fmt_duration(v, sizeof v, st->max_ns, draw_utf8); break;
            }
            if (c == TOP_NAME) {
                char fitted[1024];
                text_elide(fitted, sizeof fitted, txt, peers, n_peers, w[c], 0, draw_utf8);
                draw_text(yy, margin + x[c], w[c], fitted, FIT_NO_PAD, at);
            } else {
                draw_text(yy, margin + x[c], w[c], txt, FIT_RIGHT, at);
            }
        }
    }
    if (s->n_rows == 0) {
        char msg[256];
        if (s->n_stats) snprintf(msg, sizeof msg, "No scope name contains \"%s\" (%zu hidden). Press / to change the filter.",
                                 a->filter, s->n_stats);
        else if (a->win == REC_WIN_1S)
            snprintf(msg, sizeof msg, "No scope completed in the last second. Press w for a longer window.");
        else snprintf(msg, sizeof msg, "No scope has completed in this window yet.");
        draw_center(y + 1 + rows / 2, msg, theme_attr(R_DIM));
    }
    /* Summary; when partial, what the mark means comes first. */
    char msg[400], d[FMT_BUF];
    int k = 0;
    if (partial)
        k = snprintf(msg, sizeof msg, "%s partial (entries lost): %% of the decoded time %s", PARTIAL_MARK,
                     sym(SYM_SEP));
    k += snprintf(msg + k, sizeof msg - (size_t)k, " %zu", s->n_match);
    if (s->n_match != s->n_stats) k += snprintf(msg + k, sizeof msg - (size_t)k, " of %zu", s->n_stats);
    k += snprintf(msg + k, sizeof msg - (size_t)k, " scopes");
    if (s->n_rows < s->n_match) k += snprintf(msg + k, sizeof msg - (size_t)k, " (the first %zu listed)", s->n_rows);
    snprintf(msg + k, sizeof msg - (size_t)k, " %s over %s %s 100%% = one thread inside it all the time",
             sym(SYM_SEP), fmt_duration(d, sizeof d, span, draw_utf8), sym(SYM_SEP));
    if (s->past_limit) {   /* counted, never dropped (docs/tui.md) */
        size_t at = strlen(msg);
        char note[96];
        snprintf(msg + at, sizeof msg - at, " %s %s", sym(SYM_SEP), rec_past_limit_str(s->past_limit, note, sizeof note));
    }
    draw_text(y + h - 1, 0, COLS, msg, FIT_LEFT, theme_attr(R_DIM));
    if (partial) draw_text(y + h - 1, 0, 1, PARTIAL_MARK, FIT_LEFT, theme_attr(R_WARN));
}

int view_top_key(struct app *a, enum action act, int page) {
    int n = (int)a->snap.n_rows, sel;
    if (act == ACT_ENTER) {   /* the selected scope's details (view_details.c) */
        if (a->top_sel < 0 || a->top_sel >= n) return 1;
        a->top_sel_id = a->snap.rows[a->top_sel].name_id;
        a->detail = 1;
        app_detail(a);
        return 1;
    }
    if (!list_move(act, a->top_sel, n, page, &sel)) return 0;
    a->top_sel = sel;
    if (sel < n) a->top_sel_id = a->snap.rows[sel].name_id;
    if (a->detail) app_detail(a);
    return 1;
}
