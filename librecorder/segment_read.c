/*
 * segment_read.c -- thread slots, strings and ring entries of an attached
 * segment.
 *
 * Reading a ring (docs/format.md, "reading a ring"): load the head, copy
 * the entries, load the head again.  The writer may have been writing up to
 * REC_MAX_ENTRIES_PER_EVENT entries past the second head, each overwriting
 * the entry one ring length earlier; every copied entry in that reach is
 * discarded and counted as overwritten.  The count is exact: an entry is
 * either returned intact or counted, never both, never neither.
 */
#include <stdlib.h>
#include <string.h>

#include "internal.h"

#define LOAD(x) __atomic_load_n(&(x), __ATOMIC_ACQUIRE)

int rec__seg_string_raw(const struct rec_seg *s, uint32_t id, const char **text, size_t *len) {
    uint64_t off = (uint64_t)id * 8u, size = s->hcopy.strings_size;
    if (id < REC_ID_OVERFLOW || off + sizeof(struct rec_str) >= size) return 0;
    const struct rec_str *r = (const struct rec_str *)(s->strings + off);
    uint64_t tag = LOAD(r->tag);
    uint64_t n = (tag >> 8) & 0xffffff;
    if ((tag & 0xff) != REC_STR_READY || n > REC_STR_MAXLEN || off + sizeof(struct rec_str) + n >= size) return 0;
    *text = rec_str_text(r);
    *len = (size_t)n;
    return 1;
}

/* Copies string id and the byte after it (its NUL, in a well-formed
 * table) out of the mapping into buf (REC_STR_MAXLEN + 1 bytes); returns
 * its length, or -1. */
static long string_copy(rec_seg *s, uint32_t id, char *buf) {
    const char *t;
    size_t n;
    if (!rec__seg_string_raw(s, id, &t, &n)) return -1;
    memcpy(buf, t, n + 1);   /* in bounds: rec__seg_string_raw checked off + 8 + n < size */
    return (long)n;
}

long rec__seg_string_copy(rec_seg *s, uint32_t id, char *buf) { REC__GUARDED(s, -1L, string_copy(s, id, buf)); }

static uint64_t strings_used(rec_seg *s) {
    uint64_t used = LOAD(s->hdr->strings_used);
    return used > s->hcopy.strings_size ? s->hcopy.strings_size : used;
}

uint64_t rec__seg_strings_used(rec_seg *s) { REC__GUARDED(s, (uint64_t)0, strings_used(s)); }

const char *rec_seg_string(rec_seg *s, uint32_t id) {
    size_t pg = id / REC__STRPAGE, at = id % REC__STRPAGE;
    if (pg >= s->strcache_n) return NULL;
    if (s->strcache[pg] && s->strcache[pg][at]) return s->strcache[pg][at];
    char buf[REC_STR_MAXLEN + 1];
    /* Copy once: the writer's page may change under us, our copy cannot. */
    long n = rec__seg_string_copy(s, id, buf);
    if (n < 0) return NULL;
    /* A page only for an id that holds a string: memory is bounded by the
     * strings the segment really holds, not by the ids it claims. */
    if (!s->strcache[pg] && !(s->strcache[pg] = calloc(REC__STRPAGE, sizeof **s->strcache))) return NULL;
    char *c = malloc((size_t)n + 1);
    if (!c) return NULL;
    /* Embedded NULs (a hostile segment) become '?'. */
    for (long i = 0; i < n; i++) c[i] = buf[i] ? buf[i] : '?';
    c[n] = 0;
    s->strcache[pg][at] = c;
    return c;
}

