/*
 * picker.c -- choose a segment to watch (see picker.h).
 *
 * Every file named recorder.* is listed, not only those that can be
 * watched: a segment still being created says "starting", a FIFO or a
 * link "skipped" with what it is, another user's "refused" (or, for root,
 * "owned by uid N"), so that nothing is silently missing.  Enter on one
 * that cannot be watched says why on the bottom line.
 */
#include "picker.h"

#include <curses.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "columns.h"
#include "draw.h"
#include "input.h"
#include "target.h"

#define MAX_SEGS 512
#define PICK_MIN_COLS 40
#define PICK_MIN_LINES 6

struct picker {
    struct seg_entry *all, *shown;
    size_t n_all, n_shown;
    int sel, scroll;
    char sel_path[256];          /* the selection follows its file */
    int filtering;
    struct line_edit edit;
    char msg[600];               /* why Enter did nothing; until the next key */
    int scanned;                 /* a scan has finished */
};

static void apply_filter(struct picker *p) {
    char pid[16];
    p->n_shown = 0;
    for (size_t i = 0; i < p->n_all; i++) {
        const struct seg_entry *e = &p->all[i];
        snprintf(pid, sizeof pid, "%d", e->pid);
        if (text_contains(e->name, p->edit.buf) || (e->pid > 0 && text_contains(pid, p->edit.buf)) ||
            text_contains(e->file, p->edit.buf) || text_contains(e->state, p->edit.buf))
            p->shown[p->n_shown++] = *e;
    }
    /* The selection stays on the same file when the list changes. */
    for (size_t i = 0; i < p->n_shown; i++)
        if (!strcmp(p->shown[i].path, p->sel_path)) p->sel = (int)i;
    if (p->sel >= (int)p->n_shown) p->sel = (int)p->n_shown - 1;
    if (p->sel < 0) p->sel = 0;
}

