/*
 * capture_child.c -- the command `recorder capture -- CMD` starts.
 *
 * The command runs in flight mode with large rings until its segment
 * appears and we attach (then stream mode), so what it records before we
 * get there waits in its ring and is captured too.  It keeps its segment
 * after it exits while we run (RECORDER_LAUNCHER names us), in case it
 * exits before we attach.  The processes it forks or runs inherit the large rings;
 * descendants.c finds their segments, capture_tree.c captures them into
 * the same file, and at the end we remove what they and the command
 * left.
 */
#define _GNU_SOURCE
#include "capture_child.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "recorder/capture.h"
#include "spawn.h"

/* A RECORDER_KEEP of the user's own that keeps segments (1, or pid:N). */
static int user_keeps(void) {
    const char *k = getenv("RECORDER_KEEP");
    return k && strcmp(k, "") && strcmp(k, "0") && strcmp(k, "no") && strcmp(k, "false") && strcmp(k, "off");
}

int capture_child_start(struct capture_child *c, char **cmd, const char *ring_kb, const char *cuda_lib) {
    memset(c, 0, sizeof *c);
    const char *env[12];
    int n = 0;
    if (!ring_kb && !getenv("RECORDER_RING_KB")) ring_kb = CAPTURE_CHILD_RING_KB;
    if (ring_kb) {
        env[n++] = "RECORDER_RING_KB";
        env[n++] = ring_kb;
    }
    /* Every process of the tree keeps its segment at exit while we run
     * (its launcher tag, below): we read it, then remove it.  A
     * RECORDER_KEEP of the user's own keeps them (the segments are
     * theirs, and marked kept on purpose for recorder gc). */
    c->remove_segments = !user_keeps();
    desc_start(&c->d, "segments of the processes it starts may be left for `recorder gc`");
    if (cuda_lib) {   /* --cuda: the CUDA driver and NVTX load the GPU library (docs/gpu.md) */
        env[n++] = "CUDA_INJECTION64_PATH";
        env[n++] = cuda_lib;
        env[n++] = "NVTX_INJECTION64_PATH";
        env[n++] = cuda_lib;
    }
    env[n++] = "RECORDER_LAUNCHER";   /* how we know its tree's segments (descendants.c) */
    env[n++] = c->d.launcher;
    env[n] = NULL;
    int rc = cli_spawn(cmd, env, &c->pid);
    if (rc != 0) {
        desc_end(&c->d);
        desc_free(&c->d);
        return rc;
    }
    desc_child(&c->d, c->pid);
    return 0;
}

int capture_child_exited(struct capture_child *c) { return desc_poll(&c->d, 0); }

int capture_child_wait(struct capture_child *c) {
    while (!desc_poll(&c->d, 20)) {}
    return cli_exit_status(c->d.child_status);
}

/* Is s the segment of the process we started, and only that?  A regular
 * file (rec_seg_open takes no other), owned by its user, naming its pid,
 * and either its start time (read as soon as it started) or, if we missed
 * that, our launcher tag: another user can make a file with any header,
 * but not one owned by the program's user. */
static int is_ours(const struct capture_child *c, rec_seg *s) {
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    if (info.pid != c->pid || info.owner_uid != (uint32_t)c->d.uid) return 0;
    if (c->d.child_start) return info.proc_start == c->d.child_start;
    return info.launcher_pid == c->d.self_pid && info.launcher_start == c->d.self_start;
}

/* Opens target if it is the segment of the process we started. */
static int open_if_ours(const struct capture_child *c, const char *target, unsigned flags, rec_seg **seg) {
    char err[512];
    rec_seg *s = NULL;
    if (rec_seg_open(target, flags, &s, err, sizeof err) != REC_OK) return REC_ERR_NOTFOUND;
    if (!is_ours(c, s)) {
        rec_seg_close(s);
        return REC_ERR_NOTFOUND;
    }
    *seg = s;
    return REC_OK;
}

/* Its segment, if it has one yet: by RECORDER_NAME if it inherited one,
 * else by pid.  Checked read-only first: a name that turns out to be
 * another program's must not be switched to stream mode, even briefly. */
static int try_open(struct capture_child *c, unsigned flags, rec_seg **seg) {
    char target[64];
    const char *name = getenv("RECORDER_NAME");
    for (int i = 0; i < 2; i++) {
        if (i == 0 && !name) continue;
        if (i == 0) snprintf(target, sizeof target, "%.63s", name);
        else snprintf(target, sizeof target, "%d", (int)c->pid);
        rec_seg *s = NULL;
        if (open_if_ours(c, target, 0, &s) != REC_OK) continue;
        if (!flags) {
            *seg = s;
            return REC_OK;
        }
        rec_seg_close(s);
        if (open_if_ours(c, target, flags, seg) == REC_OK) return REC_OK;
    }
    return REC_ERR_NOTFOUND;
}

int capture_child_attach(struct capture_child *c, rec_seg **seg, int *live) {
    *seg = NULL;
    for (int tries = 0;; tries++) {
        /* Exited first?  Then whatever it left, read as it is. */
        int gone = capture_child_exited(c);
        if (try_open(c, gone ? 0 : REC_OPEN_STREAM, seg) == REC_OK) {
            c->source_pid = c->pid;
            *live = !gone;
            return REC_OK;
        }
        /* It has not recorded (yet), but a process it started has (a
         * shell running `a | b`): that one is the capture's first
         * process, and the command is followed like the others if it
         * records later. */
        if (capture_tree_source(c, seg, gone) == REC_OK) {
            *live = !gone;
            return REC_OK;
        }
        if (gone) return REC_ERR_NOTFOUND;   /* the caller says so: an error, or a warning */
        /* A millisecond at first: what it records meanwhile waits in its
         * ring, which a fast writer fills in tens of milliseconds. */
        desc_poll(&c->d, tries < 200 ? 1 : 10);
    }
}

void capture_child_cleanup(struct capture_child *c) {
    capture_tree_free(c);
    desc_end(&c->d);
    if (c->remove_segments)
        for (int i = 0; i < c->d.n; i++) desc_remove(&c->d, &c->d.segs[i]);
    desc_free(&c->d);
}
