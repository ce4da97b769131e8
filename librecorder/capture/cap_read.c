/*
 * cap_read.c -- reading a capture file.
 *
 * rec_cap_open reads the whole file once: it checks every record header
 * (type, size, sequence number, check word) and every payload it will
 * hand out later, loads the strings, and stops at the first record that is
 * cut short or fails a check.  Everything before that point is the valid
 * part; rec_cap_next (cap_iter.c) reads only from it, checking again,
 * since the file may have changed in between.  Nothing from the file is
 * ever used as an index or a size before it is checked.  rec_cap_open_lazy
 * (cap_lazy.c) makes the same walk but steps over the large chunks, which
 * rec_cap_next checks when it first reads them.
 *
 * A capture of several processes (docs/capture-format.md, "Several
 * processes") keeps, per process, its info, strings and first-chunk
 * flags.  The rec_cap holds those of the process in hand (the selected
 * one, or the one a record being scanned belongs to); the others wait in
 * procs[], and cap_switch_to swaps them.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cap_format.h"
#include "cap_pack.h"
#include "cap_read.h"
#include "internal.h"
#include "recorder/capture.h"




/* The capture writer's first read of a ring always makes a chunk, and what
 * that read found overwritten is history the ring no longer kept when the
 * capture began (docs/capture-format.md, "Loss"); anything overwritten
 * later was lost while capturing.  Returns the history part. */
uint64_t cap_split_history(rec_cap *c, struct slotset *seen, uint32_t slot, uint64_t *overwritten) {
    if (slot >= c->info.max_threads || !cap_seen_first(seen, slot)) return 0;
    uint64_t h = *overwritten;
    *overwritten = 0;
    return h;
}

/* A one-line warning; vsnprintf, as a cut message is fine. */
void cap_warn(struct rec_cap_info *in, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(in->warning, sizeof in->warning, fmt, ap);
    va_end(ap);
}

static uint64_t pad8(uint64_t n) { return (n + 7) & ~(uint64_t)7; }

int rec_cap_probe(const char *path) {
    struct stat st;
    int fd = rec__open_user_file(path, &st, NULL, 0);
    if (fd < 0) return -1;
    uint64_t magic = 0;
    ssize_t n = read(fd, &magic, sizeof magic);
    close(fd);
    if (n < 0) return -1;
    return n == (ssize_t)sizeof magic && magic == REC_CAP_MAGIC;
}

/* ---- records ----------------------------------------------------------------- */

enum { GOT = CAP_GOT, END_OF_DATA = CAP_END_OF_DATA, CUT = CAP_CUT, BAD = CAP_BAD, IOERR = CAP_IOERR };

/* The lazy open's walk steps over chunk records this large unread (they
 * are checked when first read); smaller ones cost no more to check now. */
#define WALK_SKIP_BYTES 4096

static int is_chunk(uint32_t type) {
    type &= ~REC_CAP_REC_OF_PROCESS;
    return type == REC_CAP_REC_CHUNK || type == REC_CAP_REC_PACKED;
}

/* n bytes at off: 1, 0 if the file ends first, -1 on error.  The walk
 * reads with pread: a buffered stream would read the chunks it skips. */
static int get(rec_cap *c, void *p, size_t n, uint64_t off) {
    if (!c->walking) {
        if (fseeko(c->f, (off_t)off, SEEK_SET) != 0) return -1;
        return fread(p, n, 1, c->f) == 1 ? 1 : ferror(c->f) ? -1 : 0;
    }
    size_t done = 0;
    while (done < n) {
        ssize_t r = pread(fileno(c->f), (char *)p + done, n - done, (off_t)(off + done));
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return 0;
        done += (size_t)r;
    }
    return 1;
}

/* Read the record at c->pos (below limit) into c->rec; *type, *size.
 * While walking, a large chunk is stepped over: CAP_SKIPPED. */
