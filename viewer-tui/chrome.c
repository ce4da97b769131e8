/*
 * chrome.c -- the bars around the views: the title bar (program, state,
 * event rate, losses, ring fill), the tab bar (views and the current
 * window, thread, sort and filter), the exit banner, and the key bar.
 */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "draw.h"
#include "format.h"

const char *app_window_name(enum rec_window w) {
    switch (w) {
    case REC_WIN_1S: return "1s";
    case REC_WIN_10S: return "10s";
    default: return "whole run";
    }
}

const char *app_thread_name(struct app *a, char *buf, size_t cap) {
    if (a->tid < 0) {
        snprintf(buf, cap, "all threads");
        return buf;
    }
    for (size_t i = 0; i < a->snap.n_threads; i++)
        if (a->snap.threads[i].tid == a->tid && a->snap.threads[i].name[0]) {
            snprintf(buf, cap, "%s (%d)", a->snap.threads[i].name, a->tid);
            return buf;
        }
    snprintf(buf, cap, "thread %d", a->tid);
    return buf;
}

/* An item of the title line, after a bar. */
static int item(int y, int x, const char *s, attr_t a) {
    x = draw_put(y, x, sym(SYM_VBAR), theme_attr(R_TITLE));
    x = draw_put(y, x, " ", theme_attr(R_TITLE));
    x = draw_put(y, x, s, a);
    return draw_put(y, x, " ", theme_attr(R_TITLE));
}

int chrome_draw_top(struct app *a) {
    struct source *s = a->src;
    attr_t title = theme_attr(R_TITLE);
    char buf[160], n1[FMT_BUF], n2[FMT_BUF];
    draw_fill(0, 0, COLS, title);
    /* The tool's own name only when there is room for everything. */
    int x = COLS >= 96 ? draw_put(0, 0, " recorder-top ", theme_attr(R_TITLE_KEY)) : 0;
    snprintf(buf, sizeof buf, "%s pid %d", s->info.process_name[0] ? s->info.process_name : "?", s->info.pid);
    if (x) {
        x = item(0, x, buf, theme_attr(R_TITLE_KEY));
    } else {
        x = draw_put(0, 0, " ", title);
        x = draw_put(0, x, buf, theme_attr(R_TITLE_KEY));
        x = draw_put(0, x, " ", title);
    }
    if (s->exited) snprintf(buf, sizeof buf, "%s exited", sym(SYM_SQUARE));
    else snprintf(buf, sizeof buf, "%s running", sym(SYM_DOT));
    x = item(0, x, buf, theme_attr(s->exited ? R_EXITED : R_ALIVE));
    snprintf(buf, sizeof buf, "%s ev/s", fmt_si(n1, sizeof n1, s->ev_rate));
    x = item(0, x, buf, title);
    if (s->loss_rate > 0)
        snprintf(buf, sizeof buf, "lost %s (+%s/s)", fmt_si(n1, sizeof n1, (double)s->lost),
                 fmt_si(n2, sizeof n2, s->loss_rate));
    else snprintf(buf, sizeof buf, "lost %s", fmt_si(n1, sizeof n1, (double)s->lost));
    x = item(0, x, buf, s->lost ? theme_attr(R_EXITED) : title);
    snprintf(buf, sizeof buf, "ring %s", fmt_pct(n1, sizeof n1, 100 * (s->fill_shown > 1 ? 1 : s->fill_shown)));
    x = item(0, x, buf, s->fill_shown > 0.5 ? theme_attr(R_EXITED) : title);
    (void)x;
    if (a->paused) {
        snprintf(buf, sizeof buf, " %s PAUSED ", sym(SYM_PAUSE));
        int w = text_width(buf, draw_utf8);
        draw_put(0, COLS - w, buf, theme_attr(R_PAUSED));
    }

    /* Tabs, then where we are. */
    static const char *const tabs[VIEW_COUNT] = {" 1 Top ", " 2 Flame ", " 3 Threads "};
    draw_fill(1, 0, COLS, theme_attr(R_TAB));
    x = 0;
    for (int v = 0; v < VIEW_COUNT; v++) {
        x = draw_put(1, x, tabs[v], theme_attr(v == (int)a->view ? R_TAB_ACTIVE : R_TAB));
        x = draw_put(1, x, " ", theme_attr(R_TAB));
    }
    char th[96];
    int len = snprintf(buf, sizeof buf, " window %s %s %s", app_window_name(a->win), sym(SYM_SEP),
                       app_thread_name(a, th, sizeof th));
    if (a->view == VIEW_TOP && len > 0 && (size_t)len < sizeof buf)
        len += snprintf(buf + len, sizeof buf - (size_t)len, " %s sort %s %s", sym(SYM_SEP),
                        top_col_title[a->sort], sym(a->sort_rev ? SYM_UP : SYM_DOWN));
    if (a->filter[0] && len > 0 && (size_t)len < sizeof buf)
        snprintf(buf + len, sizeof buf - (size_t)len, " %s filter \"%s\"", sym(SYM_SEP), a->filter);
    int w = text_width(buf, draw_utf8) + 1;
    if (x + w > COLS) w = COLS - x;
    if (w > 2) draw_text(1, COLS - w, w, buf, FIT_LEFT, theme_attr(R_TAB));

    if (!s->exited) return 2;
    draw_fill(2, 0, COLS, theme_attr(R_BANNER));
    const char *msg = s->dead_at_attach
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
    static const struct key_help top[] = {{"s", "Sort"}, {"S", "Reverse"}, {"/", "Filter"}};
    static const struct key_help flame[] = {{"Arrows", "Move"}, {"Enter", "Zoom"}, {"Bksp", "Out"}};
    const struct key_help *extra = a->view == VIEW_TOP ? top : a->view == VIEW_FLAME ? flame : NULL;
    size_t n_extra = extra ? 3 : 0;
    int x = 0;
    for (size_t i = 0; i < n_extra + sizeof common / sizeof common[0]; i++) {
        const struct key_help *k = i < n_extra ? &extra[i] : &common[i - n_extra];
        int need = text_width(k->key, draw_utf8) + text_width(k->label, draw_utf8) + 3;
        if (x + need > COLS) break;
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
