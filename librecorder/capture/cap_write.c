/*
 * cap_write.c -- the capture consumer: drains a segment's rings into a
 * capture file (docs/capture-format.md).
 *
 * One pass (rec_capture_poll) reads, in this order: the thread table (a
 * THREAD record for each slot generation that is new or changed), every
 * active ring (PACKED records: copied out of shared memory, packed into the
 * output buffer; one write(2) per pass), then the string table from where
 * the last pass stopped (a STRINGS record).  Strings go last because an
 * entry is published after the string it names, so every name an entry of
 * this pass uses is in the table by then.
 *
 * The writer of the traced program never waits for us: in stream mode it
 * drops and counts what does not fit, and we copy those counts into the
 * chunks.  All the consumer ever does to the program is move its limits.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cap_format.h"
#include "cap_pack.h"
#include "cap_write.h"
#include "internal.h"
#include "recorder/capture.h"
#include "recorder/machine.h"
#include "recorder/outfile.h"

#define DEFAULT_BUFFER (8u << 20)
#define MIN_BUFFER (1u << 20)    /* > a full scratch packed: 16384 * REC_CAP_PACK_MAX + headers */
#define MAX_BUFFER (1u << 30)
#define MAX_CHUNK_ENTRIES ((REC_CAP_MAX_RECORD - sizeof(struct rec_cap_chunk)) / sizeof(struct rec_entry))
#define STRINGS_RECORD_MAX (1u << 20)

/* Once a write failed, the file ends at its last whole write: every later
 * poll, flush or process added is refused with this one error. */
int capw_failed(const rec_capture *c, char *err, size_t errlen) {
    return c->failed ? rec__fail(err, errlen, REC_ERR_IO, "%s: an earlier write failed", c->out.path) : REC_OK;
}

int capw_flush(rec_capture *c, char *err, size_t errlen) {
    if (c->parent) return capw_pool_write(c, err, errlen);
    size_t off = 0;
    while (off < c->len) {
        ssize_t w = write(c->out.fd, c->buf + off, c->len - off);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) {
            c->failed = 1;
            return rec__fail(err, errlen, REC_ERR_IO, "%s: write: %s", c->out.path, w < 0 ? strerror(errno) : "no progress");
        }
        off += (size_t)w;
    }
    c->st.bytes += c->len;
    c->len = 0;
    c->flushes++;
    return REC_OK;
}

static size_t pad8(size_t n) { return (n + 7) & ~(size_t)7; }

/* Room for a record of up to payload bytes at c->buf + c->len. */
int capw_reserve(rec_capture *c, size_t payload, char *err, size_t errlen) {
    size_t need = sizeof(struct rec_cap_rec_header) + pad8(payload);
    if (c->len + need <= c->cap) return REC_OK;
    return capw_flush(c, err, errlen);
}

/* Pad the record at offset at, whose payload is size bytes, and fill in
 * its header.  A worker's copy (cap_workers.c) leaves the payload's sum
 * where seq and check go: those are given when the record is written. */
static void seal(rec_capture *c, size_t at, uint32_t type, size_t size) {
    if (type != REC_CAP_REC_SOURCE && type != REC_CAP_REC_PROCESS) type |= c->type_bits;
    unsigned char *payload = c->buf + at + sizeof(struct rec_cap_rec_header);
    memset(payload + size, 0, pad8(size) - size);
    uint64_t sum = rec_cap_sum(payload, pad8(size));
    struct rec_cap_rec_header h = {type, (uint32_t)size, c->seq, rec_cap_check(type, (uint32_t)size, c->seq, sum)};
    if (c->parent) memcpy(&h.seq, &sum, sizeof sum);
    else c->seq++;
    memcpy(c->buf + at, &h, sizeof h);
    c->len = at + sizeof h + pad8(size);
}

int capw_put_record(rec_capture *c, uint32_t type, const void *payload, size_t size, char *err, size_t errlen) {
    int rc = capw_reserve(c, size, err, errlen);
    if (rc != REC_OK) return rc;
    size_t at = c->len;
    memcpy(c->buf + at + sizeof(struct rec_cap_rec_header), payload, size);
    seal(c, at, type, size);
    return REC_OK;
}