int cap_read_record(rec_cap *c, uint64_t limit, uint32_t *type, uint32_t *size) {
    if (c->pos >= limit) return END_OF_DATA;
    if (limit - c->pos < sizeof(struct rec_cap_rec_header)) return CUT;
    struct rec_cap_rec_header h;
    int g = get(c, &h, sizeof h, c->pos);
    if (g <= 0) return g < 0 ? IOERR : CUT;
    if (h.seq != c->seq || h.type == 0 || h.size > REC_CAP_MAX_RECORD) return BAD;
    uint64_t padded = pad8(h.size);
    if (limit - c->pos - sizeof h < padded) return CUT;
    c->rec_at = c->pos;
    if (c->walking && is_chunk(h.type) && padded >= WALK_SKIP_BYTES) {
        *type = h.type;
        *size = h.size;
        c->pos += sizeof h + padded;
        c->seq++;
        return CAP_SKIPPED;
    }
    if (padded > c->rec_cap) {   /* at most twice the largest record read */
        size_t want = c->rec_cap ? c->rec_cap : 1024;
        while (want < padded) want *= 2;
        unsigned char *p = realloc(c->rec, want);
        if (!p) return IOERR;
        c->rec = p;
        c->rec_cap = want;
    }
    if (padded && (g = get(c, c->rec, (size_t)padded, c->pos + sizeof h)) <= 0) return g < 0 ? IOERR : CUT;
#ifndef FUZZING_BUILD_MODE_UNSAFE_FOR_PRODUCTION  /* let the fuzzer past the check word */
    if (h.check != rec_cap_check(h.type, h.size, h.seq, rec_cap_sum(c->rec, (size_t)padded))) return BAD;
#endif
    *type = h.type;
    *size = h.size;
    c->pos += sizeof h + pad8(h.size);
    c->seq++;
    return GOT;
}

/* ---- opening ------------------------------------------------------------------ */

static int pow2(uint64_t x) { return x && !(x & (x - 1)); }

int cap_check_source(rec_cap *c, const unsigned char *p, uint32_t size) {
    struct rec_cap_source s;
    if (size < sizeof s) return -1;
    memcpy(&s, p, sizeof s);
    if (s.max_threads < 1 || s.max_threads > 65536 || !pow2(s.ring_entries) || s.ring_entries < 16 ||
        s.ring_entries > (UINT64_C(1) << 32) || !isfinite(s.ticks_per_sec) || s.ticks_per_sec < 1e3 ||
        s.ticks_per_sec > 1e12)
        return -1;
    struct rec_cap_info *in = &c->info;
    in->pid = s.pid;
    in->proc_start = s.proc_start;
    rec__copy_printable(in->process_name, sizeof in->process_name, s.process_name, sizeof s.process_name);
    rec__copy_printable(in->segment_path, sizeof in->segment_path, s.segment_path, sizeof s.segment_path);
    in->clock_source = s.clock_source;
    in->ticks_per_sec = s.ticks_per_sec;
    in->ticks0 = s.ticks0;
    in->mono_ns0 = s.mono_ns0;
    in->real_ns0 = s.real_ns0;
    in->max_threads = s.max_threads;
    c->chunk_seen.n = 0;
    in->ring_entries = s.ring_entries;
    in->start_ticks = s.start_ticks;
    in->start_real_ns = s.start_real_ns;
    /* The machine, in a SOURCE long enough to hold it (a PROCESS record's
     * source is 400 bytes: its process takes the SOURCE's, cap_procs.c). */
    struct rec_cap_machine m = {0, 0, 0};
    if (size >= sizeof s + sizeof m) memcpy(&m, p + sizeof s, sizeof m);
    in->machine_id = m.id;
    in->machine_from = m.id ? m.from : 0;
    in->machine_hash = m.id ? m.hash : 0;
    return 0;
}

int cap_check_thread(const rec_cap *c, uint32_t size, const unsigned char *p) {
    struct rec_cap_thread t;
    if (size < sizeof t) return -1;
    memcpy(&t, p, sizeof t);
    return t.slot < c->info.max_threads ? 0 : -1;
}

/* A chunk's loss counts, checked (cap_format.h): 1 if they are
 * impossible, then both 0 (the chunk counts as one bad value instead). */
uint64_t cap_chunk_sane(struct rec_cap_chunk *ch) {
    if (ch->overwritten <= REC_CAP_MAX_LOST && ch->dropped <= REC_CAP_MAX_LOST) return 0;
    ch->overwritten = ch->dropped = 0;
    return 1;
}

