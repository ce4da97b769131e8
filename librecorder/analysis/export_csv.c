/*
 * export_csv.c -- one row per scope name (docs/analysis.md, "CSV"):
 *
 *   name,calls,total_ns,self_ns,min_ns,avg_ns,p50_ns,p95_ns,p99_ns,max_ns,calls_per_sec,file,line
 *
 * (file and line: a Python scope's, from its name (pyname.c); empty for
 * any other.)
 * Over the whole run from the model's statistics (completed slices only),
 * or over a window (last_sec, from_sec, to_sec) from the slices the
 * streaming core hands over: per name, so memory is bounded by the names,
 * not the slices.  A model without a log picks the window nearest to
 * last_sec (1 s, 10 s, whole run).  Names are
 * always quoted (RFC 4180: a quote is doubled); control characters become
 * '?' and invalid UTF-8 U+FFFD, so every row is one line of valid UTF-8.
 * A name that a spreadsheet would take for a formula (it begins with = + -
 * @, a tab or a CR) gets a leading ' (docs/cli.md, "CSV"): opening the
 * file must never run what a traced program named a scope.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"
#include "export_stream.h"
#include "outbuf.h"
#include "pyname.h"

/* ---- the streaming sink: complete slices of a window, by name ---------------- */

struct cctx {
    rec_model *m;
    struct agg a;
    FILE *out;
    double span;
};

static void c_pop(struct xs *x, uint32_t rec, const struct xframe *f, int64_t dur, int64_t self) {
    struct cctx *c = x->ctx;
    (void)rec;
    if (f->flags) return;  /* only slices whose begin and end were both seen, inside the window */
    uint32_t name = model_name(c->m, f->name_id);  /* the name's canonical id */
    agg_add(&c->a, 0, name, name, hist_bin((double)dur), (double)dur, (double)(self > 0 ? self : 0), (double)dur);
}

static const struct xs_sink csv_sink = {1, NULL, c_pop, NULL, NULL, NULL};

static int csv_start(struct xs *x, rec_model *plan, FILE *out, double span_ns) {
    (void)plan;
    struct cctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->m = x->m;
    agg_init(&c->a);
    c->out = out;
    c->span = span_ns;
    x->sink = &csv_sink;
    x->ctx = c;
    return 0;
}

static void put_num(struct outbuf *o, double v) {
    char *p = ob_room(o, 40);
    *p++ = ',';
    o->p = fmt_i64(p, llround(v));
}

/* A quoted field: sanitized text, quotes doubled, a formula's first
 * character defused.  -1 if memory ran out. */
static int put_text(struct outbuf *o, const char *s, size_t len) {
    char *clean = malloc(3 * len + 1);
    if (!clean) return -1;
    size_t cl = text_sanitize(clean, s, len, NULL, 0);
    char *p = ob_room(o, 2);
    *p++ = '"';
    if (cl > 0 && strchr("=+-@\t\r", clean[0])) *p++ = '\'';
    o->p = p;
    for (size_t k = 0; k < cl; k++) {
        p = ob_room(o, 2);
        if (clean[k] == '"') *p++ = '"';
        *p++ = clean[k];
        o->p = p;
    }
    free(clean);
    p = ob_room(o, 1);
    *p++ = '"';
    o->p = p;
    return 0;
}

static int write_rows(FILE *out, const struct rec_stat *st, size_t n, uint64_t *rows) {
    struct outbuf o;
    if (ob_init(&o, out, (size_t)1 << 16) != 0) return -1;
    OB_LIT(&o, "name,calls,total_ns,self_ns,min_ns,avg_ns,p50_ns,p95_ns,p99_ns,max_ns,calls_per_sec,file,line\n");
    size_t i = 0;
    for (; i < n; i++) {
        const struct rec_stat *s = &st[i];
        if (put_text(&o, s->name, strlen(s->name)) != 0) break;
        char *p = ob_room(&o, 40);
        *p++ = ',';
        o.p = fmt_u64(p, s->calls);
        put_num(&o, s->total_ns);
        put_num(&o, s->self_ns);
        put_num(&o, s->min_ns);
        put_num(&o, s->avg_ns);
        put_num(&o, s->p50_ns);
        put_num(&o, s->p95_ns);
        put_num(&o, s->p99_ns);
        put_num(&o, s->max_ns);
        p = ob_room(&o, 40);
        *p++ = ',';
        p = fmt_double(p, round(s->calls_per_sec * 1000) / 1000);
        *p++ = ',';
        o.p = p;
        /* A Python scope's file and line (pyname.c), empty for others: the
         * name stays whole, so that two files' "fib" stay two rows. */
        struct pyname py;
        if (pyname_split(s->name, strlen(s->name), &py)) {
            if (put_text(&o, py.file, py.file_len) != 0) break;
            p = ob_room(&o, 40);
            *p++ = ',';
            p = fmt_u64(p, py.line);
        } else {
            p = ob_room(&o, 40);
            *p++ = ',';
        }
        *p++ = '\n';
        o.p = p;
    }
    if (rows) *rows = i;
    int rc = ob_finish(&o);
    return rc != 0 || i < n ? -1 : 0;
}

/* The rows, from what the walker added up. */
static int csv_end(struct xs *x, const struct rec_export_opts *o, struct rec_export_counts *cnt) {
    struct cctx *c = x->ctx;
    (void)o;
    struct agg *aggs[1] = {&c->a};
    size_t total = 0, n = 0;
    stats_query(c->m, aggs, 1, 0, 1, c->span, NULL, 0, &total);
    struct rec_stat *st = calloc(total ? total : 1, sizeof *st);
    int rc = -1;
    if (st) {
        n = stats_query(c->m, aggs, 1, 0, 1, c->span, st, total, &total);
        rc = write_rows(c->out, st, n, &cnt->rows);
    }
    free(st);
    return rc;
}

static void csv_free(void *ctx) {
    struct cctx *c = ctx;
    agg_free(&c->a);
    free(c);
}

const struct xs_format xs_csv_format = {0, csv_start, csv_end, csv_free};

/* The whole run (or the window nearest to last_sec) from the model's
 * statistics: no log needed. */
int csv_write_stats(rec_model *m, FILE *out, double last, uint64_t *rows) {
    enum rec_window w = last <= 0 ? REC_WIN_ALL : last <= 1 ? REC_WIN_1S : last <= 10 ? REC_WIN_10S : REC_WIN_ALL;
    size_t total = 0;
    rec_model_stats(m, w, -1, NULL, 0, &total);
    struct rec_stat *st = calloc(total ? total : 1, sizeof *st);
    if (!st) return -1;
    size_t n = rec_model_stats(m, w, -1, st, total, &total);
    int rc = write_rows(out, st, n, rows);
    free(st);
    return rc;
}