/* ---- strings ------------------------------------------------------------ */

static int close_strings(rec_capture *c) {
    if (c->strings_rec == SIZE_MAX) return 0;
    size_t at = c->strings_rec;
    seal(c, at, REC_CAP_REC_STRINGS, c->len - at - sizeof(struct rec_cap_rec_header));
    c->strings_rec = SIZE_MAX;
    return 0;
}

static int put_string(rec_capture *c, uint32_t id, const char *text, size_t len, char *err, size_t errlen) {
    size_t item = sizeof(struct rec_cap_string_item) + len;
    if (c->strings_rec != SIZE_MAX &&
        (c->len + item + 8 > c->cap ||
         c->len - c->strings_rec - sizeof(struct rec_cap_rec_header) + item > STRINGS_RECORD_MAX))
        close_strings(c);
    if (c->strings_rec == SIZE_MAX) {
        /* Never flush with a record open: only here, before opening one. */
        int rc = capw_reserve(c, item, err, errlen);
        if (rc != REC_OK) return rc;
        c->strings_rec = c->len;
        c->len += sizeof(struct rec_cap_rec_header);
    }
    struct rec_cap_string_item h = {id, (uint32_t)len};
    memcpy(c->buf + c->len, &h, sizeof h);
    memcpy(c->buf + c->len + sizeof h, text, len);
    c->len += item;
    c->st.strings++;
    return REC_OK;
}

static uint64_t str_record_size(size_t len) {
    return (sizeof(struct rec_str) + len + 1 + 7) & ~(uint64_t)7;
}

/* New strings since the last pass, in table order.  The walk stops at a
 * record that is not published yet (another thread is filling it) and
 * goes on from there next time. */
static int walk_strings(rec_capture *c, char *err, size_t errlen) {
    rec_seg *s = c->seg;
    uint64_t used = rec__seg_strings_used(s);
    int rc = REC_OK;
    char text[REC_STR_MAXLEN + 1];
    while (c->str_pos < used && rc == REC_OK) {
        long len = c->str_pos / 8 > UINT32_MAX ? -1 : rec__seg_string_copy(s, (uint32_t)(c->str_pos / 8), text);
        if (len < 0) break;
        rc = put_string(c, (uint32_t)(c->str_pos / 8), text, (size_t)len, err, errlen);
        c->str_pos += str_record_size((size_t)len);
    }
    close_strings(c);
    return rc;
}

/* At the end: a record that never got published (its thread was killed
 * between reserving and publishing it) would hide every string after it.
 * Look past it at each 8-byte offset for published records.  A match
 * inside some string's text is harmless: no entry names that id. */
int capw_sweep_strings(rec_capture *c, char *err, size_t errlen) {
    rec_seg *s = c->seg;
    uint64_t used = rec__seg_strings_used(s);
    int rc = REC_OK;
    char text[REC_STR_MAXLEN + 1];
    for (uint64_t off = c->str_pos + 8; off < used && off / 8 <= UINT32_MAX && rc == REC_OK; off += 8) {
        long len = rec__seg_string_copy(s, (uint32_t)(off / 8), text);
        if (len < 0 || memchr(text, 0, (size_t)len) || text[len]) continue;
        rc = put_string(c, (uint32_t)(off / 8), text, (size_t)len, err, errlen);
    }
    close_strings(c);
    return rc;
}

/* ---- threads -------------------------------------------------------------- */

