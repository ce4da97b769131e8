/*
 * view_help.c -- the help box (?): keys, what the columns mean, and the
 * words for partial data and losses.  Up and Down (PgUp, PgDn) scroll it
 * when the terminal is too short to hold it; any other key closes it.
 */
#include <string.h>

#include "app.h"
#include "draw.h"

static const struct {
    const char *key, *what;
} lines[] = {
    {"Tab 1-5", "Top Flame Threads Counters Messages (Shift-Tab back)"},
    {"w", "window: last 10 s (the default), whole run, last 1 s"},
    {"t T", "next / previous thread, or all threads"},
    {"s S", "Top: sort by the next column / reverse the order"},
    {"/", "filter Top's names, Messages' names and text (Esc cancels)"},
    {"p Space", "pause the view; reading goes on underneath"},
    {"f", "Top: fold layer numbers (ffn_up-0, ffn_up-1 -> ffn_up-*)"},
    {"arrows", "move (PgUp PgDn Home End too)"},
    {"Enter", "Top: details; Flame: zoom into the frame; Threads: in Top"},
    {"mouse", "click a tab, a column title (sort), a row; wheel: scroll"},
    {"Bksp Esc", "Flame: zoom out; Top: close details, clear the filter"},
    {"Ctrl-L", "redraw the screen"},
    {"q", "quit"},
    {"", ""},
    {"TOTAL%", "time inside the scope per second of the window, summed"},
    {"", "over threads: 100% = one thread inside it all the time"},
    {"SELF%", "the same without the time in scopes it called"},
    {"CALLS", "calls that completed in the window; CALLS/S: per second"},
    {"AVG P50", "their mean and percentiles (P50 P95 P99, within 3%); MAX"},
    {"UTIL", "Threads: share of the last second inside a scope"},
    {"", "that is not a wait scope (rows marked [wait])"},
    {"ring", "unread share of the fullest ring when we drained it"},
    {"", ""},
    {PARTIAL_MARK " partial", "entries were lost in the window (the title says how many"},
    {"", "of its events were decoded): counts are of what was read;"},
    {"", "TOTAL%, SELF% and UTIL are per second of the time the"},
    {"", "decoded data covers, not of the whole window"},
    {"lost", "written after recorder-top attached but never read:"},
    {"", "overwritten (the writer lapped it), dropped (stream mode), bad"},
    {"not kept", "history the ring had already overwritten when recorder-top"},
    {"", "attached: a flight recorder's normal forgetting, not a loss"},
    {"truncated", "the program shrank its segment: nothing more can be read;"},
    {"", "the last data stays on screen"},
};

#define N_LINES ((int)(sizeof lines / sizeof lines[0]))

/* Lines of text the box shows at this terminal size. */
static int help_rows(void) {
    int h = N_LINES + 4;
    if (h > LINES - 2) h = LINES - 2;
    return h - 4;
}

int view_help_key(struct app *a, enum action act) {
    int rows = help_rows(), max = N_LINES - rows;
    if (max <= 0) return 0;
    int step = act == ACT_PAGE_DOWN || act == ACT_PAGE_UP ? rows : 1;
    if (act == ACT_DOWN || act == ACT_PAGE_DOWN) a->help_scroll += step;
    else if (act == ACT_UP || act == ACT_PAGE_UP) a->help_scroll -= step;
    else return 0;
    if (a->help_scroll > max) a->help_scroll = max;
    if (a->help_scroll < 0) a->help_scroll = 0;
    return 1;
}

void view_help_draw(struct app *a) {
    int n = N_LINES;
    int h = n + 4, w = 74;
    if (w > COLS - 2) w = COLS - 2;
    if (h > LINES - 2) h = LINES - 2;
    if (w < 20 || h < 5) return;
    int y0 = (LINES - h) / 2, x0 = (COLS - w) / 2;
    attr_t body = theme_attr(R_KEYLABEL), key = theme_attr(R_KEYLABEL) | A_BOLD;
    draw_box(y0, x0, h, w, body);
    draw_put(y0, x0 + 2, " recorder-top help ", theme_attr(R_TITLE));
    int rows = h - 4, max = n - rows > 0 ? n - rows : 0;
    if (a->help_scroll > max) a->help_scroll = max;
    if (a->help_scroll < 0) a->help_scroll = 0;
    for (int r = 0; r < rows; r++) {
        int i = a->help_scroll + r;
        if (i >= n) break;
        draw_text(y0 + 1 + r, x0 + 2, 10, lines[i].key, FIT_LEFT, key);
        draw_text(y0 + 1 + r, x0 + 13, w - 15, lines[i].what, FIT_LEFT, body);
    }
    draw_text(y0 + h - 2, x0 + 2, w - 4,
              !max                    ? "Press any key to close."
              : a->help_scroll < max ? "Down, PgDn: more. Press any other key to close."
                                     : "Up, PgUp: back. Press any other key to close.", FIT_LEFT,
              body | A_BOLD);
}
