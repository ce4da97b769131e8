/*
 * test_flame_layout.c -- flame_layout.c: widths proportional to time,
 * siblings tiling their parent exactly, narrow frames dropped, zoom,
 * selection moves, and paths that survive renumbering.
 */
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "flame_layout.h"

static struct rec_tree_node T[64];
static size_t nt;

static uint32_t add(uint32_t parent, uint32_t name_id, double total) {
    uint32_t i = (uint32_t)nt++;
    memset(&T[i], 0, sizeof T[i]);
    T[i].name_id = name_id;
    T[i].parent = parent;
    T[i].total_ns = total;
    T[i].depth = i ? T[parent].depth + 1 : 0;
    if (i) {   /* append: callers add children largest first */
        uint32_t *link = &T[parent].first_child;
        while (*link) link = &T[*link].next_sibling;
        *link = i;
    }
    return i;
}

#define SPAN(s, n_, r_, x_, w_) CHECK((s).node == (n_) && (s).row == (r_) && (s).x == (x_) && (s).w == (w_))

int main(void) {
    nt = 0;
    uint32_t root = add(0, 0, 100);
    uint32_t a = add(root, 10, 60), b = add(root, 11, 40);
    uint32_t c = add(a, 12, 30), d = add(a, 13, 20);
    uint32_t e = add(b, 14, 1);

    struct flame_span sp[64];
    size_t n = flame_layout(T, nt, root, 10, 8, sp, 64);
    REQUIRE(n == 5);
    SPAN(sp[0], root, 0, 0, 10);
    SPAN(sp[1], a, 1, 0, 6);
    SPAN(sp[2], b, 1, 6, 4);
    SPAN(sp[3], c, 2, 0, 3);
    SPAN(sp[4], d, 2, 3, 2);   /* a's self time (10) is the cell left on the right */
    CHECK(flame_find(sp, n, e) < 0);   /* 1% of 4 cells rounds to nothing */

    /* Row and span limits. */
    CHECK_EQ_U(flame_layout(T, nt, root, 10, 2, sp, 64), 3);
    CHECK_EQ_U(flame_layout(T, nt, root, 10, 8, sp, 2), 2);
    CHECK_EQ_U(flame_layout(T, nt, root, 0, 8, sp, 64), 0);
    CHECK_EQ_U(flame_layout(T, nt, 99, 10, 8, sp, 64), 0);

    /* Zoomed into a: a takes the full width. */
    n = flame_layout(T, nt, a, 10, 8, sp, 64);
    REQUIRE(n == 3);
    SPAN(sp[0], a, 0, 0, 10);
    SPAN(sp[1], c, 1, 0, 5);
    SPAN(sp[2], d, 1, 5, 3);

    /* Moves. */
    n = flame_layout(T, nt, root, 10, 8, sp, 64);
    CHECK_EQ_U(flame_move(T, nt, sp, n, c, FLAME_RIGHT), d);
    CHECK_EQ_U(flame_move(T, nt, sp, n, d, FLAME_RIGHT), d);   /* edge: stays */
    CHECK_EQ_U(flame_move(T, nt, sp, n, d, FLAME_LEFT), c);
    CHECK_EQ_U(flame_move(T, nt, sp, n, b, FLAME_LEFT), a);
    CHECK_EQ_U(flame_move(T, nt, sp, n, c, FLAME_UP), a);
    CHECK_EQ_U(flame_move(T, nt, sp, n, a, FLAME_UP), root);
    CHECK_EQ_U(flame_move(T, nt, sp, n, root, FLAME_UP), root);
    CHECK_EQ_U(flame_move(T, nt, sp, n, root, FLAME_DOWN), a);
    CHECK_EQ_U(flame_move(T, nt, sp, n, a, FLAME_DOWN), c);
    CHECK_EQ_U(flame_move(T, nt, sp, n, b, FLAME_DOWN), b);    /* e is not shown */
    CHECK_EQ_U(flame_move(T, nt, sp, n, e, FLAME_RIGHT), b);   /* hidden: its parent */
    /* Zoomed: the zoom root has no parent on screen. */
    n = flame_layout(T, nt, a, 10, 8, sp, 64);
    CHECK_EQ_U(flame_move(T, nt, sp, n, a, FLAME_UP), a);
    CHECK_EQ_U(flame_move(T, nt, sp, n, b, FLAME_DOWN), a);    /* outside the zoom */

    /* Paths. */
    uint32_t path[8];
    int len = tree_path(T, nt, c, path, 8);
    CHECK(len == 2 && path[0] == 10 && path[1] == 12);
    CHECK_EQ_U(tree_path(T, nt, root, path, 8), 0);
    int m;
    uint32_t ids[2] = {10, 12};
    CHECK_EQ_U(tree_lookup(T, nt, ids, 2, &m), c);
    CHECK_EQ_U(m, 2);
    ids[1] = 99;
    CHECK_EQ_U(tree_lookup(T, nt, ids, 2, &m), a);
    CHECK_EQ_U(m, 1);
    CHECK_EQ_U(tree_lookup(T, nt, ids, 0, &m), root);

    /* Thirds tile ten cells with no gap: 3 + 4 + 3. */
    nt = 0;
    root = add(0, 0, 99);
    for (int i = 0; i < 3; i++) add(root, 20 + (uint32_t)i, 33);
    n = flame_layout(T, nt, root, 10, 4, sp, 64);
    REQUIRE(n == 4);
    CHECK(sp[1].x == 0 && sp[2].x == sp[1].x + sp[1].w && sp[3].x == sp[2].x + sp[2].w);
    CHECK_EQ_U(sp[3].x + sp[3].w, 10);
    CHECK(sp[1].w == 3 && sp[2].w == 4 && sp[3].w == 3);   /* edges round to nearest */

    /* Random trees: every span lies inside its parent's span, siblings do
     * not overlap, and every shown frame is at least one cell. */
    srand(7);
    for (int round = 0; round < 200; round++) {
        nt = 0;
        add(0, 0, 0);
        for (int i = 1; i < 60; i++) {
            uint32_t p = (uint32_t)(rand() % i);
            add(p, (uint32_t)i, 0);
        }
        /* Totals: leaves random, parents the sum plus random self time. */
        for (int i = (int)nt - 1; i >= 0; i--) {
            double sum = 0;
            for (uint32_t k = T[i].first_child; k; k = T[k].next_sibling) sum += T[k].total_ns;
            T[i].total_ns = sum + rand() % 100;
        }
        int width = 20 + rand() % 150;
        n = flame_layout(T, nt, 0, width, 30, sp, 64);
        for (size_t i = 1; i < n; i++) {
            int pi = flame_find(sp, n, T[sp[i].node].parent);
            REQUIRE(pi >= 0);
            CHECK(sp[i].w >= 1);
            CHECK(sp[i].row == sp[pi].row + 1);
            CHECK(sp[i].x >= sp[pi].x && sp[i].x + sp[i].w <= sp[pi].x + sp[pi].w);
            if (sp[i - 1].row == sp[i].row) CHECK(sp[i - 1].x + sp[i - 1].w <= sp[i].x);
        }
    }

    /* A sibling cycle (a bug upstream) ends, bounded by the node count. */
    nt = 0;
    root = add(0, 0, 10);
    a = add(root, 1, 5);
    T[a].next_sibling = a;
    n = flame_layout(T, nt, root, 10, 4, sp, 64);
    CHECK(n <= 3);
    CHECK_DONE();
}
