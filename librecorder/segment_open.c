/*
 * segment_open.c -- find, map and validate a segment.
 *
 * Everything a later step relies on is checked here, once: magic, version,
 * the sizes of the structures, that every region is page-aligned, in
 * order, inside the file, and that the file is as long as the header says.
 * Later steps only index inside regions proven here.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

const char *rec_status_str(int status) {
    switch (status) {
    case REC_OK: return "ok";
    case REC_ERR_USAGE: return "bad usage";
    case REC_ERR_NOTFOUND: return "not found";
    case REC_ERR_ACCESS: return "permission denied";
    case REC_ERR_FORMAT: return "not a recorder file, or corrupt";
    case REC_ERR_VERSION: return "unsupported format version";
    case REC_ERR_TRUNCATED: return "truncated";
    case REC_ERR_IO: return "I/O error";
    case REC_ERR_NOMEM: return "out of memory";
    case REC_ERR_BUSY: return "busy";
    case REC_ERR_STARTING: return "still starting";
    case REC_ERR_EXITED: return "exited without recording";
    case REC_ERR_TIMEOUT: return "timed out";
    default: return "error";
    }
}

int rec__fail(char *err, size_t cap, int status, const char *fmt, ...) {
    if (err && cap) {
        char raw[1024];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(raw, sizeof raw, fmt, ap);
        va_end(ap);
        /* Messages quote names from /dev/shm and from users: no byte of
         * them may move a terminal's cursor.  Control bytes are written
         * as \xNN, as the CLI writes them (librecorder/cli/safetext.c). */
        size_t k = 0;
        for (const unsigned char *p = (const unsigned char *)raw; *p && k + 1 < cap; p++) {
            if (*p < 0x20 || *p == 0x7f) {
                if (k + 5 > cap) break;
                snprintf(err + k, 5, "\\x%02x", *p);
                k += 4;
            } else {
                err[k++] = (char)*p;
            }
        }
        err[k] = 0;
    }
    return status;
}

int rec_seg_resolve(const char *target, char *path, size_t cap) {
    if (!target || !*target) return REC_ERR_USAGE;
    size_t n = strlen(target);
    int digits = 1;
    for (size_t i = 0; i < n; i++) digits &= isdigit((unsigned char)target[i]) != 0;
    int w;
    if (strchr(target, '/')) w = snprintf(path, cap, "%s", target);
    else if (digits) w = snprintf(path, cap, "/dev/shm/" REC_SEG_PREFIX "%s", target);
    else if (!strncmp(target, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX)))
        w = snprintf(path, cap, "/dev/shm/%s", target);
    else w = snprintf(path, cap, "/dev/shm/" REC_SEG_PREFIX "%s", target);
    return w < 0 || (size_t)w >= cap ? REC_ERR_USAGE : REC_OK;
}

static int pow2(uint64_t x) { return x && !(x & (x - 1)); }
static int aligned(uint64_t x) { return (x & (REC_PAGE - 1)) == 0; }