static int poll_threads(rec_capture *c, char *err, size_t errlen) {
    for (uint32_t i = 0; i < c->max_threads; i++) {
        struct rec_thread_info t;
        if (rec_seg_thread(c->seg, i, &t) != 0) continue;
        struct slot_seen *k = &c->slots[i];
        k->active = 1;
        if (k->known && k->gen == t.gen && k->state == t.state && k->name_id == t.name_id && k->tid == t.tid &&
            k->exit_ticks == t.exit_ticks)
            continue;
        struct rec_cap_thread r;
        memset(&r, 0, sizeof r);
        r.slot = i;
        r.gen = t.gen;
        r.state = t.state;
        r.tid = t.tid;
        r.name_id = t.name_id;
        r.head = t.head;
        r.start_head = t.start_head;
        r.start_ticks = t.start_ticks;
        r.exit_ticks = t.exit_ticks;
        r.dropped = t.dropped;
        r.lane = (t.lane_kind & 0xffu) | (t.lane_device & 0xffffffu) << 8;
        memcpy(r.name, t.name, sizeof r.name);
        int rc = capw_put_record(c, REC_CAP_REC_THREAD, &r, sizeof r, err, errlen);
        if (rc != REC_OK) return rc;
        c->st.thread_records++;
        *k = (struct slot_seen){1, k->read_once, 1, t.gen, t.state, t.name_id, t.tid, t.exit_ticks};
    }
    return REC_OK;
}

/* ---- rings ------------------------------------------------------------------- */

static uint64_t count_conts(const struct rec_entry *e, size_t n) {
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) k += REC_EV_TYPE(e[i].w1) == REC_EV_CONT;
    return k;
}

static void account(rec_capture *c, size_t n, uint64_t conts, const struct rec_loss *loss, size_t *moved) {
    c->st.chunks++;
    c->st.entries += n;
    c->st.events += n - conts;
    c->st.history = rec_sat_add(c->st.history, loss->history);
    c->st.overwritten = rec_sat_add(c->st.overwritten, loss->overwritten);
    c->st.dropped = rec_sat_add(c->st.dropped, loss->dropped);
    *moved += n;
}

/* Bad heads the ring read saw (a hostile or corrupt writer): a LOSS
 * record after the slot's chunk, so that a reader of the file counts them
 * as a live reader does.  None for a healthy program. */
static int put_bad(rec_capture *c, uint32_t slot, uint64_t bad, char *err, size_t errlen) {
    if (!bad) return REC_OK;
    struct rec_cap_loss l = {slot, c->slots[slot].gen, bad};
    c->st.bad = rec_sat_add(c->st.bad, bad);
    return capw_put_record(c, REC_CAP_REC_LOSS, &l, sizeof l, err, errlen);
}

/* Raw chunks: read straight into the output buffer. */
static int drain_raw(rec_capture *c, uint32_t slot, uint64_t budget, size_t *moved, char *err, size_t errlen) {
    const size_t hdr = sizeof(struct rec_cap_rec_header) + sizeof(struct rec_cap_chunk);
    for (;;) {
        if (c->cap - c->len < hdr + 64 * sizeof(struct rec_entry)) {
            int rc = capw_flush(c, err, errlen);
            if (rc != REC_OK) return rc;
        }
        size_t room = (c->cap - c->len - hdr) / sizeof(struct rec_entry);
        if (room > MAX_CHUNK_ENTRIES) room = MAX_CHUNK_ENTRIES;
        if (room > budget) room = (size_t)budget;
        struct rec_entry *out = (struct rec_entry *)(c->buf + c->len + hdr);
        uint64_t first = 0;
        struct rec_loss loss = {0};
        size_t n = room ? rec_seg_read(c->seg, slot, out, room, &first, &loss) : 0;
        if (n == 0 && loss.overwritten == 0 && loss.dropped == 0 && loss.history == 0 && c->slots[slot].read_once)
            return put_bad(c, slot, loss.bad, err, errlen);
        c->slots[slot].read_once = 1;
        /* A slot's first chunk carries the history its ring no longer
         * kept in `overwritten`; later chunks what we lost (cap_read.c). */
        struct rec_cap_chunk ch = {slot, c->slots[slot].gen, first, rec_sat_add(loss.overwritten, loss.history),
                                   loss.dropped};
        memcpy(c->buf + c->len + sizeof(struct rec_cap_rec_header), &ch, sizeof ch);
        account(c, n, count_conts(out, n), &loss, moved);
        seal(c, c->len, REC_CAP_REC_CHUNK, sizeof ch + n * sizeof(struct rec_entry));
        int rc = put_bad(c, slot, loss.bad, err, errlen);
        if (rc != REC_OK) return rc;
        budget -= n;
        if (n < room || budget == 0) return REC_OK;
    }
}

