/*
 * app.h -- recorder-top's state: what is shown (view, window, thread,
 * sort, filter, selection), the data it is drawn from, and the loop that
 * drains, draws and reads keys.
 */
#ifndef TUI_APP_H
#define TUI_APP_H

#include <stddef.h>
#include <stdint.h>

#include "flame_layout.h"
#include "gpu_rows.h"
#include "input.h"
#include "source.h"
#include "top_rows.h"

/* Top's rows held per frame: the first in its order; the rest are
 * counted (snap.n_match) and not listed (docs/tui.md). */
#define TOP_ROWS_KEPT 5000

enum view { VIEW_TOP, VIEW_FLAME, VIEW_THREADS, VIEW_COUNTERS, VIEW_MESSAGES, VIEW_COUNT };

/* What the views draw.  Refreshed at each draw tick, except when paused:
 * then it stays as it was while draining goes on underneath. */
struct snap {
    size_t n_stats;                   /* the window's scopes, all of them */
    size_t n_match;                   /* those the filter keeps */
    uint64_t past_limit;              /* slices in (other): the model's tables were full */
    struct rec_stat *rows;            /* the first TOP_ROWS_KEPT of them, filtered and sorted: what Top shows */
    size_t n_rows, cap_rows;
    struct rec_tree_node *tree;
    size_t n_tree, cap_tree;
    int tree_ok;              /* tree is this snapshot's: built for the flame view or a pause only */
    struct rec_model_thread *threads;
    size_t n_threads, cap_threads;
    struct rec_window_cover *thr_cover;   /* each thread's last second (UTIL, EV/S) */
    size_t cap_thr_cover;
    struct lane_meta *lanes;          /* each thread row's lane: kind, device, delivered (gpu_rows.h) */
    size_t cap_lanes;
    struct gpu_name *gpu_names;       /* Top's names that ran on GPU lanes, by name id */
    size_t n_gpu_names, cap_gpu_names;
    struct rec_window_cover cover;    /* the window and thread shown: partial or not */
    double span_ns;                   /* time the window covers */
    double now_ns;
    /* Counters, Messages, and the details panel (view_counters.c,
     * view_messages.c, view_details.c). */
    struct rec_counter *counters;
    size_t n_counters, cap_counters;
    uint64_t counters_untracked;
    struct rec_message *msgs;         /* REC_MESSAGES_MAX, newest first */
    size_t n_msgs;
    uint64_t msgs_seen;               /* instants read since attaching */
    uint32_t *msg_rows;               /* indexes into msgs passing the filter */
    size_t n_msg_rows;
    struct rec_scope_detail detail;   /* of the selected scope, while the panel is open */
    int detail_ok;
};

/* Where the last draw put what a mouse click can hit (mouse.c). */
struct hit {
    int tab_x[VIEW_COUNT + 1];        /* tab v spans columns [tab_x[v], tab_x[v + 1] - 1) of line 1 */
    int head_y;                       /* the Top view's column titles, -1 if not shown */
    int col_x[TOP_NCOLS], col_w[TOP_NCOLS];
    int rows_y, rows_n, rows_first;   /* list rows on screen: row rows_first + (y - rows_y) */
};

/* The mark of a figure computed from partial data (entries were lost in
 * its window): at the start of a row, before a share.  ASCII, so that it
 * reads the same in every locale and without color. */
#define PARTIAL_MARK "~"

struct app_opts {
    int color;                        /* 0: monochrome */
    int refresh_ms;                   /* draw period */
    double exit_after;                /* seconds; 0 = run until q */
    int print_stats;                  /* counters on stderr at exit */
    int window;                       /* the first window: enum rec_window + 1; 0 = the default, 10 s */
};

