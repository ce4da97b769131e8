/*
 * source.c -- a segment or a capture file behind one interface (see
 * source.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "source.h"

static int all_digits(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

static int alloc_threads(struct wsrc *src, uint32_t max_threads) {
    src->max_threads = max_threads;
    src->thr = calloc(max_threads ? max_threads : 1, sizeof *src->thr);
    src->thr_ok = calloc(max_threads ? max_threads : 1, 1);
    return src->thr && src->thr_ok ? 0 : -1;
}

int wsrc_init_seg(struct wsrc *src, rec_seg *seg, uint32_t max_threads) {
    memset(src, 0, sizeof *src);
    src->seg = seg;
    src->max_threads = max_threads;
    return 0;
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
}

int wsrc_open_file(const char *arg, struct wsrc *src, struct rec_seg_info *info, char *err, size_t errlen) {
    memset(src, 0, sizeof *src);
    struct stat st;
    /* A pid, or a name that is no file here: a segment (target.c).  A
     * regular file without the capture magic is a segment's path, for
     * rec_seg_open to judge.  Anything else that exists -- a FIFO, a
     * device, a directory, a symlink to one -- goes to rec_cap_open, which
     * refuses it without opening it. */
    if (!arg || all_digits(arg) || lstat(arg, &st) != 0) return 0;
    if (stat(arg, &st) == 0 && S_ISREG(st.st_mode) && rec_cap_probe(arg) == 0) return 0;
    rec_cap *c;
    int rc = rec_cap_open(arg, &c, err, errlen);
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
    return src->cap ? rec_cap_string(src->cap, id) : rec_seg_string(src->seg, id);
}

int wsrc_thread(const struct wsrc *src, uint32_t slot, struct rec_thread_info *t) {
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