static void count_chunk(rec_cap *c, const struct rec_entry *e, size_t n, const struct rec_cap_chunk *ch,
                        uint64_t bad) {
    struct rec_cap_info *in = &c->info;
    uint64_t events = 0, overwritten = ch->overwritten;
    in->history = rec_sat_add(in->history, cap_split_history(c, &c->chunk_seen, ch->slot, &overwritten));
    for (size_t i = 0; i < n; i++) events += REC_EV_TYPE(e[i].w1) != REC_EV_CONT;
    in->chunks++;
    in->entries += n;   /* entries and events: bounded by the file's bytes */
    in->events += events;
    in->overwritten = rec_sat_add(in->overwritten, overwritten);
    in->dropped = rec_sat_add(in->dropped, ch->dropped);
    in->bad = rec_sat_add(in->bad, bad);
}

/* A CHUNK record's header and entries; NULL if malformed. */
static const struct rec_entry *raw_chunk(rec_cap *c, uint32_t size, struct rec_cap_chunk *ch, size_t *n) {
    if (size < sizeof *ch || (size - sizeof *ch) % sizeof(struct rec_entry)) return NULL;
    memcpy(ch, c->rec, sizeof *ch);
    if (ch->slot >= c->info.max_threads) return NULL;
    *n = (size - sizeof *ch) / sizeof(struct rec_entry);
    /* The payload buffer is malloc'd (16-byte aligned); entries start 32
     * bytes in. */
    return (const struct rec_entry *)(const void *)(c->rec + sizeof *ch);
}

/* A PACKED record, unpacked into c->ents; NULL if malformed. */
static const struct rec_entry *packed_chunk(rec_cap *c, uint32_t size, struct rec_cap_chunk *ch, size_t *n) {
    struct rec_cap_packed ph;
    if (size < sizeof ph) return NULL;
    memcpy(&ph, c->rec, sizeof ph);
    /* Every packed entry takes at least 2 bytes: bounds the allocation. */
    if (ph.slot >= c->info.max_threads || ph.n_entries > REC_CAP_MAX_PACKED_ENTRIES ||
        ph.n_entries > (size - sizeof ph) / 2 || ph.pad != 0)
        return NULL;
    if (ph.n_entries > c->ents_cap) {
        size_t want = ph.n_entries < 1024 ? 1024 : ph.n_entries;
        struct rec_entry *p = realloc(c->ents, want * sizeof *p);
        if (!p) return NULL;
        c->ents = p;
        c->ents_cap = want;
    }
    if (rec_cap_unpack(c->rec + sizeof ph, size - sizeof ph, c->ents, ph.n_entries) != 0) return NULL;
    *ch = (struct rec_cap_chunk){ph.slot, ph.gen, ph.first, ph.overwritten, ph.dropped};
    *n = ph.n_entries;
    return c->ents ? c->ents : (const struct rec_entry *)(const void *)c->rec;
}

const struct rec_entry *cap_any_chunk(rec_cap *c, uint32_t type, uint32_t size, struct rec_cap_chunk *ch,
                                         size_t *n) {
    return type == REC_CAP_REC_CHUNK ? raw_chunk(c, size, ch, n) : packed_chunk(c, size, ch, n);
}

static void check_end(rec_cap *c, uint32_t size, const unsigned char *p) {
    struct rec_cap_end e;
    memset(&e, 0, sizeof e);
    memcpy(&e, p, size < sizeof e ? size : sizeof e);
    c->info.complete = 1;
    c->info.end_reason = e.reason;
    c->info.end_ticks = e.end_ticks;
    double r = e.ticks_per_sec, w = c->info.ticks_per_sec;
    if (isfinite(r) && r > w * 0.99 && r < w * 1.01) c->info.ticks_per_sec = r;
}


/* A chunk record (payload in c->rec): checked, and counted unless the
 * open is lazy (then rec_cap_next counts as it reads).  0 or -1. */
static int scan_chunk(rec_cap *c, uint32_t type, uint32_t size) {
    struct rec_cap_chunk ch;
    size_t n = 0;
    const struct rec_entry *e = cap_any_chunk(c, type, size, &ch, &n);
    if (!e) return -1;
    if (!c->lazy) {
        uint64_t bad = cap_chunk_sane(&ch);
        c->impossible += bad;
        count_chunk(c, e, n, &ch, bad);
    }
    return 0;
}

/* A LOSS record (payload in c->rec): checked, and counted unless the
 * open is lazy (then rec_cap_next counts it).  0 or -1. */
