/*
 * view_details.c -- Enter on a scope in Top: a panel over the table with
 * the scope's duration histogram (one text bar per octave of duration,
 * log-scale bins), its P50 / P90 / P99 / P99.9 over the window, and a
 * sparkline of its P99 in each of the last 60 seconds (all threads).
 *
 * The figures are librecorder's (rec_model_scope_detail, from the same
 * histogram cells as Top's columns).  When entries were lost in the
 * window the heading and the percentiles carry PARTIAL_MARK: they are of
 * the calls whose begin and end were both read.  Enter, Esc or Backspace
 * close it; the arrows pick another scope under it.
 */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "draw.h"
#include "format.h"
#include "sparkline.h"

#define DETAIL_NAME_LINES 3   /* a long name's lines under the heading */

/* The histogram's rows: octaves [lo, hi] merged `merge` at a time so
 * that they fit in `rows`. */
static int hist_rows(const struct rec_scope_detail *d, int rows, int *lo, int *merge) {
    int a = -1, b = -1;
    for (int k = 0; k < REC_HIST_OCTAVES; k++)
        if (d->octave[k]) {
            if (a < 0) a = k;
            b = k;
        }
    *lo = a;
    *merge = 1;
    if (a < 0 || rows < 1) return 0;
    while ((b - a) / *merge + 1 > rows) (*merge)++;
    return (b - a) / *merge + 1;
}

