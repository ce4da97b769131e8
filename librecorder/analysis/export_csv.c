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

/* Statistics of the complete slices of the view, as one table keyed by name. */
static int view_stats(rec_model *m, const struct view *v, struct agg *a) {
    struct nest ns = {0};
    int rc = 0;
    for (size_t g = 0; g < v->nrec && rc == 0; g++) {
        ns.n = 0;
        for (size_t i = v->start[g]; i <= v->start[g + 1]; i++) {
            const struct litem *it = i < v->start[g + 1] ? view_item(v, v->off[i]) : NULL;
            int64_t b = INT64_MAX, e = INT64_MAX;
            unsigned fl = 0;
            if (it) view_span(v, it, &b, &e, &fl);
            while (ns.n && (!it || nest_should_pop(&ns, b, e))) {
                struct nest_frame *f = &ns.f[--ns.n];
                int64_t dur = f->end - f->begin, self = dur - f->child;
                if (ns.n) ns.f[ns.n - 1].child += dur;
                if (!f->flags)
                    agg_add(a, 0, model_name(m, f->name_id), model_name(m, f->name_id), hist_bin((double)dur),
                            (double)dur, (double)(self > 0 ? self : 0));
            }
            if (!it || it->kind != REC_ITEM_SLICE) continue;
            e = nest_clamp(&ns, e);
            if (nest_push(&ns, b, e, it->name_id, fl) != 0) rc = -1;
        }
    }
    nest_free(&ns);
    return rc;
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