/* Packed chunks: read into a scratch buffer, pack into the output. */
static int drain_packed(rec_capture *c, uint32_t slot, uint64_t budget, size_t *moved, char *err, size_t errlen) {
    const size_t hdr = sizeof(struct rec_cap_rec_header) + sizeof(struct rec_cap_packed);
    for (;;) {
        size_t room = budget < CAPW_SCRATCH_ENTRIES ? (size_t)budget : CAPW_SCRATCH_ENTRIES;
        uint64_t first = 0;
        struct rec_loss loss = {0};
        size_t n = room ? rec_seg_read(c->seg, slot, c->scratch, room, &first, &loss) : 0;
        if (n == 0 && loss.overwritten == 0 && loss.dropped == 0 && loss.history == 0 && c->slots[slot].read_once)
            return put_bad(c, slot, loss.bad, err, errlen);
        c->slots[slot].read_once = 1;
        if (c->cap - c->len < hdr + n * REC_CAP_PACK_MAX + 8) {
            int rc = capw_flush(c, err, errlen);
            if (rc != REC_OK) return rc;
        }
        uint64_t conts = 0;
        size_t bytes = rec_cap_pack(c->scratch, n, c->buf + c->len + hdr, &conts);
        struct rec_cap_packed ph = {slot,        c->slots[slot].gen, first, rec_sat_add(loss.overwritten, loss.history),
                                    loss.dropped, (uint32_t)n,          0};
        memcpy(c->buf + c->len + sizeof(struct rec_cap_rec_header), &ph, sizeof ph);
        account(c, n, conts, &loss, moved);
        seal(c, c->len, REC_CAP_REC_PACKED, sizeof ph + bytes);
        int rc = put_bad(c, slot, loss.bad, err, errlen);
        if (rc != REC_OK) return rc;
        budget -= n;
        if (n < room || budget == 0) return REC_OK;
    }
}

int capw_drain_slot(rec_capture *c, uint32_t slot, size_t *moved, char *err, size_t errlen) {
    /* Bounded per pass, so one busy thread cannot starve the others. */
    uint64_t budget = c->seg->hcopy.ring_entries * 2;
    return c->raw ? drain_raw(c, slot, budget, moved, err, errlen) : drain_packed(c, slot, budget, moved, err, errlen);
}

/* What the segment could not record (names as <strings full>, threads
 * without a ring): an UNRECORDED record when its counts grew, so that a
 * reader of the file says them as a reader of the segment does. */
static int put_unrecorded(rec_capture *c, char *err, size_t errlen) {
    struct rec_seg_info in;
    rec_seg_get_info(c->seg, &in);
    struct rec_cap_unrecorded u = {in.strings_dropped, in.threads_no_slot};
    if (u.strings_dropped <= c->unrec.strings_dropped && u.threads_no_slot <= c->unrec.threads_no_slot)
        return REC_OK;
    int rc = capw_put_record(c, REC_CAP_REC_UNRECORDED, &u, sizeof u, err, errlen);
    if (rc == REC_OK) c->unrec = u;
    return rc;
}

/* Threads, rings, strings, into the buffer. */
int capw_pass(rec_capture *c, size_t *m, char *err, size_t errlen) {
    int rc = poll_threads(c, err, errlen);
    if (rc == REC_OK && !capw_pool_drain(c, m, &rc, err, errlen))
        for (uint32_t i = 0; i < c->max_threads && rc == REC_OK; i++)
            if (c->slots[i].active) rc = capw_drain_slot(c, i, m, err, errlen);
    if (rc == REC_OK) rc = walk_strings(c, err, errlen);
    if (rc == REC_OK) rc = put_unrecorded(c, err, errlen);
    return rc;
}

int rec_capture_poll(rec_capture *c, size_t *moved, char *err, size_t errlen) {
    size_t m = 0;
    if (moved) *moved = 0;
    int rc = capw_failed(c, err, errlen);
    if (rc != REC_OK) return rc;
    rec_seg_heartbeat(c->seg);
    rc = capw_pass(c, &m, err, errlen);
    /* The other processes followed live (cap_write_procs.c), then one write. */
    if (rc == REC_OK) rc = capw_poll_live(c, &m, err, errlen);
    if (rc == REC_OK) rc = capw_flush(c, err, errlen);
    /* What was read before a shrink is whole and stays in the file; the
     * caller ends the capture there. */
    if (rc == REC_OK && rec_seg_status(c->seg) != REC_OK)
        rc = rec__fail(err, errlen, REC_ERR_TRUNCATED, "%s: segment truncated", c->seg->path);
    if (moved) *moved = m;
    return rc;
}

