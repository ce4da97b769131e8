/*
 * tree.c -- rec_model_tree: the call-path tree of a window.
 *
 * Nodes are interned call paths (model.c); a node's id is always larger
 * than its parent's, so one pass from the highest id down sums children
 * into parents.  A node's total is its completed slices' time, or, if
 * larger, its own self time plus its children's totals (a scope still
 * open, or one whose end was lost, has completed children but no
 * completed time of its own); self is then total minus the children, so
 * every node satisfies total = self + sum(children) and a flame graph
 * drawn from it never overflows its parent.
 */
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"

struct tsort {
    uint32_t node;
    uint32_t parent;
    uint32_t depth;
    double total;
};

static int by_size(const void *a, const void *b) {
    const struct tsort *x = a, *y = b;
    if (x->total != y->total) return x->total > y->total ? -1 : 1;
    if (x->depth != y->depth) return x->depth < y->depth ? -1 : 1;
    return (x->node > y->node) - (x->node < y->node);
}

static int by_parent(const void *a, const void *b) {
    const struct tsort *x = a, *y = b;
    if (x->parent != y->parent) return x->parent < y->parent ? -1 : 1;
    return by_size(a, b);
}

/* Offers t to h[0, *n), which keeps the k first in by_size's order (a
 * strict order: ties go by depth, then node), the last of them at h[0]. */
static void keep_largest(struct tsort *h, size_t *n, size_t k, struct tsort t) {
    size_t i;
    if (*n < k) {
        for (i = (*n)++; i > 0 && by_size(&h[(i - 1) / 2], &t) < 0; i = (i - 1) / 2) h[i] = h[(i - 1) / 2];
        h[i] = t;
        return;
    }
    if (!k || by_size(&t, &h[0]) > 0) return;
    for (i = 0;;) {   /* t replaces the root and sinks below any that sort after it */
        size_t c = 2 * i + 1;
        if (c >= k) break;
        if (c + 1 < k && by_size(&h[c + 1], &h[c]) > 0) c++;
        if (by_size(&h[c], &t) <= 0) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = t;
}

size_t rec_model_tree(rec_model *m, enum rec_window w, int tid, struct rec_tree_node *out, size_t cap) {
    if (cap == 0) return 0;
    size_t N = m->n_nodes;
    int series = 0;
    if (tid != -1) {
        uint64_t *v = u64map_get(&m->series_idx, (uint64_t)(uint32_t)tid);
        series = v ? (int)*v : -1;
    }
    uint64_t *calls = calloc(N, sizeof *calls);
    double *total = calloc(N, sizeof *total), *self = calloc(N, sizeof *self);
    double *tot = calloc(N, sizeof *tot), *kids = calloc(N, sizeof *kids);
    char *present = calloc(N, 1);
    uint32_t *first = calloc(N, sizeof *first), *nkids = calloc(N, sizeof *nkids);
    uint32_t *pos = malloc(N * sizeof *pos);   /* set for each node output before it is read */
    /* The kept nodes and the walk's stack: at most cap (root included),
     * not one per node (a million paths: 28 MB a call). */
    size_t room = cap < N + 1 ? cap : N + 1;
    struct tsort *sel = malloc(room * sizeof *sel);
    uint32_t *stack = malloc(room * sizeof *stack);
    size_t n_out = 0;
    if (!calls || !total || !self || !tot || !kids || !present || !pos || !first || !nkids || !sel || !stack)
        goto done;

    if (series >= 0) {
        stats_fold_all(m);
        struct agg *aggs[WIN_BUCKETS];
        size_t na = stats_window(m, w, aggs);
        for (size_t i = 0; i < na; i++) {
            const struct agg *a = aggs[i];
            for (size_t j = 0; j < a->acc_idx.cap; j++) {
                uint64_t key = a->acc_idx.keys[j];
                if (key == U64MAP_EMPTY || !agg_in_series(key, series) || a->acc_idx.vals[j] == UINT64_MAX) continue;
                uint32_t node = (uint32_t)key;
                const struct acc *c = &a->accs[a->acc_idx.vals[j]];
                calls[node] += c->calls;
                total[node] += c->total;
                self[node] += c->self;
                for (uint32_t p = node; p && !present[p]; p = m->node_parent[p]) present[p] = 1;
            }
        }
    }
    for (size_t n = N; n-- > 1;) {
        if (!present[n]) continue;
        double t = self[n] + kids[n];
        tot[n] = total[n] > t ? total[n] : t;
        kids[m->node_parent[n]] += tot[n];
    }
    tot[0] = kids[0];

    /* The cap keeps the largest nodes; a child is never larger than its
     * parent (and ties go to the shallower), so the kept set is a tree.
     * They are picked by a bounded heap (keep_largest), not by sorting
     * every node: with a million paths the sort took most of a query. */
    size_t ns = 0;
    for (uint32_t n = 1; n < N; n++)
        if (present[n]) keep_largest(sel, &ns, cap - 1, (struct tsort){n, m->node_parent[n], m->node_depth[n], tot[n]});
    qsort(sel, ns, sizeof *sel, by_parent);
    for (size_t i = ns; i-- > 0;) {
        first[sel[i].parent] = (uint32_t)i;
        nkids[sel[i].parent]++;
    }

    /* Depth first from the root, largest child first: parents come before
     * their children in the output. */
    size_t sp = 0;
    stack[sp++] = 0;
    while (sp) {
        uint32_t n = stack[--sp];
        pos[n] = (uint32_t)n_out;
        struct rec_tree_node *o = &out[n_out++];
        memset(o, 0, sizeof *o);
        o->name_id = n ? m->names[m->node_name[n]].id : 0;
        o->name = n ? model_name_text(m, m->node_name[n]) : "(root)";
        o->parent = n ? pos[m->node_parent[n]] : 0;
        o->depth = m->node_depth[n];
        o->calls = calls[n];
        o->total_ns = tot[n];
        o->self_ns = n ? tot[n] - kids[n] : 0;
        if (o->self_ns < 0) o->self_ns = 0;
        for (uint32_t k = nkids[n]; k-- > 0;) stack[sp++] = sel[first[n] + k].node;
    }
    /* Links, in the same largest-first order. */
    for (size_t i = 0; i < ns; i++) {
        const struct tsort *t = &sel[i];
        struct rec_tree_node *p = &out[pos[t->parent]];
        uint32_t me = pos[t->node];
        if (i == first[t->parent]) p->first_child = me;
        if (i + 1 < ns && sel[i + 1].parent == t->parent) out[me].next_sibling = pos[sel[i + 1].node];
    }

done:
    free(calls);
    free(total);
    free(self);
    free(tot);
    free(kids);
    free(present);
    free(pos);
    free(first);
    free(nkids);
    free(sel);
    free(stack);
    return n_out;
}
