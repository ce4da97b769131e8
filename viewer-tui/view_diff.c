/*
 * view_diff.c -- recorder-top A.rec B.rec: two runs side by side, as
 * Tracy's compare.  Both captures are read whole, each into a model
 * without an event log (memory follows the names, not the events:
 * rec_diff_run_read, as recorder-web A.rec B.rec reads them), and their
 * per-scope statistics over the whole run are joined by name
 * (rec_stats_diff, the same as `recorder report A --diff B`).
 *
 * The table: one row per scope, its calls, mean, P50 and P99 in A and in
 * B and their change in %, ordered by the size of a change (s: mean, P50,
 * P99, calls, total, name; S reverses).  Columns that do not fit are left
 * out, least useful first; the name keeps at least 16 columns.  Enter
 * opens a panel over the table with both runs' duration histograms, one
 * line per octave, A's bar above B's.  P50 and P99 are histogram
 * midpoints (within 1.6%): the second title line says so.
 */
#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "draw.h"
#include "format.h"
#include "input.h"
#include "recorder/capture.h"
#include "recorder/diff.h"
#include "view_diff.h"

struct run {
    char label[256];          /* the file, escaped */
    struct rec_diff_run d;    /* read as recorder-web A.rec B.rec reads it */
};

struct diff_state {
    struct run r[2];
    struct rec_diff_row *rows;
    size_t n_rows;
    int key, rev, sel, scroll, detail, quit;
};

static int read_run(struct run *r, const char *path, char *err, size_t errlen) {
    int rc = rec_diff_run_read(path, &r->d, err, errlen);
    snprintf(r->label, sizeof r->label, "%s", path);   /* drawn through text_fit: controls become '?' */
    return rc;
}

static int order(struct diff_state *d) {
    free(d->rows);
    d->rows = NULL;
    if (rec_stats_diff(d->r[0].d.st, d->r[0].d.n, d->r[1].d.st, d->r[1].d.n, (enum rec_diff_key)d->key, &d->rows,
                       &d->n_rows) != 0)
        return -1;
    if (d->rev)
        for (size_t i = 0; i < d->n_rows / 2; i++) {
            struct rec_diff_row t = d->rows[i];
            d->rows[i] = d->rows[d->n_rows - 1 - i];
            d->rows[d->n_rows - 1 - i] = t;
        }
    return 0;
}

int diff_open(struct diff_state **out, const char *a, const char *b, char *err, size_t errlen) {
    struct diff_state *d = calloc(1, sizeof *d);
    if (!d) return snprintf(err, errlen, "out of memory"), REC_ERR_NOMEM;
    int rc = read_run(&d->r[0], a, err, errlen);
    if (rc == REC_OK) rc = read_run(&d->r[1], b, err, errlen);
    if (rc == REC_OK && order(d) != 0) rc = (snprintf(err, errlen, "out of memory"), REC_ERR_NOMEM);
    if (rc != REC_OK) {
        diff_free(d);
        return rc;
    }
    *out = d;
    return REC_OK;
}

void diff_free(struct diff_state *d) {
    if (!d) return;
    for (int i = 0; i < 2; i++) {
        rec_diff_run_free(&d->r[i].d);
    }
    free(d->rows);
    free(d);
}

/* ---- the table ---------------------------------------------------------- */

enum col { C_CALLS_A, C_CALLS_B, C_CALLS_PCT, C_MEAN_A, C_MEAN_B, C_MEAN_PCT, C_P50_A, C_P50_B, C_P50_PCT,
           C_P99_A, C_P99_B, C_P99_PCT, C_N };
/* The changes' titles start with a Delta, or a 'd' where the terminal is
 * not UTF-8 (the title is then drawn from its second byte on: see
 * title_of). */
static const char *const col_title[C_N] = {"CALLS A", "CALLS B", "ΔCALLS", "MEAN A", "MEAN B", "ΔMEAN",
                                           "P50 A",   "P50 B",   "ΔP50",   "P99 A",  "P99 B",  "ΔP99"};
static const char *title_of(enum col c, char *buf, size_t cap) {
    if (draw_utf8 || c % 3 != 2) return col_title[c];
    snprintf(buf, cap, "d%s", col_title[c] + strlen("Δ"));
    return buf;
}
static const int col_w[C_N] = {8, 8, 7, 8, 8, 7, 8, 8, 7, 8, 8, 7};
/* Left out first when the terminal is narrow: the last of these. */
static const enum col keep_order[C_N] = {C_MEAN_A,  C_MEAN_B, C_MEAN_PCT, C_P99_PCT, C_CALLS_A, C_CALLS_B,
                                         C_P50_PCT, C_P99_A,  C_P99_B,    C_CALLS_PCT, C_P50_A, C_P50_B};
