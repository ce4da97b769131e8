/*
 * export_folded.c -- folded stacks ("main;layer;matmul 12345"), the input
 * of flamegraph.pl and one of speedscope's formats.
 *
 * One line per call path with its self time in integer nanoseconds, all
 * threads merged, paths with no self time left out, except a leaf that
 * was called: a scope of zero length is there as "a;b;z 0" (a slice
 * whatever its length, docs/cli.md).  Over the whole run
 * from the model's call tree, or over a window from the slices the
 * streaming core hands over (a path then runs through every enclosing
 * slice, complete or not; only complete slices add self time): memory is
 * bounded by the paths, not the slices.  In names ';' becomes ':' (it separates frames),
 * control characters '?', invalid UTF-8 U+FFFD.
 *
 * A lane that is not a thread (a GPU stream, NVTX ranges: docs/gpu.md) is
 * a root of its own, named for the lane ("GPU0 stream 7;gemm 400000"):
 * its work is not the threads' (the whole run then goes through the
 * stream, since the call tree merges every thread).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export_stream.h"
#include "outbuf.h"

struct paths {
    struct u64map idx;        /* parent << 32 | name local -> path */
    uint32_t *parent, *name;
    double *self;
    uint64_t *calls;          /* complete slices of the path */
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
        uint64_t *d = c ? realloc(p->calls, nc * sizeof *d) : NULL;
        if (d) p->calls = d;
        if (!d) return 0;
        p->cap = nc;
    }
    int isnew;
    v = u64map_put(&p->idx, key, &isnew);
    if (!v) return 0;
    p->parent[p->n] = parent;
    p->name[p->n] = name;
    p->self[p->n] = 0;
    p->calls[p->n] = 0;
    *v = p->n;
    return (uint32_t)p->n++;
}

/* ---- the streaming sink: paths of a window's slices ------------------------- */

#define LANE_ROOT 0x80000000u   /* a path's name: a lane's root (| its record), above every local name */

struct fctx {
    rec_model *m;
    struct paths p;
    FILE *out;
    uint32_t last_rec, last_root;   /* root_of's latest answer (a lane's slices come in runs) */
};

/* The root of record rec's paths: 0 for a thread; for a lane, the path
 * named for it, shared by every lane of that name (its generations). */
static uint32_t root_of(struct fctx *c, uint32_t rec) {
    if (rec >= c->m->n_recs || c->m->recs[rec].lane_kind == REC_LANE_THREAD) return 0;
    if (rec == c->last_rec) return c->last_root;
    const struct trec *r = &c->m->recs[rec];
    uint32_t first = rec;
    for (uint32_t i = 0; i < rec; i++)
        if (c->m->recs[i].lane_kind != REC_LANE_THREAD && strcmp(c->m->recs[i].name, r->name) == 0) {
            first = i;
            break;
        }
    c->last_rec = rec;
    return c->last_root = path_of(&c->p, 0, LANE_ROOT | first);
}

static void f_push(struct xs *x, uint32_t rec) {
    struct fctx *c = x->ctx;
    struct xrec *R = &x->r[rec];
    struct xframe *f = &R->st[R->n - 1];
    uint32_t parent = R->n > 1 ? R->st[R->n - 2].aux : root_of(c, rec);
    f->aux = path_of(&c->p, parent, model_name(c->m, f->name_id));
}

static void f_pop(struct xs *x, uint32_t rec, const struct xframe *f, int64_t dur, int64_t self) {
    struct fctx *c = x->ctx;
    (void)rec;
    (void)dur;
    if (f->flags) return;
    if (self > 0) c->p.self[f->aux] += (double)self;
    c->p.calls[f->aux]++;
}

static const struct xs_sink folded_sink = {1, f_push, f_pop, NULL, NULL, NULL};

static int folded_start(struct xs *x, rec_model *plan, FILE *out, double span) {
    (void)plan;
    (void)span;
    struct fctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->m = x->m;
    c->out = out;
    path_of(&c->p, 0, UINT32_MAX);   /* the root */
    c->last_rec = UINT32_MAX;
    x->sink = &folded_sink;
    x->ctx = c;
    return 0;
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

static int write_lines(rec_model *m, FILE *out, const uint32_t *parent, const char *const *names,
                       const double *self, const uint64_t *calls, size_t n, uint64_t *rows) {
    struct outbuf o;
    uint32_t *chain = malloc(65536 * sizeof *chain);
    uint8_t *inner = calloc(n ? n : 1, 1);   /* has a child path */
    if (!chain || !inner || ob_init(&o, out, (size_t)1 << 18) != 0) {
        free(chain);
        free(inner);
        return -1;
    }
    for (size_t i = 1; i < n; i++)
        if (parent[i] < n) inner[parent[i]] = 1;
    uint64_t k = 0;
    for (size_t i = 1; i < n; i++)
        if (llround(self[i]) > 0 || (calls[i] > 0 && !inner[i])) {
            put_line(m, &o, parent, names, i, self[i], chain);
            k++;
        }
    free(chain);
    free(inner);
    if (rows) *rows = k;
    return ob_finish(&o);
}

static int folded_end(struct xs *x, const struct rec_export_opts *o, struct rec_export_counts *cnt) {
    struct fctx *c = x->ctx;
    (void)o;
    int rc = -1;
    const char **names = malloc((c->p.n ? c->p.n : 1) * sizeof *names);
    if (names) {
        for (size_t i = 1; i < c->p.n; i++) {
            uint32_t nm = c->p.name[i];
            names[i] = nm & LANE_ROOT ? c->m->recs[nm & ~LANE_ROOT].name : model_name_text(c->m, nm);
        }
        rc = write_lines(c->m, c->out, c->p.parent, names, c->p.self, c->p.calls, c->p.n, &cnt->rows);
    }
    free(names);
    return rc;
}

static void folded_free(void *ctx) {
    struct fctx *c = ctx;
    u64map_free(&c->p.idx);
    free(c->p.parent);
    free(c->p.name);
    free(c->p.self);
    free(c->p.calls);
    free(c);
}

const struct xs_format xs_folded_format = {0, folded_start, folded_end, folded_free};

int folded_write_tree(rec_model *m, FILE *out, double last, uint64_t *rows) {
    enum rec_window w = last <= 0 ? REC_WIN_ALL : last <= 1 ? REC_WIN_1S : last <= 10 ? REC_WIN_10S : REC_WIN_ALL;
    int rc = -1;
    struct rec_tree_node *nodes = malloc((m->n_nodes ? m->n_nodes : 1) * sizeof *nodes);
    size_t n = nodes ? rec_model_tree(m, w, -1, nodes, m->n_nodes) : 0;
    uint32_t *parent = malloc((n ? n : 1) * sizeof *parent);
    double *self = malloc((n ? n : 1) * sizeof *self);
    uint64_t *calls = malloc((n ? n : 1) * sizeof *calls);
    const char **names = malloc((n ? n : 1) * sizeof *names);
    if (nodes && parent && self && calls && names) {
        for (size_t i = 0; i < n; i++) {
            parent[i] = nodes[i].parent;
            self[i] = nodes[i].self_ns;
            calls[i] = nodes[i].calls;
            names[i] = nodes[i].name;
        }
        rc = write_lines(m, out, parent, names, self, calls, n, rows);
    }
    free(calls);
    free(nodes);
    free(parent);
    free(self);
    free(names);
    return rc;
}
