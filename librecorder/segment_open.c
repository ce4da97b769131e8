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
    default: return "error";
    }
}

int rec__fail(char *err, size_t cap, int status, const char *fmt, ...) {
    if (err && cap) {
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(err, cap, fmt, ap);
        va_end(ap);
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
 * for a zombie: it has died, only its parent has not reaped it yet. */
uint64_t rec__proc_start_of(int pid) {
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *q = strrchr(buf, ')');
    if (!q) return 0;
    if (q[1] == ' ' && (q[2] == 'Z' || q[2] == 'X')) return UINT64_MAX;
    int field = 2;
    for (; *q && field < 22; q++)
        if (*q == ' ') field++;
    return strtoull(q, NULL, 10);
}

char *rec__copy_printable(char *dst, size_t cap, const char *src, size_t src_max) {
    size_t k = 0;
    for (; k + 1 < cap && k < src_max && src[k]; k++) {
        unsigned char c = (unsigned char)src[k];
        dst[k] = (char)(c < 0x20 || c == 0x7f ? '?' : c);
    }
    if (cap) dst[k] = 0;
    return dst;
}

uint64_t rec__clock_ns(clockid_t c) {
    struct timespec ts;
    clock_gettime(c, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The writer calibrated over a millisecond; on the same machine (and a
 * segment in /dev/shm is always from this boot) the reader can compare the
 * counter with the clock over the segment's whole life instead. */
static double refine_rate(const struct rec_header *h) {
    double rate = (double)h->ticks_per_sec;
    if (h->clock_source == REC_CLOCK_MONOTONIC) return 1e9;
    uint64_t mono = rec__clock_ns(CLOCK_MONOTONIC);
    uint64_t ticks = rec_now();
    if (h->clock_source != REC_CLOCK_TSC && h->clock_source != REC_CLOCK_CNTVCT) return rate;
    if (mono <= h->mono_ns0 + 1000000000u || ticks <= h->ticks0) return rate;
    double r = (double)(ticks - h->ticks0) * 1e9 / (double)(mono - h->mono_ns0);
    return (r > rate * 0.99 && r < rate * 1.01) ? r : rate;
}

int rec_seg_open(const char *target, int flags, rec_seg **out, char *err, size_t errlen) {
    char path[256];
    *out = NULL;
    if (rec_seg_resolve(target, path, sizeof path) != REC_OK)
        return rec__fail(err, errlen, REC_ERR_USAGE, "bad segment name: %.80s", target ? target : "");
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
    if (fd < 0) {
        int e = errno;
        if (e == ENOENT) {
            const char *t = target;
            int digits = *t != 0;
            for (; *t; t++) digits &= isdigit((unsigned char)*t) != 0;
            if (digits && kill(atoi(target), 0) != 0 && errno == ESRCH)
                return rec__fail(err, errlen, REC_ERR_NOTFOUND, "no process %s and no segment %s", target, path);
            if (digits)
                return rec__fail(err, errlen, REC_ERR_NOTFOUND,
                            "process %s has no segment %s (is it instrumented, and has it recorded an event?)",
                            target, path);
            return rec__fail(err, errlen, REC_ERR_NOTFOUND, "%s: no such segment", path);
        }
        return rec__fail(err, errlen, e == EACCES || e == EPERM ? REC_ERR_ACCESS : REC_ERR_IO, "%s: %s", path,
                    strerror(e));
    }
    struct stat st;
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return rec__fail(err, errlen, REC_ERR_FORMAT, "%s: not a regular file", path);
    }
    if ((uint64_t)st.st_size < REC_PAGE) {
        close(fd);
        return rec__fail(err, errlen, st.st_size == 0 ? REC_ERR_FORMAT : REC_ERR_TRUNCATED,
                    "%s: too short for a recorder segment (%lld bytes)", path, (long long)st.st_size);
    }
    void *p = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        int e = errno;
        close(fd);
        return rec__fail(err, errlen, REC_ERR_IO, "%s: mmap: %s", path, strerror(e));
    }
    rec_seg *s = calloc(1, sizeof *s);
    if (!s) {
        munmap(p, (size_t)st.st_size);
        close(fd);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    snprintf(s->path, sizeof s->path, "%s", path);
    s->fd = fd;
    s->base = p;
    s->size = (size_t)st.st_size;
    s->hdr = p;
    /* Validate a private copy, so a hostile writer cannot change the
     * layout after the checks. */
    memcpy(&s->hcopy, p, sizeof s->hcopy);
    s->hcopy.magic = __atomic_load_n(&s->hdr->magic, __ATOMIC_ACQUIRE);
    int rc = validate(&s->hcopy, (uint64_t)st.st_size, err, errlen, path);
    if (rc != REC_OK) {
        rec_seg_close(s);
        return rc;
    }
    const struct rec_header *h = &s->hcopy;
    s->slots = (const struct rec_slot *)(s->base + h->slots_off);
    s->index = (const uint32_t *)(s->base + h->index_off);
    s->strings = s->base + h->strings_off;
    s->rings = s->base + h->rings_off;
    s->cons = (struct rec_consumer *)(s->base + h->consumer_off);
    s->ticks_per_sec = refine_rate(h);
    s->ns_per_tick = 1e9 / s->ticks_per_sec;
    s->cursors = calloc(h->max_threads, sizeof *s->cursors);
    s->strcache_n = h->strings_size / 8;
    s->strcache = calloc(s->strcache_n, sizeof *s->strcache);
    if (!s->cursors || !s->strcache) {
        rec_seg_close(s);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    if (flags & REC_OPEN_STREAM) {
        int rw = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
        void *c = rw >= 0 ? mmap(NULL, h->consumer_size, PROT_READ | PROT_WRITE, MAP_SHARED, rw, (off_t)h->consumer_off)
                          : MAP_FAILED;
        if (rw >= 0) close(rw);
        if (c == MAP_FAILED) {
            rec_seg_close(s);
            return rec__fail(err, errlen, REC_ERR_ACCESS, "%s: cannot map the consumer region for writing", path);
        }
        s->cons = c;
        s->cons_map_size = h->consumer_size;
        /* A consumer that died without closing leaves its pid behind, and
         * the writer only notices once its ring is full: take the place of
         * a dead one at once.  A live one, even a silent one, is left to
         * the writer's staleness rule (it could still resume). */
        int expect = 0;
        while (!__atomic_compare_exchange_n(&s->cons->pid, &expect, (int)getpid(), 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE)) {
            if (expect > 0 && kill(expect, 0) != 0 && errno == ESRCH) continue;
            rc = rec__fail(err, errlen, REC_ERR_BUSY, "%s: pid %d is already capturing it", path, expect);
            rec_seg_close(s);
            return rc;
        }
        s->stream = 1;
        rec_seg_heartbeat(s);
        /* From each ring's current head on, the writer may not overwrite
         * what we have not read: older entries are read as in flight mode. */
        for (uint32_t i = 0; i < h->max_threads; i++) {
            uint64_t head = __atomic_load_n(&s->slots[i].head, __ATOMIC_ACQUIRE);
            __atomic_store_n(&s->cons->limit[i], head + h->ring_entries, __ATOMIC_SEQ_CST);
            /* A writer busy with an event when the limit changed may run
             * past it by one event: protect only what lies beyond that. */
            uint64_t again = __atomic_load_n(&s->slots[i].head, __ATOMIC_SEQ_CST) + REC_MAX_ENTRIES_PER_EVENT;
            uint64_t reach = again > h->ring_entries ? again - h->ring_entries : 0;
            s->cursors[i].stream_from = reach > head ? reach : head;
        }
        __atomic_store_n(&s->cons->mode, REC_MODE_STREAM, __ATOMIC_RELEASE);
    }
    *out = s;
    return REC_OK;
}

void rec_seg_heartbeat(rec_seg *s) {
    if (s->stream) __atomic_store_n(&s->cons->heartbeat_ticks, rec_now(), __ATOMIC_RELEASE);
}

void rec_seg_close(rec_seg *s) {
    if (!s) return;
    /* Unless the writer dropped us (and another consumer may own it now). */
    if (s->stream && __atomic_load_n(&s->cons->pid, __ATOMIC_ACQUIRE) == (int)getpid()) {
        for (uint32_t i = 0; i < s->hcopy.max_threads; i++)
            __atomic_store_n(&s->cons->limit[i], UINT64_MAX, __ATOMIC_RELEASE);
        __atomic_store_n(&s->cons->mode, REC_MODE_FLIGHT, __ATOMIC_RELEASE);
        __atomic_store_n(&s->cons->pid, 0, __ATOMIC_RELEASE);
    }
    if (s->cons_map_size) munmap(s->cons, s->cons_map_size);
    if (s->strcache)
        for (size_t i = 0; i < s->strcache_n; i++) free(s->strcache[i]);
    free(s->strcache);
    free(s->cursors);
    if (s->base) munmap((void *)s->base, s->size);
    if (s->fd >= 0) close(s->fd);
    free(s);
}

void rec_seg_get_info(rec_seg *s, struct rec_seg_info *info) {
    const struct rec_header *h = &s->hcopy, *live = s->hdr;
    memset(info, 0, sizeof *info);
    snprintf(info->path, sizeof info->path, "%s", s->path);
    info->pid = h->pid;
    rec__copy_printable(info->process_name, sizeof info->process_name, h->process_name, sizeof h->process_name);
    uint32_t flags = __atomic_load_n(&live->flags, __ATOMIC_ACQUIRE);
    info->closed = (flags & REC_FLAG_CLOSED) != 0;
    uint64_t start = 0;
    info->alive = h->pid > 0 && !info->closed && (kill(h->pid, 0) == 0 || errno == EPERM) &&
                  (start = rec__proc_start_of(h->pid)) != UINT64_MAX &&
                  (h->proc_start == 0 || start == h->proc_start);
    info->mode = __atomic_load_n(&s->cons->mode, __ATOMIC_ACQUIRE) == REC_MODE_STREAM ? REC_MODE_STREAM
                                                                                       : REC_MODE_FLIGHT;
    info->max_threads = h->max_threads;
    info->ring_entries = h->ring_entries;
    info->segment_size = h->segment_size;
    info->clock_source = h->clock_source;
    info->ticks_per_sec = s->ticks_per_sec;
    info->ticks0 = h->ticks0;
    info->mono_ns0 = h->mono_ns0;
    info->real_ns0 = h->real_ns0;
    info->strings_size = h->strings_size;
    info->strings_used = __atomic_load_n(&live->strings_used, __ATOMIC_RELAXED);
    if (info->strings_used > h->strings_size) info->strings_used = h->strings_size;
    info->strings_dropped = __atomic_load_n(&live->strings_dropped, __ATOMIC_RELAXED);
    info->threads_no_slot = __atomic_load_n(&live->threads_no_slot, __ATOMIC_RELAXED);
    info->threads_attached = __atomic_load_n(&live->threads_attached, __ATOMIC_RELAXED);
}

double rec_seg_ticks_to_ns(const rec_seg *s, uint64_t ticks) {
    if (ticks >= s->hcopy.ticks0) return (double)(ticks - s->hcopy.ticks0) * s->ns_per_tick;
    return -(double)(s->hcopy.ticks0 - ticks) * s->ns_per_tick;
}