void rec_capture_get_stats(const rec_capture *c, struct rec_capture_stats *st) {
    *st = c->st;
    st->bytes += c->len;
}

/* Frees c; a file not yet committed is given up (see rec_capture_start_out). */
static void free_capture(rec_capture *c) {
    capw_pool_free(c);
    rec_out_abort(&c->out);
    capw_free_live(c);
    free(c->buf);
    free(c->scratch);
    free(c->slots);
    free(c);
}

/* What SOURCE and PROCESS records say of segment s. */
void capw_fill_source(rec_seg *s, struct rec_cap_source *src) {
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    memset(src, 0, sizeof *src);
    src->pid = info.pid;
    src->clock_source = info.clock_source;
    src->proc_start = s->hcopy.proc_start;
    memcpy(src->process_name, info.process_name, sizeof src->process_name);
    src->ticks_per_sec = info.ticks_per_sec;
    src->ticks0 = info.ticks0;
    src->mono_ns0 = info.mono_ns0;
    src->real_ns0 = info.real_ns0;
    src->max_threads = info.max_threads;
    src->seg_version = s->hcopy.version;
    src->ring_entries = info.ring_entries;
    src->start_ticks = rec_now();
    src->start_real_ns = rec__clock_ns(CLOCK_REALTIME);
    snprintf(src->segment_path, sizeof src->segment_path, "%s", info.path);
}

int rec_capture_start(rec_seg *s, const char *path, const struct rec_capture_opts *o, rec_capture **out,
                      char *err, size_t errlen) {
    *out = NULL;
    struct rec_out f;
    int rc = rec_out_open(&f, path, err, errlen);
    if (rc != REC_OK) return rc;
    return rec_capture_start_out(s, &f, o, out, err, errlen);
}

