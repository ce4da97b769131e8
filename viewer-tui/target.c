/*
 * target.c -- find segments and resolve the command-line target (see
 * target.h).
 */
#define _GNU_SOURCE
#include "target.h"

#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/reader.h"

#define SHM_DIR "/dev/shm"

static int by_alive_pid(const void *pa, const void *pb) {
    const struct seg_entry *a = pa, *b = pb;
    if (a->alive != b->alive) return b->alive - a->alive;
    return (a->pid > b->pid) - (a->pid < b->pid);
}

size_t target_list(struct seg_entry *out, size_t cap) {
    DIR *d = opendir(SHM_DIR);
    if (!d) return 0;
    size_t n = 0;
    struct dirent *e;
    while ((e = readdir(d)) && n < cap) {
        if (strncmp(e->d_name, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX))) continue;
        struct seg_entry *s = &out[n];
        memset(s, 0, sizeof *s);
        if (snprintf(s->path, sizeof s->path, SHM_DIR "/%s", e->d_name) >= (int)sizeof s->path) continue;
        rec_seg *seg;
        char err[256];
        s->status = rec_seg_open(s->path, 0, &seg, err, sizeof err);
        /* Others' segments (permission denied) and files that are not
         * segments are not offered. */
        if (s->status != REC_OK) continue;
        struct rec_seg_info info;
        rec_seg_get_info(seg, &info);
        s->pid = info.pid;
        s->alive = info.alive;
        snprintf(s->name, sizeof s->name, "%s", info.process_name);
        struct rec_thread_info th;
        for (uint32_t slot = 0; slot < info.max_threads; slot++)
            if (rec_seg_thread(seg, slot, &th) == 0 && th.state == REC_SLOT_LIVE) s->threads++;
        rec_seg_close(seg);
        n++;
    }
    closedir(d);
    qsort(out, n, sizeof *out, by_alive_pid);
    return n;
}

static int all_digits(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

int target_resolve(const char *arg, char *out, size_t cap, char *err, size_t errlen) {
    char path[256];
    if (!arg || !*arg) {
        snprintf(err, errlen, "empty target");
        return REC_ERR_USAGE;
    }
    /* Pids, paths and segment names go to rec_seg_open as they are: it
     * gives the precise error (no such process, not instrumented, ...). */
    if (all_digits(arg) || strchr(arg, '/') || !strncmp(arg, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX)) ||
        (rec_seg_resolve(arg, path, sizeof path) == REC_OK && access(path, F_OK) == 0)) {
        snprintf(out, cap, "%s", arg);
        return REC_OK;
    }
    /* A process name. */
    struct seg_entry *list = calloc(256, sizeof *list);
    if (!list) {
        snprintf(err, errlen, "out of memory");
        return REC_ERR_NOMEM;
    }
    size_t n = target_list(list, 256), found = 0, at = 0;
    char pids[128] = "";
    for (size_t i = 0; i < n; i++) {
        if (!list[i].alive || strcmp(list[i].name, arg)) continue;
        if (found++ == 0) at = i;
        size_t l = strlen(pids);
        if (l < sizeof pids - 16) snprintf(pids + l, sizeof pids - l, "%s%d", l ? ", " : "", list[i].pid);
    }
    int rc = REC_OK;
    if (found == 1) snprintf(out, cap, "%s", list[at].path);
    else if (found == 0) {
        snprintf(err, errlen, "no running program named \"%.64s\" has a recorder segment (see recorder-top with no argument)", arg);
        rc = REC_ERR_NOTFOUND;
    } else {
        snprintf(err, errlen, "%zu programs named \"%.64s\" are running (pids %s): give a pid", found, arg, pids);
        rc = REC_ERR_USAGE;
    }
    free(list);
    return rc;
}
