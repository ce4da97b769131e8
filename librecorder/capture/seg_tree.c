/*
 * seg_tree.c -- rec_seg_tree: the segments of a process and of every
 * process it started, living or dead (recorder dump --tree; the viewers
 * may call it too).
 *
 * A segment's header names the process's parent when the segment was
 * made (parent_pid, parent_start: its start time, so a reused pid is not
 * taken for it).  A process belongs to the tree when that chain leads to
 * the root.  A link through a process without a segment (a shell running
 * a pipeline) is followed through /proc while that process lives: its
 * ppid, with the start time checked.  Segments of older writers (no
 * parent in the header) are linked through /proc while they live.
 *
 * Nothing here trusts what it reads: the list comes from rec_seg_list
 * (regular files of ours, never followed links), chains are cut at 256
 * links, and /proc fields are parsed within the bytes read.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "internal.h"
#include "recorder/capture.h"

#define MAX_DEPTH 256

int rec_proc_parent(int pid, int *ppid, uint64_t *start) {
    char buf[1024];
    if (rec__read_proc(pid, "stat", buf, sizeof buf) < 0) return -1;
    char *q = strrchr(buf, ')');
    if (!q) return -1;
    int field = 2;
    *ppid = 0;
    for (; *q && field < 22; q++) {
        if (*q != ' ') continue;
        field++;
        if (field == 4) *ppid = atoi(q + 1);
    }
    *start = strtoull(q, NULL, 10);
    return 0;
}

static int usable(const struct rec_seg_entry *e) {
    return e->pid > 0 && !e->foreign_owner && !e->is_symlink &&
           (e->state == REC_SEGST_ALIVE || e->state == REC_SEGST_CLOSED || e->state == REC_SEGST_DEAD ||
            e->state == REC_SEGST_REUSED);
}

/* The parent of process (pid, start): from its segment's header, else
 * from /proc while it lives.  0, or -1 if unknown. */
static int parent_of(const struct rec_seg_entry *v, size_t n, int pid, uint64_t start, int *ppid, uint64_t *pstart) {
    for (size_t i = 0; i < n; i++)
        if (usable(&v[i]) && v[i].pid == pid && (!start || v[i].proc_start == start) && v[i].parent_pid > 0) {
            *ppid = v[i].parent_pid;
            *pstart = v[i].parent_start;
            return 0;
        }
    uint64_t st;
    int pp;
    if (rec_proc_parent(pid, &pp, &st) != 0 || (start && st != start) || pp <= 0) return -1;
    uint64_t ps;
    int dummy;
    if (rec_proc_parent(pp, &dummy, &ps) != 0) return -1;
    *ppid = pp;
    *pstart = ps;
    return 0;
}

/* Does the chain from e lead to (root, root_start)? */
static int in_tree(const struct rec_seg_entry *v, size_t n, const struct rec_seg_entry *e, int root,
                   uint64_t root_start) {
    int pid = e->pid;
    uint64_t start = e->proc_start;
    for (int depth = 0; depth < MAX_DEPTH; depth++) {
        if (pid == root && (!root_start || !start || start == root_start)) return 1;
        int pp;
        uint64_t ps;
        if (pid <= 1 || parent_of(v, n, pid, start, &pp, &ps) != 0) return 0;
        pid = pp;
        start = ps;
    }
    return 0;
}

int rec_seg_tree(const char *dir, int pid, struct rec_seg_entry **out, size_t *nout, char *err, size_t errlen) {
    *out = NULL;
    *nout = 0;
    struct rec_seg_entry *v = NULL;
    size_t n = 0;
    int rc = rec_seg_list(dir, &v, &n, err, errlen);
    if (rc != REC_OK) return rc;
    /* The root: its live segment, else the newest one of that pid. */
    const struct rec_seg_entry *root = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!usable(&v[i]) || v[i].pid != pid) continue;
        int live = v[i].state == REC_SEGST_ALIVE || v[i].state == REC_SEGST_CLOSED;
        int root_live = root && (root->state == REC_SEGST_ALIVE || root->state == REC_SEGST_CLOSED);
        if (!root || (live && !root_live) || (live == root_live && v[i].mtime > root->mtime)) root = &v[i];
    }
    uint64_t root_start = root ? root->proc_start : 0;
    if (!root) {   /* no segment of its own (a shell): a live process still roots a tree */
        int pp;
        if (rec_proc_parent(pid, &pp, &root_start) != 0) {
            free(v);
            return rec__fail(err, errlen, REC_ERR_NOTFOUND, "no segment of pid %d, and no such process", pid);
        }
    }
    struct rec_seg_entry *res = malloc((n ? n : 1) * sizeof *res);
    if (!res) {
        free(v);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    size_t k = 0;
    if (root) res[k++] = *root;
    for (size_t i = 0; i < n; i++) {
        if (&v[i] == root || !usable(&v[i])) continue;
        if (v[i].pid == pid && root_start && v[i].proc_start != root_start) continue;   /* an older process of that pid */
        if (in_tree(v, n, &v[i], pid, root_start)) res[k++] = v[i];
    }
    free(v);
    if (k == 0) {
        free(res);
        return rec__fail(err, errlen, REC_ERR_NOTFOUND, "pid %d and the processes it started have no segment", pid);
    }
    *out = res;
    *nout = k;
    return REC_OK;
}

int rec_seg_tree_paths(const char *arg, size_t max, char (*paths)[REC_SEG_PATH_MAX], size_t *nout, char *err,
                       size_t errlen) {
    *nout = 0;
    char *end;
    errno = 0;
    long pid = strtol(arg, &end, 10);
    if (errno || end == arg || *end || pid <= 0 || pid > 0x7fffffffL)
        return rec__fail(err, errlen, REC_ERR_USAGE, "--tree wants a pid, not '%.64s'", arg);
    struct rec_seg_entry *v = NULL;
    size_t n = 0;
    int rc = rec_seg_tree(NULL, (int)pid, &v, &n, err, errlen);
    if (rc != REC_OK) return rc;
    if (n > max) {
        free(v);
        return rec__fail(err, errlen, REC_ERR_USAGE,
                         "the tree of pid %ld has %zu processes with segments; at most %zu at once: give their pids "
                         "(recorder ls lists them)",
                         pid, n, max);
    }
    for (size_t i = 0; i < n; i++) snprintf(paths[i], REC_SEG_PATH_MAX, "%s", v[i].path);
    *nout = n;
    free(v);
    return REC_OK;
}