void view_details_draw(struct app *a, int y, int h) {
    const struct snap *s = &a->snap;
    const struct rec_scope_detail *d = &s->detail;
    int w = COLS - 2 < 100 ? COLS - 2 : 100;
    const char *name = "?";
    for (size_t i = 0; i < s->n_rows; i++)
        if (s->rows[i].name_id == a->top_sel_id && s->rows[i].name) name = s->rows[i].name;
    char t[512], th[96], n1[FMT_BUF], n2[FMT_BUF], n3[FMT_BUF], n4[FMT_BUF];
    int partial = s->detail_ok && d->partial;
    snprintf(t, sizeof t, " %s%s %s window %s %s %s ", partial ? PARTIAL_MARK " " : "", name, sym(SYM_SEP),
             app_window_name(a->win), sym(SYM_SEP), app_thread_name(a, th, sizeof th));
    /* Top cuts long names; here the whole name is shown: on lines of its
     * own (at most DETAIL_NAME_LINES) when the heading cannot hold it. */
    int name_lines = 0;
    if (w - 4 > 0 && text_width(t, draw_utf8) > w - 4) {
        name_lines = (text_width(name, draw_utf8) + w - 5) / (w - 4);
        if (name_lines > DETAIL_NAME_LINES) name_lines = DETAIL_NAME_LINES;
    }
    /* As tall as its content: heading, the name's lines, 2 lines of
     * figures, the histogram (one line an octave), the P99 line and the
     * bottom edge. */
    int lo0, merge0, want = hist_rows(d, REC_HIST_OCTAVES, &lo0, &merge0) + 7 + name_lines;
    int hh = h - 2 < want ? h - 2 : want;
    if (w < 40 || hh < 9 + name_lines) hh = h - 2 < 9 + name_lines ? h - 2 : 9 + name_lines;
    if (w < 40 || hh < 9 + name_lines) name_lines = 0, hh = h - 2 < 9 ? h - 2 : 9;
    if (w < 40 || hh < 9) return;
    int x0 = (COLS - w) / 2, y0 = y + 1;
    attr_t body = theme_attr(R_KEYLABEL), bold = body | A_BOLD, warn = theme_attr(R_WARN);
    for (int i = 0; i < hh; i++) draw_fill(y0 + i, 0, COLS, A_NORMAL);   /* Top's rows beside it too */
    draw_box(y0, x0, hh, w, body);
    draw_text(y0, x0 + 2, w - 4, t, FIT_MIDDLE | FIT_NO_PAD, theme_attr(R_TITLE));
    int iw = w - 4, ix = x0 + 2, yy = y0 + 1, last = y0 + hh - 2;
    for (int l = 0; l < name_lines; l++, yy++) {
        size_t k = text_take(name, iw, draw_utf8);
        if (l == name_lines - 1 && name[k]) k = strlen(name);   /* the last line: the rest, cut */
        snprintf(t, sizeof t, "%.*s", (int)k, name);
        draw_text(yy, ix, iw, t, FIT_MIDDLE, bold);
        name += k;
    }
    if (!s->detail_ok || d->calls == 0) {
        draw_text(yy, ix, iw, "No call of this scope completed in the window. Press w for a longer one.", FIT_LEFT, body);
    } else {
        snprintf(t, sizeof t, "%s calls %s min %s %s max %s", fmt_si(n1, sizeof n1, (double)d->calls), sym(SYM_SEP),
                 fmt_duration(n2, sizeof n2, d->min_ns, draw_utf8), sym(SYM_SEP),
                 fmt_duration(n3, sizeof n3, d->max_ns, draw_utf8));
        draw_text(yy++, ix, iw, t, FIT_LEFT, body);
        char p50[FMT_BUF], p90[FMT_BUF], p99[FMT_BUF], p999[FMT_BUF];
        snprintf(t, sizeof t, "%sP50 %s   P90 %s   P99 %s   P99.9 %s", partial ? PARTIAL_MARK " " : "",
                 fmt_duration(p50, sizeof p50, d->p50_ns, draw_utf8), fmt_duration(p90, sizeof p90, d->p90_ns, draw_utf8),
                 fmt_duration(p99, sizeof p99, d->p99_ns, draw_utf8),
                 fmt_duration(p999, sizeof p999, d->p999_ns, draw_utf8));
        draw_text(yy++, ix, iw, t, FIT_LEFT, bold);
        /* Histogram: what is left but the P99 line and the key line. */
        int lo, merge, n = hist_rows(d, last - yy - 2, &lo, &merge);
        uint64_t maxc = 0, cnt[REC_HIST_OCTAVES];
        for (int r = 0; r < n; r++) {
            cnt[r] = 0;
            for (int k = lo + r * merge; k < lo + (r + 1) * merge && k < REC_HIST_OCTAVES; k++) cnt[r] += d->octave[k];
            if (cnt[r] > maxc) maxc = cnt[r];
        }
        const int lw = 17, cw = 14, bw = iw - lw - cw - 2;
        for (int r = 0; r < n && yy < last - 1; r++, yy++) {
            double b0 = ldexp(1, lo + r * merge), b1 = ldexp(1, lo + (r + 1) * merge);
            snprintf(t, sizeof t, "%s-%s", fmt_duration(n1, sizeof n1, r == 0 && lo == 0 ? 0 : b0, draw_utf8),
                     fmt_duration(n2, sizeof n2, b1, draw_utf8));
            draw_text(yy, ix, lw, t, FIT_RIGHT, body);
            hbar(t, sizeof t, maxc ? (double)cnt[r] / (double)maxc : 0, bw, draw_utf8);
            draw_text(yy, ix + lw + 1, bw, t, FIT_LEFT, theme_attr(R_SPARK));
            snprintf(t, sizeof t, "%s %5.1f%%", fmt_si(n1, sizeof n1, (double)cnt[r]),
                     100.0 * (double)cnt[r] / (double)d->calls);
            draw_text(yy, ix + lw + 1 + bw + 1, cw, t, FIT_RIGHT, body);
        }
    }
    /* The last minute's P99, second by second. */
    double sc[REC_HISTORY_SECS], mx = 0;
    int any_partial = 0;
    for (int i = 0; i < REC_HISTORY_SECS; i++) {
        if (s->detail_ok && isfinite(d->p99_sec[i]) && d->p99_sec[i] > mx) mx = d->p99_sec[i];
        any_partial |= s->detail_ok && d->p99_sec_partial[i];
    }
    snprintf(t, sizeof t, "%sP99 per second, last minute (max %s): ", any_partial ? PARTIAL_MARK " " : "",
             fmt_duration(n4, sizeof n4, mx > 0 ? mx : NAN, draw_utf8));
    int tw = text_width(t, draw_utf8);
    draw_text(last, ix, iw, t, FIT_LEFT, body);
    if (s->detail_ok && iw - tw > 4) {
        sparkline_scale(d->p99_sec, REC_HISTORY_SECS, sc, 1);
        sparkline(t, sizeof t, sc, REC_HISTORY_SECS, iw - tw < REC_HISTORY_SECS ? iw - tw : REC_HISTORY_SECS, draw_utf8);
        draw_text(last, ix + tw, iw - tw, t, FIT_LEFT, theme_attr(R_SPARK));
    }
    if (partial || any_partial) draw_text(last, ix, 1, PARTIAL_MARK, FIT_LEFT, warn);
    draw_text(y0 + hh - 1, x0 + 2, w - 4, " Enter/Esc close, arrows: another scope ", FIT_NO_PAD, body);
}
