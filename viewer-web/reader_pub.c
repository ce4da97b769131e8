/*
 * reader_pub.c -- what the reader thread publishes from the model: the
 * statistics of the windows pages show, every 500 ms (reader.c paces it),
 * and the snapshots downloads ask for (see reader_int.h).
 *
 * The model cannot be fed while it adds up, and with a million names that
 * takes tenths of a second, longer than a ring holds: meanwhile the rings
 * go to the spill thread (spill.h), and its reads are taken afterwards as
 * the reader's own (busy_begin, busy_end).
 */
#define _GNU_SOURCE
#include <libwebsockets.h>

#include "reader_int.h"
#include "shared.h"

/* Work on the model that may take long (statistics, a snapshot): the
 * model cannot be fed meanwhile, so when want is set the rings go to the
 * spill thread (spill.h) until busy_end, which takes its reads as ours.
 * Returns whether it did.  A file is read whole before it is served, and
 * a truncated segment is read no more: neither has rings to watch. */
static int busy_begin(struct reader *r, int want) {
    struct web *w = r->w;
    if (!want || w->src.cap || r->truncated || !r->n_ti) return 0;
    return spill_begin(&r->spill, r->ti, r->n_ti, r->pace.rest_ms) == 0;
}

static void take_spilled(struct reader *r, size_t from, size_t to) {
    const struct spill *sp = &r->spill;
    for (size_t i = from; i < to; i++) {
        const struct spill_read *rd = &sp->reads[i];
        reader_take_read(r, rd->slot, sp->ents + rd->off, rd->n, rd->first, &rd->loss);
    }
}

/* The spill thread keeps reading while we take its reads, until we have
 * caught up: then the rings come back, with what it read last.  At a
 * million names feeding takes about half the time the events took to
 * come.  A reader that has not caught up after as long again as the work
 * took (busy_since) is slower than the writers: buffering more would only
 * put the loss off, with memory and a reader that serves nothing else
 * meanwhile, so the rings come back, and what overflows them is counted
 * lost as any loss. */
static void busy_end(struct reader *r, int spilled, double busy_since) {
    if (!spilled) return;
    double t = mono_ms(), limit = t + (t - busy_since);
    size_t done = 0, n;
    while ((n = spill_avail(&r->spill)) != done) {
        take_spilled(r, done, n);
        done = n;
        if (mono_ms() > limit) break;
    }
    spill_end(&r->spill);
    take_spilled(r, done, r->spill.n_reads);
    web_store(&r->w->ctr.spills, r->spill.spills);
    web_store(&r->w->ctr.spills_full, r->spill.full);
    r->replay_ms += mono_ms() - t;
}

/* The windows (bit 1 << enum rec_window) some page shows.  Only those are
 * added up: with a million names one window of the whole run takes about
 * 0.4 s here, a core's time better spent reading. */
unsigned reader_windows_viewed(struct web *w) {
    unsigned mask = 0;
    web_read_lock();
    const struct client_set *set = web_subscribe(&w->clients.set);
    for (size_t i = 0; set && i < set->n; i++) {
        unsigned k = web_load(&set->c[i]->window);
        /* A hidden page (a background tab) is shown no statistics. */
        if (k < 3 && !web_load(&set->c[i]->closing) && !web_load(&set->c[i]->hidden)) mask |= 1u << k;
    }
    web_read_unlock();
    return mask;
}

/* The statistics of the windows in mask; the others' are withdrawn, so
 * that a page that turns to one gets it fresh (reader_main publishes a
 * window as soon as a page shows it), never as it stood long ago. */
static void publish_windows(struct reader *r, double now, unsigned mask) {
    struct web *w = r->w;
    double t = mono_ms();
    int spilled = busy_begin(r, r->publish_ms >= (double)w->opts.spill_ms);
    for (int k = 0; k < 3; k++) {
        if (mask & 1u << k) aggregate_publish(&r->agg, r->model, &r->names, (enum rec_window)k, now, &w->stats[k]);
        else if (r->stats_mask & 1u << k) frame_publish(&w->stats[k], NULL);
    }
    r->stats_mask = mask;
    r->publish_ms = mono_ms() - t;
    busy_end(r, spilled, t);
}

void reader_publish_stats(struct reader *r, double now, unsigned mask) {
    struct web *w = r->w;
    if (w->src.cap) {
        /* What its segment could not record, as the file carries it. */
        web_store(&w->ctr.not_recorded, w->info.threads_no_slot);
        web_store(&w->ctr.names_full, w->info.strings_dropped);
        /* A file: its windows end at its last event (or its end record). */
        rec_model_set_now(r->model, now);
        publish_windows(r, now, mask);
        lanes_publish(&r->lanes);
        lod_publish(&r->lod, &r->lanes);
        lws_cancel_service(w->ctx);
        return;
    }
    /* Several programs: alive while any is, closed once all are. */
    int alive = 0, closed = 1;
    uint64_t no_ring = 0;   /* threads that got no ring: "N threads not recorded" */
    uint64_t full = 0;      /* names recorded as <strings full> */
    for (uint32_t k = 0; k < w->src.n; k++) {
        struct rec_seg_info info;
        rec_seg_get_info(w->src.segs[k], &info);
        alive |= info.alive;
        closed &= info.closed;
        no_ring = rec_count_sat(no_ring, info.threads_no_slot);
        full = rec_count_sat(full, info.strings_dropped);
    }
    r->alive = alive;
    web_store(&w->alive, alive);
    web_store(&w->ctr.not_recorded, no_ring);
    web_store(&w->ctr.names_full, full);
    web_store(&w->closed, closed);
    /* Windows slide with the clock even while the program is idle (not
     * once nothing more can be read: then they stay on what was).  But
     * while a writer laps us, the time after the newest event decoded is
     * not known yet, and will mostly turn out lost (a gap runs from the
     * last event before a loss to the first after it, docs/analysis.md):
     * taken as covered, that tail would dilute every share of a window
     * we read 1% of.  So the windows end at the newest event then. */
    if (r->alive && !r->truncated && !r->n_lapping && w->src.n > 1) rec_model_set_now(r->model, clock_ns(w));
    else if (r->alive && !r->truncated && !r->n_lapping) rec_model_set_now_live(r->model, w->seg);
    else if (r->alive && !r->truncated) rec_model_set_now(r->model, r->max_ts);
    else rec_model_set_now(r->model, now);
    publish_windows(r, now, mask);
    lanes_publish(&r->lanes);
    lod_publish(&r->lod, &r->lanes);
    lws_cancel_service(w->ctx);
}

void reader_answer_export(struct reader *r, int req) {
    struct web *w = r->w;
    /* A snapshot of a full log takes long: always on the spill. */
    double t = mono_ms();
    int spilled = busy_begin(r, 1);
    for (int f = 0; f < SNAP_FORMATS; f++) {
        if (!(req & 1 << f)) continue;
        struct snapshot *s = aggregate_export(r->model, (enum snap_fmt)f);
        if (s) s->events = web_load(&w->ctr.events);
        void *old = web_xchg(&w->export_done[f], s ? (void *)s : (void *)1);
        if (old && old != (void *)1) snapshot_unref(old);
    }
    busy_end(r, spilled, t);
    lws_cancel_service(w->ctx);
}
