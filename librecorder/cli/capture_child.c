/*
 * capture_child.c -- the command `recorder capture -- CMD` starts.
 *
 * The command runs in flight mode with large rings until its segment
 * appears and we attach (then stream mode), so what it records before we
 * get there waits in its ring and is captured too.  It keeps its segment
 * after it exits (RECORDER_KEEP=1) in case it exits before we attach; we
 * remove that segment at the end, as `recorder run` does.
 */
#define _GNU_SOURCE
#include "capture_child.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "recorder/capture.h"
#include "spawn.h"

int capture_child_start(struct capture_child *c, char **cmd, const char *ring_kb) {
    memset(c, 0, sizeof *c);
    const char *env[6];
    int n = 0;
    if (!ring_kb && !getenv("RECORDER_RING_KB")) ring_kb = CAPTURE_CHILD_RING_KB;
    if (ring_kb) {
        env[n++] = "RECORDER_RING_KB";
        env[n++] = ring_kb;
    }
    if (!getenv("RECORDER_KEEP")) {   /* the user's own setting wins, and the segment is theirs */
        env[n++] = "RECORDER_KEEP";
        env[n++] = "1";
        c->remove_segment = 1;
    }
    env[n] = NULL;
    return cli_spawn(cmd, env, &c->pid);
}

int capture_child_exited(struct capture_child *c) {
    if (c->reaped) return 1;
    int st;
    pid_t p = waitpid(c->pid, &st, WNOHANG);
    if (p == c->pid || (p < 0 && errno == ECHILD)) {
        c->reaped = 1;
        c->status = p == c->pid ? st : 0;
    }
    return c->reaped;
}

int capture_child_wait(struct capture_child *c) {
    while (!c->reaped) {
        int st;
        pid_t p = waitpid(c->pid, &st, 0);
        if (p == c->pid) {
            c->reaped = 1;
            c->status = st;
        } else if (p < 0 && errno != EINTR) {
            c->reaped = 1;
        }
    }
    return cli_exit_status(c->status);
}

/* Its segment, if it has one yet: by RECORDER_NAME if it inherited one
 * (checking it is really its), else by pid. */
static int try_open(struct capture_child *c, unsigned flags, rec_seg **seg) {
    char target[64], err[512];
    const char *name = getenv("RECORDER_NAME");
    for (int i = 0; i < 2; i++) {
        if (i == 0 && !name) continue;
        if (i == 0) snprintf(target, sizeof target, "%.63s", name);
        else snprintf(target, sizeof target, "%d", (int)c->pid);
        rec_seg *s = NULL;
        if (rec_seg_open(target, flags, &s, err, sizeof err) != REC_OK) continue;
        struct rec_seg_info info;
        rec_seg_get_info(s, &info);
        if (info.pid == c->pid) {
            *seg = s;
            return REC_OK;
        }
        rec_seg_close(s);
    }
    return REC_ERR_NOTFOUND;
}

int capture_child_attach(struct capture_child *c, rec_seg **seg, int *live) {
    *seg = NULL;
    for (int tries = 0;; tries++) {
        /* Exited first?  Then whatever it left, read as it is. */
        int gone = capture_child_exited(c);
        if (try_open(c, gone ? 0 : REC_OPEN_STREAM, seg) == REC_OK) {
            *live = !gone;
            return REC_OK;
        }
        if (gone)
            return cli_error(REC_ERR_NOTFOUND,
                             "pid %d exited (status %d) without recording anything: is the program instrumented "
                             "(see docs/quickstart.md)?",
                             (int)c->pid, cli_exit_status(c->status));
        /* A millisecond at first: what it records meanwhile waits in its
         * ring, which a fast writer fills in tens of milliseconds. */
        struct timespec d = {0, tries < 200 ? 1000000 : 10000000};
        nanosleep(&d, NULL);
    }
}

void capture_child_cleanup(struct capture_child *c, const char *path) {
    if (!c->remove_segment || !c->reaped || !path || !path[0]) return;
    struct rec_seg_entry e;
    if (rec_seg_inspect(path, &e) == REC_ERR_NOTFOUND || e.pid != c->pid) return;
    if (e.state == REC_SEGST_ALIVE || e.state == REC_SEGST_CLOSED) return;   /* not gone after all */
    if (unlink(path) != 0 && errno != ENOENT) cli_warn("cannot remove %s: %s", path, strerror(errno));
}
