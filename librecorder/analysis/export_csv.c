/*
 * export_csv.c -- one row per scope name (docs/analysis.md, "CSV"):
 *
 *   name,calls,total_ns,self_ns,min_ns,avg_ns,p50_ns,p95_ns,p99_ns,max_ns,calls_per_sec
 *
 * Over the whole run from the statistics (completed slices only), or with
 * last_sec over that many seconds from the event log.  Without a log,
 * last_sec picks the nearest window (1 s, 10 s, whole run).  Names are
 * always quoted (RFC 4180: a quote is doubled); control characters become
 * '?' and invalid UTF-8 U+FFFD, so every row is one line of valid UTF-8.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "view.h"

struct stats_ctx {
    rec_model *m;
    struct agg *a;
};

static void stats_pop(void *ctx, const struct nest_frame *f, int64_t dur, int64_t self) {
    struct stats_ctx *c = ctx;
    if (f->flags) return;  /* only slices whose begin and end were both seen */
    uint32_t name = model_name(c->m, f->name_id);  /* the name's canonical id */
    agg_add(c->a, 0, name, name, hist_bin((double)dur), (double)dur, (double)(self > 0 ? self : 0), (double)dur);
}

/* Statistics of the complete slices of the view, as one table keyed by name. */
static int view_stats(rec_model *m, const struct view *v, struct agg *a) {
    struct stats_ctx c = {m, a};
    struct view_walk w = {NULL, stats_pop, &c};
    return view_walk_slices(v, &w);
}

static void put_num(struct outbuf *o, double v) {
    char *p = ob_room(o, 40);
    *p++ = ',';
    o->p = fmt_i64(p, llround(v));
}

int rec_export_csv(rec_model *m, FILE *out, const struct rec_export_opts *opt) {
    double last = opt && opt->last_sec > 0 && isfinite(opt->last_sec) ? opt->last_sec : 0;
    size_t n = 0, total = 0;
    struct rec_stat *st = NULL;
    int rc = -1;
    if (last > 0 && m->opts.keep_log) {
        struct view v;
        struct agg a;
        agg_init(&a);
        if (view_build(m, last, &v) != 0) return -1;
        int ok = view_stats(m, &v, &a) == 0;
        double start = (double)v.cut > m->run_first_ns ? (double)v.cut : m->run_first_ns;
        double span = rec_model_now(m) - start;
        struct agg *aggs[1] = {&a};
        if (ok) stats_query(m, aggs, 1, 0, 1, span, NULL, 0, &total);
        st = calloc(total ? total : 1, sizeof *st);
        if (ok && st) n = stats_query(m, aggs, 1, 0, 1, span, st, total, &total);
        view_free(&v);
        agg_free(&a);
        if (!ok || !st) goto done;
    } else {
        enum rec_window w = last <= 0 ? REC_WIN_ALL : last <= 1 ? REC_WIN_1S : last <= 10 ? REC_WIN_10S : REC_WIN_ALL;
        rec_model_stats(m, w, -1, NULL, 0, &total);
        st = calloc(total ? total : 1, sizeof *st);
        if (!st) return -1;
        n = rec_model_stats(m, w, -1, st, total, &total);
    }

    struct outbuf o;
    if (ob_init(&o, out, (size_t)1 << 16) != 0) goto done;
    OB_LIT(&o, "name,calls,total_ns,self_ns,min_ns,avg_ns,p50_ns,p95_ns,p99_ns,max_ns,calls_per_sec\n");
    for (size_t i = 0; i < n; i++) {
        const struct rec_stat *s = &st[i];
        size_t len = strlen(s->name);
        char *clean = malloc(3 * len + 1);
        if (!clean) break;
        size_t cl = text_sanitize(clean, s->name, len, NULL, 0);
        char *p = ob_room(&o, 1);
        *p++ = '"';
        o.p = p;
        for (size_t k = 0; k < cl; k++) {
            p = ob_room(&o, 2);
            if (clean[k] == '"') *p++ = '"';
            *p++ = clean[k];
            o.p = p;
        }
        free(clean);
        p = ob_room(&o, 40);
        *p++ = '"';
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
        *p++ = '\n';
        o.p = p;
    }
    rc = ob_finish(&o);
done:
    free(st);
    return rc;
}
