/*
 * view_messages.c -- the Messages view (Tracy's messages list): the
 * program's instants and signposts (REC_INSTANT), newest first, with how
 * long ago they were recorded, the thread, the name and the message.  `/`
 * filters on name and message as you type.
 *
 * The list is librecorder's ring of the last REC_MESSAGES_MAX instants
 * read.  A message whose thread lost entries since its previous message
 * has PARTIAL_MARK in the first column: messages may be missing before
 * it.  The text comes from the traced program: draw_text turns control
 * characters and invalid UTF-8 into '?', so a message cannot drive the
 * terminal.
 */
#include <stdio.h>
#include <string.h>

#include "app.h"
#include "table.h"
#include "draw.h"
#include "format.h"

enum { C_AGO, C_THREAD, C_NAME, C_MSG, C_N };

static const char *thread_label(const struct snap *s, int tid, char *buf, size_t cap) {
    for (size_t i = 0; i < s->n_threads; i++)
        if (s->threads[i].tid == tid && s->threads[i].name[0]) {
            snprintf(buf, cap, "%s", s->threads[i].name);
            return buf;
        }
    snprintf(buf, cap, "%d", tid);
    return buf;
}

void view_messages_draw(struct app *a, int y, int h) {
    static const struct col_def cols[C_N] = {
        [C_AGO] = {"AGO", 8, 90, 0, 1},
        [C_THREAD] = {"THREAD", 12, 70, 0, 0},
        [C_NAME] = {"NAME", 14, 80, 0, 0},
        [C_MSG] = {"MESSAGE", 20, 1000, 1, 0},
    };
    int x[C_N], w[C_N];
    const int margin = TABLE_MARGIN;
    table_head(y, cols, C_N, x, w);
    const struct snap *s = &a->snap;
    int rows = h - 2, n = (int)s->n_msg_rows;
    if (rows < 1) return;
    table_place(a, &a->msg_sel, &a->msg_scroll, n, rows, y + 1);
    int any_partial = 0;
    for (int r = 0; r < rows && a->msg_scroll + r < n; r++) {
        int i = a->msg_scroll + r, yy = y + 1 + r, sel = i == a->msg_sel;
        const struct rec_message *m = &s->msgs[s->msg_rows[i]];
        attr_t base = sel ? theme_attr(R_SELECTED) : A_NORMAL;
        if (sel) draw_fill(yy, 0, COLS, base);
        if (m->after_loss) {
            any_partial = 1;
            draw_text(yy, 0, 1, PARTIAL_MARK, FIT_LEFT, sel ? base : theme_attr(R_WARN));
        }
        char v[128];
        for (int c = 0; c < C_N; c++) {
            if (!w[c]) continue;
            const char *txt = v;
            attr_t at = base;
            switch (c) {
            case C_AGO:
                fmt_duration(v, sizeof v, s->now_ns > m->ts_ns ? s->now_ns - m->ts_ns : 0, draw_utf8);
                if (!sel) at = theme_attr(R_DIM);
                break;
            case C_THREAD: thread_label(s, m->tid, v, sizeof v); break;
            case C_NAME: txt = m->name ? m->name : "?"; break;
            case C_MSG: txt = m->msg; break;
            }
            draw_text(yy, margin + x[c], w[c], txt,
                      cols[c].right ? FIT_RIGHT : c == C_NAME || c == C_THREAD ? FIT_MIDDLE : FIT_LEFT, at);
        }
    }
    if (n == 0) {
        char msg[200];
        if (s->n_msgs && a->msg_filter[0])
            snprintf(msg, sizeof msg, "No message contains \"%s\" (%zu hidden). Press / to change the filter.",
                     a->msg_filter, s->n_msgs);
        else if (s->n_msgs)
            snprintf(msg, sizeof msg, "No message from this thread (%zu from others). t, T: another thread, or all.",
                     s->n_msgs);
        else snprintf(msg, sizeof msg, "No message yet: the program records none (REC_INSTANT).");
        draw_center(y + 1 + rows / 2, msg, theme_attr(R_DIM));
    }
    char msg[320];
    int k = 0;
    msg[0] = 0;
    if (any_partial)
        k = snprintf(msg, sizeof msg, "%s entries of its thread lost before it: messages may be missing %s",
                     PARTIAL_MARK, sym(SYM_SEP));
    k += snprintf(msg + k, sizeof msg - (size_t)k, " %d", n);
    if ((size_t)n != s->n_msgs && k > 0 && (size_t)k < sizeof msg)
        k += snprintf(msg + k, sizeof msg - (size_t)k, " of %zu", s->n_msgs);
    if (k > 0 && (size_t)k < sizeof msg)
        k += snprintf(msg + k, sizeof msg - (size_t)k, " messages, newest first");
    if (s->msgs_seen > s->n_msgs && k > 0 && (size_t)k < sizeof msg)
        snprintf(msg + k, sizeof msg - (size_t)k, " %s the last %d of %llu read", sym(SYM_SEP), REC_MESSAGES_MAX,
                 (unsigned long long)s->msgs_seen);
    draw_text(y + h - 1, 0, COLS, msg, FIT_LEFT, theme_attr(R_DIM));
    if (any_partial) draw_text(y + h - 1, 0, 1, PARTIAL_MARK, FIT_LEFT, theme_attr(R_WARN));
}

int view_messages_key(struct app *a, enum action act, int page) {
    if (act == ACT_BACK && a->msg_filter[0]) {   /* Esc clears the filter */
        a->msg_filter[0] = 0;
        line_edit_set(&a->edit, "");
        app_msg_rows(a);
        return 1;
    }
    int sel;
    if (!list_move(act, a->msg_sel, (int)a->snap.n_msg_rows, page, &sel)) return 0;
    a->msg_sel = sel;
    return 1;
}
