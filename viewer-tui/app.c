/*
 * app.c -- recorder-top's loop: drain often, draw ten times a second, and
 * answer keys at once.
 *
 * The two cadences are separate on purpose.  Draining must keep up with
 * the writers (a 1 MiB ring holds 65536 entries: 13 ms of a thread writing
 * 5 M events/s, 3.3 ms at 20 M/s), so its period adapts to how full the
 * rings were found: halved when a ring was over a quarter full, relaxed
 * slowly when they are nearly empty, and never longer than 2 ms, so that
 * a program going from idle to 20 M events/s in one thread is not lapped
 * before the period adapts (idle, that costs about 3% of a core).  A pass
 * that stopped at its bound comes back at once while it has credit:
 * catching up may take a whole core for a moment, but 60% of one at most
 * over time, because on a small machine the core we would take is the
 * program's.  Drawing is for a human: 5 frames a second (DRAW_DEFAULT_MS),
 * and at once after a key.
 */
#define _GNU_SOURCE
#include "app.h"

#include <curses.h>
#include <errno.h>
#include <math.h>
#include <poll.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cursor.h"
#include "recorder/pace.h"
#include "draw.h"
#include "text.h"
#include "proc_view.h"

volatile sig_atomic_t app_interrupted;

/* Drain cadence (docs/tui.md, "How it reads"): the rule every consumer
 * of the rings follows (recorder/pace.h): rest until the fullest ring is
 * expected to be a quarter full, never less than DRAIN_MIN_MS and at most
 * a draw period.  Every wake-up preempts a compute thread when all cores
 * are busy, and its peers then wait for it at their barrier: a fixed
 * 1-2 ms cadence cost llama-bench 13-15% of its token rate. */
#define DRAIN_MIN_MS 1.0
#define DRAIN_MAX_SHARE 0.6   /* of a core, over DRAIN_CREDIT_MS, when catching up */
#define DRAIN_CREDIT_MS 50.0
#define DRAW_MAX_SHARE 0.1    /* of a core, for the frames */
/* The draw period unless --refresh says otherwise: 5 frames a second, as
 * recorder-web's page redraws a view that follows the program.  A frame
 * costs about 1 ms of CPU, and wakes the terminal (tmux woke 110-190
 * times a second at 10 frames a second, while ncurses still wrote each
 * cursor jump apart: main.c, start_curses). */
#define DRAW_DEFAULT_MS 200

static double mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* Grows *buf to hold want items of size sz; 0 on failure. */
static int reserve(void **buf, size_t *cap, size_t want, size_t sz) {
    if (want <= *cap) return 1;
    size_t c = *cap ? *cap : 64;
    while (c < want) c *= 2;
    void *p = realloc(*buf, c * sz);
    if (!p) return 0;
    *buf = p;
    *cap = c;
    return 1;
}

/* Which names Top lists: the filter's, and in a process tree the
 * program's (proc_view.h). */
static int top_keep(void *ctx, uint32_t name_id, const char *name) {
    const struct app *a = ctx;
    if (a->filter[0] && !text_contains(name, a->filter)) return 0;
    return proc_view_keeps(a, name_id);
}

/* Top's rows straight from the model, in Top's order: only the first
 * TOP_ROWS_KEPT are sorted and copied (issue 22: a million names cost a
 * pass over the window, not two sorts of every name per frame). */
void app_rows(struct app *a) {
    struct snap *s = &a->snap;
    _Static_assert((int)TOP_MAX == (int)REC_KEY_MAX && (int)TOP_P50 == (int)REC_KEY_P50, "Top's columns are the keys");
    int filtered = a->filter[0] || proc_view_filters(a);
    struct rec_stat_order o = {(enum rec_stat_key)a->sort, a->sort_rev, filtered ? top_keep : NULL, a};
    size_t total = 0, kept = 0;
    s->n_rows = s->n_stats = s->n_match = 0;
    if (!reserve((void **)&s->rows, &s->cap_rows, TOP_ROWS_KEPT, sizeof *s->rows)) return;
    s->n_rows = rec_model_stats_top(a->src->model, a->win, a->tid, &o, s->rows, TOP_ROWS_KEPT, &total, &kept);
    s->n_stats = total;
    s->n_match = kept;
    s->past_limit = rec_model_stats_past_limit(a->src->model, a->win);
}

