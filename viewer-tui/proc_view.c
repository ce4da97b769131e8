/*
 * proc_view.c -- the views' side of several programs (processes.h): the
 * process filter (o / O: one program after another, then all again) and
 * the PROC column's text.
 *
 * The model keeps every program; the filter works on what the views are
 * given, after each query: Top's rows (each name is one program's), the
 * Threads list (by slot), and the flame graph's top-level frames.  With
 * one program none of this does anything.
 */
#include "proc_view.h"

#include <string.h>

#include "processes.h"

int proc_view_key(struct app *a, enum action act) {
    if (act != ACT_PROC_NEXT && act != ACT_PROC_PREV) return 0;
    struct procs *ps = a->src->procs;
    if (!ps) return 1;   /* one program: nothing to choose */
    int n = ps->n;
    /* -1 (all), 0 .. n-1, and round again. */
    a->proc = act == ACT_PROC_NEXT ? (a->proc + 2) % (n + 1) - 1 : (a->proc + n + 1) % (n + 1) - 1;
    a->tid = -1;   /* the thread shown may be another program's */
    a->top_sel = a->top_scroll = a->thr_sel = a->thr_scroll = 0;
    a->zoom_len = a->sel_len = 0;
    app_snapshot(a);
    return 1;
}

int proc_view_multi(const struct app *a) { return a->src->procs != NULL; }

const char *proc_view_of_name(const struct app *a, uint32_t name_id) {
    return procs_label(a->src, procs_of_name(a->src, name_id));
}

const char *proc_view_of_slot(const struct app *a, uint32_t slot) {
    return procs_label(a->src, procs_of_slot(a->src, slot));
}

int proc_view_filters(const struct app *a) { return a->src->procs && a->proc >= 0; }

int proc_view_keeps(const struct app *a, uint32_t name_id) {
    return !proc_view_filters(a) || procs_of_name(a->src, name_id) == a->proc;
}

void proc_view_snapshot(struct app *a) {
    struct snap *s = &a->snap;
    if (!a->src->procs || a->proc < 0) return;
    /* Threads: the program's slots only (their covers alongside). */
    size_t k = 0;
    for (size_t i = 0; i < s->n_threads; i++)
        if (procs_of_slot(a->src, s->threads[i].slot) == a->proc) {
            s->threads[k] = s->threads[i];
            s->thr_cover[k] = s->thr_cover[i];
            k++;
        }
    s->n_threads = k;
    /* Flame: the root keeps the program's top-level frames; its total is
     * theirs.  The other subtrees stay in the array, unreachable. */
    if (!s->n_tree) return;
    struct rec_tree_node *root = &s->tree[0];
    uint32_t *link = &root->first_child;
    root->total_ns = root->self_ns = 0;
    root->calls = 0;
    for (size_t steps = 0; *link && *link < s->n_tree && steps < s->n_tree; steps++) {
        struct rec_tree_node *c = &s->tree[*link];
        if (procs_of_name(a->src, c->name_id) != a->proc) {
            *link = c->next_sibling;
            continue;
        }
        root->total_ns += c->total_ns;
        root->calls += c->calls;
        link = &c->next_sibling;
    }
}

void proc_view_title(const struct app *a, char *buf, size_t cap) {
    const struct procs *ps = a->src->procs;
    if (a->proc >= 0) {
        snprintf(buf, cap, "process %d/%d: %s", a->proc + 1, ps->n, procs_label(a->src, a->proc));
        return;
    }
    size_t k = (size_t)snprintf(buf, cap, "%d processes:", ps->n);
    for (int i = 0; i < ps->n && k < cap; i++)
        k += (size_t)snprintf(buf + k, cap - k, " %s", ps->p[i].label);
}
