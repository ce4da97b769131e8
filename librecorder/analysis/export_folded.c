/*
 * export_folded.c -- folded stacks ("main;layer;matmul 12345"), the input
 * of flamegraph.pl and one of speedscope's formats.
 *
 * One line per call path with its self time in integer nanoseconds, all
 * threads merged, paths with no self time left out.  Over the whole run
 * from the call tree, or with last_sec from the event log (a path then
 * runs through every enclosing slice, complete or not; only complete
 * slices add self time).  In names ';' becomes ':' (it separates frames),
 * control characters '?', invalid UTF-8 U+FFFD.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "view.h"

struct paths {
    struct u64map idx;        /* parent << 32 | name local -> path */
    uint32_t *parent, *name;
    double *self;
    size_t n, cap;
};

static uint32_t path_of(struct paths *p, uint32_t parent, uint32_t name) {
    uint64_t key = (uint64_t)parent << 32 | name;
    uint64_t *v = u64map_get(&p->idx, key);
    if (v) return (uint32_t)*v;
    if (p->n == p->cap) {
        size_t nc = p->cap ? p->cap * 2 : 256;
        uint32_t *a = realloc(p->parent, nc * sizeof *a);
        if (a) p->parent = a;
        uint32_t *b = a ? realloc(p->name, nc * sizeof *b) : NULL;
        if (b) p->name = b;
        double *c = b ? realloc(p->self, nc * sizeof *c) : NULL;
        if (c) p->self = c;
        if (!c) return 0;
        p->cap = nc;
    }
    int isnew;
    v = u64map_put(&p->idx, key, &isnew);
    if (!v) return 0;
    p->parent[p->n] = parent;
    p->name[p->n] = name;
    p->self[p->n] = 0;
    *v = p->n;
    return (uint32_t)p->n++;
}

struct paths_ctx {
    rec_model *m;
    struct paths *p;
};

static void paths_push(void *ctx, struct nest *ns) {
    struct paths_ctx *c = ctx;
    struct nest_frame *f = &ns->f[ns->n - 1];
    uint32_t parent = ns->n > 1 ? ns->f[ns->n - 2].aux : 0;
    f->aux = path_of(c->p, parent, model_name(c->m, f->name_id));
}

static void paths_pop(void *ctx, const struct nest_frame *f, int64_t dur, int64_t self) {
    struct paths_ctx *c = ctx;
    (void)dur;
    if (!f->flags && self > 0) c->p->self[f->aux] += (double)self;
}

/* Paths of the view's slices; path 0 is the root. */
static int view_paths(rec_model *m, const struct view *v, struct paths *p) {
    struct paths_ctx c = {m, p};
    struct view_walk w = {paths_push, paths_pop, &c};
    path_of(p, 0, UINT32_MAX);   /* the root */
    return view_walk_slices(v, &w);
}

static void put_name(struct outbuf *o, const char *s) {
    size_t len = strlen(s);
    if (3 * len > 65536) len = 65536 / 3;
    char *p = ob_room(o, 3 * len);
    o->p = p + text_sanitize(p, s, len, ";", ':');
}

/* Writes "a;b;c <self>" for path i, given each path's parent and name. */
static void put_line(rec_model *m, struct outbuf *o, const uint32_t *parent, const char *const *names, size_t i,
                     double self, uint32_t *chain) {
    size_t d = 0;
    for (size_t k = i; k != 0 && d < 65536; k = parent[k]) chain[d++] = (uint32_t)k;
    (void)m;
    while (d--) {
        put_name(o, names[chain[d]]);
        if (d) OB_LIT(o, ";");
    }
    char *p = ob_room(o, 24);
    *p++ = ' ';
    p = fmt_i64(p, llround(self));
    *p++ = '\n';
    o->p = p;
}

int rec_export_folded(rec_model *m, FILE *out, const struct rec_export_opts *opt) {
    double last = opt && opt->last_sec > 0 && isfinite(opt->last_sec) ? opt->last_sec : 0;
    struct outbuf o;
    int rc = -1;
    uint32_t *parent = NULL, *chain = NULL;
    const char **names = NULL;
    double *self = NULL;
    size_t n = 0;
    struct paths p = {0};
    struct rec_tree_node *nodes = NULL;

    if (last > 0 && m->opts.keep_log) {
        struct view v;
        if (view_build(m, last, &v) != 0) return -1;
        int ok = view_paths(m, &v, &p) == 0;
        view_free(&v);
        if (!ok) goto done;
        n = p.n;
        parent = p.parent;
        self = p.self;
        names = malloc((n ? n : 1) * sizeof *names);
        if (!names) goto done;
        for (size_t i = 1; i < n; i++) names[i] = model_name_text(m, p.name[i]);
    } else {
        enum rec_window w = last <= 0 ? REC_WIN_ALL : last <= 1 ? REC_WIN_1S : last <= 10 ? REC_WIN_10S : REC_WIN_ALL;
        nodes = malloc(m->n_nodes * sizeof *nodes);
        if (!nodes) goto done;
        n = rec_model_tree(m, w, -1, nodes, m->n_nodes);
        parent = malloc((n ? n : 1) * sizeof *parent);
        self = malloc((n ? n : 1) * sizeof *self);
        names = malloc((n ? n : 1) * sizeof *names);
        if (!parent || !self || !names) goto done;
        for (size_t i = 0; i < n; i++) {
            parent[i] = nodes[i].parent;
            self[i] = nodes[i].self_ns;
            names[i] = nodes[i].name;
        }
    }
    chain = malloc(65536 * sizeof *chain);
    if (!chain || ob_init(&o, out, (size_t)1 << 18) != 0) goto done;
    for (size_t i = 1; i < n; i++)
        if (llround(self[i]) > 0) put_line(m, &o, parent, names, i, self[i], chain);
    rc = ob_finish(&o);
done:
    if (nodes) {
        free(parent);
        free(self);
    }
    free(nodes);
    free(names);
    free(chain);
    u64map_free(&p.idx);
    free(p.parent);
    free(p.name);
    free(p.self);
    return rc;
}
