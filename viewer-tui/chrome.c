/*
 * chrome.c -- the bars around the views: the title bar (program, state,
 * whether the statistics are partial, event rate, losses, ring fill,
 * history not kept), the tab bar (views and the current
 * window, thread, sort and filter), the exit or truncation banner, and
 * the key bar.
 */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "cursor.h"
#include "draw.h"
#include "format.h"
#include "proc_view.h"

const char *app_window_name(enum rec_window w) {
    switch (w) {
    case REC_WIN_1S: return "1s";
    case REC_WIN_10S: return "10s";
    default: return "whole run";
    }
}

const char *app_thread_name(struct app *a, char *buf, size_t cap) {
    if (a->tid == -1) {
        snprintf(buf, cap, "all threads");
        return buf;
    }
    for (size_t i = 0; i < a->snap.n_threads; i++)
        if (a->snap.threads[i].tid == a->tid && a->snap.threads[i].name[0]) {
            if (a->tid < 0) snprintf(buf, cap, "%s", a->snap.threads[i].name);   /* a lane: no tid */
            else snprintf(buf, cap, "%s (%d)", a->snap.threads[i].name, a->tid);
            return buf;
        }
    snprintf(buf, cap, "thread %d", a->tid);
    return buf;
}

/* The title line's items.  When they do not all fit, the least
 * important step goes first: an item taking its shorter form (the loss
 * rate left out, "partial 26%") or, later, going altogether. */
struct title_item {
    char text[96];
    char shorter[96];     /* "" if none */
    attr_t attr;
    int prio;             /* of keeping it; 100: always shown */
    int full_prio;        /* of keeping its full form, when it has a shorter one */
};

/* An item is " text " after a bar; the first one has no bar. */
static int item_width(const struct title_item *it, int form) {
    return text_width(form == 2 ? it->shorter : it->text, draw_utf8) + 3;
}

/* Which items fit in width: shown[i] = 0 (left out), 1 (full) or 2
 * (shorter). */
static void title_fit(const struct title_item *it, int n, int width, int *shown) {
    int need = -1;   /* no bar before the first */
    for (int i = 0; i < n; i++) {
        shown[i] = 1;
        need += item_width(&it[i], 1);
    }
    while (need > width) {
        int best = -1, best_prio = 0;
        for (int i = 0; i < n; i++) {
            int p = shown[i] == 1 && it[i].shorter[0] ? it[i].full_prio : shown[i] ? it[i].prio : 1000;
            if (p < 100 && (best < 0 || p < best_prio)) best = i, best_prio = p;
        }
        if (best < 0) break;   /* the program and its state always stay */
        need -= item_width(&it[best], shown[best]);
        if (shown[best] == 1 && it[best].shorter[0]) {
            shown[best] = 2;
            need += item_width(&it[best], 2);
        } else {
            shown[best] = 0;
        }
    }
}

#define TITLE_ITEMS 10