/* Validate the header against the file size; fills a message on failure. */
static int validate(const struct rec_header *h, uint64_t fsize, char *err, size_t cap, const char *path) {
    if (h->magic != REC_SEG_MAGIC)
        return rec__fail(err, cap, REC_ERR_FORMAT, "%s: not a recorder segment (bad magic)", path);
    if (h->version != REC_SEG_VERSION)
        return rec__fail(err, cap, REC_ERR_VERSION, "%s: segment format version %u, this reader knows %u", path,
                    h->version, REC_SEG_VERSION);
    if (h->header_size != sizeof(struct rec_header) || h->slot_size != sizeof(struct rec_slot) ||
        h->entry_size != sizeof(struct rec_entry))
        return rec__fail(err, cap, REC_ERR_FORMAT, "%s: structure sizes do not match this reader", path);
    if (h->segment_size > fsize)
        return rec__fail(err, cap, REC_ERR_TRUNCATED, "%s: truncated: %llu bytes, header says %llu", path,
                    (unsigned long long)fsize, (unsigned long long)h->segment_size);
    uint64_t mt = h->max_threads, re = h->ring_entries, end = h->segment_size;
    /* Every offset and size inside the file first, so that no sum below can
     * wrap around (a mapped file is far smaller than 2^63 bytes). */
    int ok = h->consumer_size <= end && h->slots_off <= end && h->index_off <= end && h->strings_off <= end &&
             h->strings_size <= end && h->rings_off <= end &&
             mt >= 1 && mt <= 65536 && pow2(re) && re >= 16 && re <= (UINT64_C(1) << 32) &&
             pow2(h->index_entries) && h->ticks_per_sec > 0 && h->consumer_off == REC_PAGE &&
             aligned(h->consumer_size) && aligned(h->slots_off) && aligned(h->index_off) &&
             aligned(h->strings_off) && aligned(h->strings_size) && aligned(h->rings_off) &&
             h->consumer_size >= sizeof(struct rec_consumer) + 8 * mt &&
             h->slots_off >= h->consumer_off + h->consumer_size &&
             h->index_off >= h->slots_off + mt * sizeof(struct rec_slot) &&
             h->strings_off >= h->index_off + 4 * (uint64_t)h->index_entries &&
             h->strings_size <= (UINT64_C(1) << 35) && h->rings_off >= h->strings_off + h->strings_size &&
             h->rings_off + mt * re * sizeof(struct rec_entry) == h->segment_size;
    if (!ok) return rec__fail(err, cap, REC_ERR_FORMAT, "%s: corrupt segment header (layout)", path);
    return REC_OK;
}

/* Field 22 (starttime) of /proc/<pid>/stat, 0 if unknown, or UINT64_MAX
 * for a zombie: it has died, only its parent has not reaped it yet.
 * *state (if given) gets field 3, the process's state ('R', 'S', 'T'...),
 * or 0 if unknown. */
uint64_t rec__proc_stat_of(int pid, char *state) {
    char p[64], buf[1024];
    if (state) *state = 0;
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *q = strrchr(buf, ')');
    if (!q) return 0;
    if (state && q[1] == ' ') *state = q[2];
    if (q[1] == ' ' && (q[2] == 'Z' || q[2] == 'X')) return UINT64_MAX;
    int field = 2;
    for (; *q && field < 22; q++)
        if (*q == ' ') field++;
    return strtoull(q, NULL, 10);
}

uint64_t rec__proc_start_of(int pid) { return rec__proc_stat_of(pid, NULL); }

/* Length of the valid UTF-8 sequence at s (at most n bytes), 0 if none.
 * C1 controls (U+0080..U+009F) count as invalid: a terminal may act on
 * them. */
static size_t utf8_len(const unsigned char *s, size_t n) {
    unsigned c = s[0];
    size_t len = c >= 0xf0 && c <= 0xf4 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 && c < 0xe0 ? 2 : 0;
    if (!len || len > n) return 0;
    for (size_t i = 1; i < len; i++)
        if ((s[i] & 0xc0) != 0x80) return 0;
    if (c == 0xc2 && s[1] < 0xa0) return 0;                        /* C1 */
    if (c == 0xe0 && s[1] < 0xa0) return 0;                        /* overlong */
    if (c == 0xed && s[1] >= 0xa0) return 0;                       /* surrogates */
    if (c == 0xf0 && s[1] < 0x90) return 0;                        /* overlong */
    if (c == 0xf4 && s[1] >= 0x90) return 0;                       /* > U+10FFFF */
    return len;
}

char *rec__copy_printable(char *dst, size_t cap, const char *src, size_t src_max) {
    const unsigned char *s = (const unsigned char *)src;
    size_t k = 0, i = 0;
    while (k + 1 < cap && i < src_max && s[i]) {
        unsigned char c = s[i];
        if (c >= 0x20 && c < 0x7f) {
            dst[k++] = (char)c;
            i++;
            continue;
        }
        size_t n = c >= 0x80 ? utf8_len(s + i, strnlen(src + i, src_max - i)) : 0;
        if (n && k + n < cap) {        /* a whole character fits: keep it */
            memcpy(dst + k, s + i, n);
            k += n;
            i += n;
        } else if (n) {
            break;                     /* never cut a character in two */
        } else {
            dst[k++] = '?';            /* control byte, C1, invalid UTF-8 */
            i++;
        }
    }
    if (cap) dst[k] = 0;
    return dst;
}

