/*
 * export_source.c -- exporting everything a segment or a capture holds, in
 * memory bounded whatever its size (rec_export_*, recorder dump / convert
 * / run), and exporting a model that kept its log through the same writer.
 *
 * Two reads of the source:
 *   1. the plan: a statistics-only model, with a counting stream in place
 *      of a log, reads it all: the trace's start (its first item: ts 0 in
 *      the JSON) and end (now), every thread with its span and name (tids
 *      are fixed and M events written before anything else), what an
 *      export would hold (the size estimate), and the statistics that are
 *      the whole-run CSV and folded stacks;
 *   2. the write: a second model reads the source again with a stream
 *      attached, which writes as items come (export_stream.h).
 * A segment's second read restores the reader's cursors and stops where
 * the first stopped, so both see the same snapshot even of a live program
 * (what the program overwrote in between is counted as lost); the clock
 * conversion is the same reader's.  A capture is read from its start again.
 */
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../internal.h"
#include "export_stream.h"
#include "model_write.h"
#include "recorder/capture.h"

struct rec_export {
    struct rec_source_info src;   /* for the models of both reads */
    rec_string_fn strings;
    void *sctx;
    rec_export_feed_fn feed;      /* reads the whole source into a model */
    void *fctx;
    rec_model *plan;
    struct xs *px;            /* the plan's counting stream */
    struct rec_export_opts opts;
    double now;
    uint64_t events;          /* read by the plan */
    /* segments: */
    rec_seg *seg;
    struct rec_cursor *c0, *c1;   /* the reader's cursors before and after the plan's read */
    uint32_t nslots;
    uint64_t *stop;           /* c1's positions */
};

static const char *seg_string(void *ctx, uint32_t id) { return rec_seg_string((rec_seg *)ctx, id); }

/* ---- reading ------------------------------------------------------------------ */

static int read_cap(void *ctx, rec_model *m, int pass) {
    rec_cap *c = ctx;
    (void)pass;
    rec_cap_rewind(c);
    struct rec_cap_item it;
    int r;
    while ((r = rec_cap_next(c, &it)) == 1) {
        if (it.kind == REC_CAP_ITEM_THREAD) rec_model_thread(m, &it.thread);
        else rec_model_feed_entries(m, it.slot, it.entries, it.n, it.first, &it.loss);
    }
    if (r < 0) return -r;
    /* Scopes still open at the end of the capture end there. */
    const struct rec_cap_info *in = rec_cap_get_info(c);
    if (in->end_ticks > in->ticks0) rec_model_set_now(m, (double)(in->end_ticks - in->ticks0) * 1e9 / in->ticks_per_sec);
    return REC_OK;
}

/* The plan's read of a segment is a snapshot (two polls: what each ring
 * holds, and what a live writer added meanwhile); the second read goes
 * from the same cursors to where the first stopped. */
static int read_seg(void *ctx, rec_model *m, int pass) {
    struct rec_export *x = ctx;
    rec_seg *s = x->seg;
    if (pass == 0) {
        memcpy(x->c0, s->cursors, x->nslots * sizeof *x->c0);
        for (int k = 0; k < 2; k++)
            if (rec_model_poll_seg(m, s) == 0) break;
        struct rec_seg_info info;
        rec_seg_get_info(s, &info);
        /* Open scopes end now; a stopped program's at its newest event. */
        if (info.alive && !info.stopped) rec_model_set_now_live(m, s);
        memcpy(x->c1, s->cursors, x->nslots * sizeof *x->c1);
        for (uint32_t i = 0; i < x->nslots; i++) x->stop[i] = x->c1[i].pos;
        return REC_OK;
    }
    memcpy(s->cursors, x->c0, x->nslots * sizeof *x->c0);
    model_poll_seg_to(m, s, x->stop);
    memcpy(s->cursors, x->c1, x->nslots * sizeof *x->c1);
    return REC_OK;
}

/* ---- the plan ----------------------------------------------------------------- */

static rec_model *new_model(const struct rec_export *x) {
    struct rec_model_opts mo = {0, 0, NULL};
    return rec_model_new(&x->src, x->strings, x->sctx, &mo);
}

static uint64_t events_of(const rec_model *m) {
    uint64_t n = m->untracked_events;
    for (size_t i = 0; i < m->n_recs; i++) n += m->recs[i].events;
    return n;
}

static int plan(struct rec_export *x, char *err, size_t errlen) {
    x->plan = new_model(x);
    x->px = x->plan ? xs_new(x->plan, XS_PLAN, NULL, NULL, 0) : NULL;
    if (!x->px) return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    xs_attach(x->px);
    int rc = x->feed(x->fctx, x->plan, 0);
    xs_detach(x->px);
    if (rc != REC_OK) return rec__fail(err, errlen, rc, "%s while reading the source", rec_status_str(rc));
    x->now = rec_model_now(x->plan);
    x->events = events_of(x->plan);
    return REC_OK;
}