#define NAME_MIN 16

static void layout(int width, int on[C_N]) {
    int used = NAME_MIN;
    memset(on, 0, C_N * sizeof *on);
    for (int i = 0; i < C_N; i++)
        if (used + 1 + col_w[keep_order[i]] <= width) {
            on[keep_order[i]] = 1;
            used += 1 + col_w[keep_order[i]];
        }
}

/* The change in %, "new", "gone", or "-". */
static const char *pct(char *buf, size_t cap, const struct rec_diff_row *r, double va, double vb) {
    if (!r->a) return "new";
    if (!r->b) return "gone";
    if (va == 0) return vb == 0 ? "0.0%" : "-";
    snprintf(buf, cap, "%+.1f%%", 100.0 * (vb - va) / va);
    return buf;
}

static const char *cell(char *buf, size_t cap, const struct rec_diff_row *r, enum col c) {
    static const enum rec_diff_key key_of[4] = {REC_DIFF_CALLS, REC_DIFF_MEAN, REC_DIFF_P50, REC_DIFF_P99};
    enum rec_diff_key k = key_of[c / 3];
    double va = rec_diff_value(r->a, k), vb = rec_diff_value(r->b, k);
    switch (c % 3) {
    case 0:
        if (!r->a) return "-";
        return k == REC_DIFF_CALLS ? fmt_si(buf, cap, va) : fmt_duration(buf, cap, va, draw_utf8);
    case 1:
        if (!r->b) return "-";
        return k == REC_DIFF_CALLS ? fmt_si(buf, cap, vb) : fmt_duration(buf, cap, vb, draw_utf8);
    default: return pct(buf, cap, r, va, vb);
    }
}

/* A change's color: slower (more time, more calls) is hot, faster dim. */
static attr_t change_attr(const struct rec_diff_row *r, enum col c) {
    if (c % 3 != 2 || !r->a || !r->b) return theme_attr(R_NORMAL);
    static const enum rec_diff_key key_of[4] = {REC_DIFF_CALLS, REC_DIFF_MEAN, REC_DIFF_P50, REC_DIFF_P99};
    double va = rec_diff_value(r->a, key_of[c / 3]), vb = rec_diff_value(r->b, key_of[c / 3]);
    if (va > 0 && vb > va * 1.05) return theme_attr(R_HOT);
    if (va > 0 && vb < va * 0.95) return theme_attr(R_ALIVE);
    return theme_attr(R_NORMAL);
}

static void draw_table(struct diff_state *d, int y, int h) {
    int on[C_N];
    layout(COLS, on);
    int nums = 0;
    for (int c = 0; c < C_N; c++) nums += on[c] ? col_w[c] + 1 : 0;
    /* The name gets what its longest needs, not all that is left: the
     * numbers stay next to it on a wide terminal. */
    int longest = NAME_MIN;
    for (size_t k = 0; k < d->n_rows; k++) {
        const struct rec_stat *s = d->rows[k].a ? d->rows[k].a : d->rows[k].b;
        int w = text_width(s->name, draw_utf8) + (s->wait ? 9 : 2);
        if (w > longest) longest = w;
    }
    int name_w = COLS - nums < longest ? COLS - nums : longest;
    attr_t head = theme_attr(R_COLHEAD);
    draw_fill(y, 0, COLS, head);
    draw_text(y, 0, name_w, " SCOPE", FIT_LEFT, head);
    int x = name_w;
    static const int key_col[REC_DIFF_NKEYS] = {C_MEAN_PCT, C_P50_PCT, C_P99_PCT, C_CALLS_PCT, -1, -1};
    for (int c = 0; c < C_N; c++) {
        if (!on[c]) continue;
        char tb[16];
        draw_text(y, x + 1, col_w[c], title_of((enum col)c, tb, sizeof tb), FIT_RIGHT,
                  c == key_col[d->key] ? theme_attr(R_COLHEAD_SORT) : head);
        x += col_w[c] + 1;
    }
    int rows = h - 1;
    if (d->sel >= (int)d->n_rows) d->sel = d->n_rows ? (int)d->n_rows - 1 : 0;
    if (d->sel < d->scroll) d->scroll = d->sel;
    if (rows > 0 && d->sel >= d->scroll + rows) d->scroll = d->sel - rows + 1;
    for (int i = 0; i < rows; i++) {
        size_t k = (size_t)(d->scroll + i);
        int yy = y + 1 + i;
        draw_fill(yy, 0, COLS, A_NORMAL);
        if (k >= d->n_rows) continue;
        const struct rec_diff_row *r = &d->rows[k];
        int sel = (int)k == d->sel;
        attr_t base = sel ? theme_attr(R_SELECTED) : theme_attr(R_NORMAL);
        if (sel) draw_fill(yy, 0, COLS, base);
        const struct rec_stat *s = r->a ? r->a : r->b;
        char nm[512];
        snprintf(nm, sizeof nm, " %s%s", s->name, s->wait ? " [wait]" : "");
        draw_text(yy, 0, name_w, nm, FIT_MIDDLE, base);
        x = name_w;
        for (int c = 0; c < C_N; c++) {
            if (!on[c]) continue;
            char b[FMT_BUF];
            draw_text(yy, x + 1, col_w[c], cell(b, sizeof b, r, (enum col)c), FIT_RIGHT, sel ? base : change_attr(r, c));
            x += col_w[c] + 1;
        }
    }
    if (!d->n_rows) draw_text(y + 1, 1, COLS - 2, "No scope completed in either run.", FIT_LEFT, theme_attr(R_DIM));
}