static int title_items(struct app *a, struct title_item *it) {
    struct source *s = a->src;
    const struct rec_window_cover *cv = &a->snap.cover;
    attr_t title = theme_attr(R_TITLE);
    char n1[FMT_BUF], n2[FMT_BUF];
    int n = 0;
    memset(it, 0, TITLE_ITEMS * sizeof *it);
    snprintf(it[n].text, sizeof it[n].text, "recorder-top");
    it[n].attr = theme_attr(R_TITLE_KEY);
    it[n++].prio = 1;
    /* A capture file says so: "file run.rec: prog pid 12". */
    snprintf(it[n].text, sizeof it[n].text, "%s%.40s%s%.30s pid %d", s->file ? "file " : "", s->file ? s->file->name : "",
             s->file ? ": " : "", s->info.process_name[0] ? s->info.process_name : "?", s->info.pid);
    if (s->procs) proc_view_title(a, it[n].text, sizeof it[n].text);
    it[n].attr = theme_attr(R_TITLE_KEY);
    it[n++].prio = 100;
    /* A capture file: where the cursor is, not running or exited. */
    if (s->file) cursor_title(a, it[n].text, sizeof it[n].text);
    else if (s->truncated) snprintf(it[n].text, sizeof it[n].text, "%s segment truncated", sym(SYM_SQUARE));
    else if (s->exited) snprintf(it[n].text, sizeof it[n].text, "%s exited", sym(SYM_SQUARE));
    else snprintf(it[n].text, sizeof it[n].text, "%s running", sym(SYM_DOT));
    it[n].attr = theme_attr(s->file ? R_TITLE_KEY : s->exited || s->truncated ? R_EXITED : R_ALIVE);
    it[n++].prio = 100;
    /* The statistics below are computed from partial data: say how much
     * of it was decoded (the window's events against its lost entries). */
    if (cv->partial) {
        /* Whole percents, never rounded to 100% or to 0% of something. */
        double pct = 100 * cv->decoded_frac;
        if (pct > 0 && pct < 1) snprintf(n1, sizeof n1, "<1%%");
        else snprintf(n1, sizeof n1, "%.0f%%", pct > 99 ? 99 : pct);
        snprintf(it[n].text, sizeof it[n].text, "partial: %s decoded", n1);
        snprintf(it[n].shorter, sizeof it[n].shorter, "partial %s", n1);
        it[n].attr = theme_attr(R_EXITED);
        it[n].full_prio = 60;
        it[n++].prio = 90;
    }
    if (!s->file) {   /* rates of a live program */
        snprintf(it[n].text, sizeof it[n].text, "%s ev/s", fmt_si(n1, sizeof n1, s->ev_rate));
        it[n].attr = title;
        it[n++].prio = 50;
    }
    /* Lost: since attach, while reading (overwritten, dropped, bad). */
    snprintf(it[n].text, sizeof it[n].text, "lost %s", fmt_si(n1, sizeof n1, (double)s->lost));
    if (s->loss_rate > 0) {
        snprintf(it[n].shorter, sizeof it[n].shorter, "%s", it[n].text);
        snprintf(it[n].text, sizeof it[n].text, "lost %s (+%s/s)", fmt_si(n1, sizeof n1, (double)s->lost),
                 fmt_si(n2, sizeof n2, s->loss_rate));
        it[n].full_prio = 40;
    }
    it[n].attr = s->lost ? theme_attr(R_EXITED) : title;
    it[n++].prio = 80;
    /* Threads that got no ring recorded nothing: never silent. */
    if (s->info.threads_no_slot) {
        rec_not_recorded_str(s->info.threads_no_slot, it[n].text, sizeof it[n].text);
        it[n].attr = theme_attr(R_EXITED);
        it[n++].prio = 85;
    }
    if (s->info.strings_dropped) {
        rec_names_full_str(s->info.strings_dropped, it[n].text, sizeof it[n].text);
        it[n].attr = theme_attr(R_EXITED);
        it[n++].prio = 84;
    }
    if (!s->file) {
        snprintf(it[n].text, sizeof it[n].text, "ring %s",
                 fmt_pct(n1, sizeof n1, 100 * (s->fill_shown > 1 ? 1 : s->fill_shown)));
        it[n].attr = s->fill_shown > 0.5 ? theme_attr(R_EXITED) : title;
        it[n++].prio = 30;
    }
    /* History the rings no longer held when we attached: not a loss, so
     * not in the loss's color, and the first to go. */
    if (s->not_kept) {
        snprintf(it[n].text, sizeof it[n].text, "not kept %s", fmt_si(n1, sizeof n1, (double)s->not_kept));
        it[n].attr = title;
        it[n++].prio = 10;
    }
    return n;
}

int chrome_draw_top(struct app *a) {
    struct source *s = a->src;
    attr_t title = theme_attr(R_TITLE);
    char buf[160];
    draw_fill(0, 0, COLS, title);
    struct title_item it[TITLE_ITEMS];
    int shown[TITLE_ITEMS], n = title_items(a, it);
    int pause_w = 0;
    if (a->paused) {
        snprintf(buf, sizeof buf, " %s PAUSED ", sym(SYM_PAUSE));
        pause_w = text_width(buf, draw_utf8);
    }
    title_fit(it, n, COLS - pause_w, shown);
    int x = 0, firsts = 0;
    for (int i = 0; i < n; i++) {
        if (!shown[i]) continue;
        const char *t = shown[i] == 2 ? it[i].shorter : it[i].text;
        if (firsts++) {
            x = draw_put(0, x, sym(SYM_VBAR), title);
        }
        x = draw_put(0, x, " ", title);
        x = draw_put(0, x, t, it[i].attr);
        x = draw_put(0, x, " ", title);
    }
    if (a->paused) draw_put(0, COLS - pause_w, buf, theme_attr(R_PAUSED));

    /* Tabs, then where we are. */
    static const char *const tabs[VIEW_COUNT] = {" 1 Top ", " 2 Flame ", " 3 Threads ", " 4 Counters ",
                                                 " 5 Messages "};
    draw_fill(1, 0, COLS, theme_attr(R_TAB));
    x = 0;
    for (int v = 0; v < VIEW_COUNT; v++) {
        a->hit.tab_x[v] = x;   /* where a click switches (mouse.c) */
        x = draw_put(1, x, tabs[v], theme_attr(v == (int)a->view ? R_TAB_ACTIVE : R_TAB));
        x = draw_put(1, x, " ", theme_attr(R_TAB));
    }
    a->hit.tab_x[VIEW_COUNT] = x;
    char th[96];
    int len = snprintf(buf, sizeof buf, " window %s %s %s", app_window_name(a->win), sym(SYM_SEP),
                       app_thread_name(a, th, sizeof th));
    if (a->view == VIEW_TOP && len > 0 && (size_t)len < sizeof buf)
        len += snprintf(buf + len, sizeof buf - (size_t)len, " %s sort %s %s", sym(SYM_SEP),
                        top_col_title[a->sort], sym(a->sort_rev ? SYM_UP : SYM_DOWN));
    if (a->view == VIEW_TOP && rec_model_fold(a->src->model) && len > 0 && (size_t)len < sizeof buf)
        len += snprintf(buf + len, sizeof buf - (size_t)len, " %s folded", sym(SYM_SEP));
    const char *filter = a->view == VIEW_MESSAGES ? a->msg_filter : a->filter;
    if (filter[0] && len > 0 && (size_t)len < sizeof buf)
        snprintf(buf + len, sizeof buf - (size_t)len, " %s filter \"%s\"", sym(SYM_SEP), filter);
    int w = text_width(buf, draw_utf8) + 1;
    if (x + w > COLS) w = COLS - x;
    if (w > 2) draw_text(1, COLS - w, w, buf, FIT_LEFT, theme_attr(R_TAB));

    const char *warning = cursor_banner(a);   /* a capture file cut short... */
    if (warning) {
        draw_fill(2, 0, COLS, theme_attr(R_BANNER));
        draw_put(2, 0, " ", theme_attr(R_BANNER));
        draw_text(2, 1, COLS - 1, warning, FIT_LEFT, theme_attr(R_BANNER));
        return 3;
    }
    if (!s->exited && !s->truncated) return 2;
    draw_fill(2, 0, COLS, theme_attr(R_BANNER));
    const char *msg = s->truncated
                          ? " The segment was truncated (its file shrank): nothing more can be read. Showing the "
                            "last data; q quits."
                      : s->dead_at_attach
                          ? " The program had exited before recorder-top attached: showing what its segment holds."
                          : " The program has exited: showing its last data. Press q to quit.";
    draw_text(2, 0, COLS, msg, FIT_LEFT, theme_attr(R_BANNER));
    return 3;
}

