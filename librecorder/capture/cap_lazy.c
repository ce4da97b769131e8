/*
 * cap_lazy.c -- a capture opened lazily (rec_cap_open_lazy), so that a
 * viewer serves a large file at once instead of after a check of every
 * byte (docs/capture-format.md, "Reading a capture").
 *
 * The open walks every record header and checks every record but the
 * large chunks (cap_read.c: the walk); the chunks get their check when
 * rec_cap_next first reads them (c->checked: every record before it has
 * passed once).  A record that fails then ends the valid part there, with
 * the very warning rec_cap_open would have given, and the counts the open
 * would have made are counted as rec_cap_next reads from the start, and
 * published (info.counted) when a pass reaches the end of the valid part.
 */
#include <stdlib.h>
#include <string.h>

#include "cap_format.h"
#include "cap_read.h"
#include "internal.h"
#include "recorder/capture.h"

int rec_cap_open_lazy(const char *path, rec_cap **out, char *err, size_t errlen) {
    return cap_open(path, 1, out, err, errlen);
}

/* One record of this pass, owned by process owner (base type btype; a
 * chunk decoded in e, n, ch), counted as the open would have. */
void cap_lazy_count(rec_cap *c, uint32_t owner, uint32_t btype, uint32_t size, const struct rec_entry *e,
                    size_t n, const struct rec_cap_chunk *ch, uint64_t bad) {
    struct cap_tally *t = &c->tally;
    /* Process 0's records are every record of the file (the open counts
     * them so); another process's, its own records but strings. */
    if (c->sel == 0 || (owner == c->sel && btype != REC_CAP_REC_STRINGS)) t->records++;
    if (owner != c->sel) return;
    if (btype == REC_CAP_REC_STRINGS) {
        cap_strings(c, c->rec, size, 0, &t->strings);   /* checked by the open */
    } else if (btype == REC_CAP_REC_THREAD) {
        t->thread_records++;
    } else if (btype == REC_CAP_REC_LOSS) {
        struct rec_cap_loss l;
        if (cap_loss(c, size, &l) >= 0) t->bad = rec_sat_add(t->bad, l.bad);   /* checked by the open */
    } else if (e) {
        uint64_t ow = ch->overwritten, events = 0;   /* ch: checked (cap_chunk_sane) */
        t->history = rec_sat_add(t->history, cap_split_history(c, &c->tally_seen, ch->slot, &ow));
        for (size_t i = 0; i < n; i++) events += REC_EV_TYPE(e[i].w1) != REC_EV_CONT;
        t->chunks++;
        t->entries += n;   /* entries and events: bounded by the file's bytes */
        t->events += events;
        t->overwritten = rec_sat_add(t->overwritten, ow);
        t->dropped = rec_sat_add(t->dropped, ch->dropped);
        t->bad = rec_sat_add(t->bad, bad);
    }
}

/* A pass reached the end of the valid part: the counts are final. */
void cap_lazy_end(rec_cap *c) {
    struct rec_cap_info *in = &c->info;
    const struct cap_tally *t = &c->tally;
    in->records = t->records;
    in->chunks = t->chunks;
    in->entries = t->entries;
    in->events = t->events;
    in->strings = t->strings;
    in->thread_records = t->thread_records;
    in->overwritten = t->overwritten;
    in->dropped = t->dropped;
    in->history = t->history;
    in->bad = t->bad;
    in->counted = 1;
    cap_note_impossible(c);
    cap_procs_share(c);
}

/* The record at `at`, read for the first time, is cut (r CAP_CUT) or
 * fails a check (CAP_BAD), after `records` records: the valid part ends
 * before it, as rec_cap_open would have found.  Its END record, if the walk saw one, is past it. */
void cap_lazy_stop(rec_cap *c, int r, uint64_t at, uint32_t records) {
    struct rec_cap_info *in = &c->info;
    cap_warn_stop(c, r, at, records);
    in->complete = 0;
    in->end_reason = 0;
    in->end_ticks = 0;
    cap_lazy_end(c);
}