static int scan_loss(rec_cap *c, uint32_t size) {
    struct rec_cap_loss l;
    int r = cap_loss(c, size, &l);
    if (r < 0) return -1;
    if (!c->lazy) {
        c->impossible += r;
        c->info.bad = rec_sat_add(c->info.bad, l.bad);
    }
    return 0;
}

int cap_loss(const rec_cap *c, uint32_t size, struct rec_cap_loss *l) {
    if (size < sizeof *l) return -1;   /* longer: fields a later version appended */
    memcpy(l, c->rec, sizeof *l);
    if (l->slot >= c->info.max_threads) return -1;
    if (l->bad <= REC_CAP_MAX_BAD) return 0;
    l->bad = 1;   /* impossible: one bad value */
    return 1;
}

void cap_note_impossible(rec_cap *c) {
    struct rec_cap_info *in = &c->info;
    if (!c->impossible || c->noted) return;
    c->noted = 1;
    size_t len = strlen(in->warning);
    if (len)
        snprintf(in->warning + len, sizeof in->warning - len, "; %llu records with impossible loss counts",
                 (unsigned long long)c->impossible);
    else
        cap_warn(in, "%s: %llu records with impossible loss counts: each counted as one bad value", c->path,
                 (unsigned long long)c->impossible);
}

/* An UNRECORDED record (payload in c->rec): the largest counts a file
 * holds are the segment's last; shown bounded (rec_names_full_str).  0 or
 * -1 (shorter than it must be; longer: fields a later version appended). */
static int scan_unrecorded(rec_cap *c, uint32_t size) {
    struct rec_cap_unrecorded u;
    if (size < sizeof u) return -1;
    memcpy(&u, c->rec, sizeof u);
    struct rec_cap_info *in = &c->info;
    if (u.strings_dropped > in->strings_dropped) in->strings_dropped = u.strings_dropped;
    if (u.threads_no_slot > in->threads_no_slot) in->threads_no_slot = u.threads_no_slot;
    return 0;
}

/* A record of process c->cur (in hand): its base type; skipped: a large
 * chunk the walk steps over.  0, -1 invalid, -2 out of memory. */
static int scan_tagged(rec_cap *c, uint32_t type, uint32_t size, int skipped) {
    struct rec_cap_info *in = &c->info;
    if (type == REC_CAP_REC_STRINGS) return cap_strings(c, c->rec, size, 1, &in->strings);
    if (type == REC_CAP_REC_THREAD) {
        if (cap_check_thread(c, size, c->rec) != 0) return -1;
        in->thread_records++;
    } else if (type == REC_CAP_REC_CHUNK || type == REC_CAP_REC_PACKED) {
        if (!skipped && scan_chunk(c, type, size) != 0) return -1;
    } else if (type == REC_CAP_REC_END) {
        check_end(c, size, c->rec);
    } else if (type == REC_CAP_REC_LOSS) {
        if (scan_loss(c, size) != 0) return -1;
    } else if (type == REC_CAP_REC_UNRECORDED) {
        if (scan_unrecorded(c, size) != 0) return -1;
    }
    in->records++;
    return 0;
}

void cap_warn_stop(rec_cap *c, int r, uint64_t at, uint64_t records) {
    struct rec_cap_info *in = &c->info;
    in->valid_size = at;
    in->truncated = 1;
    c->noted = 0;   /* a new warning: the note goes after it again */
    if (r == CUT)
        cap_warn(in, "%s: cut short at byte %llu of a record: read the %llu whole records before it", c->path,
                 (unsigned long long)in->file_size, (unsigned long long)records);
    else
        cap_warn(in, "%s: corrupt record at byte %llu of %llu: read the %llu whole records before it", c->path,
                 (unsigned long long)at, (unsigned long long)in->file_size, (unsigned long long)records);
}

/* Read every record once (lazily: every record header, and every record
 * but the large chunks).  Returns REC_OK (possibly with a warning), or a
 * status if not even the source record is whole. */