uint64_t rec__clock_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Ticks to ns by the segment's own calibration (its header), and nothing
 * else: every reader, every time, converts a segment the same way, so two
 * dumps of a stopped or dead program are identical to the byte
 * (docs/format.md, "Clocks").  Refining the rate against the clock at
 * open time made each open differ by tens of ns, and could turn a 1 ns
 * scope into a 0 ns one. */
static double header_rate(const struct rec_header *h) {
    if (h->clock_source == REC_CLOCK_MONOTONIC) return 1e9;
    return (double)h->ticks_per_sec;
}

static int all_digits(const char *t) {
    if (!*t) return 0;
    for (; *t; t++)
        if (!isdigit((unsigned char)*t)) return 0;
    return 1;
}

/* The header, with pread: the file is not mapped yet, and may be anything.
 * A writer publishes a segment under its name only once the header is
 * complete (docs/format.md), but an older writer, or a file caught
 * between creation and its first write, shows zeroes: a young file
 * (changed in the last few seconds) named by a pid or a segment name is
 * given two seconds to become a segment before it is called one that is
 * still starting.  A path is taken as it is. */
static int read_header(int fd, struct stat *st, struct rec_header *h, int may_wait, const char *path, char *err,
                       size_t cap) {
    for (int tries = 0;; tries++) {
        memset(h, 0, sizeof *h);
        ssize_t n = pread(fd, h, sizeof *h, 0);
        if (n < 0) return rec__fail(err, cap, REC_ERR_IO, "%s: %s", path, strerror(errno));
        if (n == (ssize_t)sizeof *h && h->magic != 0) return REC_OK;
        /* Starting means sized and not written yet: a whole zero header.
         * A shorter file is not one being made (writers size it first),
         * it is a truncated or foreign one, and validate() says so. */
        int zero = n == (ssize_t)sizeof *h;
        for (size_t i = 0; zero && i < sizeof *h; i++) zero = ((const unsigned char *)h)[i] == 0;
        struct timespec now;
        clock_gettime(CLOCK_REALTIME, &now);
        int young = now.tv_sec - st->st_ctim.tv_sec <= 5 && now.tv_sec >= st->st_ctim.tv_sec;
        if (!zero || !young || !may_wait) return REC_OK;
        if (tries == 200)
            return rec__fail(err, cap, REC_ERR_STARTING,
                             "%s: still starting (its header is not written yet); try again", path);
        struct timespec d = {0, 10000000};
        nanosleep(&d, NULL);
        if (fstat(fd, st) != 0) return rec__fail(err, cap, REC_ERR_IO, "%s: %s", path, strerror(errno));
    }
}

/* Become the capture consumer: map the consumer region writable and move
 * the limits (docs/format.md, "the consumer region").  Under a guard: the
 * region is the writer's file too. */
static int take_stream(rec_seg *s, char *err, size_t errlen) {
    const struct rec_header *h = &s->hcopy;
    /* A consumer that died without closing leaves its pid behind, and
     * the writer only notices once its ring is full: take the place of
     * a dead one at once.  A live one, even a silent one, is left to
     * the writer's staleness rule (it could still resume). */
    int expect = 0;
    while (!__atomic_compare_exchange_n(&s->cons->pid, &expect, (int)getpid(), 0, __ATOMIC_ACQ_REL,
                                        __ATOMIC_ACQUIRE)) {
        if (expect > 0 && kill(expect, 0) != 0 && errno == ESRCH) continue;
        return rec__fail(err, errlen, REC_ERR_BUSY, "%s: pid %d is already capturing it", s->path, expect);
    }
    s->stream = 1;
    __atomic_store_n(&s->cons->heartbeat_ticks, rec_now(), __ATOMIC_RELEASE);
    /* From each ring's current head on, the writer may not overwrite
     * what we have not read: older entries are read as in flight mode. */
    for (uint32_t i = 0; i < h->max_threads; i++) {
        uint64_t head = __atomic_load_n(&s->slots[i].head, __ATOMIC_ACQUIRE);
        __atomic_store_n(&rec_consumer_limit(s->cons)[i], head + h->ring_entries, __ATOMIC_SEQ_CST);
        /* A writer busy with an event when the limit changed may run
         * past it by one event: protect only what lies beyond that. */
        uint64_t again = __atomic_load_n(&s->slots[i].head, __ATOMIC_SEQ_CST) + REC_MAX_ENTRIES_PER_EVENT;
        uint64_t reach = again > h->ring_entries ? again - h->ring_entries : 0;
        s->cursors[i].stream_from = reach > head ? reach : head;
    }
    __atomic_store_n(&s->cons->mode, REC_MODE_STREAM, __ATOMIC_RELEASE);
    return REC_OK;
}