static int thread_read(rec_seg *s, uint32_t i, struct rec_thread_info *o) {
    const struct rec_slot *sl = &s->slots[i];
    for (int tries = 0; tries < 16; tries++) {
        uint64_t sg = LOAD(sl->state_gen);
        unsigned st = REC_SLOT_STATE(sg);
        if (st != REC_SLOT_LIVE && st != REC_SLOT_EXITED) return -1;
        memset(o, 0, sizeof *o);
        o->slot = i;
        o->gen = REC_SLOT_GEN(sg);
        o->state = st;
        o->tid = LOAD(sl->tid);
        o->name_id = LOAD(sl->name_id);
        o->start_head = LOAD(sl->start_head);
        o->start_ticks = LOAD(sl->start_ticks);
        o->exit_ticks = LOAD(sl->exit_ticks);
        o->head = LOAD(sl->head);
        o->dropped = LOAD(sl->dropped);
        uint32_t lane = LOAD(sl->lane);
        o->lane_context = LOAD(sl->lane_context);
        o->lane_stream = LOAD(sl->lane_stream);
        o->delivered_ticks = LOAD(sl->delivered_ticks);
        if (LOAD(sl->state_gen) != sg) continue;
        /* A kind this reader does not know is shown as a thread: its
         * events are read the same way. */
        o->lane_kind = REC_LANE_KIND(lane) < REC_LANE_KINDS ? REC_LANE_KIND(lane) : REC_LANE_THREAD;
        o->lane_device = REC_LANE_DEVICE(lane);  /* reused or exiting: again */
        /* A generation starts at or before the head: a later start is a
         * torn or hostile slot, and differences of the two must not wrap. */
        if (o->start_head > o->head) o->start_head = o->head;
        return 0;
    }
    return -1;
}

static uint64_t head_bound(const rec_seg *s);

static int thread_read_guarded(rec_seg *s, uint32_t i, struct rec_thread_info *o) {
    REC__GUARDED(s, -1, thread_read(s, i, o));
}

int rec_seg_thread(rec_seg *s, uint32_t i, struct rec_thread_info *o) {
    if (i >= s->hcopy.max_threads || thread_read_guarded(s, i, o) != 0) return -1;
    /* Counts no writer can have reached (see head_bound): shown as none,
     * so that no tool adds them up into billions of events or losses. */
    uint64_t bound = head_bound(s);
    if (o->head > bound || o->dropped > bound) {
        o->head = o->start_head = o->dropped = 0;
        o->bad_counts = 1;
    }
    const char *n = o->name_id ? rec_seg_string(s, o->name_id) : NULL;
    if (n) rec__copy_printable(o->name, sizeof o->name, n, SIZE_MAX);
    return 0;
}

int rec_seg_threads(rec_seg *s, struct rec_thread_info *out, int max) {
    int n = 0;
    for (uint32_t i = 0; i < s->hcopy.max_threads && n < max; i++)
        if (rec_seg_thread(s, i, &out[n]) == 0) n++;
    return n;
}

unsigned rec_entry_span(const struct rec_entry *e) {
    switch (REC_EV_TYPE(e->w1)) {
    case REC_EV_BEGIN:
    case REC_EV_END:
    case REC_EV_FLOW_BEGIN:
    case REC_EV_FLOW_STEP:
    case REC_EV_FLOW_END:
    case REC_EV_THREAD_START:
    case REC_EV_THREAD_NAME: return 1;
    case REC_EV_COUNTER: return 2;
    case REC_EV_INSTANT:
    case REC_EV_ARG: {   /* the same layout: an id, a length, its text */
        unsigned len = REC_EV_ARG8(e->w1);
        return len > REC_MSG_MAX ? 0 : 1 + (len + 14) / 15;
    }
    default: return 0;
    }
}

/* Stream mode ends behind our back when the writer finds our heartbeat
 * stale: it stores UINT64_MAX in every limit (which we never publish) and
 * overwrites as in flight mode.  From then on we read as a flight reader
 * and leave the consumer region alone. */
static int still_stream(rec_seg *s, uint32_t slot) {
    if (s->stream && LOAD(rec_consumer_limit(s->cons)[slot]) == UINT64_MAX) s->stream = 0;
    return s->stream;
}

/* Stream mode: the writer may write up to one ring ahead of what we have
 * read, and never less than it was allowed when we attached.  A CAS, so
 * that we never undo the writer's UINT64_MAX. */