void app_msg_rows(struct app *a) {
    struct snap *s = &a->snap;
    s->n_msg_rows = 0;
    if (!s->msg_rows) return;
    for (size_t i = 0; i < s->n_msgs; i++) {
        const struct rec_message *m = &s->msgs[i];
        if (a->tid != -1 && m->tid != a->tid) continue;   /* t: one thread's */
        if (gpu_rows_hidden_message(a, m)) continue;       /* a kernel's grid and block */
        if (text_contains(m->name, a->msg_filter) || text_contains(m->msg, a->msg_filter))
            s->msg_rows[s->n_msg_rows++] = (uint32_t)i;
    }
}

/* Counters, messages and the details panel's scope. */
static void snapshot_more(struct app *a) {
    struct snap *s = &a->snap;
    rec_model *m = a->src->model;
    size_t total = 0;
    s->n_counters = rec_model_counters(m, a->win, s->counters, s->cap_counters, &total);
    if (total > s->cap_counters && reserve((void **)&s->counters, &s->cap_counters, total, sizeof *s->counters))
        s->n_counters = rec_model_counters(m, a->win, s->counters, s->cap_counters, &total);
    s->counters_untracked = rec_model_counters_untracked(m);
    if (!s->msgs) s->msgs = malloc(REC_MESSAGES_MAX * sizeof *s->msgs);
    if (!s->msg_rows) s->msg_rows = malloc(REC_MESSAGES_MAX * sizeof *s->msg_rows);
    s->n_msgs = s->msgs ? rec_model_messages(m, s->msgs, REC_MESSAGES_MAX, &s->msgs_seen) : 0;
    app_msg_rows(a);
    app_detail(a);
}

void app_detail(struct app *a) {
    a->snap.detail_ok = a->detail && a->top_sel_id &&
                        rec_model_scope_detail(a->src->model, a->win, a->tid, a->top_sel_id, &a->snap.detail) == 0;
}

void app_set_view(struct app *a, enum view v) {
    a->view = v;
    if (v == VIEW_FLAME && !a->snap.tree_ok) app_snapshot(a);
}

void app_snapshot(struct app *a) {
    struct snap *s = &a->snap;
    rec_model *m = a->src->model;
    /* The call tree only where it is shown: the flame view, or a pause
     * (any view may be picked then, and shows the paused moment).  It was
     * a twentieth of recorder-top's CPU watching a busy program. */
    s->tree_ok = a->view == VIEW_FLAME || a->paused;
    s->n_tree = 0;
    /* A tree as large as the buffer may have been cut: grow and ask again. */
    if (s->tree_ok && !s->cap_tree) reserve((void **)&s->tree, &s->cap_tree, 1024, sizeof *s->tree);
    while (s->tree_ok) {
        s->n_tree = s->cap_tree ? rec_model_tree(m, a->win, a->tid, s->tree, s->cap_tree) : 0;
        if (s->n_tree < s->cap_tree || s->cap_tree >= (1u << 18)) break;
        if (!reserve((void **)&s->tree, &s->cap_tree, s->cap_tree * 4, sizeof *s->tree)) break;
    }
    const struct rec_model_thread *t;
    size_t n = rec_model_threads(m, &t);
    if (reserve((void **)&s->threads, &s->cap_threads, n, sizeof *s->threads) &&
        reserve((void **)&s->thr_cover, &s->cap_thr_cover, n, sizeof *s->thr_cover)) {
        if (n) memcpy(s->threads, t, n * sizeof *t);   /* a model read again from the start has none */
        s->n_threads = n;
        /* Threads shows each thread's last second: whether entries were
         * lost in it says if its EV/S and UTIL are partial. */
        for (size_t i = 0; i < n; i++)
            if (rec_model_window_cover(m, REC_WIN_1S, s->threads[i].tid, &s->thr_cover[i]) != 0)
                memset(&s->thr_cover[i], 0, sizeof s->thr_cover[i]);
    }
    /* Whether the statistics shown are partial: entries lost in the window
     * (for the thread shown, or any). */
    if (rec_model_window_cover(m, a->win, a->tid, &s->cover) != 0) memset(&s->cover, 0, sizeof s->cover);
    s->span_ns = rec_model_window_span(m, a->win);
    s->now_ns = a->src->now_ns;
    proc_view_snapshot(a);
    gpu_rows_snapshot(a);   /* GPU lanes after the CPU threads, by device */
    app_rows(a);
    snapshot_more(a);
}

