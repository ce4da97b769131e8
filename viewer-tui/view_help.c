/*
 * view_help.c -- the help box (?): keys, and what the columns mean.
 * Any key closes it.
 */
#include <string.h>

#include "app.h"
#include "draw.h"

static const struct {
    const char *key, *what;
} lines[] = {
    {"Tab 1 2 3", "switch view: Top, Flame, Threads (Shift-Tab back)"},
    {"w", "window: last 1 s, last 10 s, whole run"},
    {"t T", "next / previous thread, or all threads"},
    {"s S", "Top: sort by the next column / reverse the order"},
    {"/", "Top: filter scope names (Enter applies, Esc cancels)"},
    {"p Space", "pause the view; reading goes on underneath"},
    {"arrows", "move (PgUp PgDn Home End too)"},
    {"Enter", "Flame: zoom into the frame; Threads: that thread in Top"},
    {"Bksp Esc", "Flame: zoom out; Top: clear the filter"},
    {"Ctrl-L", "redraw the screen"},
    {"q", "quit"},
    {"", ""},
    {"TOTAL%", "time inside the scope per second of the window, summed"},
    {"", "over threads: 100% = one thread inside it all the time"},
    {"SELF%", "the same without the time in scopes it called"},
    {"AVG P50", "mean and percentiles of the calls that completed in the"},
    {"P99 MAX", "window (percentiles within 3%)"},
    {"ring", "unread share of the fullest ring when we drained it"},
};

void view_help_draw(struct app *a) {
    (void)a;
    int n = (int)(sizeof lines / sizeof lines[0]);
    int h = n + 4, w = 72;
    if (w > COLS - 2) w = COLS - 2;
    if (h > LINES - 2) h = LINES - 2;
    if (w < 20 || h < 5) return;
    int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2;
    attr_t body = theme_attr(R_KEYLABEL), key = theme_attr(R_KEYLABEL) | A_BOLD;
    for (int i = 0; i < h; i++) draw_fill(y0 + i, x0, w, body);
    attrset(body);
    mvaddch(y0, x0, ACS_ULCORNER);
    mvhline(y0, x0 + 1, ACS_HLINE, w - 2);
    mvaddch(y0, x0 + w - 1, ACS_URCORNER);
    mvvline(y0 + 1, x0, ACS_VLINE, h - 2);
    mvvline(y0 + 1, x0 + w - 1, ACS_VLINE, h - 2);
    mvaddch(y0 + h - 1, x0, ACS_LLCORNER);
    mvhline(y0 + h - 1, x0 + 1, ACS_HLINE, w - 2);
    mvaddch(y0 + h - 1, x0 + w - 1, ACS_LRCORNER);
    attrset(A_NORMAL);
    draw_put(y0, x0 + 2, " recorder-top help ", theme_attr(R_TITLE));
    for (int i = 0; i < n && i < h - 4; i++) {
        draw_text(y0 + 1 + i, x0 + 2, 10, lines[i].key, FIT_LEFT, key);
        draw_text(y0 + 1 + i, x0 + 13, w - 15, lines[i].what, FIT_LEFT, body);
    }
    draw_text(y0 + h - 2, x0 + 2, w - 4, "Press any key to close.", FIT_LEFT, body | A_BOLD);
}