static void publish_limit(rec_seg *s, uint32_t slot) {
    const struct rec_cursor *c = &s->cursors[slot];
    uint64_t from = c->pos > c->stream_from ? c->pos : c->stream_from;
    uint64_t cur = LOAD(rec_consumer_limit(s->cons)[slot]);
    while (cur != UINT64_MAX &&
           !__atomic_compare_exchange_n(&rec_consumer_limit(s->cons)[slot], &cur, from + s->hcopy.ring_entries, 0,
                                        __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {}
    if (cur == UINT64_MAX) s->stream = 0;
}

int rec__seg_attach_heads(rec_seg *s) {
    const uint64_t ring = s->hcopy.ring_entries;
    for (uint32_t i = 0; i < s->hcopy.max_threads; i++) {
        uint64_t h = LOAD(s->slots[i].head);
        s->cursors[i].kept_from = h > ring ? h - ring : 0;
    }
    return 0;
}

uint64_t rec_seg_cursor(const rec_seg *s, uint32_t slot) {
    return slot < s->hcopy.max_threads ? s->cursors[slot].pos : 0;
}

static int publish_limit_ret(rec_seg *s, uint32_t slot) {
    publish_limit(s, slot);
    return 0;
}

void rec_seg_set_cursor(rec_seg *s, uint32_t slot, uint64_t pos) {
    if (slot >= s->hcopy.max_threads) return;
    s->cursors[slot].pos = pos;
    /* What lies before pos is skipped on purpose: neither history nor lost. */
    if (s->stream) REC__GUARDED_VOID(s, publish_limit_ret(s, slot));
}

/* The most entries a head can count: no thread writes two entries a
 * nanosecond (a scope's two take several), and none has run longer than
 * its segment has existed (a segment in /dev/shm never outlives a boot,
 * so CLOCK_MONOTONIC now minus the header's creation time, or the uptime
 * if the header claims a later one).  A head past it, or one that goes
 * back, is a hostile or corrupt slot: counted as bad once, never as
 * billions of lost entries. */
static uint64_t head_bound(const rec_seg *s) {
    uint64_t now = rec__clock_ns(CLOCK_MONOTONIC), born = s->hcopy.mono_ns0;
    uint64_t life = born <= now ? now - born : now;
    return 2 * life + 2000000000u + s->hcopy.ring_entries;
}

static void count_bad(struct rec_cursor *c, uint64_t value, struct rec_loss *loss) {
    if (c->bad_head != value) loss->bad++;
    c->bad_head = value;
}

/* Entries [from, to) that a read cannot return: below kept_from they
 * were already gone when we attached (history, not kept), from there on
 * we lost them.  The margin of a writer mid-event at attach counts as
 * history too: we never had a chance at it. */
static void count_gone(const struct rec_cursor *c, uint64_t from, uint64_t to, struct rec_loss *loss) {
    uint64_t edge = c->kept_from + REC_MAX_ENTRIES_PER_EVENT;
    uint64_t hist = to <= edge ? to - from : from < edge ? edge - from : 0;
    loss->history += hist;
    loss->overwritten += (to - from) - hist;
}

static size_t read_ring(rec_seg *s, uint32_t slot, struct rec_entry *out, size_t cap, uint64_t *first,
                        struct rec_loss *loss) {
    const struct rec_slot *sl = &s->slots[slot];
    struct rec_cursor *c = &s->cursors[slot];
    const uint64_t ring = s->hcopy.ring_entries, mask = ring - 1;
    const struct rec_entry *r = (const struct rec_entry *)(s->rings + (uint64_t)slot * ring * sizeof *r);
    int first_look = !c->read_once;
    c->read_once = 1;

    /* dropped, like head, counts for the slot's whole life. */
    uint64_t dropped = LOAD(sl->dropped);
    if (dropped > c->dropped_seen) {
        if (dropped - c->dropped_seen > ring && dropped > head_bound(s)) count_bad(c, dropped, loss);
        else loss->dropped += dropped - c->dropped_seen;
    } else if (dropped < c->dropped_seen) {
        count_bad(c, dropped, loss);
    }
    c->dropped_seen = dropped;

    uint64_t h1 = LOAD(sl->head);
    if (h1 < c->pos) {                /* a head never goes back */
        count_bad(c, h1, loss);
        c->pos = h1;
    }
    if (h1 - c->pos > ring && h1 > head_bound(s)) {
        count_bad(c, h1, loss);
        return 0;
    }
    uint64_t start = c->pos;
    uint64_t oldest = h1 > ring ? h1 - ring : 0;
    /* History is what a ring had overwritten when this reader first
     * looked at it (reader.h): its first look, not rec_seg_open, which
     * may come well before (recorder-web sets up its server first, and
     * reads its slots one after another). */
    if (first_look && oldest > c->kept_from) c->kept_from = oldest;
    if (start < oldest) {
        count_gone(c, start, oldest, loss);
        start = oldest;
    }
    uint64_t n = h1 - start;
    if (n > cap) n = cap;
    for (uint64_t i = 0; i < n; i++) {
        const struct rec_entry *e = &r[(start + i) & mask];
        out[i].w0 = LOAD(e->w0);
        out[i].w1 = LOAD(e->w1);
    }
    uint64_t h2 = LOAD(sl->head);
    /* Anything the writer may have reached since h1 is suspect, except, in
     * stream mode, entries from stream_from on: the writer stops at our
     * limit before it can overwrite those (checked after the copy: an
     * entry overwritten after a return to flight mode proves it). */
    uint64_t reach = h2 + REC_MAX_ENTRIES_PER_EVENT;
    uint64_t valid = reach > ring ? reach - ring : 0;
    if (valid > c->stream_from && still_stream(s, slot)) valid = c->stream_from;
    /* The first look at a full ring races the writer for its oldest
     * entries: what it overwrote while we copied was never ours to have
     * (a flight recorder keeps the last ring's worth), so history, not
     * lost -- the same for every reader, however fast it copies. */
    if (first_look && valid > c->kept_from) c->kept_from = valid;
    if (valid > start) {
        uint64_t bad = valid - start < n ? valid - start : n;
        memmove(out, out + bad, (n - bad) * sizeof *out);
        n -= bad;
        count_gone(c, start, start + bad, loss);
        start += bad;
    }
    /* Skip continuation entries whose head was lost (counted as lost), and
     * keep an event that does not fit whole for the next call. */
    uint64_t lead = 0;
    while (lead < n && REC_EV_TYPE(out[lead].w1) == REC_EV_CONT) lead++;
    if (lead) {
        memmove(out, out + lead, (n - lead) * sizeof *out);
        n -= lead;
        count_gone(c, start, start + lead, loss);
        start += lead;
    }
    /* Only the last event can be cut: find its first entry (at most
     * REC_MAX_ENTRIES_PER_EVENT - 1 continuations back) and check its span.
     * Scanning every event here cost a third of a capture's CPU; malformed
     * events elsewhere are the decoder's to count. */
    if (n) {
        uint64_t j = n - 1;
        while (j > 0 && REC_EV_TYPE(out[j].w1) == REC_EV_CONT && n - j < REC_MAX_ENTRIES_PER_EVENT) j--;
        unsigned span = rec_entry_span(&out[j]);
        if (span && j + span > n) n = j;
    }
    c->pos = start + n;
    if (s->stream) publish_limit(s, slot);
    *first = start;
    return (size_t)n;
}

size_t rec_seg_read(rec_seg *s, uint32_t slot, struct rec_entry *out, size_t cap, uint64_t *first,
                    struct rec_loss *loss) {
    *first = 0;
    if (slot >= s->hcopy.max_threads) return 0;
    REC__GUARDED(s, (size_t)0, read_ring(s, slot, out, cap, first, loss));
}