int rec_capture_start_out(rec_seg *s, struct rec_out *file, const struct rec_capture_opts *o, rec_capture **out,
                          char *err, size_t errlen) {
    *out = NULL;
    rec_capture *c = calloc(1, sizeof *c);
    if (!c) {
        rec_out_abort(file);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    c->out = *file;           /* ours now: committed by rec_capture_finish, else given up */
    file->fd = file->dirfd = -1;
    file->tmp[0] = 0;
    c->seg = s;
    c->strings_rec = SIZE_MAX;
    c->max_threads = s->hcopy.max_threads;
    c->str_pos = 8u * REC_ID_OVERFLOW;
    c->cap = o && o->buffer_bytes ? o->buffer_bytes : DEFAULT_BUFFER;
    if (c->cap < MIN_BUFFER) c->cap = MIN_BUFFER;
    if (c->cap > MAX_BUFFER) c->cap = MAX_BUFFER;
    c->buf = malloc(c->cap);
    c->raw = o && o->raw;
    c->scratch = malloc(CAPW_SCRATCH_ENTRIES * sizeof *c->scratch);
    c->slots = calloc(c->max_threads, sizeof *c->slots);
    if (!c->buf || !c->scratch || !c->slots) {
        free_capture(c);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    struct rec_cap_file_header fh;
    memset(&fh, 0, sizeof fh);
    fh.magic = REC_CAP_MAGIC;
    fh.version = REC_CAP_VERSION;
    fh.header_size = sizeof fh;
    fh.created_real_ns = rec__clock_ns(CLOCK_REALTIME);
    snprintf(fh.tool, sizeof fh.tool, "recorder capture");
    memcpy(c->buf, &fh, sizeof fh);
    c->len = sizeof fh;

    /* SOURCE: the segment's, and the machine it is on (this one). */
    unsigned char srcrec[sizeof(struct rec_cap_source) + sizeof(struct rec_cap_machine)];
    struct rec_cap_source src;
    capw_fill_source(s, &src);
    struct rec_machine me;
    rec_machine_this(&me);
    struct rec_cap_machine mach = {me.id, me.from, me.hash};
    memcpy(srcrec, &src, sizeof src);
    memcpy(srcrec + sizeof src, &mach, sizeof mach);
    c->processes = 1;
    int rc = capw_put_record(c, REC_CAP_REC_SOURCE, srcrec, sizeof srcrec, err, errlen);
    if (rc == REC_OK && o && o->from_now) {
        for (uint32_t i = 0; i < c->max_threads; i++) {
            struct rec_thread_info t;
            if (rec_seg_thread(s, i, &t) == 0) rec_seg_set_cursor(s, i, t.head);
        }
    }
    if (rc == REC_OK) rc = capw_flush(c, err, errlen);
    /* From its first record on, the capture is under its final name: a
     * capture that is killed or fails later is still readable up to its
     * last whole record, and `recorder report` can read it meanwhile. */
    if (rc == REC_OK) rc = rec_out_publish(&c->out, err, errlen);
    if (rc != REC_OK) {
        free_capture(c);
        return rc;
    }
    *out = c;
    return REC_OK;
}

/* The counter's rate over the whole segment life, as segment_open.c
 * refines it, now that more time has passed. */
static double refined_rate(rec_seg *s) {
    const struct rec_header *h = &s->hcopy;
    if (h->clock_source != REC_CLOCK_TSC && h->clock_source != REC_CLOCK_CNTVCT) return 0;
    uint64_t mono = rec__clock_ns(CLOCK_MONOTONIC), ticks = rec_now();
    if (mono <= h->mono_ns0 + 1000000000u || ticks <= h->ticks0) return 0;
    double r = (double)(ticks - h->ticks0) * 1e9 / (double)(mono - h->mono_ns0);
    double w = (double)h->ticks_per_sec;
    return r > w * 0.99 && r < w * 1.01 ? r : 0;
}

/* An END record of the stats in c->st. */
int capw_put_end(rec_capture *c, enum rec_capture_end reason, char *err, size_t errlen) {
    struct rec_cap_end e;
    memset(&e, 0, sizeof e);
    e.reason = (uint32_t)reason;
    e.entries = c->st.entries;
    e.events = c->st.events;
    e.overwritten = rec_sat_add(c->st.overwritten, c->st.history);
    e.dropped = c->st.dropped;
    e.chunks = c->st.chunks;
    e.end_ticks = rec_now();
    e.end_real_ns = rec__clock_ns(CLOCK_REALTIME);
    e.ticks_per_sec = refined_rate(c->seg);
    int rc = capw_put_record(c, REC_CAP_REC_END, &e, sizeof e, err, errlen);
    return rc == REC_OK ? capw_flush(c, err, errlen) : rc;
}

int rec_capture_finish(rec_capture *c, enum rec_capture_end reason, struct rec_capture_stats *final, char *err,
                       size_t errlen) {
    int rc = REC_OK, truncated = 0;
    /* The processes still followed end first: the file's END is last. */
    if (!c->failed) rc = capw_end_live(c, err, errlen);
    if (!c->failed && rc == REC_OK) rc = rec_capture_poll(c, NULL, err, errlen);
    /* A segment that shrank ends the capture with what it had: the file
     * is still closed properly, and says why it ended. */
    if (rc == REC_ERR_TRUNCATED) {
        truncated = 1;
        rc = REC_OK;
        reason = REC_CAPTURE_END_TRUNCATED;
    }
    if (rc == REC_OK) rc = capw_sweep_strings(c, err, errlen);
    if (rc == REC_OK) rc = capw_put_end(c, reason, err, errlen);
    char cerr[512];
    int rc2 = rec_out_commit(&c->out, cerr, sizeof cerr);
    if (rc2 != REC_OK && rc == REC_OK) rc = rec__fail(err, errlen, rc2, "%s", cerr);
    if (final) *final = c->st;
    free_capture(c);
    if (rc == REC_OK && truncated)
        rc = rec__fail(err, errlen, REC_ERR_TRUNCATED, "segment truncated: the capture ends with what was read");
    return rc;
}
