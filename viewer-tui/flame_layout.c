/*
 * flame_layout.c -- tree to rows of spans, and selection moves (see
 * flame_layout.h).
 *
 * The tree comes from our own library, but walks are still bounded by the
 * node count and every index is checked: a bug there must not hang the view.
 */
#include "flame_layout.h"

#include <math.h>

static int edge(double cum, double total, int x, int w) {
    double f = total > 0 ? cum / total : 0;
    if (f > 1) f = 1;
    return x + (int)floor(f * w + 0.5);
}

size_t flame_layout(const struct rec_tree_node *nodes, size_t n, uint32_t root, int width, int max_rows,
                    struct flame_span *out, size_t cap) {
    if (root >= n || width <= 0 || max_rows <= 0 || cap == 0) return 0;
    size_t k = 0;
    out[k++] = (struct flame_span){root, 0, 0, width};
    size_t row_start = 0, row_end = 1;
    for (int row = 1; row < max_rows && row_start < row_end; row++) {
        for (size_t i = row_start; i < row_end; i++) {
            const struct flame_span *p = &out[i];
            const struct rec_tree_node *pn = &nodes[p->node];
            double total = pn->total_ns, cum = 0;
            uint32_t c = pn->first_child;
            for (size_t steps = 0; c && c < n && steps < n; steps++, c = nodes[c].next_sibling) {
                if (nodes[c].parent != p->node) break;
                int x0 = edge(cum, total, p->x, p->w);
                cum += nodes[c].total_ns > 0 ? nodes[c].total_ns : 0;
                int x1 = edge(cum, total, p->x, p->w);
                if (x1 <= x0) continue;
                if (k == cap) return k;
                out[k++] = (struct flame_span){c, row, x0, x1 - x0};
            }
        }
        row_start = row_end;
        row_end = k;
    }
    return k;
}

int flame_find(const struct flame_span *sp, size_t n, uint32_t node) {
    for (size_t i = 0; i < n; i++)
        if (sp[i].node == node) return (int)i;
    return -1;
}

uint32_t flame_move(const struct rec_tree_node *nodes, size_t nn, const struct flame_span *sp, size_t n,
                    uint32_t sel, enum flame_dir dir) {
    if (n == 0) return sel;
    int i = -1;
    /* Not shown (too narrow, or above the zoom): the nearest shown ancestor. */
    for (size_t steps = 0; sel < nn && steps <= nn; steps++) {
        i = flame_find(sp, n, sel);
        if (i >= 0 || sel == 0) break;
        sel = nodes[sel].parent;
    }
    if (i < 0) return sp[0].node;
    const struct flame_span *s = &sp[i];
    switch (dir) {
    case FLAME_LEFT:
        if (i > 0 && sp[i - 1].row == s->row) return sp[i - 1].node;
        return sel;
    case FLAME_RIGHT:
        if ((size_t)i + 1 < n && sp[i + 1].row == s->row) return sp[i + 1].node;
        return sel;
    case FLAME_UP:
        if (s->row > 0) {
            uint32_t p = nodes[sel].parent;
            if (flame_find(sp, n, p) >= 0) return p;
        }
        return sel;
    case FLAME_DOWN:
        for (size_t j = (size_t)i + 1; j < n; j++)
            if (sp[j].row == s->row + 1 && nodes[sp[j].node].parent == sel) return sp[j].node;
        return sel;
    }
    return sel;
}

int tree_path(const struct rec_tree_node *nodes, size_t n, uint32_t node, uint32_t *ids, int cap) {
    uint32_t chain[REC_MAX_DEPTH + 1];
    int len = 0;
    for (size_t steps = 0; node && node < n && steps < n && len < REC_MAX_DEPTH + 1; steps++) {
        chain[len++] = nodes[node].name_id;
        node = nodes[node].parent;
    }
    int k = 0;
    for (int i = len - 1; i >= 0 && k < cap; i--) ids[k++] = chain[i];
    return k;
}

uint32_t tree_lookup(const struct rec_tree_node *nodes, size_t n, const uint32_t *ids, int len, int *matched) {
    uint32_t at = 0;
    int m = 0;
    if (n == 0) {
        if (matched) *matched = 0;
        return 0;
    }
    for (; m < len; m++) {
        uint32_t c = nodes[at].first_child, found = 0;
        for (size_t steps = 0; c && c < n && steps < n; steps++, c = nodes[c].next_sibling)
            if (nodes[c].name_id == ids[m]) {
                found = c;
                break;
            }
        if (!found) break;
        at = found;
    }
    if (matched) *matched = m;
    return at;
}
