/*
 * view_threads.c -- the Threads view: one row per thread with its state,
 * event rate, losses, utilization (now and as a sparkline of the last
 * seconds), and the scopes it is inside right now, innermost last, with
 * how long the innermost has been open.  Enter shows the thread in Top.
 *
 * The words are the CLI's: LOST is what recorder-top lost since it
 * attached (overwritten, dropped, bad), NOT KEPT the history the ring
 * had already overwritten when it first looked (not a loss).  A thread
 * that lost entries in the last second has PARTIAL_MARK in the first
 * column: its EV/S and UTIL come from partial data (UTIL is busy time
 * over the part of the second its data covers, librecorder's util[]).
 * The line at the bottom gives the selected thread's losses by cause.
 *
 * GPU lanes (gpu_rows.h) come after the CPU threads, by device: KIND says
 * "gpu" (a stream) or "gpu dev" (a device, whose UTIL is its busy share
 * from its streams), and INSIDE NOW says how far back their data is
 * delivered: the GPU library writes them late, as CUPTI hands records
 * over, so their rows end before the CPU threads' do.
 */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "table.h"
#include "draw.h"
#include "format.h"
#include "proc_view.h"
#include "sparkline.h"

enum { C_TID, C_KIND, C_NAME, C_STATE, C_EVS, C_LOST, C_NOT_KEPT, C_UTIL, C_HIST, C_INSIDE, C_N };

/* The open scopes, outermost first, joined by a path mark; when there are
 * many, the outermost are left out (the innermost matter most). */
static void stack_text(struct app *a, const struct rec_model_thread *t, char *out, size_t cap) {
    const char *sep = sym(SYM_PATH);
    int depth = t->depth > REC_MAX_DEPTH ? REC_MAX_DEPTH : t->depth;
    size_t total = 0;
    int from = depth;
    while (from > 0) {
        size_t l = strlen(source_name(a->src, t->stack[from - 1])) + strlen(sep) + 2;
        if (total + l + 8 > cap) break;
        total += l;
        from--;
    }
    size_t k = 0;
    out[0] = 0;
    if (from > 0) k += (size_t)snprintf(out, cap, "%s", draw_utf8 ? "\xe2\x80\xa6" : "...");
    for (int i = from; i < depth; i++) {
        if (k) k += (size_t)snprintf(out + k, cap - k, " %s ", sep);
        k += (size_t)snprintf(out + k, cap - k, "%s", source_name(a->src, t->stack[i]));
    }
}

/* What a GPU row says instead of its open scopes: a device's streams
 * and busy share, a late lane's delivered-up-to lag. */
static void lane_text(struct app *a, const struct lane_meta *lm, char *out, size_t cap) {
    char d[FMT_BUF];
    if (lm->kind == REC_LANE_GPU_DEVICE) {
        char b[FMT_BUF];
        fmt_pct(b, sizeof b, 100 * lm->busy[59]);
        snprintf(out, cap, "device %u: busy %s, %d stream%s", lm->device, b, lm->n_streams, lm->n_streams == 1 ? "" : "s");
        return;
    }
    double lag = a->snap.now_ns - lm->delivered_ns;
    fmt_duration(d, sizeof d, lag > 0 ? lag : 0, draw_utf8);
    snprintf(out, cap, "delivered up to %s ago", d);
}