void app_free(struct app *a) {
    free(a->snap.rows);
    free(a->snap.tree);
    free(a->snap.threads);
    free(a->snap.thr_cover);
    free(a->snap.lanes);
    free(a->snap.gpu_names);
    free(a->snap.counters);
    free(a->snap.msgs);
    free(a->snap.msg_rows);
    free(a->spans);
    memset(&a->snap, 0, sizeof a->snap);
    a->spans = NULL;
}

void app_draw(struct app *a) {
    erase();
    if (COLS < MIN_COLS || LINES < MIN_LINES) {
        chrome_draw_too_small(MIN_COLS, MIN_LINES);
    } else {
        a->hit.head_y = -1;   /* the view says what it drew where */
        a->hit.rows_n = 0;
        int top = chrome_draw_top(a);
        int h = LINES - top - 1;
        switch (a->view) {
        case VIEW_TOP: view_top_draw(a, top, h); break;
        case VIEW_FLAME: view_flame_draw(a, top, h); break;
        case VIEW_COUNTERS: view_counters_draw(a, top, h); break;
        case VIEW_MESSAGES: view_messages_draw(a, top, h); break;
        default: view_threads_draw(a, top, h); break;
        }
        if (a->detail && a->view == VIEW_TOP) view_details_draw(a, top, h);
        chrome_draw_bottom(a);
        if (a->help) view_help_draw(a);
    }
    draw_frame_mark(a->draws);
    refresh();
    if (!a->draws) a->first_draw_ns = mono_ns();
    a->draws++;
}

/* The next thread after (dir > 0) or before the current one, with "all"
 * between the last and the first. */
static void cycle_thread(struct app *a, int dir) {
    const struct snap *s = &a->snap;
    int n = (int)s->n_threads, at = -1;
    for (int i = 0; i < n; i++)
        if (s->threads[i].tid == a->tid) at = i;
    if (n == 0) {
        a->tid = -1;
        return;
    }
    if (dir > 0) at = a->tid == -1 ? 0 : at + 1;
    else at = a->tid == -1 ? n - 1 : at - 1;
    a->tid = at >= 0 && at < n ? s->threads[at].tid : -1;
}

static void on_filter_key(struct app *a, uint32_t ch, int code) {
    switch (line_edit_key(&a->edit, ch, code)) {
    case EDIT_ACCEPT: a->filtering = 0; break;
    case EDIT_CANCEL:
        a->filtering = 0;
        line_edit_set(&a->edit, "");
        break;
    case EDIT_MORE: break;
    }
    /* Rows follow the text as it is typed; Esc drops the filter. */
    if (a->filter_view == VIEW_MESSAGES) {
        memcpy(a->msg_filter, a->edit.buf, sizeof a->msg_filter);
        a->msg_sel = a->msg_scroll = 0;
        app_msg_rows(a);
        return;
    }
    memcpy(a->filter, a->edit.buf, sizeof a->filter);
    a->top_sel = a->top_scroll = 0;
    app_rows(a);
}

int app_list_key(struct app *a, enum action act, int page) {
    switch (a->view) {
    case VIEW_TOP: return view_top_key(a, act, page);
    case VIEW_FLAME: return view_flame_key(a, act);
    case VIEW_COUNTERS: return view_counters_key(a, act, page);
    case VIEW_MESSAGES: return view_messages_key(a, act, page);
    default: return view_threads_key(a, act, page);
    }
}

