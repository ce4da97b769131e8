/*
 * source.c -- a segment or a capture file behind one interface (see
 * source.h).
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source.h"
#include "strtab.h"
#include "target.h"

static int alloc_threads(struct wsrc *src, uint32_t max_threads) {
    src->max_threads = max_threads;
    src->thr = calloc(max_threads ? max_threads : 1, sizeof *src->thr);
    src->thr_ok = calloc(max_threads ? max_threads : 1, 1);
    return src->thr && src->thr_ok ? 0 : -1;
}

int wsrc_init_segs(struct wsrc *src, rec_seg **segs, uint32_t n) {
    memset(src, 0, sizeof *src);
    src->seg = segs[0];
    src->n = n;
    struct rec_seg_info i0, in;
    rec_seg_get_info(segs[0], &i0);
    src->ns_per_tick0 = 1e9 / i0.ticks_per_sec;
    src->ticks0 = i0.ticks0;
    for (uint32_t k = 0; k < n; k++) {
        rec_seg_get_info(segs[k], &in);
        src->segs[k] = segs[k];
        src->base[k] = src->max_threads;
        src->max_threads += in.max_threads;
        /* Time 0 of each is CLOCK_MONOTONIC at its calibration (0: unknown). */
        src->off_ns[k] = in.mono_ns0 && i0.mono_ns0 ? (double)in.mono_ns0 - (double)i0.mono_ns0 : 0;
    }
    return 0;
}

uint32_t wsrc_which(const struct wsrc *src, uint32_t slot) {
    uint32_t k = 0;
    while (k + 1 < src->n && slot >= src->base[k + 1]) k++;
    return k;
}

void wsrc_rebase(const struct wsrc *src, uint32_t k, struct strtab *names_k, struct rec_event *ev, size_t n) {
    rec_seg *s = src->segs[k];
    for (size_t i = 0; i < n; i++) {
        struct rec_event *e = &ev[i];
        if (k) {
            double t = (double)src->ticks0 + (rec_seg_ticks_to_ns(s, e->ticks) + src->off_ns[k]) / src->ns_per_tick0;
            e->ticks = t <= 0 ? 0 : t >= 0x1p64 ? UINT64_MAX : (uint64_t)t;
        }
        if (e->name_id) e->name_id = strtab_id_named(names_k, e->name_id, rec_seg_string(s, e->name_id));
    }
}

/* The capture's source as the segment's info would describe it: the page's
 * HELLO and the header read from there.  A capture's program is not
 * running (alive 0): it is a file. */
static void cap_info(const rec_cap *c, const char *path, struct rec_seg_info *info) {
    const struct rec_cap_info *in = rec_cap_get_info(c);
    memset(info, 0, sizeof *info);
    snprintf(info->path, sizeof info->path, "%s", path);
    info->pid = in->pid;
    memcpy(info->process_name, in->process_name, sizeof info->process_name);
    info->process_name[sizeof info->process_name - 1] = 0;
    info->max_threads = in->max_threads;
    info->ring_entries = in->ring_entries;
    info->clock_source = in->clock_source;
    info->ticks_per_sec = in->ticks_per_sec;
    info->ticks0 = in->ticks0;
    info->mono_ns0 = in->mono_ns0;
    info->real_ns0 = in->real_ns0;
    info->proc_start = in->proc_start;
    info->closed = in->complete;
    info->truncated = in->truncated;
    /* What the segment could not record, as the file carries it (its
     * UNRECORDED records): said as a live segment's counts are. */
    info->threads_no_slot = rec_count_sat(in->threads_no_slot, 0);
    info->strings_dropped = rec_count_sat(in->strings_dropped, 0);
}

int wsrc_open_file(const char *arg, struct wsrc *src, struct rec_seg_info *info, char *err, size_t errlen) {
    memset(src, 0, sizeof *src);
    struct stat st;
    /* A pid, or a name that is no file here: a segment (target.c).  A
     * regular file without the capture magic is a segment's path, for
     * rec_seg_open to judge.  Anything else that exists -- a FIFO, a
     * device, a directory, a symlink to one -- goes to rec_cap_open, which
     * refuses it without opening it. */
    if (!arg || target_all_digits(arg) || lstat(arg, &st) != 0) return 0;
    if (stat(arg, &st) == 0 && S_ISREG(st.st_mode) && rec_cap_probe(arg) == 0) return 0;
    rec_cap *c;
    /* Lazily: the big chunks are checked as the reader reads them, so the
     * page is served at once; what is found on the way is reported then
     * (reader.c, read_file). */
    int rc = rec_cap_open_lazy(arg, &c, err, errlen);
    if (rc != REC_OK) return -rc;
    const struct rec_cap_info *in = rec_cap_get_info(c);
    if (alloc_threads(src, in->max_threads) != 0) {
        rec_cap_close(c);
        wsrc_close(src);
        snprintf(err, errlen, "out of memory");
        return -REC_ERR_NOMEM;
    }
    src->cap = c;
    cap_info(c, arg, info);
    return 1;
}

void wsrc_close(struct wsrc *src) {
    if (src->cap) rec_cap_close(src->cap);
    free(src->thr);
    free(src->thr_ok);
    src->cap = NULL;
    src->thr = NULL;
    src->thr_ok = NULL;
}

double wsrc_ns(const struct wsrc *src, uint64_t ticks) {
    return src->cap ? rec_cap_ticks_to_ns(src->cap, ticks) : rec_seg_ticks_to_ns(src->seg, ticks);
}

const char *wsrc_string(const struct wsrc *src, uint32_t id) {
    if (src->cap) return rec_cap_string(src->cap, id);
    if (src->n > 1) {
        /* Already a dense id; the reader thread owns the table. */
        const struct strtab_pub *p = *src->names;
        return p && id < p->count ? p->names[id] : NULL;
    }
    return rec_seg_string(src->seg, id);
}

int wsrc_thread(const struct wsrc *src, uint32_t slot, struct rec_thread_info *t) {
    if (src->n > 1) {
        uint32_t k = wsrc_which(src, slot);
        if (rec_seg_thread(src->segs[k], slot - src->base[k], t) != 0) return -1;
        t->slot = slot;
        return 0;
    }
    if (!src->cap) return rec_seg_thread(src->seg, slot, t);
    if (slot >= src->max_threads || !src->thr_ok[slot]) return -1;
    *t = src->thr[slot];
    return 0;
}

void wsrc_note_thread(struct wsrc *src, const struct rec_thread_info *t) {
    if (!src->cap || t->slot >= src->max_threads) return;
    src->thr[t->slot] = *t;
    src->thr_ok[t->slot] = 1;
}
