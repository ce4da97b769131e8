/*
 * reader.c -- the reader thread (see reader.h).
 *
 * One round reads every slot once; a slot that had more than one read's
 * worth is read again at once.  Every flush period (or sooner when a
 * batch gets large) the batch becomes one EVENTS frame offered to every
 * client; every 500 ms the statistics are published.  The thread never
 * blocks on a client: frames are offered, never waited on.
 */
#define _GNU_SOURCE
#include <libwebsockets.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "batch.h"
#include "clamp.h"
#include "lanes.h"
#include "reader.h"
#include "shared.h"

#define READ_CAP 65536u        /* entries per read */
#define FLUSH_BYTES (256u << 10)
#define STATS_MS 500
/* Rest between passes (docs/web.md, "How it reads"): until a ring would
 * be a quarter full at the rate the last pass saw, 1 ms at least, a flush
 * period at most.  Each wake-up preempts a thread of a program that keeps
 * every core busy, and its peers wait for it at their barrier. */
#define MIN_REST_MS 1.0
#define TARGET_FILL 0.25
#define FUTURE_SLACK_NS 1e9    /* calibration error we accept in event times */

struct reader {
    struct web *w;
    pthread_t thread;
    int started;
    rec_model *model;
    struct strtab names;
    struct lanes lanes;
    struct batch batch;
    struct aggregate agg;
    struct history hist;
    struct rec_entry *ents;
    struct rec_event *evs;
    struct rec_thread_info *ti, *known;  /* this round's threads; last reported to the model */
    uint8_t *known_ok;
    /* By slot: its writer is lapping us -- its last read could not
     * return everything (lost entries, or, the first time, history) -- so
     * what it writes after the newest event we have will probably be lost
     * too (publish_stats). */
    uint8_t *lapping;
    uint32_t n_lapping;
    uint64_t pass_entries;    /* read or lost this pass: the writers' pace */
    uint64_t seq;
    double max_ts;
    int alive;
    int truncated;            /* the segment shrank: nothing more is read */
};

static double mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CLOCK_MONOTONIC as the segment's ns (time 0 = its calibration point). */
static double clock_ns(const struct web *w) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - (double)w->info.mono_ns0;
}

struct reader *reader_new(struct web *w, char *err, size_t errlen) {
    struct reader *r = calloc(1, sizeof *r);
    if (!r) goto oom;
    r->w = w;
    uint32_t mt = w->info.max_threads;
    r->ents = malloc(READ_CAP * sizeof *r->ents);
    r->evs = malloc(READ_CAP * sizeof *r->evs);
    r->ti = calloc(mt, sizeof *r->ti);
    r->known = calloc(mt, sizeof *r->known);
    r->known_ok = calloc(mt, 1);
    r->lapping = calloc(mt, 1);
    if (!r->ents || !r->evs || !r->ti || !r->known || !r->known_ok || !r->lapping) goto oom;
    if (strtab_init(&r->names, &w->names) != 0) goto oom;
    if (lanes_init(&r->lanes, mt, &w->threads) != 0) goto oom;
    if (batch_init(&r->batch) != 0 || aggregate_init(&r->agg) != 0) goto oom;
    if (history_init(&r->hist, w->opts.client_queue / 2) != 0) goto oom;
    struct rec_model_opts mo = {.max_events = w->opts.log_events, .keep_log = 1};
    r->model = rec_model_new_seg(w->seg, &mo);
    if (!r->model) goto oom;
    r->alive = w->info.alive;
    /* Each ring is read from its oldest entry: what it had overwritten
     * before our first read is history, not kept, which librecorder tells
     * apart from what we lose later (reader.h, struct rec_loss). */
    lanes_publish(&r->lanes);
    return r;
oom:
    snprintf(err, errlen, "out of memory");
    reader_join_free(r);
    return NULL;
}

/* Tell the model and the lanes about threads that are new or changed. */
static int sync_threads(struct reader *r) {
    struct web *w = r->w;
    int n = rec_seg_threads(w->seg, r->ti, (int)w->info.max_threads);
    for (int i = 0; i < n; i++) {
        const struct rec_thread_info *t = &r->ti[i];
        struct rec_thread_info *k = &r->known[t->slot];
        if (!r->known_ok[t->slot] || k->gen != t->gen || k->state != t->state || k->tid != t->tid ||
            k->name_id != t->name_id || strcmp(k->name, t->name)) {
            rec_model_thread(r->model, t);
            *k = *t;
            r->known_ok[t->slot] = 1;
        }
        lanes_update(&r->lanes, t);
    }
    return n;
}