/* ---- the histograms panel ----------------------------------------------- */

static void draw_panel(struct diff_state *d, int y, int h) {
    if (!d->n_rows) return;
    const struct rec_diff_row *r = &d->rows[d->sel];
    struct rec_scope_detail det[2];
    int ok[2] = {0, 0};
    const struct rec_stat *s[2] = {r->a, r->b};
    for (int i = 0; i < 2; i++)
        ok[i] = s[i] && rec_model_scope_detail(d->r[i].d.m, REC_WIN_ALL, -1, s[i]->name_id, &det[i]) == 0;
    int w = COLS - 2 < 100 ? COLS - 2 : 100, hh = h - 1;
    if (w < 40 || hh < 8) return;
    int x0 = (COLS - w) / 2, ix = x0 + 2, iw = w - 4;
    attr_t body = theme_attr(R_KEYLABEL), bold = body | A_BOLD;
    for (int i = 0; i < hh; i++) draw_fill(y + i, 0, COLS, A_NORMAL);   /* the table beside it too */
    draw_box(y, x0, hh, w, body);
    char t[600], n1[FMT_BUF], n2[FMT_BUF], n3[FMT_BUF];
    snprintf(t, sizeof t, " %s: A and B ", (r->a ? r->a : r->b)->name);
    draw_text(y, ix, iw, t, FIT_MIDDLE | FIT_NO_PAD, theme_attr(R_TITLE));
    int yy = y + 1, last = y + hh - 2;
    for (int i = 0; i < 2; i++) {
        if (!ok[i]) snprintf(t, sizeof t, "%c: not in this run", 'A' + i);
        else
            snprintf(t, sizeof t, "%c: %s calls   P50 %s   P99 %s   max %s", 'A' + i, fmt_si(n1, sizeof n1, (double)det[i].calls),
                     fmt_duration(n2, sizeof n2, det[i].p50_ns, draw_utf8), fmt_duration(n3, sizeof n3, det[i].p99_ns, draw_utf8),
                     fmt_duration(t + 500, 24, det[i].max_ns, draw_utf8));
        draw_text(yy++, ix, iw, t, FIT_LEFT, bold);
    }
    /* Octaves either run used, A's bar then B's, scaled to the largest. */
    int lo = -1, hi = -1;
    uint64_t maxc = 1;
    for (int i = 0; i < 2; i++)
        for (int k = 0; ok[i] && k < REC_HIST_OCTAVES; k++)
            if (det[i].octave[k]) {
                if (lo < 0 || k < lo) lo = k;
                if (k > hi) hi = k;
                if (det[i].octave[k] > maxc) maxc = det[i].octave[k];
            }
    int merge = 1;
    while (lo >= 0 && ((hi - lo) / merge + 1) * 2 > last - yy) merge++;
    int label_w = 18, count_w = 9, bar_w = iw - label_w - count_w - 4;
    for (int k = lo; lo >= 0 && k <= hi && yy + 1 <= last; k += merge) {
        uint64_t c[2] = {0, 0};
        for (int i = 0; i < 2; i++)
            for (int j = k; j < k + merge && j < REC_HIST_OCTAVES; j++) c[i] += ok[i] ? det[i].octave[j] : 0;
        if (merge > 1 && c[0] > maxc) maxc = c[0];
        for (int i = 0; i < 2; i++) {
            char lab[64] = "";
            if (i == 0) {
                int top = k + merge < 63 ? k + merge : 63;
                snprintf(lab, sizeof lab, "%s-%s", fmt_duration(n1, sizeof n1, (double)(1ull << k), draw_utf8),
                         fmt_duration(n2, sizeof n2, (double)(1ull << top), draw_utf8));
            }
            draw_text(yy, ix, label_w, lab, FIT_RIGHT, body);
            draw_text(yy, ix + label_w + 1, 2, i ? "B" : "A", FIT_LEFT, bold);
            int n = bar_w > 0 ? (int)((double)c[i] / (double)maxc * bar_w + (c[i] ? 0.999 : 0)) : 0;
            if (n > bar_w) n = bar_w;
            char bar[3 * 256 + 1];
            size_t bl = 0;
            for (int j = 0; j < n && j < 256; j++) {   /* a full block, or '#' in ASCII */
                const char *b = draw_utf8 ? "\u2588" : "#";
                memcpy(bar + bl, b, strlen(b));
                bl += strlen(b);
            }
            bar[bl] = 0;
            draw_put(yy, ix + label_w + 3, bar, i ? theme_attr(R_WARM) : theme_attr(R_SPARK));
            draw_text(yy, ix + label_w + 4 + bar_w, count_w, fmt_si(n3, sizeof n3, (double)c[i]), FIT_RIGHT, body);
            yy++;
        }
    }
    draw_text(last, ix, iw, draw_utf8 ? "Enter/Esc close  ↑↓ another scope" : "Enter/Esc close  Up/Down another scope",
              FIT_LEFT, theme_attr(R_DIM));
}