static void draw(struct picker *p) {
    static uint64_t frames;
    erase();
    if (COLS < PICK_MIN_COLS || LINES < PICK_MIN_LINES) {
        chrome_draw_too_small(PICK_MIN_COLS, PICK_MIN_LINES);
        draw_frame_mark(frames++);
        refresh();
        return;
    }
    draw_fill(0, 0, COLS, theme_attr(R_TITLE));
    int x = draw_put(0, 0, " recorder-top ", theme_attr(R_TITLE_KEY));
    x = draw_put(0, x, sym(SYM_VBAR), theme_attr(R_TITLE));
    draw_put(0, x, " pick a program to watch", theme_attr(R_TITLE));
    enum { C_PID, C_NAME, C_THREADS, C_STATE, C_PATH, C_N };
    static const struct col_def cols[C_N] = {
        [C_PID] = {"PID", 8, 100, 0, 1},       [C_NAME] = {"PROCESS", 16, 1000, 1, 0},
        [C_THREADS] = {"THREADS", 7, 80, 0, 1}, [C_STATE] = {"STATE", 10, 90, 0, 0},
        [C_PATH] = {"SEGMENT", 16, 50, 0, 0},
    };
    int cx[C_N], cw[C_N];
    columns_layout(cols, C_N, COLS - 2, 1, cx, cw);
    draw_fill(1, 0, COLS, theme_attr(R_COLHEAD));
    for (int c = 0; c < C_N; c++)
        if (cw[c]) draw_text(1, 1 + cx[c], cw[c], cols[c].title, cols[c].right ? FIT_RIGHT : FIT_LEFT, theme_attr(R_COLHEAD));
    int rows = LINES - 3;
    if (p->sel < p->scroll) p->scroll = p->sel;
    if (p->sel >= p->scroll + rows) p->scroll = p->sel - rows + 1;
    for (int r = 0; r < rows && p->scroll + r < (int)p->n_shown; r++) {
        int i = p->scroll + r, y = 2 + r;
        const struct seg_entry *e = &p->shown[i];
        attr_t base = i == p->sel ? theme_attr(R_SELECTED) : e->alive ? A_NORMAL : theme_attr(R_DIM);
        if (i == p->sel) draw_fill(y, 0, COLS, base);
        char v[600];
        for (int c = 0; c < C_N; c++) {
            if (!cw[c]) continue;
            switch (c) {
            case C_PID:
                if (e->pid > 0) snprintf(v, sizeof v, "%d", e->pid);
                else snprintf(v, sizeof v, "-");
                break;
            case C_NAME:
                /* The process, and what is special about the file. */
                if (e->note[0]) snprintf(v, sizeof v, "%s%s(%s)", e->name, e->name[0] ? " " : "", e->note);
                else snprintf(v, sizeof v, "%s", e->name[0] ? e->name : "?");
                break;
            case C_THREADS:
                if (e->viewable) snprintf(v, sizeof v, "%d", e->threads);
                else snprintf(v, sizeof v, "-");
                break;
            case C_STATE: snprintf(v, sizeof v, "%s", e->state); break;
            default: snprintf(v, sizeof v, "%s", e->file); break;
            }
            draw_text(y, 1 + cx[c], cw[c], v, cols[c].right ? FIT_RIGHT : FIT_LEFT, base);
        }
    }
    if (p->n_shown == 0) {
        draw_center(LINES / 2 - 1,
                    !p->scanned ? "Looking at /dev/shm..."
                    : p->n_all  ? "No program matches the filter."
                                : "No recorder segment in /dev/shm yet.",
                    theme_attr(R_DIM));
        draw_center(LINES / 2, "Start a program built with recorder.h; this list refreshes every second.",
                    theme_attr(R_DIM));
    }
    int y = LINES - 1;
    draw_fill(y, 0, COLS, theme_attr(R_KEYLABEL));
    if (p->filtering) {
        x = draw_put(y, 0, " Filter: ", theme_attr(R_KEY));
        x = draw_put(y, x, " ", theme_attr(R_PROMPT));
        x = draw_put(y, x, p->edit.buf, theme_attr(R_PROMPT));
        draw_put(y, x, "_", theme_attr(R_PROMPT));
    } else if (p->msg[0]) {
        draw_text(y, 0, COLS, p->msg, FIT_LEFT, theme_attr(R_WARN));
    } else {
        x = draw_put(y, 0, "Enter", theme_attr(R_KEY));
        x = draw_put(y, x, " Watch  ", theme_attr(R_KEYLABEL));
        x = draw_put(y, x, "/", theme_attr(R_KEY));
        x = draw_put(y, x, " Filter by name or pid  ", theme_attr(R_KEYLABEL));
        x = draw_put(y, x, "q", theme_attr(R_KEY));
        draw_put(y, x, " Quit", theme_attr(R_KEYLABEL));
    }
    draw_frame_mark(frames++);
    refresh();
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int picker_run(char *path, size_t cap) {
    struct picker p;
    memset(&p, 0, sizeof p);
    p.all = calloc(MAX_SEGS, sizeof *p.all);
    p.shown = calloc(MAX_SEGS, sizeof *p.shown);
    if (!p.all || !p.shown) {
        free(p.all);
        free(p.shown);
        return 0;
    }
    nodelay(stdscr, TRUE);
    int chosen = 0, done = 0;
    double next_scan = 0;
    draw(&p);   /* at once: the first scan may take a while */
    while (!done && !app_interrupted) {
        if (now_s() >= next_scan) {
            /* rec_seg_list opens every segment there: with many large
             * ones (or under a sanitizer) that takes long, and keys wait
             * meanwhile, so a slow scan comes back less often. */
            double t0 = now_s();
            p.n_all = target_list(p.all, MAX_SEGS);
            p.scanned = 1;
            apply_filter(&p);
            double took = now_s() - t0;
            next_scan = now_s() + (took * 4 > 1 ? took * 4 : 1);
        }
        draw(&p);
        struct pollfd pf = {STDIN_FILENO, POLLIN, 0};
        poll(&pf, 1, 250);
        wint_t ch;
        int r;
        while (!done && (r = get_wch(&ch)) != ERR) {
            int code = r == KEY_CODE_YES;
            p.msg[0] = 0;
            if (p.filtering) {
                enum edit_result e = line_edit_key(&p.edit, (uint32_t)ch, code);
                if (e == EDIT_CANCEL) line_edit_set(&p.edit, "");
                if (e != EDIT_MORE) p.filtering = 0;
                apply_filter(&p);
                continue;
            }
            switch (input_action((uint32_t)ch, code)) {
            case ACT_QUIT: done = 1; break;
            case ACT_FILTER: p.filtering = 1; break;
            case ACT_UP: p.sel--; break;
            case ACT_DOWN: p.sel++; break;
            case ACT_HOME: p.sel = 0; break;
            case ACT_END: p.sel = (int)p.n_shown - 1; break;
            case ACT_BACK:
                line_edit_set(&p.edit, "");
                apply_filter(&p);
                break;
            case ACT_ENTER:
                if (p.n_shown && p.shown[p.sel].viewable) {
                    snprintf(path, cap, "%s", p.shown[p.sel].path);
                    chosen = done = 1;
                } else if (p.n_shown) {
                    const struct seg_entry *e = &p.shown[p.sel];
                    snprintf(p.msg, sizeof p.msg, " Cannot watch %s: %s%s%s", e->file, e->state, e->note[0] ? ", " : "",
                             e->note);
                }
                break;
            default: break;
            }
            if (p.sel >= (int)p.n_shown) p.sel = (int)p.n_shown - 1;
            if (p.sel < 0) p.sel = 0;
            if (p.n_shown) snprintf(p.sel_path, sizeof p.sel_path, "%s", p.shown[p.sel].path);
        }
    }
    free(p.all);
    free(p.shown);
    return chosen;
}