void view_threads_draw(struct app *a, int y, int h) {
    int hist = COLS >= 170 ? 60 : COLS >= 130 ? 40 : 20;
    const struct col_def cols[C_N] = {
        /* Narrow terminals lose the tid and the state first: the name,
         * the utilization and the open scopes say the most. */
        [C_TID] = {"TID", 7, 70, 0, 1},
        /* Only when there are lanes other than threads (gpu_rows.h). */
        [C_KIND] = {"KIND", gpu_rows_any(a) ? 7 : 0, 84, 0, 0},
        [C_NAME] = {proc_view_multi(a) ? "PROC             NAME" : "NAME", proc_view_multi(a) ? 31 : 14, 100, 0, 0},
        [C_STATE] = {"STATE", 6, 78, 0, 0},
        [C_EVS] = {"EV/S", 7, 80, 0, 1},
        [C_LOST] = {"LOST", 7, 82, 0, 1},
        [C_NOT_KEPT] = {"NOT KEPT", 8, 74, 0, 1},
        [C_UTIL] = {"UTIL", 6, 86, 0, 1},
        [C_HIST] = {hist >= 40 ? "UTILIZATION, LAST SECONDS" : "UTIL HISTORY", hist, 88, 0, 0},
        [C_INSIDE] = {"INSIDE NOW", 24, 1000, 1, 0},
    };
    int x[C_N], w[C_N];
    const int margin = TABLE_MARGIN;
    table_head(y, cols, C_N, x, w);
    const struct snap *s = &a->snap;
    int rows = h - 2, n = (int)s->n_threads;
    if (rows < 1) return;
    table_place(a, &a->thr_sel, &a->thr_scroll, n, rows, y + 1);
    int live = 0;
    for (int i = 0; i < n; i++) live += s->threads[i].state == REC_SLOT_LIVE && !a->src->exited;
    for (int r = 0; r < rows && a->thr_scroll + r < n; r++) {
        int i = a->thr_scroll + r, yy = y + 1 + r, sel = i == a->thr_sel;
        const struct rec_model_thread *t = &s->threads[i];
        const struct lane_meta *lm = &s->lanes[i];
        int dev = lm->kind == REC_LANE_GPU_DEVICE;
        /* A thread cannot outlive its process, whatever its slot says. */
        int exited = t->state != REC_SLOT_LIVE || a->src->exited;
        attr_t base = sel ? theme_attr(R_SELECTED) : exited ? theme_attr(R_DIM) : A_NORMAL;
        if (sel) draw_fill(yy, 0, COLS, base);
        if (s->thr_cover[i].partial) draw_text(yy, 0, 1, PARTIAL_MARK, FIT_LEFT, sel ? base : theme_attr(R_WARN));
        char v[256], st[4096];
        for (int c = 0; c < C_N; c++) {
            if (!w[c]) continue;
            attr_t at = base;
            int cx = margin + x[c];
            switch (c) {
            case C_TID:   /* a lane has no tid: its slot's -(slot+1) says nothing */
                if (lm->kind == REC_LANE_THREAD) snprintf(v, sizeof v, "%d", t->tid);
                else snprintf(v, sizeof v, "-");
                break;
            case C_KIND: snprintf(v, sizeof v, "%s", gpu_rows_kind(lm)); break;
            case C_NAME:
                if (proc_view_multi(a))   /* PROC, 16 wide, then the name */
                    snprintf(v, sizeof v, "%-16.16s %s", proc_view_of_slot(a, t->slot), t->name[0] ? t->name : "-");
                else snprintf(v, sizeof v, "%s", t->name[0] ? t->name : "-");
                break;
            case C_STATE: snprintf(v, sizeof v, "%s", exited ? "exited" : "live"); break;
            case C_EVS: fmt_si(v, sizeof v, t->events_per_sec); break;
            case C_LOST: {
                uint64_t l = source_thread_lost(t);
                fmt_si(v, sizeof v, (double)l);
                if (l && !sel) at = theme_attr(R_WARN);
                break;
            }
            case C_NOT_KEPT: fmt_si(v, sizeof v, (double)t->history); break;
            case C_UTIL: fmt_pct(v, sizeof v, 100 * (dev ? lm->busy[59] : t->util[59])); break;
            case C_HIST:
                sparkline(v, sizeof v, dev ? lm->busy : t->util, 60, w[c], draw_utf8);
                if (!sel && !exited) at = theme_attr(R_SPARK);
                draw_text(yy, cx, w[c], v, FIT_LEFT, at);
                continue;
            case C_INSIDE:
                if (lm->kind != REC_LANE_THREAD && (lm->delivered_ns > 0 || dev)) {
                    lane_text(a, lm, v, sizeof v);
                    draw_text(yy, cx, w[c], v, FIT_LEFT, sel ? base : theme_attr(R_DIM));
                    continue;
                }
                if (t->depth <= 0) {
                    draw_text(yy, cx, w[c], exited ? "" : "(no open scope)", FIT_LEFT, sel ? base : theme_attr(R_DIM));
                    continue;
                }
                /* Innermost scope's age on the right, the stack before it. */
                fmt_duration(v, sizeof v, s->now_ns - t->stack_ns[(t->depth > REC_MAX_DEPTH ? REC_MAX_DEPTH : t->depth) - 1],
                             draw_utf8);
                stack_text(a, t, st, sizeof st);
                int vw = text_width(v, draw_utf8) + 2;
                if (w[c] > vw + 8) {
                    draw_text(yy, cx, w[c] - vw, st, FIT_KEEP_END, base);
                    draw_text(yy, cx + w[c] - vw, vw, v, FIT_RIGHT, sel ? base : theme_attr(R_DIM));
                } else {
                    draw_text(yy, cx, w[c], st, FIT_KEEP_END, base);
                }
                continue;
            }
            draw_text(yy, cx, w[c], v, cols[c].right ? FIT_RIGHT : FIT_LEFT, at);
        }
    }
    if (n == 0) draw_center(y + 1 + rows / 2, "No thread has recorded an event yet.", theme_attr(R_DIM));
    /* The selected thread's losses by cause, what the mark means, the
     * counts. */
    char msg[400], n1[FMT_BUF], n2[FMT_BUF], n3[FMT_BUF], n4[FMT_BUF], n5[FMT_BUF];
    int k = 0, any_partial = 0;
    for (int i = 0; i < n; i++) any_partial |= s->thr_cover[i].partial;
    msg[0] = 0;
    if (a->thr_sel < n) {
        const struct rec_model_thread *t = &s->threads[a->thr_sel];
        const struct lane_meta *lm = &s->lanes[a->thr_sel];
        if (lm->kind != REC_LANE_THREAD && lm->delivered_ns > 0) {   /* why its row ends early */
            char d[FMT_BUF];
            double lag = s->now_ns - lm->delivered_ns;
            k += snprintf(msg + k, sizeof msg - (size_t)k, " %s: written late, delivered up to %s ago %s",
                          t->name[0] ? t->name : "-", fmt_duration(d, sizeof d, lag > 0 ? lag : 0, draw_utf8), sym(SYM_SEP));
        }
        k += snprintf(msg + k, sizeof msg - (size_t)k, " %s: lost %s (overwritten %s, dropped %s, bad %s), not kept %s %s",
                      t->name[0] ? t->name : "-", fmt_si(n1, sizeof n1, (double)source_thread_lost(t)),
                      fmt_si(n2, sizeof n2, (double)t->overwritten), fmt_si(n3, sizeof n3, (double)t->dropped),
                      fmt_si(n4, sizeof n4, (double)t->bad), fmt_si(n5, sizeof n5, (double)t->history), sym(SYM_SEP));
    }
    if (any_partial && k >= 0 && (size_t)k < sizeof msg)
        k += snprintf(msg + k, sizeof msg - (size_t)k, " %s lost entries in the last second %s", PARTIAL_MARK,
                      sym(SYM_SEP));
    if (k >= 0 && (size_t)k < sizeof msg)
        snprintf(msg + k, sizeof msg - (size_t)k, " %d threads, %d live %s Enter: this thread in Top", n, live,
                 sym(SYM_SEP));
    draw_text(y + h - 1, 0, COLS, msg, FIT_LEFT, theme_attr(R_DIM));
}

int view_threads_key(struct app *a, enum action act, int page) {
    int n = (int)a->snap.n_threads, sel = a->thr_sel;
    if (act == ACT_ENTER) {
        if (sel >= 0 && sel < n) {
            a->tid = a->snap.threads[sel].tid;
            a->view = VIEW_TOP;
            app_snapshot(a);
        }
        return 1;
    }
    if (!list_move(act, sel, n, page, &sel)) return 0;
    a->thr_sel = sel;
    return 1;
}