static void on_key(struct app *a, uint32_t ch, int code) {
    if (a->filtering) {
        on_filter_key(a, ch, code);
        return;
    }
    if (code && ch == KEY_MOUSE) {
        mouse_event(a);
        return;
    }
    enum action act = input_action(ch, code);
    if (act == ACT_RESIZE) return;
    if (a->help) {   /* any key closes the help, but those that scroll it */
        if (!view_help_key(a, act)) a->help = 0;
        return;
    }
    int page = LINES - 6 > 1 ? LINES - 6 : 1;
    /* The details panel: Enter, Esc or Backspace close it; the other keys
     * work as in Top (arrows pick another scope, w and t change what it
     * is computed over). */
    if (a->detail && (act == ACT_ENTER || act == ACT_BACK)) {
        a->detail = 0;
        return;
    }
    if (cursor_key(a, act) || proc_view_key(a, act)) return;
    switch (act) {
    case ACT_QUIT: a->quit = 1; return;
    case ACT_VIEW_NEXT: app_set_view(a, (enum view)((a->view + 1) % VIEW_COUNT)); return;
    case ACT_VIEW_PREV: app_set_view(a, (enum view)((a->view + VIEW_COUNT - 1) % VIEW_COUNT)); return;
    case ACT_VIEW_TOP: app_set_view(a, VIEW_TOP); return;
    case ACT_VIEW_FLAME: app_set_view(a, VIEW_FLAME); return;
    case ACT_VIEW_THREADS: app_set_view(a, VIEW_THREADS); return;
    case ACT_VIEW_COUNTERS: app_set_view(a, VIEW_COUNTERS); return;
    case ACT_VIEW_MESSAGES: app_set_view(a, VIEW_MESSAGES); return;
    case ACT_WINDOW:
        a->win = (enum rec_window)((a->win + 1) % 3);
        app_snapshot(a);
        return;
    case ACT_SORT:
        a->sort = (enum top_col)((a->sort + 1) % TOP_NCOLS);
        a->sort_rev = 0;
        app_rows(a);
        return;
    case ACT_SORT_REVERSE:
        a->sort_rev = !a->sort_rev;
        app_rows(a);
        return;
    case ACT_FILTER:
        /* Messages filters its own list; elsewhere the filter is Top's. */
        a->filtering = 1;
        if (a->view != VIEW_MESSAGES) a->view = VIEW_TOP;
        a->filter_view = a->view;
        line_edit_set(&a->edit, a->view == VIEW_MESSAGES ? a->msg_filter : a->filter);
        return;
    case ACT_THREAD_NEXT:
    case ACT_THREAD_PREV:
        cycle_thread(a, act == ACT_THREAD_NEXT ? 1 : -1);
        app_snapshot(a);
        return;
    case ACT_PAUSE:
        /* Paused: this moment, the call tree included (any view may be
         * picked while paused). */
        a->paused = !a->paused;
        app_snapshot(a);
        return;
    case ACT_FOLD:
        rec_model_set_fold(a->src->model, !rec_model_fold(a->src->model));
        a->top_sel_id = 0;    /* the selected name may fold away */
        app_snapshot(a);
        return;
    case ACT_HELP:
        a->help = 1;
        a->help_scroll = 0;
        return;
    case ACT_REDRAW: clearok(curscr, TRUE); return;
    default: break;
    }
    int used = app_list_key(a, act, page);
    if (!used && act == ACT_BACK && a->filter[0]) {
        a->filter[0] = 0;
        line_edit_set(&a->edit, "");
        app_rows(a);
    }
}

/* The time to the next frame: the refresh period, or longer when a frame
 * costs more than DRAW_MAX_SHARE of it (a window of a million names takes
 * tens of ms to add up), so that the drain keeps the core (issue 22). */
static double draw_period_ns(double period_ns, double took_ns) {
    double need = took_ns / DRAW_MAX_SHARE;
    return need > period_ns ? need : period_ns;
}

