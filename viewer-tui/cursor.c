/*
 * cursor.c -- the time cursor of a capture file (docs/tui.md, "Capture
 * files"): its keys, and what the title says about it.
 *
 * The cursor is the end of the window shown, on a grid of whole seconds
 * since the capture's calibration point (the program's time 0), so that
 * a window is exactly the model's buckets: the 1 s window at cursor T
 * holds the slices that ended in [T - 1 s, T).  [ and ] move it by the
 * window's length (10 s for "all"), < and > jump to the file's first and
 * last window.  The first window is a whole one (the first 10 s under
 * "window 10s"), and the last ends at the file's end, off the grid: the
 * title's times never go past the file's first or last timestamp.
 */
#include "cursor.h"

#include <math.h>
#include <stdio.h>

double cursor_step_ns(enum rec_window w) { return w == REC_WIN_1S ? 1e9 : 1e10; }

/* The end of the first whole window (file_src's first_window_ns). */
static double first_cursor(double first_ns, enum rec_window w) {
    return file_src_grid_after(first_ns) + cursor_step_ns(w) - FILE_GRID_NS;
}

int cursor_key(struct app *a, enum action act) {
    struct file_src *f = a->src->file;
    if (act != ACT_CURSOR_BACK && act != ACT_CURSOR_FWD && act != ACT_CURSOR_START && act != ACT_CURSOR_END)
        return 0;
    if (!f) return 1;   /* a live program: now is the only time there is */
    /* From where it is going, so that keys pressed while reading add up. */
    double at = isnan(f->target_ns) ? f->cursor_ns : f->target_ns;
    switch (act) {
    case ACT_CURSOR_BACK:
        if (isnan(at) || at == INFINITY) return 1;
        source_seek(a->src, at - cursor_step_ns(a->win));
        break;
    case ACT_CURSOR_FWD:
        if (isnan(at) || at == INFINITY) return 1;
        source_seek(a->src, at + cursor_step_ns(a->win));
        break;
    case ACT_CURSOR_START:   /* the first whole window, as when the file opened */
        if (f->first_ns == INFINITY) return 1;   /* no event read yet: already there */
        source_seek(a->src, first_cursor(f->first_ns, a->win));
        break;
    default: source_seek(a->src, INFINITY); break;
    }
    app_snapshot(a);
    return 1;
}

/* Seconds, as short as they are exact: "4", "0.001", "7.664". */
static const char *secs(char *buf, size_t cap, double ns) {
    double s = ns / 1e9;
    if (fabs(s - round(s)) < 5e-4) snprintf(buf, cap, "%.0f", s);
    else snprintf(buf, cap, "%.3f", s);
    return buf;
}

void cursor_title(struct app *a, char *buf, size_t cap) {
    const struct file_src *f = a->src->file;
    char x[32], y[32], z[32];
    if (f->status != REC_OK) {
        snprintf(buf, cap, "read error: %s", rec_status_str(f->status));
        return;
    }
    if (f->reading && f->target_ns == INFINITY) {
        snprintf(buf, cap, "reading to the end %.0f%%", 100 * file_src_progress(f));
        return;
    }
    if (f->reading) {
        snprintf(buf, cap, "reading to %s s %.0f%%", isnan(f->target_ns) ? "?" : secs(x, sizeof x, f->target_ns),
                 100 * file_src_progress(f));
        return;
    }
    /* The window is [now - span, now], now being the cursor less 1 ns;
     * at the end the cursor is just past the last event, and the label
     * says the file's end, never a time past it. */
    double span = rec_model_window_span(f->model, a->win), end = file_src_end_ns(f);
    double to = !isnan(end) && f->cursor_ns > end ? end : f->cursor_ns;
    int n = snprintf(buf, cap, "t %s-%s s", secs(x, sizeof x, f->cursor_ns - span - (span > 0 ? 1 : 0)),
                     secs(y, sizeof y, to));
    if (n > 0 && (size_t)n < cap)
        snprintf(buf + n, cap - (size_t)n, " of %s s%s", isnan(end) ? "?" : secs(z, sizeof z, end),
                 f->incomplete ? " (lookahead full: may be incomplete)" : "");
}

const char *cursor_banner(struct app *a) {
    const struct file_src *f = a->src->file;
    return f && f->info->warning[0] ? f->info->warning : NULL;
}