/* ---- the screen and the keys -------------------------------------------- */

static void draw_all(struct diff_state *d) {
    static uint64_t frames;
    erase();
    if (COLS < MIN_COLS || LINES < MIN_LINES) {
        chrome_draw_too_small(MIN_COLS, MIN_LINES);
        draw_frame_mark(frames++);
        refresh();
        return;
    }
    char t[1024];
    attr_t title = theme_attr(R_TITLE);
    draw_fill(0, 0, COLS, title);
    snprintf(t, sizeof t, " recorder-top diff  A %s (%llu events%s)  B %s (%llu events%s)", d->r[0].label,
             (unsigned long long)d->r[0].d.events, d->r[0].d.lost ? ", partial" : "", d->r[1].label,
             (unsigned long long)d->r[1].d.events, d->r[1].d.lost ? ", partial" : "");
    draw_text(0, 0, COLS, t, FIT_MIDDLE, title);
    snprintf(t, sizeof t, " %zu scopes, whole runs, %s = B vs A, by the change in %s%s; P50/P99 within 1.6%%",
             d->n_rows, draw_utf8 ? "Δ" : "d", rec_diff_key_name[d->key], d->rev ? " (reversed)" : "");
    draw_text(1, 0, COLS, t, FIT_LEFT, theme_attr(R_DIM));
    draw_table(d, 2, LINES - 3);
    if (d->detail) draw_panel(d, 3, LINES - 4);
    attr_t key = theme_attr(R_KEY), lab = theme_attr(R_KEYLABEL);
    draw_fill(LINES - 1, 0, COLS, lab);
    int x = 0;
    static const char *const keys[][2] = {{"s", "sort"}, {"S", "reverse"}, {"Enter", "histograms"}, {"q", "quit"}};
    for (size_t i = 0; i < sizeof keys / sizeof *keys; i++) {
        x = draw_put(LINES - 1, x + 1, keys[i][0], key);
        x = draw_put(LINES - 1, x + 1, keys[i][1], lab);
    }
    draw_frame_mark(frames++);
    refresh();
}

static void on_key(struct diff_state *d, wint_t ch, int code) {
    enum action act = input_action((uint32_t)ch, code);
    int page = LINES - 4 > 1 ? LINES - 4 : 1, to;
    switch (act) {
    case ACT_QUIT: d->quit = 1; return;
    case ACT_SORT:
        d->key = (d->key + 1) % REC_DIFF_NKEYS;
        order(d);
        d->sel = d->scroll = 0;
        return;
    case ACT_SORT_REVERSE:
        d->rev = !d->rev;
        order(d);
        d->sel = d->scroll = 0;
        return;
    case ACT_ENTER: d->detail = !d->detail; return;
    case ACT_BACK: d->detail = 0; return;
    default:
        if (list_move(act, d->sel, (int)d->n_rows, page, &to)) d->sel = to;
    }
}

int diff_run(struct diff_state *d) {
    while (!d->quit && !app_interrupted) {
        draw_all(d);
        wint_t ch;
        timeout(500);   /* wakes for a signal's flag */
        int r = get_wch(&ch);
        if (r == ERR) continue;
        on_key(d, ch, r == KEY_CODE_YES);
    }
    return 0;
}
