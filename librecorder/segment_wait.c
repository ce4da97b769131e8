/*
 * segment_wait.c -- wait for a program to start recording (--wait).
 *
 * A writer creates its segment at its first event, so `recorder-top $!`
 * right after starting a program would find nothing.  Every attaching
 * tool waits here, one way: poll every 50 ms, looking only as
 * rec_seg_open looks (lstat, the no-follow, non-blocking open of
 * segment_find.c, pread of a header), until the segment is there, the
 * process is gone, or the time is up.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

#define POLL_NS 50000000L

static double mono_sec(void) { return (double)rec__clock_ns(CLOCK_MONOTONIC) / 1e9; }

static int is_pid(const char *t) {
    if (!*t) return 0;
    for (; *t; t++)
        if (!isdigit((unsigned char)*t)) return 0;
    return 1;
}

/* Alive, as far as we can tell: there, and not a zombie (a zombie has
 * exited; only its parent has not reaped it). */
static int alive(int pid) {
    if (kill((pid_t)pid, 0) != 0 && errno == ESRCH) return 0;
    return rec__proc_start_of(pid) != UINT64_MAX;
}

/* A named segment (or a path) is ready when it exists and is not a
 * regular file of ours still being created (a whole header of zeroes).
 * Anything else -- a FIFO, a link, another user's file -- is "ready":
 * rec_seg_open refuses it with the precise reason. */
static int name_ready(const char *path) {
    struct stat st;
    if (lstat(path, &st) != 0) return 0;
    if (!S_ISREG(st.st_mode)) return 1;
    int fd = rec__open_regular(path, 0, &st, NULL, 0);
    if (fd < 0) return 1;
    struct rec_header h;
    ssize_t n = pread(fd, &h, sizeof h, 0);
    close(fd);
    if (n != (ssize_t)sizeof h) return 1;
    const unsigned char *b = (const unsigned char *)&h;
    for (size_t i = 0; i < sizeof h; i++)
        if (b[i]) return 1;
    return 0;
}

static void notice(const struct rec_wait_opts *o, const char *what) {
    if (o->quiet) return;
    fprintf(stderr, "%s%swaiting for %s to start recording... (Ctrl-C to stop)\n", o->prog ? o->prog : "",
            o->prog ? ": " : "", what);
    fflush(stderr);
}

int rec_seg_wait(const char *target, const struct rec_wait_opts *o, char *err, size_t errlen) {
    static const struct rec_wait_opts none;
    if (!o) o = &none;
    char path[256], shown[96], what[128];
    if (!target || rec_seg_resolve(target, path, sizeof path) != REC_OK) return REC_OK;   /* open says why */
    int pid = 0;
    uint64_t start = 0;
    long euid = -1;
    if (is_pid(target)) {
        long v = strtol(target, NULL, 10);
        if (v <= 0 || v > 0x3fffffff) return REC_OK;
        pid = (int)v;
        /* Not running when we first look: nothing to wait for; what it
         * left (or that there is no such process) is rec_seg_open's to say. */
        if (!alive(pid)) return REC_OK;
        start = rec__proc_start_of(pid);   /* 0 if /proc does not say: any segment of its pid then */
        euid = rec__proc_euid(pid);
        /* Another user's program: we could never open its segment (only
         * root may), so there is nothing to wait for; open says why. */
        if (euid >= 0 && (uid_t)euid != geteuid() && geteuid() != 0) return REC_OK;
        snprintf(what, sizeof what, "PID %d", pid);
    } else {
        rec__copy_printable(shown, sizeof shown, target, 80);
        snprintf(what, sizeof what, "%s", shown);
    }
    double t0 = mono_sec();
    for (unsigned polls = 0;; polls++) {
        if (o->stop && *o->stop) return -1;
        if (pid) {
            if (rec__pid_segment_exists(pid, start, euid)) return REC_OK;
            /* Gone, or its pid now another program's: one last look, as it
             * may have recorded just before it exited. */
            uint64_t now = rec__proc_start_of(pid);
            if (!alive(pid) || (start && now && now != start)) {
                if (rec__pid_segment_exists(pid, start, euid)) return REC_OK;
                return rec__fail(err, errlen, REC_ERR_EXITED,
                                 "process %d exited without recording (is it instrumented, and did it record an "
                                 "event?)",
                                 pid);
            }
        } else if (name_ready(path) || (o->ready && polls % 10 == 0 && o->ready(target, o->arg))) {
            /* The caller's lookup (a viewer's process names) may open
             * every segment there is: every 10th poll, not every one. */
            return REC_OK;
        }
        double waited = mono_sec() - t0;
        if (o->timeout_s > 0 && waited >= o->timeout_s) {
            if (pid)
                return rec__fail(err, errlen, REC_ERR_TIMEOUT,
                                 "process %d has not started recording after %g s (--wait=%g)", pid, o->timeout_s,
                                 o->timeout_s);
            return rec__fail(err, errlen, REC_ERR_TIMEOUT, "nothing named %s has started recording after %g s (--wait=%g)",
                             shown, o->timeout_s, o->timeout_s);
        }
        if (polls == 0) notice(o, what);
        struct timespec d = {0, POLL_NS};
        nanosleep(&d, NULL);   /* EINTR: a signal that did not end us; look again */
    }
}
