/*
 * target.c -- finding the segment to watch (see target.h).
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <dirent.h>
#include <stdio.h>
#include <string.h>

#include "target.h"

#define MAX_LIST 8

int target_all_digits(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* Live segments in /dev/shm whose process is named name (any if NULL).
 * Fills up to MAX_LIST pids; returns how many matched. */
static int scan(const char *name, int *pids, char names[][64]) {
    DIR *d = opendir("/dev/shm");
    if (!d) return 0;
    int n = 0;
    struct dirent *e;
    while ((e = readdir(d))) {
        if (strncmp(e->d_name, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX))) continue;
        char path[300], err[256];
        snprintf(path, sizeof path, "/dev/shm/%s", e->d_name);
        rec_seg *s;
        if (rec_seg_open(path, 0, &s, err, sizeof err) != REC_OK) continue;
        struct rec_seg_info info;
        rec_seg_get_info(s, &info);
        rec_seg_close(s);
        if (!info.alive || (name && strcmp(info.process_name, name))) continue;
        if (n < MAX_LIST) {
            pids[n] = info.pid;
            snprintf(names[n], 64, "%s", info.process_name);
        }
        n++;
    }
    closedir(d);
    return n;
}

static void list(char *buf, size_t cap, const int *pids, char names[][64], int n) {
    size_t off = 0;
    for (int i = 0; i < n && i < MAX_LIST && off < cap; i++)
        off += (size_t)snprintf(buf + off, cap - off, "%s%d %s", i ? ", " : "", pids[i], names[i]);
    if (n > MAX_LIST && off < cap) snprintf(buf + off, cap - off, ", ...");
}

static int open_pid(int pid, rec_seg **out, char *err, size_t errlen) {
    char p[32];
    snprintf(p, sizeof p, "%d", pid);
    return rec_seg_open(p, 0, out, err, errlen);
}

int target_open(const char *arg, rec_seg **out, char *err, size_t errlen) {
    int pids[MAX_LIST];
    char names[MAX_LIST][64];
    char l[512];
    *out = NULL;
    if (arg && (target_all_digits(arg) || strchr(arg, '/'))) return rec_seg_open(arg, 0, out, err, errlen);
    if (arg) {
        /* A segment name (RECORDER_NAME) first, then a process name. */
        int rc = rec_seg_open(arg, 0, out, err, errlen);
        if (rc != REC_ERR_NOTFOUND) return rc;
        int n = scan(arg, pids, names);
        if (n == 1) return open_pid(pids[0], out, err, errlen);
        if (n == 0) {
            snprintf(err, errlen, "no recorded process or segment named %s (see `recorder ls`)", arg);
            return REC_ERR_NOTFOUND;
        }
        list(l, sizeof l, pids, names, n);
        snprintf(err, errlen, "%d recorded processes are named %s: give a PID (%s)", n, arg, l);
        return REC_ERR_USAGE;
    }
    int n = scan(NULL, pids, names);
    if (n == 1) return open_pid(pids[0], out, err, errlen);
    if (n == 0) {
        snprintf(err, errlen, "no recorded process is running: start one, or give a PID or a segment");
        return REC_ERR_NOTFOUND;
    }
    list(l, sizeof l, pids, names, n);
    snprintf(err, errlen, "%d recorded processes are running: give a PID (%s)", n, l);
    return REC_ERR_USAGE;
}

/* A process name is ready once a live segment carries it. */
static int name_ready(const char *arg, void *unused) {
    int pids[MAX_LIST];
    char names[MAX_LIST][64];
    (void)unused;
    return scan(arg, pids, names) > 0;
}

int target_wait(const char *arg, double timeout_s, char *err, size_t errlen) {
    struct rec_wait_opts o = {timeout_s, "recorder-web", 0, name_ready, NULL, NULL};
    return rec_seg_wait(arg, &o, err, errlen);
}