static int scan(rec_cap *c, char *err, size_t errlen) {
    struct rec_cap_info *in = &c->info;   /* process 0's, always in hand here: the file's counts */
    uint32_t tag = 0;
    uint64_t limit = in->file_size;
    c->pos = c->first_record;
    c->seq = 0;
    for (;;) {
        uint64_t at = c->pos;
        uint32_t type = 0, size = 0;
        int r = cap_read_record(c, limit, &type, &size);
        int skipped = r == CAP_SKIPPED;
        if (skipped) r = GOT;
        if (r == IOERR) return rec__fail(err, errlen, REC_ERR_IO, "%s: read error at byte %llu", c->path,
                                    (unsigned long long)at);
        if (r == GOT && in->records > 0 && type == REC_CAP_REC_PROCESS) {
            int k = cap_add_process(c, size);
            if (k >= 0 && cap_add_run(c, at, c->seq - 1, (uint32_t)k) != 0) k = -2;
            if (k == -2) return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
            if (k < 0) r = BAD;
            else tag = (uint32_t)k;
        }
        if (r == GOT && (type & REC_CAP_REC_OF_PROCESS)) {
            if (tag == 0) {
                r = BAD;
            } else {
                cap_switch_to(c, tag);
                r = scan_tagged(c, type & ~REC_CAP_REC_OF_PROCESS, size, skipped);
                cap_switch_to(c, 0);
                if (r == -2) return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
                r = r == 0 ? GOT : BAD;
                type = 0;   /* nothing more to do with it here */
            }
        }
        if (r == GOT && in->records == 0 && type != REC_CAP_REC_SOURCE) r = BAD;
        if (r == GOT && type == REC_CAP_REC_SOURCE && (in->records != 0 || cap_check_source(c, c->rec, size) != 0))
            r = BAD;
        if (r == GOT && type == REC_CAP_REC_STRINGS) {
            int s = cap_strings(c, c->rec, size, 1, &in->strings);
            if (s == -2) return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
            if (s != 0) r = BAD;
        }
        if (r == GOT && type == REC_CAP_REC_THREAD) {
            if (cap_check_thread(c, size, c->rec) != 0) r = BAD;
            else in->thread_records++;
        }
        if (r == GOT && !skipped && (type == REC_CAP_REC_CHUNK || type == REC_CAP_REC_PACKED) &&
            scan_chunk(c, type, size) != 0)
            r = BAD;
        if (r == GOT && type == REC_CAP_REC_END) check_end(c, size, c->rec);
        if (r == GOT && type == REC_CAP_REC_LOSS && scan_loss(c, size) != 0) r = BAD;
        if (r == GOT && type == REC_CAP_REC_UNRECORDED && scan_unrecorded(c, size) != 0) r = BAD;
        if (r != GOT) {
            if (in->records == 0) {
                if (r == BAD)
                    return rec__fail(err, errlen, REC_ERR_FORMAT, "%s: corrupt capture: no valid source record",
                                c->path);
                return rec__fail(err, errlen, REC_ERR_TRUNCATED, "%s: truncated capture: %llu bytes, no whole source record",
                            c->path, (unsigned long long)in->file_size);
            }
            in->valid_size = at;
            if (r == CUT || r == BAD) {
                cap_warn_stop(c, r, at, in->records);
            } else if (!in->complete) {
                cap_warn(in,
                         "%s: no end record (the capture is still running, or was killed): read all %llu records",
                         c->path, (unsigned long long)in->records);
            }
            return REC_OK;
        }
        in->records++;
        if (type == REC_CAP_REC_END) {
            in->valid_size = c->pos;
            if (c->pos < limit)
                cap_warn(in, "%s: %llu bytes after the end record ignored", c->path,
                         (unsigned long long)(limit - c->pos));
            return REC_OK;
        }
    }
}

