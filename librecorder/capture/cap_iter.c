/*
 * cap_iter.c -- reading a capture's records in file order (rec_cap_next,
 * rec_cap_rewind), one process at a time.
 *
 * Every record is checked again as it is read: the file may have changed
 * since the open.  A record checked before that fails now is an error; in
 * a lazily opened file (cap_lazy.c), a record read for the first time that
 * fails ends the valid part there, as the full open would have.
 */
#include <string.h>

#include "cap_format.h"
#include "cap_read.h"
#include "internal.h"
#include "recorder/capture.h"

int rec_cap_rewind(rec_cap *c) {
    c->pos = c->first_record;
    c->seq = 0;
    c->tag = 0;
    c->run_i = 0;
    c->chunk_seen.n = 0;
    /* A lazily opened file counts from the start again until one pass
     * has reached the end. */
    memset(&c->tally, 0, sizeof c->tally);
    c->tally_seen.n = 0;
    return REC_OK;
}


static void fill_thread(struct rec_thread_info *o, const unsigned char *p) {
    struct rec_cap_thread t;
    memcpy(&t, p, sizeof t);
    memset(o, 0, sizeof *o);
    o->slot = t.slot;
    o->gen = t.gen;
    o->state = t.state == REC_SLOT_LIVE ? REC_SLOT_LIVE : REC_SLOT_EXITED;
    o->tid = t.tid;
    o->name_id = t.name_id;
    rec__copy_printable(o->name, sizeof o->name, t.name, sizeof t.name);
    o->head = t.head;
    o->start_head = t.start_head;
    o->start_ticks = t.start_ticks;
    o->exit_ticks = t.exit_ticks;
    o->dropped = t.dropped;
    o->lane_kind = REC_LANE_KIND(t.lane) < REC_LANE_KINDS ? REC_LANE_KIND(t.lane) : REC_LANE_THREAD;
    o->lane_device = REC_LANE_DEVICE(t.lane);
}

/* A record that fails a check in rec_cap_next: if it was checked before,
 * the file changed since (an error); if it is read for the first time
 * (lazily opened), the valid part ends here, as the open would have found. */
static int failed(rec_cap *c, int fresh, int r, uint64_t at, uint32_t seq) {
    if (!fresh) return -REC_ERR_FORMAT;
    cap_lazy_stop(c, r, at, seq);
    return 0;
}

int rec_cap_next(rec_cap *c, struct rec_cap_item *it) {
    for (;;) {
        uint64_t at = c->pos;
        uint32_t type = 0, size = 0, seq = c->seq;   /* seq: the records before this one */
        int r = cap_read_record(c, c->info.valid_size, &type, &size);
        if (r == CAP_END_OF_DATA) {
            if (c->lazy && !c->info.counted) cap_lazy_end(c);
            return 0;
        }
        if (r == CAP_IOERR) return -REC_ERR_IO;
        int fresh = c->lazy && at >= c->checked;   /* lazily opened, read whole for the first time */
        if (r != CAP_GOT) return failed(c, fresh, r, at, seq);
        uint32_t owner = type & REC_CAP_REC_OF_PROCESS ? c->tag : 0, btype = type & ~REC_CAP_REC_OF_PROCESS;
        if (type == REC_CAP_REC_PROCESS) {
            uint32_t k;
            if (size < sizeof(struct rec_cap_process)) return failed(c, fresh, CAP_BAD, at, seq);
            memcpy(&k, c->rec, sizeof k);
            if (k == 0 || k >= c->nfile) return failed(c, fresh, CAP_BAD, at, seq);
            c->tag = k;
            btype = 0;
            /* Another process's records, once checked, are stepped over,
             * so that reading every process of a file costs the file's
             * size, not that times its processes. */
            if (c->sel != 0 && k != c->sel && cap_next_run(c, at)) continue;
        }
        /* Chunks are decoded for the selected process, and checked once
         * for every process (another's slots are checked against its own
         * thread count). */
        const struct rec_entry *e = NULL;
        struct rec_cap_chunk ch;
        size_t n = 0;
        uint64_t bad = 0;   /* 1: the record's counts are impossible */
        int chunk = btype == REC_CAP_REC_CHUNK || btype == REC_CAP_REC_PACKED;
        if (chunk && (owner == c->sel || fresh)) {
            size_t sel = c->cur;
            cap_switch_to(c, owner);
            e = cap_any_chunk(c, btype, size, &ch, &n);
            cap_switch_to(c, sel);
            if (!e) return failed(c, fresh, CAP_BAD, at, seq);
            bad = cap_chunk_sane(&ch);
        } else if (btype == REC_CAP_REC_LOSS && fresh) {
            struct rec_cap_loss l;
            size_t sel = c->cur;
            cap_switch_to(c, owner);
            int r = cap_loss(c, size, &l);
            cap_switch_to(c, sel);
            if (r < 0) return failed(c, fresh, CAP_BAD, at, seq);
            bad = (uint64_t)r;
        }
        if (fresh) c->impossible += bad;   /* counted once, as the open counts them */
        if (c->lazy && !c->info.counted) cap_lazy_count(c, owner, btype, size, e, n, &ch, bad);
        if (fresh) c->checked = c->pos;
        if (owner != c->sel || btype == 0) continue;
        memset(it, 0, sizeof *it);
        if (btype == REC_CAP_REC_THREAD) {
            if (cap_check_thread(c, size, c->rec) != 0) return failed(c, fresh, CAP_BAD, at, seq);
            it->kind = REC_CAP_ITEM_THREAD;
            fill_thread(&it->thread, c->rec);
            return 1;
        }
        if (btype == REC_CAP_REC_LOSS) {
            /* Bad heads: an empty chunk that carries them, which every
             * reader of chunks counts with the rest of its loss. */
            static const struct rec_entry none[1];
            struct rec_cap_loss l;
            if (cap_loss(c, size, &l) < 0) return failed(c, fresh, CAP_BAD, at, seq);
            it->kind = REC_CAP_ITEM_CHUNK;
            it->slot = l.slot;
            it->gen = l.gen;
            it->loss.bad = l.bad;
            it->entries = none;
            return 1;
        }
        if (chunk) {
            it->kind = REC_CAP_ITEM_CHUNK;
            it->slot = ch.slot;
            it->gen = ch.gen;
            it->first = ch.first;
            it->loss.overwritten = ch.overwritten;
            it->loss.history = cap_split_history(c, &c->chunk_seen, ch.slot, &it->loss.overwritten);
            it->loss.dropped = ch.dropped;
            it->loss.bad = bad;
            it->entries = e;
            it->n = n;
            return 1;
        }
    }
}