struct key_help {
    const char *key, *label;
};

void chrome_draw_bottom(struct app *a) {
    int y = LINES - 1;
    draw_fill(y, 0, COLS, theme_attr(R_KEYLABEL));
    if (a->filtering) {
        int x = draw_put(y, 0, " Filter: ", theme_attr(R_KEY));
        x = draw_put(y, x, " ", theme_attr(R_PROMPT));
        x = draw_put(y, x, a->edit.buf, theme_attr(R_PROMPT));
        x = draw_put(y, x, "_", theme_attr(R_PROMPT) | A_BLINK);
        draw_put(y, x + 2, "Enter apply  Esc cancel  Ctrl-U clear", theme_attr(R_KEYLABEL));
        return;
    }
    static const struct key_help common[] = {
        {"q", "Quit"}, {"Tab", "View"}, {"w", "Window"}, {"t", "Thread"}, {"p", "Pause"}, {"?", "Help"},
    };
    static const struct key_help top[] = {{"s", "Sort"}, {"S", "Reverse"}, {"/", "Filter"}, {"Enter", "Details"}};
    static const struct key_help flame[] = {{"Arrows", "Move"}, {"Enter", "Zoom"}, {"Bksp", "Out"}};
    static const struct key_help msgs[] = {{"/", "Filter"}, {"Esc", "Clear"}};
    static const struct key_help details[] = {{"Esc", "Close"}, {"Arrows", "Scope"}};
    const struct key_help *extra = NULL;
    size_t n_extra = 0;
    if (a->view == VIEW_TOP && a->detail) extra = details, n_extra = 2;
    else if (a->view == VIEW_TOP) extra = top, n_extra = 4;
    else if (a->view == VIEW_FLAME) extra = flame, n_extra = 3;
    else if (a->view == VIEW_MESSAGES) extra = msgs, n_extra = 2;
    /* "? Help" (the last) always shows: the others make room for it. */
    size_t n_all = n_extra + sizeof common / sizeof common[0];
    const struct key_help *help = &common[sizeof common / sizeof common[0] - 1];
    int help_w = text_width(help->key, draw_utf8) + text_width(help->label, draw_utf8) + 3;
    int x = 0;
    for (size_t i = 0; i < n_all; i++) {
        const struct key_help *k = i < n_extra ? &extra[i] : &common[i - n_extra];
        int need = text_width(k->key, draw_utf8) + text_width(k->label, draw_utf8) + 3;
        if (k != help && x + need + help_w > COLS) continue;
        x = draw_put(y, x, k->key, theme_attr(R_KEY));
        x = draw_put(y, x, " ", theme_attr(R_KEYLABEL));
        x = draw_put(y, x, k->label, theme_attr(R_KEYLABEL));
        x = draw_put(y, x, "  ", theme_attr(R_KEYLABEL));
    }
}

void chrome_draw_too_small(int need_cols, int need_lines) {
    char buf[128];
    int y = LINES / 2 - 1;
    if (y < 0) y = 0;
    snprintf(buf, sizeof buf, "Terminal too small: %dx%d", COLS, LINES);
    draw_center(y, buf, theme_attr(R_WARN));
    snprintf(buf, sizeof buf, "recorder-top needs %dx%d.", need_cols, need_lines);
    draw_center(y + 1, buf, A_NORMAL);
    draw_center(y + 2, "Resize it, or press q.", A_NORMAL);
}