static void flush(struct reader *r, double now);
static double source_now(struct reader *r);

/* Read one slot until it has nothing more (at most a few reads, so one
 * busy thread cannot starve the others); returns 1 if it may have more.
 * A writer that lapped us (entries overwritten) has more: the read is
 * cut short by what it overwrote meanwhile, and every millisecond we
 * sleep is a stretch of its time we will know nothing about (as
 * recorder-top's drain does).
 * A batch past FLUSH_BYTES goes out at once: a frame is at most that
 * plus one read (docs/web.md, "Bounds"). */
static int read_slot(struct reader *r, uint32_t slot) {
    struct web *w = r->w;
    for (int round = 0; round < 4; round++) {
        uint64_t first;
        struct rec_loss loss = {0};
        size_t got = rec_seg_read(w->seg, slot, r->ents, READ_CAP, &first, &loss);
        r->pass_entries += got + loss.overwritten + loss.dropped;
        if (loss.overwritten) web_count(&w->ctr.overwritten, loss.overwritten);
        if (loss.dropped) web_count(&w->ctr.dropped, loss.dropped);
        /* Impossible heads or counters (docs/format.md, "Loss"): bad data. */
        if (loss.bad) web_count(&w->ctr.bad, loss.bad);
        if (loss.history) web_count(&w->ctr.history, loss.history);
        int lap = loss.overwritten || loss.dropped || loss.history;
        if (lap != r->lapping[slot]) {
            r->n_lapping += lap ? 1u : (uint32_t)-1;
            r->lapping[slot] = (uint8_t)lap;
        }
        if (!got && !loss.overwritten && !loss.dropped && !loss.bad && !loss.history) return 0;
        size_t used = 0;
        uint64_t bad = 0;
        size_t n = rec_decode(r->ents, got, first, r->evs, READ_CAP, &used, &bad);
        rec_model_feed(r->model, slot, r->evs, n, &loss);
        if (bad) {
            web_count(&w->ctr.bad, bad);
            rec_model_add_bad(r->model, slot, bad);
        }
        uint64_t before = r->batch.events;
        batch_add(&r->batch, &r->lanes, &r->names, w->seg, slot, r->evs, n, &loss);
        web_add(&w->ctr.events, r->batch.events - before);
        if (r->batch.nolane) web_count(&w->ctr.nolane, r->batch.nolane);
        r->batch.nolane = 0;
        if (n) {
            /* A time past our own clock is bogus (the segment cannot be
             * from the future): it must not drag the page's now along. */
            double ts = (double)web_ns(rec_seg_ticks_to_ns(w->seg, r->evs[n - 1].ticks));
            if (ts > r->max_ts && ts <= clock_ns(w) + FUTURE_SLACK_NS) r->max_ts = ts;
        }
        if (batch_bytes(&r->batch) >= FLUSH_BYTES) flush(r, source_now(r));
        if (got < READ_CAP && !loss.overwritten) return 0;
    }
    return 1;
}

static double source_now(struct reader *r) {
    /* Nothing more will come: time stops at the last event. */
    if (!r->alive || r->truncated) return r->max_ts;
    double now = clock_ns(r->w);
    return now > r->max_ts ? now : r->max_ts;
}

static void set_now(struct web *w, double now) {
    uint64_t bits;
    memcpy(&bits, &now, sizeof bits);
    web_store(&w->now_bits, bits);
}

static void flush(struct reader *r, double now) {
    struct web *w = r->w;
    /* Lanes first: a page must know a lane before events that use it. */
    lanes_publish(&r->lanes);
    uint64_t events = r->batch.events;
    struct frame *f = batch_flush(&r->batch, r->seq + 1, now);
    if (!f) {
        if (events) web_add(&w->ctr.unsent, events);
        return;
    }
    r->seq++;
    clients_offer(&w->clients, f, &r->hist);
    history_push(&r->hist, f);
    frame_unref(f);
    web_add(&w->ctr.frames, 1);
    lws_cancel_service(w->ctx);
}

/* A program may shrink its segment file under us (docs/security.md):
 * librecorder then reads nothing more from it, and we stop asking.  What
 * was read stays, and keeps being served. */
static void check_truncated(struct reader *r) {
    if (r->truncated || rec_seg_status(r->w->seg) != REC_ERR_TRUNCATED) return;
    r->truncated = 1;
    web_store(&r->w->truncated, 1);
}

