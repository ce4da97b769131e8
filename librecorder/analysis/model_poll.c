/*
 * model_poll.c -- a model of a segment: made from it, fed from it, and its
 * clock.
 *
 * One poll reads every thread's new entries once and feeds them.  A slot
 * is read at most two rings' worth per poll, so a writer that outruns us
 * cannot keep the poll from returning; what it overwrites meanwhile is
 * counted by the read as lost.  (A capture's model: model_cap.c.)
 */
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "model_write.h"
#include "recorder/machine.h"

#define POLL_ENTRIES 16384

static const char *seg_string(void *s, uint32_t id) { return rec_seg_string((rec_seg *)s, id); }
void rec_seg_source_info(rec_seg *s, struct rec_source_info *src) {
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    memset(src, 0, sizeof *src);
    src->pid = info.pid;
    memcpy(src->process_name, info.process_name, sizeof src->process_name);
    src->ticks_per_sec = info.ticks_per_sec;
    src->ticks0 = info.ticks0;
    src->real_ns0 = info.real_ns0;
    src->mono_ns0 = info.mono_ns0;
    /* A live segment is on the reader's own machine. */
    struct rec_machine me;
    rec_machine_this(&me);
    src->machine_id = me.id;
}

rec_model *rec_model_new_seg(rec_seg *s, const struct rec_model_opts *opts) {
    struct rec_source_info src;
    rec_seg_source_info(s, &src);
    return rec_model_new(&src, seg_string, s, opts);
}

/* One pass over the slots; with stop, each slot only up to the ring index
 * stop[slot] (a second read of what an earlier one saw). */
static size_t poll(rec_model *m, rec_seg *s, const uint64_t *stop) {
    if (!m->ent_buf) m->ent_buf = malloc(POLL_ENTRIES * sizeof *m->ent_buf);
    if (!m->ent_buf) return 0;
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    if (m->th_cap < info.max_threads) {
        struct rec_thread_info *t = realloc(m->th_buf, info.max_threads * sizeof *t);
        if (!t) return 0;
        m->th_buf = t;
        m->th_cap = info.max_threads;
    }
    int nt = rec_seg_threads(s, m->th_buf, (int)m->th_cap);
    size_t total = 0;
    /* The segment's conversion (its header's calibration), as the
     * model's inline one: rec_seg_ticks_to_ns is (ticks - ticks0) *
     * ns_per_tick, and a power-of-two span recovers ns_per_tick exactly. */
    double save_npt = m->ns_per_tick;
    uint64_t save_t0 = m->ticks0;
    m->conv = s;
    m->ticks0 = info.ticks0;
    m->ns_per_tick = rec_seg_ticks_to_ns(s, info.ticks0 + (UINT64_C(1) << 30)) / (double)(UINT64_C(1) << 30);
    for (int i = 0; i < nt; i++) {
        const struct rec_thread_info *t = &m->th_buf[i];
        rec_model_thread(m, t);
        uint64_t budget = 2 * info.ring_entries + POLL_ENTRIES;
        for (;;) {
            size_t cap = POLL_ENTRIES;
            if (stop) {
                /* At the stop, a read of nothing still counts what the
                 * first read counted as lost (bad heads, drops): both
                 * reads must say the same. */
                uint64_t at = rec_seg_cursor(s, t->slot);
                if (at >= stop[t->slot]) cap = 0;
                else if (stop[t->slot] - at < cap) cap = (size_t)(stop[t->slot] - at);
            }
            struct rec_loss loss = {0};
            uint64_t first;
            size_t got = rec_seg_read(s, t->slot, m->ent_buf, cap, &first, &loss);
            total += rec_model_feed_entries(m, t->slot, m->ent_buf, got, first, &loss);
            /* Only a read of nothing says the ring is drained: a read
             * stops short of an event that does not fit whole in cap. */
            if (got == 0 || cap == 0) break;
            if (!stop) {
                if (got >= budget) break;
                budget -= got;
            }
        }
    }
    m->conv = NULL;
    m->ticks0 = save_t0;
    m->ns_per_tick = save_npt;
    return total;
}

size_t rec_model_poll_seg(rec_model *m, rec_seg *s) { return poll(m, s, NULL); }

size_t model_poll_seg_to(rec_model *m, rec_seg *s, const uint64_t *stop) { return poll(m, s, stop); }

void rec_model_set_now_live(rec_model *m, rec_seg *s) {
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    double now;
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    if (info.clock_source == REC_CLOCK_TSC || info.clock_source == REC_CLOCK_CNTVCT) {
        now = rec_seg_ticks_to_ns(s, rec_now());
        rec_model_set_now(m, now);
        return;
    }
#endif
    /* Any clock: CLOCK_MONOTONIC was read next to ticks0. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    now = (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - (double)info.mono_ns0;
    rec_model_set_now(m, now);
}