int app_run(struct app *a) {
    struct source *src = a->src;
    double start = mono_ns(), next_drain = start, next_draw = start;
    double credit = 0, last_pass = start;
    double draw_ns = (a->opt.refresh_ms > 0 ? a->opt.refresh_ms : DRAW_DEFAULT_MS) * 1e6;
    struct rec_pace pace;
    rec_pace_init(&pace, DRAIN_MIN_MS, draw_ns / 1e6);
    a->tid = -1;
    /* recorder-web's default window (docs/web.md): the same in both. */
    a->win = a->opt.window ? (enum rec_window)(a->opt.window - 1) : REC_WIN_10S;
    if (src->file) src->file->first_window_ns = cursor_step_ns(a->win);   /* a whole first window */
    nodelay(stdscr, TRUE);
    mouse_init();
    while (!a->quit && !app_interrupted) {
        double t = mono_ns();
        if (t >= next_drain) {
            /* After the program exits, drain until the rings are empty:
             * a pass is bounded, and a dead program's rings may be full. */
            double pass_ns = 0;
            int at_once = 0;
            if (!src->exited || !src->settled) {
                size_t got = source_drain(src);
                if (src->exited && got == 0) src->settled = 1;
                double t2 = mono_ns();
                pass_ns = t2 - t;
                a->drain_s += pass_ns / 1e9;
                /* fill was measured as the pass began: it built up since
                 * the previous pass ended.  A pass stops at its bound (a
                 * quarter ring a thread), and the next one then comes at
                 * once, as far as the credit below allows. */
                at_once = rec_pace_pass(&pace, src->fill, (t - last_pass) / 1e6, src->drain.more);
                t = t2;
            }
            /* Catch-up credit: DRAIN_MAX_SHARE of the time since the last
             * pass, minus what the pass took, saved up to DRAIN_CREDIT_MS. */
            credit += (t - last_pass) * DRAIN_MAX_SHARE - pass_ns;
            if (credit > DRAIN_CREDIT_MS * 1e6) credit = DRAIN_CREDIT_MS * 1e6;
            last_pass = t;
            if (!at_once) next_drain = t + pace.rest_ms * 1e6;
            else next_drain = credit > 0 ? t : t - credit / DRAIN_MAX_SHARE;
        }
        if (t >= next_draw) {
            source_tick(src, t);
            if (!a->paused) app_snapshot(a);
            app_draw(a);
            double took = mono_ns() - t;
            a->draw_s += took / 1e9;
            next_draw += draw_period_ns(draw_ns, took);
            if (next_draw < t) next_draw = t + draw_ns;   /* fell behind: do not catch up in a burst */
        }
        if (a->opt.exit_after > 0 && t - start >= a->opt.exit_after * 1e9) break;
        /* While it drains, a frame is drawn at the first pass after it
         * is due (at most one drain period late, which is at most the
         * draw period), not at a wake-up of its own: each wake-up
         * preempts a thread of a program that keeps every core busy. */
        int draining = !src->exited || !src->settled;
        double until = draining || next_drain < next_draw ? next_drain : next_draw;
        double wait = (until - mono_ns()) / 1e6;
        struct pollfd p = {STDIN_FILENO, POLLIN, 0};
        /* A resize (SIGWINCH) interrupts the poll; curses then reports
         * KEY_RESIZE from get_wch. */
        if (wait > 0) {
            double w0 = mono_ns();
            /* ppoll: a rest between catch-up passes is well under 1 ms. */
            struct timespec ts = {(time_t)(wait / 1e3), (long)(fmod(wait, 1e3) * 1e6)};
            ppoll(&p, 1, &ts, NULL);
            a->wait_s += (mono_ns() - w0) / 1e9;
        }
        int keys = 0;
        wint_t ch;
        int r;
        while (!a->quit && (r = get_wch(&ch)) != ERR) {
            /* A click acts on where the last draw put things: draw what
             * the keys before it changed first. */
            if (keys && r == KEY_CODE_YES && ch == KEY_MOUSE) app_draw(a);
            on_key(a, (uint32_t)ch, r == KEY_CODE_YES);
            keys++;
        }
        if (keys && !a->quit) app_draw(a);
    }
    return 0;
}
