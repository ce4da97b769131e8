/*
 * reader.c -- the reader thread (see reader.h).
 *
 * A live segment is drained round after round; a capture file is read
 * once, start to end, as fast as it goes (read_file), and then served.
 * Several live programs are drained together, their slots one after the
 * other, their events rebased onto the first's clock (source.h).
 *
 * One round reads every slot once; a slot that had more than one read's
 * worth is read again at once.  At the first pass after each flush period
 * (or sooner when a batch gets large) the batch becomes one EVENTS frame
 * offered to every client; every 500 ms the statistics are published
 * (reader_pub.c).  The
 * thread never blocks on a client: frames are offered, never waited on.
 */
#define _GNU_SOURCE
#include <libwebsockets.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "clamp.h"
#include "reader.h"
#include "reader_int.h"
#include "shared.h"

#define FLUSH_BYTES (256u << 10)
#define STATS_MS 500
/* The statistics take at most this share of a core: with a million names
 * adding up the windows takes tens of ms, and the drain needs the core
 * more than the table needs twice a second (issue 22). */
#define STATS_MAX_SHARE 0.1
#define FIRST_STATS_MS 100     /* a capture file's first statistics and summary */
#define ALL_WINDOWS 7u         /* a file's statistics: every window, a few times in all */
/* Rest between passes (docs/web.md, "How it reads"): until a ring would
 * be a quarter full at the rate the last pass saw, 1 ms at least, a flush
 * period at most.  Each wake-up preempts a thread of a program that keeps
 * every core busy, and its peers wait for it at their barrier. */
#define MIN_REST_MS 1.0
#define FUTURE_SLACK_NS 1e9    /* calibration error we accept in event times */


/* The time to the next statistics: STATS_MS, or longer when publishing
 * took more than STATS_MAX_SHARE of it. */
static double stats_period_ms(double took_ms) {
    double need = took_ms / STATS_MAX_SHARE;
    return need > STATS_MS ? need : STATS_MS;
}

/* Several programs: the model's names are dense ids. */
static const char *dense_name(void *src, uint32_t id) { return wsrc_string(src, id); }

