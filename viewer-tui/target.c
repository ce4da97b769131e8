/*
 * target.c -- find segments and resolve the command-line target (see
 * target.h).
 *
 * Listing is librecorder's rec_seg_list: it never opens a FIFO, a device
 * or a link, opens files without blocking, and says why a file is not a
 * segment.  This file only words its verdicts for the picker.
 */
#define _GNU_SOURCE
#include "target.h"

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "recorder/capture.h"
#include "recorder/reader.h"

/* A file still being created: its first page is zeroes (an older writer
 * publishes the file before its header).  Shown as starting for a while,
 * then as a creation that never finished. */
#define STARTING_SEC 10

static int by_viewable_alive_pid(const void *pa, const void *pb) {
    const struct seg_entry *a = pa, *b = pb;
    if (a->viewable != b->viewable) return b->viewable - a->viewable;
    if (a->alive != b->alive) return b->alive - a->alive;
    if (a->pid != b->pid) return (a->pid > b->pid) - (a->pid < b->pid);
    return strcmp(a->file, b->file);
}

/* What a file that is not a regular file is, from lstat (never opened);
 * short, for a column: "skipped (a FIFO)". */
static const char *kind_of(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return "not a regular file";
    if (S_ISLNK(st.st_mode)) return "a symlink, not followed";
    if (S_ISFIFO(st.st_mode)) return "a FIFO";
    if (S_ISDIR(st.st_mode)) return "a directory";
    if (S_ISSOCK(st.st_mode)) return "a socket";
    if (S_ISCHR(st.st_mode) || S_ISBLK(st.st_mode)) return "a device";
    return "not a regular file";
}

/* now: when the listing started (a listing can take seconds). */
static void describe(const struct rec_seg_entry *e, struct seg_entry *s, time_t now) {
    s->pid = e->pid;
    s->status = e->status;
    snprintf(s->name, sizeof s->name, "%s", e->process_name);
    s->threads = (int)e->threads_live;
    s->viewable = e->status == REC_OK;
    const char *state = "corrupt", *note = e->error;
    switch (e->state) {
    case REC_SEGST_ALIVE:
        state = "running";
        s->alive = 1;
        break;
    case REC_SEGST_CLOSED: state = "closed"; break;
    case REC_SEGST_DEAD: state = "exited"; break;
    case REC_SEGST_REUSED:
        state = "exited";
        note = "its pid now runs another program";
        break;
    case REC_SEGST_VERSION: state = "version"; break;
    case REC_SEGST_UNREADABLE: state = "unreadable"; break;
    case REC_SEGST_CORRUPT: break;
    case REC_SEGST_FOREIGN:
        if (e->is_symlink || !strcmp(e->error, "not a regular file")) {
            state = "skipped";
            note = kind_of(e->path);
        } else if (e->status == REC_ERR_ACCESS) {
            state = "refused";   /* another user's: not opened */
        } else {
            state = "foreign";
        }
        break;
    }
    /* Zeroes where the header goes: a writer still creating the file
     * (rec_seg_open would say REC_ERR_STARTING), or one that died doing it. */
    if (!s->viewable && (e->status == REC_ERR_STARTING || e->all_zero_header) && strcmp(state, "skipped") &&
        strcmp(state, "refused")) {
        int young = now - e->mtime <= STARTING_SEC;
        state = e->status == REC_ERR_STARTING || young ? "starting" : "incomplete";
        note = e->status == REC_ERR_STARTING || young ? "header not written yet" : "header never written";
    }
    /* Root may watch anyone's segment: it is told whose it is. */
    if (s->viewable && e->foreign_owner) {
        rec_owner_str((uint32_t)e->uid, s->note, sizeof s->note);
        note = NULL;
    }
    snprintf(s->state, sizeof s->state, "%s", state);
    if (note && note[0] && !s->note[0]) snprintf(s->note, sizeof s->note, "%s", note);
}

size_t target_list(struct seg_entry *out, size_t cap) {
    struct rec_seg_entry *v = NULL;
    size_t n = 0, k = 0;
    char err[256];
    time_t now = time(NULL);
    if (rec_seg_list(NULL, &v, &n, err, sizeof err) != REC_OK) return 0;
    for (size_t i = 0; i < n && k < cap; i++) {
        struct seg_entry *s = &out[k];
        memset(s, 0, sizeof *s);
        if (snprintf(s->path, sizeof s->path, "%s", v[i].path) >= (int)sizeof s->path) continue;
        /* The file name is the user's (anyone can create one in /dev/shm):
         * drawn through text_fit like every name, which shows control
         * bytes as '?'. */
        snprintf(s->file, sizeof s->file, "%s", v[i].name);
        describe(&v[i], s, now);
        k++;
    }
    free(v);
    qsort(out, k, sizeof *out, by_viewable_alive_pid);
    return k;
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
     * gives the precise error (no such process, not instrumented, a FIFO,
     * a link...).  lstat, not access: a link named like a segment is one
     * to refuse, whether or not it points anywhere. */
    struct stat st;
    if (all_digits(arg) || strchr(arg, '/') || !strncmp(arg, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX)) ||
        (rec_seg_resolve(arg, path, sizeof path) == REC_OK && lstat(path, &st) == 0)) {
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
        if (!list[i].viewable || !list[i].alive || strcmp(list[i].name, arg)) continue;
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

int target_is_capture(const char *arg, char *err, size_t errlen) {
    struct stat st;
    if (!arg || !*arg || all_digits(arg) || stat(arg, &st) != 0 || !S_ISREG(st.st_mode)) return 0;
    int probe = rec_cap_probe(arg);   /* opened without blocking, checked again once open */
    if (probe < 0) {
        snprintf(err, errlen, "%s: cannot read it", arg);
        return -REC_ERR_ACCESS;
    }
    return probe;
}