static int attach_heads_guarded(rec_seg *s) { REC__GUARDED(s, -1, rec__seg_attach_heads(s)); }

static int take_stream_guarded(rec_seg *s, char *err, size_t errlen) {
    REC__GUARDED(s, rec__fail(err, errlen, REC_ERR_TRUNCATED, "%s: segment truncated", s->path),
                 take_stream(s, err, errlen));
}

int rec_seg_open(const char *target, int flags, rec_seg **out, char *err, size_t errlen) {
    char path[256];
    *out = NULL;
    rec__guard_install();
    if (rec_seg_resolve(target, path, sizeof path) != REC_OK) {
        char shown[84];
        return rec__fail(err, errlen, REC_ERR_USAGE, "bad segment name: %s",
                         rec__copy_printable(shown, sizeof shown, target ? target : "", 80));
    }
    if (all_digits(target)) {
        long pid = strtol(target, NULL, 10);
        if (pid <= 0 || pid > 0x3fffffff)
            return rec__fail(err, errlen, REC_ERR_NOTFOUND, "no process %.20s", target);
        int found = rec__find_pid_segment((int)pid, path, sizeof path);
        if (found == -2) {
            char shown[84];
            return rec__fail(err, errlen, REC_ERR_NOTFOUND,
                             "process %s has no segment of its own yet; %s is what an earlier process with that pid "
                             "left (read it by that name; --wait waits for this one's first event)",
                             target, rec__copy_printable(shown, sizeof shown, path, 80));
        }
        if (found != 0) {
            if (kill((pid_t)pid, 0) != 0 && errno == ESRCH)
                return rec__fail(err, errlen, REC_ERR_NOTFOUND, "no process %s and no segment %s", target, path);
            return rec__fail(err, errlen, REC_ERR_NOTFOUND,
                             "process %s has no segment %s (is it instrumented, and has it recorded an event? "
                             "--wait waits for its first)",
                             target, path);
        }
    }
    struct stat st;
    int fd = rec__open_regular(path, 0, &st, err, errlen);
    if (fd < 0) {
        if (-fd == REC_ERR_NOTFOUND && !strchr(target, '/'))
            return rec__fail(err, errlen, REC_ERR_NOTFOUND, "%s: no such segment", path);
        return -fd;
    }
    struct rec_header h;
    int rc = read_header(fd, &st, &h, !strchr(target, '/'), path, err, errlen);
    if (rc != REC_OK) {
        close(fd);
        return rc;
    }
    if ((uint64_t)st.st_size < sizeof h) {
        close(fd);
        return rec__fail(err, errlen, st.st_size == 0 ? REC_ERR_FORMAT : REC_ERR_TRUNCATED,
                         "%s: too short for a recorder segment (%lld bytes)", path, (long long)st.st_size);
    }
    rc = validate(&h, (uint64_t)st.st_size, err, errlen, path);
    if (rc != REC_OK) {
        close(fd);
        return rc;
    }
    /* Map what the header describes (validated against the size just
     * now); if the file shrinks later, guard.c catches the fault. */
    void *p = mmap(NULL, (size_t)h.segment_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        return rec__fail(err, errlen, REC_ERR_IO, "%s: mmap: %s", path, strerror(e));
    }
    rec_seg *s = calloc(1, sizeof *s);
    if (!s) {
        munmap(p, (size_t)h.segment_size);
        close(fd);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    s->fd = fd;
    s->base = p;
    s->size = (size_t)h.segment_size;
    s->hdr = p;
    s->owner = st.st_uid;
    s->dev = st.st_dev;
    s->ino = st.st_ino;
    /* The validated private copy: a hostile writer cannot change the
     * layout after the checks. */
    s->hcopy = h;
    const struct rec_header *hc = &s->hcopy;
    s->slots = (const struct rec_slot *)(s->base + hc->slots_off);
    s->index = (const uint32_t *)(s->base + hc->index_off);
    s->strings = s->base + hc->strings_off;
    s->rings = s->base + hc->rings_off;
    s->cons = (struct rec_consumer *)(s->base + hc->consumer_off);
    s->ticks_per_sec = header_rate(hc);
    s->ns_per_tick = 1e9 / s->ticks_per_sec;
    s->cursors = calloc(hc->max_threads, sizeof *s->cursors);
    s->strcache_n = (size_t)((hc->strings_size / 8 + REC__STRPAGE - 1) / REC__STRPAGE);
    s->strcache = calloc(s->strcache_n, sizeof *s->strcache);
    if (!s->cursors || !s->strcache) {
        rec_seg_close(s);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    if (attach_heads_guarded(s) != 0) {
        rec_seg_close(s);
        return rec__fail(err, errlen, REC_ERR_TRUNCATED, "%s: segment truncated", path);
    }
    if (flags & REC_OPEN_STREAM) {
        struct stat st2;
        int rw = rec__open_regular(path, 1, &st2, err, errlen);
        if (rw >= 0 && (st2.st_dev != st.st_dev || st2.st_ino != st.st_ino)) {
            close(rw);
            rec_seg_close(s);
            return rec__fail(err, errlen, REC_ERR_FORMAT, "%s: replaced while being opened", path);
        }
        void *c = rw >= 0 ? mmap(NULL, hc->consumer_size, PROT_READ | PROT_WRITE, MAP_SHARED, rw, (off_t)hc->consumer_off)
                          : MAP_FAILED;
        if (rw >= 0) close(rw);
        if (c == MAP_FAILED) {
            rec_seg_close(s);
            return rec__fail(err, errlen, REC_ERR_ACCESS, "%s: cannot map the consumer region for writing", path);
        }
        s->cons = c;
        s->cons_map_size = hc->consumer_size;
        rc = take_stream_guarded(s, err, errlen);
        if (rc != REC_OK) {
            rec_seg_close(s);
            return rc;
        }
    }
    *out = s;
    return REC_OK;
}

/* Stream mode ends: every ring back to flight mode, unless the writer
 * dropped us (and another consumer may own it now). */
static int give_back(rec_seg *s) {
    if (__atomic_load_n(&s->cons->pid, __ATOMIC_ACQUIRE) != (int)getpid()) return 0;
    for (uint32_t i = 0; i < s->hcopy.max_threads; i++)
        __atomic_store_n(&rec_consumer_limit(s->cons)[i], UINT64_MAX, __ATOMIC_RELEASE);
    __atomic_store_n(&s->cons->mode, REC_MODE_FLIGHT, __ATOMIC_RELEASE);
    __atomic_store_n(&s->cons->pid, 0, __ATOMIC_RELEASE);
    return 1;
}

static int give_back_guarded(rec_seg *s) { REC__GUARDED(s, 0, give_back(s)); }

void rec_seg_close(rec_seg *s) {
    if (!s) return;
    if (s->stream) give_back_guarded(s);
    if (s->cons_map_size) munmap(s->cons, s->cons_map_size);
    for (size_t i = 0; s->strcache && i < s->strcache_n; i++) {
        for (size_t j = 0; s->strcache[i] && j < REC__STRPAGE; j++) free(s->strcache[i][j]);
        free(s->strcache[i]);
    }
    free(s->strcache);
    free(s->cursors);
    if (s->base) munmap((void *)s->base, s->size);
    if (s->fd >= 0) close(s->fd);
    free(s);
}