static void publish_stats(struct reader *r, double now) {
    struct web *w = r->w;
    struct rec_seg_info info;
    rec_seg_get_info(w->seg, &info);
    r->alive = info.alive;
    web_store(&w->alive, info.alive);
    web_store(&w->closed, info.closed);
    /* Windows slide with the clock even while the program is idle (not
     * once nothing more can be read: then they stay on what was).  But
     * while a writer laps us, the time after the newest event decoded is
     * not known yet, and will mostly turn out lost (a gap runs from the
     * last event before a loss to the first after it, docs/analysis.md):
     * taken as covered, that tail would dilute every share of a window
     * we read 1% of.  So the windows end at the newest event then. */
    if (r->alive && !r->truncated && !r->n_lapping) rec_model_set_now_live(r->model, w->seg);
    else if (r->alive && !r->truncated) rec_model_set_now(r->model, r->max_ts);
    else rec_model_set_now(r->model, now);
    for (int k = 0; k < 3; k++) aggregate_publish(&r->agg, r->model, &r->names, (enum rec_window)k, now, &w->stats[k]);
    lanes_publish(&r->lanes);
    lws_cancel_service(w->ctx);
}

/* The snapshots asked for (bits 1 << fmt of req). */
static void answer_export(struct reader *r, int req) {
    struct web *w = r->w;
    for (int f = 0; f < SNAP_FORMATS; f++) {
        if (!(req & 1 << f)) continue;
        struct snapshot *s = aggregate_export(r->model, (enum snap_fmt)f);
        void *old = web_xchg(&w->export_done[f], s ? (void *)s : (void *)1);
        if (old && old != (void *)1) snapshot_unref(old);
    }
    lws_cancel_service(w->ctx);
}

/* The next rest, from the entries the pass found since the last one. */
static double rest_ms(double prev, uint64_t entries, double since_ms, uint64_t ring, double max_ms) {
    double want = entries ? since_ms * TARGET_FILL * (double)ring / (double)entries : 2 * prev;
    if (want > 2 * prev) want = 2 * prev;
    if (want > max_ms) want = max_ms;
    return want < MIN_REST_MS ? MIN_REST_MS : want;
}

static void *reader_main(void *arg) {
    struct reader *r = arg;
    struct web *w = r->w;
    rcu_register_thread();
    double next_flush = 0, next_stats = 0, last_pass = mono_ms(), rest = MIN_REST_MS;
    while (!web_load(&w->stop)) {
        int more = 0;
        r->pass_entries = 0;
        if (!r->truncated) {
            int n = sync_threads(r);
            for (int i = 0; i < n; i++) more |= read_slot(r, r->ti[i].slot);
        }
        double t = mono_ms();
        double now = source_now(r);
        set_now(w, now);
        if (t >= next_flush || batch_bytes(&r->batch) >= FLUSH_BYTES) {
            flush(r, now);
            next_flush = t + w->opts.flush_ms;
        }
        if (t >= next_stats) {
            check_truncated(r);
            publish_stats(r, now);
            next_stats = t + STATS_MS;
        }
        int req = web_xchg(&w->export_req, 0);
        if (req) answer_export(r, req);
        if (clients_catch_up(&w->clients, &r->hist)) lws_cancel_service(w->ctx);
        rest = rest_ms(rest, r->pass_entries, t - last_pass, w->info.ring_entries, w->opts.flush_ms);
        last_pass = t;
        if (!more) {
            double until = next_flush - mono_ms(), d_ms = rest < until ? rest : until;
            if (d_ms < MIN_REST_MS) d_ms = MIN_REST_MS;
            struct timespec d = {(time_t)(d_ms / 1e3), (long)((d_ms - 1e3 * (double)(time_t)(d_ms / 1e3)) * 1e6)};
            nanosleep(&d, NULL);
        }
    }
    rcu_unregister_thread();
    return NULL;
}

int reader_start(struct reader *r) {
    if (pthread_create(&r->thread, NULL, reader_main, r) != 0) return -1;
    r->started = 1;
    return 0;
}

void reader_stop(struct reader *r) {
    if (r && r->started) pthread_join(r->thread, NULL);
    if (r) r->started = 0;
}

void reader_join_free(struct reader *r) {
    if (!r) return;
    reader_stop(r);
    if (r->model) rec_model_free(r->model);
    aggregate_destroy(&r->agg);
    if (r->hist.v) history_destroy(&r->hist);
    batch_destroy(&r->batch);
    if (r->lanes.v) lanes_destroy(&r->lanes);
    if (r->names.keys) strtab_destroy(&r->names);
    free(r->ents);
    free(r->evs);
    free(r->ti);
    free(r->known);
    free(r->known_ok);
    free(r->lapping);
    free(r);
}
