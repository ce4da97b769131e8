/*
 * model_life.c -- a model's lifetime: rec_model_new sets up every part
 * (the registries of model.c, the statistics tables of agg.c, the event
 * log, the wait names) and rec_model_free takes them all down.  Above
 * the parts it assembles, so that none of them has to call the others'
 * set-up (docs/architecture-analysis.md).
 */
#include <math.h>
#include <stdlib.h>

#include "aggregates.h"

rec_model *rec_model_new(const struct rec_source_info *src, rec_string_fn strings, void *ctx,
                         const struct rec_model_opts *opts) {
    rec_model *m = calloc(1, sizeof *m);
    if (!m) return NULL;
    if (src) m->src = *src;
    m->strings = strings;
    m->ctx = ctx;
    if (opts) m->opts = *opts;
    if (m->opts.max_events == 0) m->opts.max_events = (size_t)8 << 20;
    if (m->opts.max_events > UINT32_MAX) m->opts.max_events = UINT32_MAX;  /* views index it with 32 bits */
    double tps = m->src.ticks_per_sec;
    m->ns_per_tick = (isfinite(tps) && tps > 0) ? 1e9 / tps : 1.0;
    m->ticks0 = m->src.ticks0;
    m->newest_ns = -INFINITY;
    m->run_first_ns = INFINITY;
    agg_init(&m->all);
    m->all.max = AGG_MAX_RUN;
    m->w1.width_ns = 1e8;
    m->w10.width_ns = 1e9;
    m->w10.evict = p99_evict;
    m->w10.owner = m;
    for (int i = 0; i < WIN_BUCKETS; i++) {
        agg_init(&m->w1.b[i]);
        agg_init(&m->w10.b[i]);
        m->w1.b[i].max = m->w10.b[i].max = AGG_MAX_BUCKET;
    }
    elog_init(&m->log, m->opts.keep_log ? m->opts.max_events : 0);
    if (model_registries_init(m) != 0) {
        rec_model_free(m);
        return NULL;
    }
    model_wait_names(m, m->opts.wait_scopes);
    m->opts.wait_scopes = NULL;   /* the caller's string: not kept */
    return m;
}

void rec_model_free(rec_model *m) {
    if (!m) return;
    model_registries_free(m);
    agg_free(&m->all);
    for (int i = 0; i < WIN_BUCKETS; i++) {
        agg_free(&m->w1.b[i]);
        agg_free(&m->w10.b[i]);
    }
    elog_free(&m->log);
    counters_free(m);
    messages_free(m);
    p99_free(m);
    stats_scratch_free(m);
    free(m);
}
