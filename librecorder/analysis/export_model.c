/*
 * export_model.c -- the formats behind one door: each format's start and
 * the end steps they all share (xs_sink_start / xs_sink_end, for this
 * file and export_source.c), and exporting a model that kept its log
 * (rec_export_json / _perfetto / _csv / _folded): its log replayed into
 * a stream as if live.  Above the formats, which never call back up.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "export_stream.h"

static const struct xs_format *format_of(enum rec_export_format f) {
    switch (f) {
    case REC_EXPORT_JSON: return &xs_json_format;
    case REC_EXPORT_PERFETTO: return &xs_pf_format;
    case REC_EXPORT_CSV: return &xs_csv_format;
    case REC_EXPORT_FOLDED: return &xs_folded_format;
    }
    return NULL;
}

int xs_sink_start(struct xs *x, rec_model *plan, enum rec_export_format f, FILE *out, double span) {
    const struct xs_format *F = format_of(f);
    return F ? F->start(x, plan, out, span) : -1;
}

int xs_sink_end(struct xs *x, enum rec_export_format f, const struct rec_export_opts *o, struct rec_export_counts *out) {
    const struct xs_format *F = format_of(f);
    if (!F || !x->ctx) return -1;
    struct rec_export_counts c;
    memset(&c, 0, sizeof c);
    int rc = F->end(x, o, &c);
    if (F->timeline) {
        c.trace_events = 2 * c.slices + c.instants + c.counters + c.flows;
        c.forced = x->forced;
        c.too_deep = x->too_deep;
    }
    if (out) *out = c;
    int e = errno;   /* a failed write's, for the caller's message */
    F->free(x->ctx);
    errno = e;
    x->ctx = NULL;
    x->sink = NULL;
    return rc != 0 || x->oom ? -1 : 0;
}

double xs_window_span(const rec_model *m, int64_t from, int64_t to, double now) {
    double lo = from != INT64_MIN && (double)from > m->run_first_ns ? (double)from : m->run_first_ns;
    double hi = to != INT64_MAX && (double)to < now ? (double)to : now;
    return isfinite(lo) && hi > lo ? hi - lo : 0;
}

/* ---- a model that kept its log ------------------------------------------------ */

/* The earliest begin in the log (0 if empty): ts 0 of the file. */
static int64_t log_first(rec_model *m) {
    struct elog *l = &m->log;
    int64_t first = INT64_MAX;
    for (uint64_t s = l->head; s < l->tail; s++) {
        const struct litem *it = elog_item(l, s);
        if (it->ts < first) first = it->ts;
    }
    return first == INT64_MAX ? 0 : first;
}

static void replay_log(struct xs *x) {
    struct elog *l = &x->m->log;
    for (uint64_t s = l->head; s < l->tail; s++) {
        const struct litem *it = elog_item(l, s);
        const char *msg = it->kind == REC_ITEM_INSTANT ? elog_msg(l, it) : "";
        xs_add(x, it, msg, (unsigned)strlen(msg));
    }
}

static int export_log(rec_model *m, enum rec_export_format f, FILE *out, const struct rec_export_opts *o) {
    /* The same lookahead as a stream: a log that fits in it comes out as
     * if read at once (queues holding the whole log instead would cost
     * more than the log itself). */
    struct xs *x = xs_new(m, XS_WRITE, NULL, NULL, o ? o->lookahead : 0);
    if (!x) return -1;
    x->t0 = log_first(m);
    x->whole = m;
    xs_window(o, x->t0, rec_model_now(m), &x->from, &x->to);
    int rc = -1;
    if (xs_sink_start(x, m, f, out, xs_window_span(m, x->from, x->to, rec_model_now(m))) == 0) {
        replay_log(x);
        xs_finish(x);
        rc = 0;
    }
    if (xs_sink_end(x, f, o, NULL) != 0) rc = -1;
    xs_free(x);
    return rc;
}

int rec_export_json(rec_model *m, FILE *out, const struct rec_export_opts *o) {
    return export_log(m, REC_EXPORT_JSON, out, o);
}

int rec_export_perfetto(rec_model *m, FILE *out, const struct rec_export_opts *o) {
    return export_log(m, REC_EXPORT_PERFETTO, out, o);
}

/* CSV and folded stacks come from the model's statistics, unless a window
 * other than the statistics' own (1 s, 10 s) asks for the log. */
int rec_export_csv(rec_model *m, FILE *out, const struct rec_export_opts *opt) {
    double last = opt && opt->last_sec > 0 && isfinite(opt->last_sec) ? opt->last_sec : 0;
    int window = last > 0 || (opt && (opt->from_sec > 0 || opt->to_sec > 0));
    if (window && m->opts.keep_log) return export_log(m, REC_EXPORT_CSV, out, opt);
    if (window && last <= 0) return -1;   /* from/to need the log */
    return csv_write_stats(m, out, last, NULL);
}

int rec_export_folded(rec_model *m, FILE *out, const struct rec_export_opts *opt) {
    double last = opt && opt->last_sec > 0 && isfinite(opt->last_sec) ? opt->last_sec : 0;
    int window = last > 0 || (opt && (opt->from_sec > 0 || opt->to_sec > 0));
    if ((window || model_has_lanes(m)) && m->opts.keep_log) return export_log(m, REC_EXPORT_FOLDED, out, opt);
    if (window && last <= 0) return -1;   /* from/to need the log */
    return folded_write_tree(m, out, last, NULL);
}