/* Every constructor's end: x's source set from these, the options, the
 * plan's read, and x handed out (or freed). */
static int open_with(struct rec_export *x, const struct rec_source_info *src, rec_string_fn strings, void *sctx,
                     rec_export_feed_fn feed, void *fctx, const struct rec_export_opts *o, rec_export **out,
                     char *err, size_t errlen) {
    if (src) x->src = *src;
    x->strings = strings;
    x->sctx = sctx;
    x->feed = feed;
    x->fctx = fctx;
    if (o) x->opts = *o;
    int rc = plan(x, err, errlen);
    if (rc != REC_OK) {
        rec_export_free(x);
        return rc;
    }
    *out = x;
    return REC_OK;
}

int rec_export_open(const struct rec_source_info *src, rec_string_fn strings, void *sctx, rec_export_feed_fn feed,
                    void *fctx, const struct rec_export_opts *o, rec_export **out, char *err, size_t errlen) {
    *out = NULL;
    struct rec_export *x = calloc(1, sizeof *x);
    if (!x) return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    return open_with(x, src, strings, sctx, feed, fctx, o, out, err, errlen);
}

int rec_export_open_cap(rec_cap *c, const struct rec_export_opts *o, rec_export **out, char *err, size_t errlen) {
    struct rec_source_info si;
    rec_cap_source_info(c, &si);
    return rec_export_open(&si, rec_cap_string_fn, c, read_cap, c, o, out, err, errlen);
}