struct reader *reader_new(struct web *w, char *err, size_t errlen) {
    struct reader *r = calloc(1, sizeof *r);
    if (!r) goto oom;
    r->w = w;
    uint32_t mt = w->src.max_threads;
    r->ents = malloc(READ_CAP * sizeof *r->ents);
    r->evs = malloc(READ_CAP * sizeof *r->evs);
    r->ti = calloc(mt, sizeof *r->ti);
    r->known = calloc(mt, sizeof *r->known);
    r->known_ok = calloc(mt, 1);
    r->lapping = calloc(mt, 1);
    if (!r->ents || !r->evs || !r->ti || !r->known || !r->known_ok || !r->lapping) goto oom;
    if (spill_init(&r->spill, &w->src, mt) != 0) goto oom;
    if (strtab_init(&r->names, &w->names) != 0) goto oom;
    if (w->src.n > 1) {
        /* Events reach the encoder and the model with dense names. */
        r->names.identity = 1;
        w->src.names = &w->names;
        r->src_names = calloc(w->src.n, sizeof *r->src_names);
        if (!r->src_names) goto oom;
        for (uint32_t k = 0; k < w->src.n; k++)
            if (strtab_init_shared(&r->src_names[k], &w->names) != 0) goto oom;
    }
    if (lanes_init(&r->lanes, mt, &w->threads) != 0) goto oom;
    if (batch_init(&r->batch) != 0 || aggregate_init(&r->agg) != 0) goto oom;
    if (history_init(&r->hist, w->opts.client_queue / 2) != 0) goto oom;
    if (lod_init(&r->lod, LANES_CAP + 1, &w->lod) != 0) goto oom;
    r->batch.lod = &r->lod;
    latlod_init(&r->lat, &w->lat);
    r->batch.lat = &r->lat;
    struct rec_model_opts mo = {.max_events = w->opts.log_events, .keep_log = 1};
    if (w->src.n > 1) {
        struct rec_source_info si;
        rec_seg_source_info(w->seg, &si);
        r->model = rec_model_new(&si, dense_name, &w->src, &mo);
    } else {
        r->model = w->src.cap ? rec_model_new_cap(w->src.cap, &mo) : rec_model_new_seg(w->seg, &mo);
    }
    if (!r->model) goto oom;
    if (w->src.cap) {
        r->range_ok = 1;   /* destroyed with r, even half made */
        if (range_init(&r->range, mt, w->opts.client_queue / 2) != 0) goto oom;
    }
    r->alive = w->info.alive;
    r->loading = w->src.cap != NULL;
    web_store(&w->loading, r->loading);
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
    const struct wsrc *src = &r->w->src;
    int n = 0;
    for (uint32_t k = 0; k < src->n; k++) {
        int m = rec_seg_threads(src->segs[k], r->ti + n, (int)(src->max_threads - (uint32_t)n));
        for (int i = n; i < n + m; i++) r->ti[i].slot += src->base[k];
        n += m;
    }
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

/* Decoded events of one slot, with what the read that returned them lost:
 * counted, fed to the model, encoded.  A time past our own clock is bogus
 * (a segment cannot be from the future): it must not drag the page's now
 * along, nor the summary's grid. */
static void take(struct reader *r, uint32_t slot, size_t n, const struct rec_loss *loss) {
    struct web *w = r->w;
    rec_model_feed(r->model, slot, r->evs, n, loss);
    uint64_t before = r->batch.events;
    batch_add(&r->batch, &r->lanes, &r->names, &w->src, slot, r->evs, n, loss);
    web_add(&w->ctr.events, r->batch.events - before);
    if (r->batch.nolane) web_count(&w->ctr.nolane, r->batch.nolane);
    r->batch.nolane = 0;
    if (n) {
        double ts = (double)web_ns(wsrc_ns(&w->src, r->evs[n - 1].ticks));
        if (ts > r->max_ts && ts <= (double)r->lod.limit) r->max_ts = ts;
    }
}

static void count_loss(struct web *w, const struct rec_loss *loss) {
    if (loss->overwritten) web_count(&w->ctr.overwritten, loss->overwritten);
    if (loss->dropped) web_count(&w->ctr.dropped, loss->dropped);
    /* Impossible heads or counters (docs/format.md, "Loss"): bad data. */
    if (loss->bad) web_count(&w->ctr.bad, loss->bad);
    if (loss->history) web_count(&w->ctr.history, loss->history);
}

/* What one read of a ring returned (rec_seg_read's entries from first,
 * and its loss), whether the reader made it or the spill thread did while
 * the reader was busy (spill.h): counted, decoded, fed and encoded.
 * Returns 0 if the read found the ring empty, with nothing lost.
 * A batch past FLUSH_BYTES goes out at once: a frame is at most that
 * plus one read (docs/web.md, "Bounds"). */
int reader_take_read(struct reader *r, uint32_t slot, const struct rec_entry *ents, size_t got, uint64_t first,
                     const struct rec_loss *loss) {
    struct web *w = r->w;
    uint32_t k = wsrc_which(&w->src, slot);
    /* "From the future" is judged by the clock read after the copy:
     * every true event was written before it.  Read once a pass, a
     * pass slower than the slack (a sanitizer, a loaded machine)
     * left real events out of the summary. */
    r->lod.limit = web_ns(clock_ns(w) + FUTURE_SLACK_NS);
    r->pass_entries = rec_sat_add(r->pass_entries, rec_sat_add(got, rec_sat_add(loss->overwritten, loss->dropped)));
    count_loss(w, loss);
    int lap = loss->overwritten || loss->dropped || loss->history;
    if (lap != r->lapping[slot]) {
        r->n_lapping += lap ? 1u : (uint32_t)-1;
        r->lapping[slot] = (uint8_t)lap;
    }
    if (ring_read_empty(got, loss)) return 0;
    size_t used = 0;
    uint64_t bad = 0;
    size_t n = rec_decode(ents, got, first, r->evs, READ_CAP, &used, &bad);
    if (w->src.n > 1) wsrc_rebase(&w->src, k, &r->src_names[k], r->evs, n);
    take(r, slot, n, loss);
    if (bad) {
        web_count(&w->ctr.bad, bad);
        rec_model_add_bad(r->model, slot, bad);
    }
    if (batch_bytes(&r->batch) >= FLUSH_BYTES) flush(r, source_now(r));
    return 1;
}

/* Read one slot until it has nothing more or has had its turn (the rules
 * in spill.h); returns 1 if it may have more.  A writer that lapped us
 * has more, and every millisecond we sleep is a stretch of its time we
 * will know nothing about (as recorder-top's drain does). */
static int read_slot(struct reader *r, const struct rec_thread_info *t) {
    struct web *w = r->w;
    uint32_t slot = t->slot, k = wsrc_which(&w->src, slot);
    for (int round = 0; round < RING_READS_PER_TURN; round++) {
        uint64_t first;
        struct rec_loss loss = {0};
        size_t got = rec_seg_read(w->src.segs[k], slot - w->src.base[k], r->ents, READ_CAP, &first, &loss);
        if (!reader_take_read(r, slot, r->ents, got, first, &loss)) return 0;
        if (!ring_read_more(got, READ_CAP, &loss)) return 0;
    }
    /* Stopped at its turn: what it left of the head seen as the pass
     * began counts as found too, so that the pace sees what the ring held,
     * not what one turn reads (a ring larger than the turn's reads would
     * otherwise look a quarter full while nearly full: recorder/pace.h).
     * At most a ring: a head beyond that is a loss the next read counts. */
    uint64_t cur = rec_seg_cursor(w->src.segs[k], slot - w->src.base[k]);
    if (t->head > cur) {
        uint64_t left = t->head - cur;
        r->pass_entries = rec_sat_add(r->pass_entries, left < w->info.ring_entries ? left : w->info.ring_entries);
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
    /* A file being loaded goes to the history only: every page gets its
     * end, the detail kept, once it is read (read_file). */
    /* The service thread is woken only for a page that was offered the
     * frame: with none connected (or all hidden) it slept through every
     * flush, about 18 wake-ups a second less at 580k events/s. */
    int wake = !r->loading && clients_offer(&w->clients, f, &r->hist) > 0;
    history_push(&r->hist, f);
    frame_unref(f);
    web_add(&w->ctr.frames, 1);
    if (wake) lws_cancel_service(w->ctx);
}

/* A program may shrink its segment file under us (docs/security.md):
 * librecorder then reads nothing more from it, and we stop asking.  What
 * was read stays, and keeps being served. */
static void check_truncated(struct reader *r) {
    if (r->truncated) return;
    /* Several programs: only once every one is (the others still read). */
    for (uint32_t k = 0; k < r->w->src.n; k++)
        if (rec_seg_status(r->w->src.segs[k]) != REC_ERR_TRUNCATED) return;
    r->truncated = 1;
    web_store(&r->w->truncated, 1);
}

/* The time index: the span of these events (fileidx.h). */
static void note_times(struct reader *r, size_t n) {
    if (!r->range_ok || !n) return;
    int64_t a = INT64_MAX, b = INT64_MIN;
    for (size_t i = 0; i < n; i++) {
        int64_t t = web_ns(wsrc_ns(&r->w->src, r->evs[i].ticks));
        if (t < a) a = t;
        if (t > b) b = t;
    }
    fidx_note(&r->range.idx, a, b);
}

/* One chunk of a capture, decoded a buffer at a time; its loss goes with
 * the first part. */
static void read_chunk(struct reader *r, const struct rec_cap_item *it) {
    struct web *w = r->w;
    count_loss(w, &it->loss);
    size_t off = 0;
    int first = 1;
    while (off < it->n || first) {
        size_t used = 0;
        uint64_t bad = 0;
        size_t n = rec_decode(it->entries + off, it->n - off, it->first + off, r->evs, READ_CAP, &used, &bad);
        note_times(r, n);
        take(r, it->slot, n, first ? &it->loss : NULL);
        if (bad) {
            web_count(&w->ctr.bad, bad);
            rec_model_add_bad(r->model, it->slot, bad);
        }
        first = 0;
        if (!used) break;
        off += used;
        /* Frames small enough that the history holds several (a page
         * gets only whole frames of it). */
        if (batch_bytes(&r->batch) >= r->file_flush) flush(r, r->max_ts);
    }
}

/* A capture file, start to end.  Its frames go to the history (the last
 * --client-queue/2 bytes of them are the detail a page gets); everything
 * goes to the model and the summary.  Statistics and the summary are
 * published as it goes, so a page shows the run growing while it loads.
 * Then the pages that joined get the history. */
static void read_file(struct reader *r) {
    struct web *w = r->w;
    rec_cap *c = w->src.cap;
    const struct rec_cap_info *in = rec_cap_get_info(c);
    double end = in->end_ticks ? (double)web_ns(wsrc_ns(&w->src, in->end_ticks)) : 0;
    r->lod.limit = in->end_ticks ? web_ns(end + FUTURE_SLACK_NS) : WEB_NS_MAX;
    double next = mono_ms() + FIRST_STATS_MS;   /* a first picture soon, then twice a second */
    r->file_flush = w->opts.client_queue / 16 < FLUSH_BYTES ? w->opts.client_queue / 16 : FLUSH_BYTES;
    struct rec_cap_item it;
    int rc = 0;
    unsigned k = 0;
    /* The warning main.c printed at open: the lazy open finds a corrupt
     * chunk only when it is read. */
    char told[sizeof in->warning];
    memcpy(told, in->warning, sizeof told);
    struct rec_cap_pos pos;   /* where the item rec_cap_next returns starts: the index's points */
    rec_cap_tell(c, &pos);
    while (!web_load(&w->stop) && (rc = rec_cap_next(c, &it)) == 1) {
        if (it.kind == REC_CAP_ITEM_THREAD) {
            wsrc_note_thread(&w->src, &it.thread);
            rec_model_thread(r->model, &it.thread);
            lanes_update(&r->lanes, &it.thread);
            rec_cap_tell(c, &pos);
            continue;
        }
        /* Before the chunk: the lanes' stacks there are a point's. */
        if (r->range_ok) fidx_mark(&r->range.idx, &pos, &r->lanes);
        read_chunk(r, &it);
        rec_cap_tell(c, &pos);
        if ((++k & 63) == 0 && mono_ms() >= next) {
            set_now(w, r->max_ts);
            flush(r, r->max_ts);
            reader_publish_stats(r, r->max_ts, ALL_WINDOWS);
            int req = web_xchg(&w->export_req, 0);
            if (req) reader_answer_export(r, req);
            latlod_publish(&r->lat, &r->lod, mono_ms());
            next = mono_ms() + STATS_MS;
        }
    }
    /* A read error after the open's check (the file changed under us), or
     * a valid part that ends at a cut or a corrupt record: what was read
     * is served, and the status says the file is cut. */
    if (rc < 0 || in->truncated) web_store(&w->truncated, 1);
    if (rc < 0) fprintf(stderr, "recorder-web: warning: %s: read error (the file changed after it was checked)\n", w->info.path);
    else if (in->warning[0] && strcmp(in->warning, told) != 0) fprintf(stderr, "recorder-web: warning: %s\n", in->warning);
    double now = end > r->max_ts ? end : r->max_ts;
    r->max_ts = now;
    set_now(w, now);
    flush(r, now);
    reader_publish_stats(r, now, ALL_WINDOWS);
    r->loading = 0;
    web_store(&w->loading, 0);
    if (clients_catch_up(&w->clients, &r->hist)) lws_cancel_service(w->ctx);
}

/* The windows pages asked for (range.h): each page's newest question,
 * once the file is read, answered once.  A page whose queue holds
 * anything is answered on a later pass: an empty queue takes any frame
 * (clients.c) and only this thread queues, so an answer is never thinned
 * (it would count as a stream frame thinned, with no events in it). */
static void serve_ranges(struct reader *r) {
    struct web *w = r->w;
    unsigned n = 0;
    web_read_lock();
    const struct client_set *set = web_subscribe(&w->clients.set);
    for (size_t i = 0; set && i < set->n; i++) {
        struct client *c = set->c[i];
        uint64_t v = __atomic_load_n(&c->range_ver, __ATOMIC_ACQUIRE);
        if (v == c->range_done || web_load(&c->closing) || web_load(&c->queued_bytes)) continue;
        uint64_t a = web_load(&c->range_t0), b = web_load(&c->range_t1);
        uint32_t id = web_load(&c->range_id);
        if (__atomic_load_n(&c->range_ver, __ATOMIC_ACQUIRE) != v) continue;   /* being asked anew */
        c->range_done = v;
        double t0, t1;
        memcpy(&t0, &a, sizeof t0);
        memcpy(&t1, &b, sizeof t1);
        if (!isfinite(t0) || !isfinite(t1)) continue;
        struct frame *f = range_read(&r->range, &w->src, &r->lanes, &r->names, r->evs, READ_CAP, id, t0, t1, r->max_ts);
        if (!f) continue;
        client_offer_one(&w->clients, c, f);
        frame_unref(f);
        n++;
    }
    web_read_unlock();
    if (n) lws_cancel_service(w->ctx);
}

static void *reader_main(void *arg) {
    struct reader *r = arg;
    struct web *w = r->w;
    rcu_register_thread();
    rec_pace_init(&r->pace, MIN_REST_MS, w->opts.flush_ms);
    if (w->src.cap) read_file(r);
    double next_flush = 0, next_stats = 0, next_turn = 0, last_pass = mono_ms();
    while (!web_load(&w->stop)) {
        int more = 0;
        r->pass_entries = 0;
        if (!r->truncated && !w->src.cap) {
            int n = sync_threads(r);
            r->n_ti = (uint32_t)n;
            for (int i = 0; i < n; i++) more |= read_slot(r, &r->ti[i]);
        }
        double t = mono_ms();
        double now = source_now(r);
        set_now(w, now);
        if (t >= next_flush || batch_bytes(&r->batch) >= FLUSH_BYTES) {
            flush(r, now);
            next_flush = t + w->opts.flush_ms;
        }
        /* A file's were published once it was read.  A window a page
         * turned to is published at once, unless the last publication has
         * not had its STATS_MAX_SHARE of time yet: a page that flips
         * between windows cannot keep the reader adding up. */
        unsigned viewed = w->src.cap ? 0 : reader_windows_viewed(w);
        if (!w->src.cap && (t >= next_stats || ((viewed & ~r->stats_mask) && t >= next_turn))) {
            check_truncated(r);
            r->replay_ms = 0;
            reader_publish_stats(r, now, viewed);
            /* Taking what the spill thread read is the drain's work, not
             * the statistics'. */
            double took = mono_ms() - t - r->replay_ms;
            next_turn = t + took / STATS_MAX_SHARE;
            if (t >= next_stats) next_stats = t + stats_period_ms(took);
        }
        int req = web_xchg(&w->export_req, 0);
        if (req) reader_answer_export(r, req);
        /* Latency answers a page asked for: at once, not at the next statistics. */
        if (latlod_publish(&r->lat, &r->lod, t)) lws_cancel_service(w->ctx);
        if (clients_catch_up(&w->clients, &r->hist)) lws_cancel_service(w->ctx);
        if (r->range_ok && !r->loading) serve_ranges(r);
        /* The rule every consumer of the rings follows (recorder/pace.h):
         * a pass that stopped at its bound (RING_READS_PER_TURN reads of a
         * ring) comes back at once, and the next one's count is that
         * backlog, not the writers' rate. */
        double found = w->info.ring_entries ? (double)r->pass_entries / (double)w->info.ring_entries : 0;
        int at_once = rec_pace_pass(&r->pace, found, t - last_pass, more);
        last_pass = t;
        /* The rest is not cut short for a flush: the frame goes out at
         * the first pass after it is due, at most one rest (one flush
         * period) late.  Waking for it too woke the reader half as often
         * again (about 46 times a second at 580k events/s, against 30). */
        if (!at_once) {
            double d_ms = r->pace.rest_ms;   /* MIN_REST_MS or more */
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
    spill_destroy(&r->spill);
    if (r->model) rec_model_free(r->model);
    aggregate_destroy(&r->agg);
    if (r->hist.v) history_destroy(&r->hist);
    latlod_destroy(&r->lat);
    lod_destroy(&r->lod);
    if (r->range_ok) range_destroy(&r->range);
    batch_destroy(&r->batch);
    if (r->lanes.v) lanes_destroy(&r->lanes);
    if (r->src_names)
        for (uint32_t k = 0; k < r->w->src.n; k++)
            if (r->src_names[k].keys) strtab_destroy(&r->src_names[k]);
    free(r->src_names);
    if (r->names.keys) strtab_destroy(&r->names);
    free(r->ents);
    free(r->evs);
    free(r->ti);
    free(r->known);
    free(r->known_ok);
    free(r->lapping);
    free(r);
}
