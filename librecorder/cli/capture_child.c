/*
 * capture_child.c -- the command `recorder capture -- CMD` starts.
 *
 * The command runs in flight mode with large rings until its segment
 * appears and we attach (then stream mode), so what it records before we
 * get there waits in its ring and is captured too.  It keeps its segment
 * after it exits (RECORDER_KEEP=pid:<its pid>) in case it exits before we
 * attach.  The processes it forks or runs inherit the large rings but are
 * not captured; descendants.c finds their segments, and at the end we
 * remove what they and the command left, as `recorder run` does.
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

int capture_child_start(struct capture_child *c, char **cmd, const char *ring_kb, int keep_all) {
    memset(c, 0, sizeof *c);
    const char *env[8];
    int n = 0;
    if (!ring_kb && !getenv("RECORDER_RING_KB")) ring_kb = CAPTURE_CHILD_RING_KB;
    if (ring_kb) {
        env[n++] = "RECORDER_RING_KB";
        env[n++] = ring_kb;
    }
    if (keep_all) {   /* `recorder run`: every segment of the tree is written, then removed */
        env[n++] = "RECORDER_KEEP";
        env[n++] = "1";
    } else if (!getenv("RECORDER_KEEP")) {   /* the user's own setting wins, and the segments are theirs */
        env[n++] = "RECORDER_KEEP";   /* its own segment only, not its children's */
        env[n++] = cli_spawn_pid;
        c->remove_segments = 1;
    } else {
        /* RECORDER_KEEP=0: the tree's processes keep their segments for
         * us all the same (their launcher runs), so they are ours to
         * remove; a true RECORDER_KEEP, or pid:N, keeps them. */
        const char *k = getenv("RECORDER_KEEP");
        c->remove_segments = !strcmp(k, "") || !strcmp(k, "0") || !strcmp(k, "no") || !strcmp(k, "false") ||
                             !strcmp(k, "off");
    }
    desc_start(&c->d, "segments of the processes it starts may be left for `recorder gc`");
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
            *live = !gone;
            return REC_OK;
        }
        if (gone) return REC_ERR_NOTFOUND;   /* the caller says so: an error, or a warning */
        /* A millisecond at first: what it records meanwhile waits in its
         * ring, which a fast writer fills in tens of milliseconds. */
        desc_poll(&c->d, tries < 200 ? 1 : 10);
    }
}

int capture_child_add_tree(struct capture_child *c, rec_capture *cap, int skip_pid, int quiet) {
    desc_end(&c->d);   /* a last look: every segment tagged with us is still there */
    int rc = REC_OK;
    for (int i = 0; i < c->d.n; i++) {
        const struct desc_seg *t = &c->d.segs[i];
        if (t->pid <= 0 || t->pid == c->pid || t->pid == skip_pid) continue;
        char path[PATH_MAX], err[512];
        desc_path(t, path, sizeof path);
        rec_seg *s = NULL;
        if (rec_seg_open(path, 0, &s, err, sizeof err) != REC_OK) continue;   /* gone, or not a segment now */
        struct rec_seg_info info;
        rec_seg_get_info(s, &info);
        /* Still the process we saw start, in a file of its user's. */
        int ours = info.pid == t->pid && info.owner_uid == (uint32_t)c->d.uid && (!t->start || info.proc_start == t->start);
        struct rec_capture_stats st;
        int r = ours ? rec_capture_add_process(cap, s, &st, err, sizeof err) : REC_OK;
        rec_seg_close(s);
        if (!ours) continue;
        if (r != REC_OK) {
            cli_error(r, "pid %d: %s", t->pid, err);
            if (rc == REC_OK) rc = r;
            break;   /* the file is in question: leave the rest */
        }
        char name[256];
        if (!quiet)
            fprintf(stderr, "recorder: added pid %d (%s, %s): %llu events (%llu entries); not kept %llu entries "
                    "(overwritten before it was read)\n", t->pid, cli_safe(name, sizeof name, info.process_name),
                    info.alive ? "running" : "exited", (unsigned long long)st.events, (unsigned long long)st.entries,
                    (unsigned long long)(st.history + st.overwritten));
    }
    return rc;
}

int capture_child_tree_only(struct capture_child *c, struct rec_out *file, int raw, struct rec_seg_info *first,
                            struct rec_capture_stats *st) {
    desc_end(&c->d);
    for (int i = 0; i < c->d.n; i++) {
        const struct desc_seg *t = &c->d.segs[i];
        if (t->pid <= 0 || t->pid == c->pid) continue;
        char path[PATH_MAX], err[1400];
        desc_path(t, path, sizeof path);
        rec_seg *s = NULL;
        if (rec_seg_open(path, 0, &s, err, sizeof err) != REC_OK) continue;
        rec_seg_get_info(s, first);
        if (first->pid != t->pid || first->owner_uid != (uint32_t)c->d.uid ||
            (t->start && first->proc_start != t->start)) {
            rec_seg_close(s);
            continue;
        }
        struct rec_capture_opts o = {0, raw, 0};
        rec_capture *cap = NULL;
        int rc = rec_capture_start_out(s, file, &o, &cap, err, sizeof err);   /* file taken over */
        if (rc != REC_OK) {
            rec_seg_close(s);
            return cli_error(rc, "%s", err);
        }
        /* The others first; its own entries come with the end's drain. */
        int r = capture_child_add_tree(c, cap, t->pid, 0);
        rc = rec_capture_finish(cap, REC_CAPTURE_END_EXITED, st, err, sizeof err);
        rec_seg_close(s);
        if (rc != REC_OK) return cli_error(rc, "%s", err);
        return r;
    }
    rec_out_abort(file);
    return REC_ERR_NOTFOUND;
}

void capture_child_cleanup(struct capture_child *c) {
    desc_end(&c->d);
    if (c->remove_segments)
        for (int i = 0; i < c->d.n; i++) desc_remove(&c->d, &c->d.segs[i]);
    desc_free(&c->d);
}