int rec_export_open_seg(rec_seg *s, const struct rec_export_opts *o, rec_export **out, char *err, size_t errlen) {
    *out = NULL;
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    struct rec_export *x = calloc(1, sizeof *x);
    if (x) {
        x->seg = s;
        x->nslots = info.max_threads;
        x->c0 = malloc(x->nslots * sizeof *x->c0);
        x->c1 = malloc(x->nslots * sizeof *x->c1);
        x->stop = malloc(x->nslots * sizeof *x->stop);
    }
    if (!x || !x->c0 || !x->c1 || !x->stop) {
        rec_export_free(x);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    /* What rec_model_new_seg gives a model of s. */
    struct rec_source_info si;
    rec_seg_source_info(s, &si);
    return open_with(x, &si, seg_string, s, read_seg, x, o, out, err, errlen);
}

static int64_t trace_start(const struct rec_export *x) {
    return x->px->first_b == INT64_MAX ? 0 : x->px->first_b;
}

void rec_export_get_info(const rec_export *x, struct rec_export_info *in) {
    memset(in, 0, sizeof *in);
    const struct xs *p = x->px;
    in->events = x->events;
    in->threads = x->plan->n_recs;
    in->slices = p->n_slices;
    in->instants = p->n_instants;
    in->counters = p->n_counters;
    in->flows = p->n_flows;
    in->losses = p->n_losses;
    int64_t t0 = trace_start(x), from, to;
    in->start_ns = (double)t0;
    in->end_ns = x->now > in->start_ns ? x->now : in->start_ns;
    xs_window(&x->opts, t0, x->now, &from, &to);
    double lo = from > t0 ? (double)from : in->start_ns, hi = to < INT64_MAX && (double)to < in->end_ns ? (double)to : in->end_ns;
    double span = in->end_ns - in->start_ns;
    in->window_ns = hi > lo ? hi - lo : 0;
    /* Bytes per item as the writer makes them (a slice is a B and an E of
     * about 75 bytes each with a short name), scaled by the window. */
    double share = span > 0 ? in->window_ns / span : 1;
    if (share > 1) share = 1;
    in->json_bytes = share * (150.0 * (double)p->n_slices + 80.0 * (double)(p->n_instants + p->n_losses) +
                              95.0 * (double)p->n_counters + 85.0 * (double)p->n_flows) +
                     200.0 * (double)x->plan->n_recs + 4096;
    in->start_mono_ns = (double)x->src.mono_ns0 + in->start_ns;
    in->end_mono_ns = (double)x->src.mono_ns0 + in->end_ns;
}

/* ---- writing ------------------------------------------------------------------ */

/* What the model read and lost, and left out before the export saw it. */
static void source_totals(const rec_model *m, struct rec_export_counts *c) {
    c->overwritten = c->dropped = c->bad = c->deep_scopes = 0;
    for (size_t i = 0; i < m->n_recs; i++) {
        c->overwritten = rec_sat_add(c->overwritten, m->recs[i].overwritten);
        c->dropped = rec_sat_add(c->dropped, m->recs[i].dropped);
        c->bad = rec_sat_add(c->bad, m->recs[i].bad);
        c->deep_scopes += m->recs[i].too_deep;
    }
    c->nonfinite_counters = m->nonfinite_counters;
    c->untracked_events = m->untracked_events;
}

/* The part's times in this source's own ns: ts 0 of the file (the
 * common origin) and the trace's end. */
static void part_times(const struct rec_export *x, const struct rec_export_part *part, int64_t *t0, double *end) {
    double mono0 = (double)x->src.mono_ns0;
    *t0 = model_round_ns(part->origin_mono_ns - mono0);
    *end = part->end_mono_ns - mono0;
    if (*end < x->now) *end = x->now;
}

/* "writing failed", and why when the failed call said (a full disk, no
 * memory for stdio's buffer, a closed pipe). */
static int write_failed(char *err, size_t errlen, int e) {
    if (!e) return rec__fail(err, errlen, REC_ERR_IO, "writing failed");
    return rec__fail(err, errlen, REC_ERR_IO, "writing failed: %s", strerror(e));
}

static int write_any(rec_export *x, enum rec_export_format f, FILE *out, struct rec_export_part *part,
                     struct rec_export_counts *cnt, char *err, size_t errlen) {
    struct rec_export_counts c;
    memset(&c, 0, sizeof c);
    int64_t t0 = trace_start(x), from, to;
    double end = x->now;
    if (part) part_times(x, part, &t0, &end);
    xs_window(&x->opts, t0, end, &from, &to);
    int window = from != INT64_MIN || to != INT64_MAX;
    /* The plan's statistics are the answer; but its call tree merges every
     * thread, and folded stacks keep a GPU's lanes as roots of their own:
     * those go through the stream. */
    if ((f == REC_EXPORT_CSV || (f == REC_EXPORT_FOLDED && !model_has_lanes(x->plan))) && !window) {
        errno = 0;
        int r = f == REC_EXPORT_CSV ? csv_write_stats(x->plan, out, 0, &c.rows) : folded_write_tree(x->plan, out, 0, &c.rows);
        int werr = errno;
        c.events_read = x->events;
        source_totals(x->plan, &c);
        if (cnt) *cnt = c;
        return r == 0 ? REC_OK : write_failed(err, errlen, werr);
    }
    rec_model *m = new_model(x);
    if (m) m->no_stats = 1;   /* the sinks count for themselves; the plan has the statistics */
    struct xs *s = m ? xs_new(m, XS_WRITE, NULL, NULL, x->opts.lookahead) : NULL;
    if (!s) {
        rec_model_free(m);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    s->t0 = t0;
    s->from = from;
    s->to = to;
    s->part = part;
    s->whole = x->plan;
    int rc = REC_OK;
    if (xs_sink_start(s, x->plan, f, out, xs_window_span(x->plan, from, to, x->now)) != 0) {
        rc = rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    } else {
        xs_attach(s);
        rc = x->feed(x->fctx, m, 1);
        if (rc != REC_OK) rec__fail(err, errlen, rc, "%s while reading the source", rec_status_str(rc));
        xs_detach(s);
        c.events_read = events_of(m);
        rec_model_set_now(m, x->now);
        xs_finish(s);
    }
    uint64_t read = c.events_read;
    errno = 0;
    int e = xs_sink_end(s, f, &x->opts, &c);
    int werr = errno;
    c.events_read = read;
    c.forced = s->forced;
    c.too_deep = s->too_deep;
    source_totals(m, &c);
    if (rc == REC_OK && e != 0)
        rc = s->oom ? rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory") : write_failed(err, errlen, werr);
    xs_free(s);
    rec_model_free(m);
    if (cnt) *cnt = c;
    return rc;
}

int rec_export_write(rec_export *x, enum rec_export_format f, FILE *out, struct rec_export_counts *cnt, char *err,
                     size_t errlen) {
    return write_any(x, f, out, NULL, cnt, err, errlen);
}

int rec_export_write_part(rec_export *x, enum rec_export_format f, FILE *out, struct rec_export_part *part,
                          struct rec_export_counts *cnt, char *err, size_t errlen) {
    if ((f != REC_EXPORT_JSON && f != REC_EXPORT_PERFETTO) || part->index >= part->count || part->index >= 32768)
        return rec__fail(err, errlen, REC_ERR_USAGE, "several sources go into JSON or Perfetto, at most 32768");
    int rc = write_any(x, f, out, part, cnt, err, errlen);
    if (rc != REC_OK || part->index + 1 == part->count) rec_export_part_free(part);
    return rc;
}

void rec_export_part_free(struct rec_export_part *part) {
    free(part->blocks);
    part->blocks = NULL;
    part->blocks_len = 0;
}

void rec_export_free(rec_export *x) {
    if (!x) return;
    xs_free(x->px);
    rec_model_free(x->plan);
    free(x->c0);
    free(x->c1);
    free(x->stop);
    free(x);
}