struct app {
    struct source *src;
    struct app_opts opt;
    struct snap snap;
    enum view view;
    enum rec_window win;
    int tid;                          /* -1: every thread; a lane's tid is negative too (-(slot+1)) */
    int proc;                         /* several programs: the one shown, -1 all (proc_view.h) */
    int paused, help, quit;
    int help_scroll;                  /* first line of the help shown */
    int sort_rev;
    enum top_col sort;
    int filtering;                    /* the filter prompt is open */
    struct line_edit edit;
    char filter[LINE_EDIT_MAX + 1];
    int top_sel, top_scroll;
    uint32_t top_sel_id;              /* the selection follows its name */
    int thr_sel, thr_scroll;
    int ctr_sel, ctr_scroll;
    int msg_sel, msg_scroll;
    char msg_filter[LINE_EDIT_MAX + 1];
    enum view filter_view;            /* the view whose filter the prompt edits */
    int detail;                       /* Top: the selected scope's details panel is open */
    struct hit hit;
    /* Flame: zoom and selection as name paths, which survive refreshes. */
    uint32_t zoom_path[REC_MAX_DEPTH];
    int zoom_len;
    uint32_t sel_path[REC_MAX_DEPTH];
    int sel_len;
    int flame_rows;                   /* rows of the last flame layout */
    struct flame_span *spans;
    size_t n_spans, cap_spans;
    uint64_t draws;
    double first_draw_ns;             /* CLOCK_MONOTONIC of the first frame (--stats) */
    double drain_s, draw_s, wait_s;   /* where the time went (--stats) */
};

#include <signal.h>
/* Set by SIGINT, SIGTERM and SIGHUP: the loop ends and the terminal is
 * restored. */
extern volatile sig_atomic_t app_interrupted;

/* Runs until q (or opt.exit_after); the terminal must be set up.  Returns
 * 0, or non-zero when the data could not be kept (out of memory). */
int app_run(struct app *a);
void app_free(struct app *a);

/* One frame: the views into curses' screen, then refresh(); records in
 * a->hit where things went, for the mouse. */
void app_draw(struct app *a);
/* Show view v (the flame view builds its tree first if the snapshot has none). */
void app_set_view(struct app *a, enum view v);
/* Re-query the model for the current window and thread. */
void app_snapshot(struct app *a);
/* Re-apply filter and sort to the snapshot (no model query). */
void app_rows(struct app *a);
/* Re-apply the Messages filter (no model query). */
void app_msg_rows(struct app *a);
/* Query the details panel's scope (the selected one in Top). */
void app_detail(struct app *a);

/* Views: draw into rows [y, y + h) of the screen; handle an action
 * (return 1 if it was theirs). */
void view_top_draw(struct app *a, int y, int h);
int view_top_key(struct app *a, enum action act, int page);
void view_flame_draw(struct app *a, int y, int h);
int view_flame_key(struct app *a, enum action act);
void view_threads_draw(struct app *a, int y, int h);
int view_threads_key(struct app *a, enum action act, int page);
void view_counters_draw(struct app *a, int y, int h);
int view_counters_key(struct app *a, enum action act, int page);
void view_messages_draw(struct app *a, int y, int h);
int view_messages_key(struct app *a, enum action act, int page);
void view_details_draw(struct app *a, int y, int h);   /* over Top's rows */
void view_help_draw(struct app *a);
int view_help_key(struct app *a, enum action act);   /* 1: it scrolled */

/* The mouse (mouse.c): enable it, and act on one KEY_MOUSE: every click
 * curses queued for it, oldest first. */
void mouse_init(void);
void mouse_event(struct app *a);
/* A view's list selection moved by act, as keys move it. */
int app_list_key(struct app *a, enum action act, int page);

/* The bars around the views. */
int chrome_draw_top(struct app *a);          /* returns rows used */
void chrome_draw_bottom(struct app *a);
void chrome_draw_too_small(int need_cols, int need_lines);
const char *app_window_name(enum rec_window w);
const char *app_thread_name(struct app *a, char *buf, size_t cap);

#define MIN_COLS 60
#define MIN_LINES 12

#endif
