/*
 * mouse.c -- the mouse, as htop takes it: click a tab to switch view, a
 * column title (Top) to sort by it (again: reverse), a row to select it;
 * the wheel scrolls.  Every click does what a key does (keys stay
 * first-class: docs/tui.md), and it acts on where the last draw put
 * things (struct hit), not on a layout recomputed here.
 *
 * Terminals then keep the mouse for recorder-top: Shift-drag selects
 * text in xterm, GNOME Terminal, kitty and tmux.
 *
 * No click is lost when recorder-top is slower than the hand: curses
 * turns the reports that arrived together into one KEY_MOUSE and queues
 * the clicks among them, newest first for getmouse().  A reader that
 * takes one event per KEY_MOUSE acts on the last click of a burst only,
 * so mouse_event() empties the queue and acts on each click in the order
 * it was made, redrawing between two so that each one meets the screen
 * the one before it left.
 */
#include <curses.h>

#include "app.h"
#include "columns.h"

#define WHEEL_STEP 3   /* rows per wheel notch, as most terminals' scrollback */
#define BURST 16       /* events taken at once: more than curses queues (8) */

#ifndef BUTTON5_PRESSED   /* ncurses built with the old mouse ABI: no wheel down */
#define BUTTON5_PRESSED 0
#endif

void mouse_init(void) {
    mousemask(BUTTON1_PRESSED | BUTTON1_CLICKED | BUTTON4_PRESSED | BUTTON5_PRESSED, NULL);
    /* No click detection delay: a press acts at once. */
    mouseinterval(0);
}

static void select_row(struct app *a, int row) {
    if (row < 0) return;
    switch (a->view) {
    case VIEW_TOP:
        if (row >= (int)a->snap.n_rows) return;
        a->top_sel = row;
        a->top_sel_id = a->snap.rows[row].name_id;
        break;
    case VIEW_THREADS:
        if (row < (int)a->snap.n_threads) a->thr_sel = row;
        break;
    case VIEW_COUNTERS:
        if (row < (int)a->snap.n_counters) a->ctr_sel = row;
        break;
    case VIEW_MESSAGES:
        if (row < (int)a->snap.n_msg_rows) a->msg_sel = row;
        break;
    default: break;
    }
}

static void sort_by(struct app *a, int col) {
    if (col < 0 || col >= TOP_NCOLS) return;
    if ((int)a->sort == col) a->sort_rev = !a->sort_rev;
    else {
        a->sort = (enum top_col)col;
        a->sort_rev = 0;
    }
    app_rows(a);
}

static void mouse_one(struct app *a, MEVENT ev) {
    int page = LINES - 6 > 1 ? LINES - 6 : 1;
    int up = (ev.bstate & BUTTON4_PRESSED) != 0, down = BUTTON5_PRESSED && (ev.bstate & BUTTON5_PRESSED);
    if (up || down) {
        if (a->help) {
            for (int i = 0; i < WHEEL_STEP; i++) view_help_key(a, up ? ACT_UP : ACT_DOWN);
            return;
        }
        if (a->view == VIEW_FLAME) return;   /* up and down there are caller and callee */
        for (int i = 0; i < WHEEL_STEP; i++) app_list_key(a, up ? ACT_UP : ACT_DOWN, page);
        return;
    }
    if (!(ev.bstate & (BUTTON1_PRESSED | BUTTON1_CLICKED))) return;
    if (a->help || a->detail) {   /* a click closes a box, as a key does */
        a->help = a->detail = 0;
        return;
    }
    const struct hit *h = &a->hit;
    if (ev.y == 1) {
        for (int v = 0; v < VIEW_COUNT; v++)
            if (ev.x >= h->tab_x[v] && ev.x < h->tab_x[v + 1]) app_set_view(a, (enum view)v);
        return;
    }
    if (a->view == VIEW_TOP && ev.y == h->head_y) {
        sort_by(a, columns_at(h->col_x, h->col_w, TOP_NCOLS, 1, ev.x));
        return;
    }
    if (h->rows_n > 0 && ev.y >= h->rows_y && ev.y < h->rows_y + h->rows_n)
        select_row(a, h->rows_first + ev.y - h->rows_y);
}

void mouse_event(struct app *a) {
    MEVENT ev[BURST];
    int n = 0;
    while (n < BURST && getmouse(&ev[n]) == OK) n++;
    if (a->filtering) return;
    for (int i = n - 1; i >= 0; i--) {
        mouse_one(a, ev[i]);
        if (i > 0) app_draw(a);
    }
}
