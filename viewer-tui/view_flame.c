/*
 * view_flame.c -- the Flame view: the window's call-path tree as an icicle
 * graph (callers on top), frame widths proportional to total time.  Arrows
 * move the selection, Enter zooms into a frame, Backspace or Esc zooms out.
 *
 * Zoom and selection are kept as name paths (tree_path), not node indices:
 * every refresh rebuilds the tree, and a path finds the same frame again.
 *
 * The selected frame's shares of the window are Top's TOTAL% and SELF%
 * for a call path.  When entries were lost in the window they are taken
 * over the time the decoded data covers, as Top's are: a frame's time is
 * weighed as its name's (rec_stat.total_frac / total_ns, which folds in
 * each thread's covered time), so a path whose name runs on threads that
 * lost different shares is approximate -- which the partial mark says.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "draw.h"
#include "format.h"

static uint32_t zoom_root(struct app *a) {
    return tree_lookup(a->snap.tree, a->snap.n_tree, a->zoom_path, a->zoom_len, NULL);
}

/* The selected node if it is shown, else its nearest shown ancestor. */
static uint32_t shown_selection(struct app *a) {
    const struct snap *s = &a->snap;
    uint32_t sel = tree_lookup(s->tree, s->n_tree, a->sel_path, a->sel_len, NULL);
    for (size_t steps = 0; steps <= s->n_tree && sel < s->n_tree; steps++) {
        if (flame_find(a->spans, a->n_spans, sel) >= 0) return sel;
        if (sel == 0) break;
        sel = s->tree[sel].parent;
    }
    return a->n_spans ? a->spans[0].node : 0;
}

static void layout(struct app *a, int rows) {
    size_t need = (size_t)(COLS > 0 ? COLS : 1) * (size_t)(rows > 0 ? rows : 1);
    if (need > a->cap_spans) {
        struct flame_span *p = realloc(a->spans, need * sizeof *p);
        if (!p) {
            a->n_spans = 0;
            return;
        }
        a->spans = p;
        a->cap_spans = need;
    }
    a->n_spans = a->snap.n_tree ? flame_layout(a->snap.tree, a->snap.n_tree, zoom_root(a), COLS, rows, a->spans,
                                               a->cap_spans)
                                : 0;
}

/* Share of the window per ns of a name's time (total or self): 1 / span
 * without loss; with loss, its threads' covered time folded in. */
static double per_ns(const struct snap *s, uint32_t name_id, int self) {
    double span = s->span_ns > 0 ? s->span_ns : 1;
    for (size_t i = 0; i < s->n_rows; i++) {   /* Top's rows: the rest take the window's */
        const struct rec_stat *st = &s->rows[i];
        if (st->name_id != name_id) continue;
        double ns = self ? st->self_ns : st->total_ns, frac = self ? st->self_frac : st->total_frac;
        return ns > 0 ? frac / ns : 1 / span;
    }
    return 1 / span;
}

/* A node's total or self time as a share of the window; the root's is
 * its children's. */
static double node_share(const struct snap *s, uint32_t node, int self) {
    const struct rec_tree_node *n = &s->tree[node];
    if (node != 0) return (self ? n->self_ns : n->total_ns) * per_ns(s, n->name_id, self);
    if (self) return 0;
    double sum = 0;
    size_t steps = 0;
    for (uint32_t c = n->first_child; c && c < s->n_tree && steps++ < s->n_tree; c = s->tree[c].next_sibling)
        sum += node_share(s, c, 0);
    return sum;
}

static const char *node_name(struct app *a, uint32_t i, char *buf, size_t cap) {
    const struct rec_tree_node *n = &a->snap.tree[i];
    if (i == 0) {
        char th[96];
        snprintf(buf, cap, "%s", app_thread_name(a, th, sizeof th));
        return buf;
    }
    return n->name && n->name[0] ? n->name : "?";
}

