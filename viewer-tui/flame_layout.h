/*
 * flame_layout.h -- a call-path tree as rows of spans (an icicle graph:
 * callers on top, callees below), and moving a selection over it.
 *
 * Works on the rec_tree_node array rec_model_tree fills: node 0 is the
 * root, children are linked first_child/next_sibling, largest first.  Pure.
 */
#ifndef TUI_FLAME_LAYOUT_H
#define TUI_FLAME_LAYOUT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/analysis.h"

struct flame_span {
    uint32_t node;      /* index into the tree */
    int row;            /* 0: the view's root */
    int x, w;           /* cells; w >= 1 */
};

/* Lays out the subtree under `root` in `width` cells and at most max_rows
 * rows.  Row 0 is the root alone, full width.  A child gets its share of
 * its parent's cells by total time, its edges rounded from running sums so
 * that siblings tile the parent without gaps or overlaps; the parent's
 * self time is what is left on the right.  A child that rounds to no cell
 * is left out with its subtree.  Spans come row by row, left to right.
 * Returns the number written (at most cap). */
size_t flame_layout(const struct rec_tree_node *nodes, size_t n, uint32_t root, int width, int max_rows,
                    struct flame_span *out, size_t cap);

/* Index of the span showing node, or -1. */
int flame_find(const struct flame_span *sp, size_t n, uint32_t node);

enum flame_dir { FLAME_LEFT, FLAME_RIGHT, FLAME_UP, FLAME_DOWN };

/* The node selected after moving from sel: left/right to the neighbouring
 * span in the same row, up to the parent, down to the widest child.  Stays
 * put at an edge.  A selection that is not shown moves to its nearest
 * ancestor that is. */
uint32_t flame_move(const struct rec_tree_node *nodes, size_t nn, const struct flame_span *sp, size_t n,
                    uint32_t sel, enum flame_dir dir);

/* A node as the names on its path from the root (root excluded), so that
 * a selection or zoom survives a refresh that renumbers the tree.  Returns
 * the path length (at most cap). */
int tree_path(const struct rec_tree_node *nodes, size_t n, uint32_t node, uint32_t *ids, int cap);
/* The node at that path, or its deepest ancestor present; *matched gets
 * the number of path entries found (may be NULL). */
uint32_t tree_lookup(const struct rec_tree_node *nodes, size_t n, const uint32_t *ids, int len, int *matched);

#endif
