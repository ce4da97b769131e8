/*
 * segment_info.c -- what an attached segment says about itself now: its
 * process, clock, limits and counters, whether the file is still whole,
 * and the stream consumer's heartbeat.
 *
 * The layout comes from the validated private copy of the header; only
 * the counters that change while the program runs are read live, under a
 * guard (guard.c), since the owner may truncate the file at any time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static int heartbeat(rec_seg *s) {
    __atomic_store_n(&s->cons->heartbeat_ticks, rec_now(), __ATOMIC_RELEASE);
    return 0;
}

void rec_seg_heartbeat(rec_seg *s) {
    if (s->stream) REC__GUARDED_VOID(s, heartbeat(s));
}

/* The fields that change while the program runs. */
static int live_fields(rec_seg *s, struct rec_seg_info *info) {
    const struct rec_header *h = &s->hcopy, *live = s->hdr;
    uint32_t flags = __atomic_load_n(&live->flags, __ATOMIC_ACQUIRE);
    info->closed = (flags & REC_FLAG_CLOSED) != 0;
    info->mode = __atomic_load_n(&s->cons->mode, __ATOMIC_ACQUIRE) == REC_MODE_STREAM ? REC_MODE_STREAM
                                                                                       : REC_MODE_FLIGHT;
    info->strings_used = __atomic_load_n(&live->strings_used, __ATOMIC_RELAXED);
    if (info->strings_used > h->strings_size) info->strings_used = h->strings_size;
    info->strings_dropped = rec_count_sat(__atomic_load_n(&live->strings_dropped, __ATOMIC_RELAXED), 0);
    /* Anyone who can write the file sets this to anything: bounded. */
    info->threads_no_slot = rec_count_sat(__atomic_load_n(&live->threads_no_slot, __ATOMIC_RELAXED), 0);
    uint64_t gs = __atomic_load_n(&live->gpu_state, __ATOMIC_RELAXED) & 0xffu;
    info->gpu_state = gs <= REC_GPU_REFUSED ? (unsigned)gs : REC_GPU_NONE;
    info->threads_attached = __atomic_load_n(&live->threads_attached, __ATOMIC_RELAXED);
    return 0;
}

static int live_fields_guarded(rec_seg *s, struct rec_seg_info *info) {
    REC__GUARDED(s, -1, live_fields(s, info));
}

void rec_seg_get_info(rec_seg *s, struct rec_seg_info *info) {
    const struct rec_header *h = &s->hcopy;
    memset(info, 0, sizeof *info);
    snprintf(info->path, sizeof info->path, "%s", s->path);
    info->pid = h->pid;
    info->proc_start = h->proc_start;
    info->launcher_pid = h->launcher_pid;
    info->launcher_start = h->launcher_start;
    info->parent_pid = h->parent_pid;
    info->parent_start = h->parent_start;
    info->owner_uid = (uint32_t)s->owner;
    info->foreign_owner = s->owner != geteuid();
    rec__copy_printable(info->process_name, sizeof info->process_name, h->process_name, sizeof h->process_name);
    live_fields_guarded(s, info);
    info->truncated = s->truncated;
    uint64_t start = 0;
    char state = 0;
    info->alive = h->pid > 0 && !info->closed && (kill(h->pid, 0) == 0 || errno == EPERM) &&
                  (start = rec__proc_stat_of(h->pid, &state)) != UINT64_MAX &&
                  (h->proc_start == 0 || start == h->proc_start);
    info->stopped = info->alive && (state == 'T' || state == 't');
    info->max_threads = h->max_threads;
    info->ring_entries = h->ring_entries;
    info->segment_size = h->segment_size;
    info->clock_source = h->clock_source;
    info->ticks_per_sec = s->ticks_per_sec;
    info->ticks0 = h->ticks0;
    info->mono_ns0 = h->mono_ns0;
    info->real_ns0 = h->real_ns0;
    info->strings_size = h->strings_size;
}

int rec_seg_status(rec_seg *s) {
    struct stat st;
    /* The fd is the file we validated: a shrink shows in its size even
     * before a read faults. */
    if (!s->truncated && fstat(s->fd, &st) == 0 && (uint64_t)st.st_size < s->hcopy.segment_size)
        s->truncated = 1;
    return s->truncated ? REC_ERR_TRUNCATED : REC_OK;
}

double rec_seg_ticks_to_ns(const rec_seg *s, uint64_t ticks) {
    if (ticks >= s->hcopy.ticks0) return (double)(ticks - s->hcopy.ticks0) * s->ns_per_tick;
    return -(double)(s->hcopy.ticks0 - ticks) * s->ns_per_tick;
}

/* The words every tool uses (one place, docs/cli.md). */
uint64_t rec_count_sat(uint64_t a, uint64_t b) {
    uint64_t sum = a > REC_COUNT_MAX ? REC_COUNT_MAX : a;
    return b > REC_COUNT_MAX - sum ? REC_COUNT_MAX : sum + b;
}

const char *rec_not_recorded_str(uint64_t n, char *buf, size_t cap) {
    if (n == 0) snprintf(buf, cap, "%s", "");
    else snprintf(buf, cap, "%llu thread%s not recorded", (unsigned long long)rec_count_sat(n, 0), n == 1 ? "" : "s");
    return buf;
}

const char *rec_names_full_str(uint64_t n, char *buf, size_t cap) {
    if (n == 0) snprintf(buf, cap, "%s", "");
    else snprintf(buf, cap, "%llu name%s recorded as <strings full>", (unsigned long long)rec_count_sat(n, 0),
                  n == 1 ? "" : "s");
    return buf;
}

const char *rec_owner_str(uint32_t uid, char *buf, size_t cap) {
    snprintf(buf, cap, "owned by uid %u", (unsigned)uid);
    return buf;
}