void view_flame_draw(struct app *a, int y, int h) {
    const struct snap *s = &a->snap;
    int rows = h - 2;    /* the zoom path above, the selection's figures below */
    if (rows < 1) return;
    a->flame_rows = rows;
    layout(a, rows);
    char buf[512], nb[128];
    /* Zoom path. */
    int k = snprintf(buf, sizeof buf, " %s", a->zoom_len ? "zoom: " : "");
    uint32_t zr = zoom_root(a);
    if (a->zoom_len) {
        uint32_t chain[REC_MAX_DEPTH];
        int n = 0;
        for (uint32_t i = zr; i && i < s->n_tree && n < REC_MAX_DEPTH; i = s->tree[i].parent) chain[n++] = i;
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%s", node_name(a, 0, nb, sizeof nb));
        for (int i = n - 1; i >= 0 && (size_t)k < sizeof buf; i--)
            k += snprintf(buf + k, sizeof buf - (size_t)k, " %s %s", sym(SYM_PATH), node_name(a, chain[i], nb, sizeof nb));
        if ((size_t)k < sizeof buf) snprintf(buf + k, sizeof buf - (size_t)k, "   (Backspace: zoom out)");
    } else {
        snprintf(buf + k, sizeof buf - (size_t)k, "call paths over %s, widths by total time %s Enter zooms into a frame",
                 app_window_name(a->win), sym(SYM_SEP));
    }
    /* The partial mark first, never cut; then the zoom path, cut at its
     * start (the innermost frames matter), or the heading, cut at its end. */
    int hx = 0;
    if (s->cover.partial) {
        char pm[64];
        snprintf(pm, sizeof pm, "%s partial (entries lost) %s", PARTIAL_MARK, sym(SYM_SEP));
        hx = draw_put(y, 0, pm, theme_attr(R_WARN));
    }
    draw_text(y, hx, COLS - hx, buf, a->zoom_len ? FIT_KEEP_END : FIT_LEFT, theme_attr(R_DIM));

    if (a->n_spans == 0 || s->n_tree == 0 || !(s->tree[zr].total_ns > 0)) {
        draw_center(y + 1 + rows / 2, "No call paths in this window yet. Press w for a longer window.",
                    theme_attr(R_DIM));
        return;
    }
    uint32_t sel = shown_selection(a);
    for (size_t i = 0; i < a->n_spans; i++) {
        const struct flame_span *sp = &a->spans[i];
        const char *name = node_name(a, sp->node, nb, sizeof nb);
        attr_t at = sp->node == sel ? theme_attr(R_FLAME_SEL)
                    : sp->row == 0   ? theme_attr(R_FLAME_ROOT)
                                     : theme_flame(name);
        int yy = y + 1 + sp->row;
        /* A one-cell frame is a block of color: edge marks in a row of
         * them read as noise. */
        if (sp->w == 1) {
            draw_text(yy, sp->x, 1, " ", FIT_LEFT, at);
            continue;
        }
        draw_text(yy, sp->x, 1, sym(SYM_FRAME_EDGE), FIT_LEFT, at);
        draw_text(yy, sp->x + 1, sp->w - 1, name, FIT_LEFT, at);
    }
    /* The selected frame's figures. */
    const struct rec_tree_node *n = &s->tree[sel];
    char tot[FMT_BUF], self[FMT_BUF], p1[FMT_BUF], p2[FMT_BUF], p3[FMT_BUF], calls[FMT_BUF], avg[FMT_BUF];
    double zt = s->tree[zr].total_ns;
    const char *mark = s->cover.partial ? PARTIAL_MARK : "";
    snprintf(buf, sizeof buf, " %s  total %s (%s%s)  self %s (%s%s)  calls %s  avg %s  %s of %s",
             node_name(a, sel, nb, sizeof nb), fmt_duration(tot, sizeof tot, n->total_ns, draw_utf8), mark,
             fmt_pct(p1, sizeof p1, 100 * node_share(s, sel, 0)), fmt_duration(self, sizeof self, n->self_ns, draw_utf8),
             mark, fmt_pct(p2, sizeof p2, 100 * node_share(s, sel, 1)), fmt_si(calls, sizeof calls, (double)n->calls),
             fmt_duration(avg, sizeof avg, n->calls ? n->total_ns / (double)n->calls : -1, draw_utf8),
             fmt_pct(p3, sizeof p3, zt > 0 ? 100 * n->total_ns / zt : 0), a->zoom_len ? "the zoomed frame" : "all");
    draw_fill(y + h - 1, 0, COLS, theme_attr(R_TAB));
    draw_text(y + h - 1, 0, COLS, buf, FIT_LEFT, theme_attr(R_TAB));
}

static void select_node(struct app *a, uint32_t node) {
    a->sel_len = tree_path(a->snap.tree, a->snap.n_tree, node, a->sel_path, REC_MAX_DEPTH);
}

int view_flame_key(struct app *a, enum action act) {
    const struct snap *s = &a->snap;
    if (!s->n_tree) return act == ACT_ENTER || act == ACT_BACK;
    layout(a, a->flame_rows);   /* the snapshot may be newer than the last draw */
    uint32_t sel = shown_selection(a);
    switch (act) {
    case ACT_LEFT: select_node(a, flame_move(s->tree, s->n_tree, a->spans, a->n_spans, sel, FLAME_LEFT)); return 1;
    case ACT_RIGHT: select_node(a, flame_move(s->tree, s->n_tree, a->spans, a->n_spans, sel, FLAME_RIGHT)); return 1;
    case ACT_UP: select_node(a, flame_move(s->tree, s->n_tree, a->spans, a->n_spans, sel, FLAME_UP)); return 1;
    case ACT_DOWN: select_node(a, flame_move(s->tree, s->n_tree, a->spans, a->n_spans, sel, FLAME_DOWN)); return 1;
    case ACT_ENTER:
        if (sel != 0) {
            a->zoom_len = tree_path(s->tree, s->n_tree, sel, a->zoom_path, REC_MAX_DEPTH);
            select_node(a, sel);
        }
        return 1;
    case ACT_BACK:
        if (a->zoom_len > 0) a->zoom_len--;
        return 1;
    case ACT_HOME:
        a->zoom_len = 0;
        return 1;
    default: return 0;
    }
}