int cap_open(const char *path, int lazy, rec_cap **out, char *err, size_t errlen) {
    *out = NULL;
    struct stat st;
    int fd = rec__open_user_file(path, &st, err, errlen);
    if (fd < 0) return -fd;
    rec_cap *c = calloc(1, sizeof *c);
    FILE *f = c ? fdopen(fd, "rb") : NULL;
    if (!f) {
        close(fd);
        free(c);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    c->f = f;
    c->f_refs = malloc(sizeof *c->f_refs);
    if (!c->f_refs) {
        rec_cap_close(c);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    *c->f_refs = 1;
    setvbuf(f, NULL, _IOFBF, 1u << 20);
    snprintf(c->path, sizeof c->path, "%s", path);
    c->info.file_size = (uint64_t)st.st_size;
    struct rec_cap_file_header h;
    memset(&h, 0, sizeof h);
    size_t got = fread(&h, 1, sizeof h, f);
    int rc = REC_OK;
    uint64_t magic = REC_CAP_MAGIC;
    if (got > 0 && got < 8 && memcmp(&h, &magic, got) == 0)
        rc = rec__fail(err, errlen, REC_ERR_TRUNCATED, "%s: truncated capture: %zu bytes", path, got);
    else if (got >= 8 && h.magic == REC_SEG_MAGIC)
        rc = rec__fail(err, errlen, REC_ERR_FORMAT, "%s: a recorder segment, not a capture file", path);
    else if (got < 8 || h.magic != REC_CAP_MAGIC)
        rc = rec__fail(err, errlen, got == 0 ? REC_ERR_TRUNCATED : REC_ERR_FORMAT,
                  got == 0 ? "%s: empty file" : "%s: not a recorder capture file (bad magic)", path);
    else if (got < 16)
        rc = rec__fail(err, errlen, REC_ERR_TRUNCATED, "%s: truncated capture: %zu bytes", path, got);
    else if (h.version != REC_CAP_VERSION)
        rc = rec__fail(err, errlen, REC_ERR_VERSION, "%s: capture format version %u, this reader knows %u", path,
                  h.version, REC_CAP_VERSION);
    else if (h.header_size < sizeof h || h.header_size > 4096 || (h.header_size & 7))
        rc = rec__fail(err, errlen, REC_ERR_FORMAT, "%s: corrupt capture header", path);
    else if (got < sizeof h || (uint64_t)st.st_size < h.header_size)
        rc = rec__fail(err, errlen, REC_ERR_TRUNCATED, "%s: truncated capture: %lld bytes", path, (long long)st.st_size);
    struct cproc *p0 = calloc(1, sizeof *p0);   /* process 0's place (stale while in hand) */
    if (!p0) rc = rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    c->procs = p0;
    c->nproc = 1;
    c->lazy = lazy;
    if (rc == REC_OK) {
        c->first_record = h.header_size;
        c->walking = lazy;
        rc = scan(c, err, errlen);
        c->walking = 0;
        if (!lazy) cap_note_impossible(c);   /* a lazy open's pass notes them (cap_lazy.c) */
    }
    cap_switch_to(c, 0);
    if (rc != REC_OK) {
        rec_cap_close(c);
        return rc;
    }
    cap_procs_finish(c);
    for (size_t k = 0; k < c->nproc; k++) (k == c->cur ? &c->info : &c->procs[k].info)->counted = !lazy;
    c->nfile = c->nproc;
    c->checked = lazy ? c->first_record : c->info.valid_size;
    c->info.counted = !lazy;
    rec_cap_rewind(c);
    *out = c;
    return REC_OK;
}

int rec_cap_open(const char *path, rec_cap **out, char *err, size_t errlen) {
    return cap_open(path, 0, out, err, errlen);
}

uint64_t rec_cap_offset(const rec_cap *c) { return c->pos; }

void rec_cap_close(rec_cap *c) {
    if (!c) return;
    if (c->f && (!c->f_refs || --*c->f_refs == 0)) {
        fclose(c->f);
        free(c->f_refs);
    }
    for (size_t k = 0; k < c->nproc; k++) {
        if (k == c->cur) continue;
        free(c->procs[k].str);
        free(c->procs[k].blob);
        free(c->procs[k].chunk_seen.v);
        free(c->procs[k].srec.v);
    }
    free(c->procs);
    free(c->str);
    free(c->blob);
    free(c->rec);
    free(c->ents);
    free(c->chunk_seen.v);
    free(c->srec.v);
    free(c->runs);
    free(c->tally_seen.v);
    free(c);
}

const struct rec_cap_info *rec_cap_get_info(const rec_cap *c) { return &c->info; }

double rec_cap_ticks_to_ns(const rec_cap *c, uint64_t ticks) {
    const struct rec_cap_info *in = &c->info;
    double ns_per_tick = 1e9 / in->ticks_per_sec;
    if (ticks >= in->ticks0) return (double)(ticks - in->ticks0) * ns_per_tick;
    return -(double)(in->ticks0 - ticks) * ns_per_tick;
}
