/*
 * capture_tree.c -- the other processes of a launched command's tree,
 * captured the way the command is (`recorder run`, `recorder capture --
 * CMD`): as soon as descendants.c finds a process's segment, we become
 * its stream-mode consumer and drain it at every pass of the capture,
 * into the same capture file (rec_capture_add_live); when it exits, its
 * last entries and its END are written.  A process we could not follow
 * while it ran (it exited before we saw it, or its segment would not
 * take us as its consumer) is read once at the end, as its ring holds
 * it: whole if its ring held everything, else the run fails naming it
 * and what it could not keep.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_child.h"
#include "capture_loop.h"
#include "cli.h"
#include "recorder/capture.h"

enum { FOL_NEW = 0, FOL_LIVE, FOL_ENDED, FOL_LATER };

struct capture_follow {
    int state;                /* FOL_* */
    rec_seg *seg;             /* FOL_LIVE: open as its consumer */
    uint32_t index;           /* its process in the capture */
    int why;                  /* FOL_LATER: the open's status (0: it had exited) */
};

/* The tracked segment i opened (flags), if it is still the process we
 * saw start, in a file of the command's user. */
static int open_tracked(struct capture_child *c, int i, unsigned flags, rec_seg **seg) {
    const struct desc_seg *t = &c->d.segs[i];
    char path[PATH_MAX], err[512];
    desc_path(t, path, sizeof path);
    rec_seg *s = NULL;
    int rc = rec_seg_open(path, flags, &s, err, sizeof err);
    if (rc != REC_OK) return rc;
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    if (info.pid != t->pid || info.owner_uid != (uint32_t)c->d.uid || (t->start && info.proc_start != t->start)) {
        rec_seg_close(s);
        return REC_ERR_NOTFOUND;
    }
    *seg = s;
    return REC_OK;
}

static struct capture_follow *fol(struct capture_child *c) {
    if (!c->fol) c->fol = calloc(DESC_MAX_TRACKED, sizeof *c->fol);
    return c->fol;
}

int capture_tree_source(struct capture_child *c, rec_seg **seg, int gone) {
    for (int i = 0; i < c->d.n; i++) {
        const struct desc_seg *t = &c->d.segs[i];
        if (t->pid <= 0 || t->pid == c->pid) continue;
        rec_seg *s = NULL;
        if (open_tracked(c, i, 0, &s) != REC_OK) continue;
        struct rec_seg_info info;
        rec_seg_get_info(s, &info);
        rec_seg_close(s);
        /* Checked read-only first, as the command's own (capture_child.c). */
        if (open_tracked(c, i, info.alive && !gone ? REC_OPEN_STREAM : 0, seg) != REC_OK) continue;
        c->source_pid = t->pid;
        return REC_OK;
    }
    return REC_ERR_NOTFOUND;
}

/* Starts following tracked segment i, if its process still runs.  Its
 * header was checked when it was found (descendants.c: our tag or our
 * descendant, the command's user, its pid and start time), and is again
 * once open: a file of that user's that is not the process's own is
 * closed at once, which gives its rings back to flight mode. */
static void follow(struct capture_child *c, rec_capture *cap, int i, struct capture_follow *f) {
    const struct desc_seg *t = &c->d.segs[i];
    f->state = FOL_LATER;     /* read at the end, as it is then */
    f->why = 0;
    if (!rec_pid_alive(t->pid, t->start)) return;   /* exited already: its segment waits for us whole */
    rec_seg *s = NULL;
    int rc = open_tracked(c, i, REC_OPEN_STREAM, &s);
    if (rc != REC_OK) {
        f->why = rc;
        return;
    }
    char err[512];
    rc = rec_capture_add_live(cap, s, &f->index, err, sizeof err);
    if (rc != REC_OK) {
        rec_seg_close(s);   /* back to flight mode */
        f->why = rc;
        return;
    }
    f->seg = s;
    f->state = FOL_LIVE;
}

static void summary_line(const struct capture_child *c, const struct desc_seg *t, const char *how,
                         const struct rec_capture_stats *st) {
    if (c->quiet_tree) return;
    char lost[128];
    fprintf(stderr, "recorder: added pid %d (%s): %llu events (%llu entries); not kept %llu entries "
            "(overwritten before it was read); %s\n", t->pid, how, (unsigned long long)st->events,
            (unsigned long long)st->entries, (unsigned long long)st->history,
            cli_lost_words(lost, sizeof lost, st->dropped, st->overwritten));
}

/* Its process is gone (or the capture ends): its last entries and END. */
static int end_one(struct capture_child *c, rec_capture *cap, int i, struct capture_follow *f) {
    char err[512];
    struct rec_capture_stats st;
    int rc = rec_capture_end_process(cap, f->index, &st, err, sizeof err);
    struct rec_seg_info info;
    rec_seg_get_info(f->seg, &info);
    capture_warn_not_recorded(&info);
    rec_seg_close(f->seg);
    f->seg = NULL;
    f->state = FOL_ENDED;
    if (rc != REC_OK) return cli_error(rc, "pid %d: %s", c->d.segs[i].pid, err);
    summary_line(c, &c->d.segs[i], "captured while it ran", &st);
    return REC_OK;
}

int capture_tree_follow(struct capture_child *c, rec_capture *cap, int check_ends) {
    struct capture_follow *fs = fol(c);
    if (!fs) return cli_error(REC_ERR_NOMEM, "out of memory");
    int rc = REC_OK;
    for (int i = 0; i < c->d.n && rc == REC_OK; i++) {
        const struct desc_seg *t = &c->d.segs[i];
        struct capture_follow *f = &fs[i];
        if (t->pid <= 0 || t->pid == c->source_pid) continue;
        if (f->state == FOL_NEW) follow(c, cap, i, f);
        else if (f->state == FOL_LIVE && check_ends) {
            struct rec_seg_info info;
            rec_seg_get_info(f->seg, &info);
            if (!info.alive || info.truncated) rc = end_one(c, cap, i, f);
        }
    }
    return rc;
}

int capture_tree_finish(struct capture_child *c, rec_capture *cap) {
    desc_end(&c->d);   /* a last look: every segment tagged with us is still there */
    int rc = capture_tree_follow(c, cap, 0);   /* new ones: read below, as they are */
    int other = capture_tree_other_users(c);
    if (rc == REC_OK) rc = other;
    struct capture_follow *fs = c->fol;
    for (int i = 0; fs && i < c->d.n; i++) {
        const struct desc_seg *t = &c->d.segs[i];
        struct capture_follow *f = &fs[i];
        if (f->state == FOL_LIVE) {
            int r = end_one(c, cap, i, f);
            if (rc == REC_OK) rc = r;
            continue;
        }
        if (f->state != FOL_LATER || t->pid <= 0 || t->pid == c->source_pid) continue;
        rec_seg *s = NULL;
        if (open_tracked(c, i, 0, &s) != REC_OK) continue;   /* gone, or not a segment of ours now */
        struct rec_seg_info info;
        rec_seg_get_info(s, &info);
        char err[512], name[256];
        struct rec_capture_stats st;
        int r = rec_capture_add_process(cap, s, &st, err, sizeof err);
        rec_seg_close(s);
        f->state = FOL_ENDED;
        if (r != REC_OK) {
            cli_error(r, "pid %d: %s", t->pid, err);
            if (rc == REC_OK) rc = r;
            break;   /* the file is in question: leave the rest */
        }
        summary_line(c, t, info.alive ? "running, read as it is" : "exited, read as it is", &st);
        /* Not captured while it ran, and its ring did not hold it all:
         * the run does not pass that off as whole. */
        if (st.history + st.overwritten) {
            cli_error(REC_ERR_IO, "pid %d (%s) was not captured while it ran (%s): %llu of its entries were "
                      "overwritten in its ring before they were read (not kept)", t->pid,
                      cli_safe(name, sizeof name, info.process_name),
                      f->why ? rec_status_str(f->why) : "it exited before its segment was seen",
                      (unsigned long long)(st.history + st.overwritten));
            if (rc == REC_OK) rc = REC_ERR_IO;
        }
    }
    return rc;
}

int capture_tree_other_users(struct capture_child *c) {
    desc_end(&c->d);   /* the last look counts too */
    const struct descendants *d = &c->d;
    for (int i = 0; i < d->n_other && i < DESC_MAX_OTHER; i++)
        cli_error(REC_ERR_ACCESS, "pid %d changed user: it runs as uid %u now, not as uid %u (runuser, su, a setuid "
                  "program, a daemon dropping privileges): its segment is that user's and is not read, so its "
                  "events are not in the output (its writer removes the segment at exit: recorder does not wait "
                  "for it); run recorder as that user instead", d->other[i].pid, (unsigned)d->other[i].uid,
                  (unsigned)d->uid);
    if (d->n_other > DESC_MAX_OTHER)
        cli_error(REC_ERR_ACCESS, "%d more processes changed user", d->n_other - DESC_MAX_OTHER);
    return d->n_other ? REC_ERR_ACCESS : REC_OK;
}

void capture_tree_free(struct capture_child *c) {
    for (int i = 0; c->fol && i < c->d.n; i++)
        if (c->fol[i].seg) rec_seg_close(c->fol[i].seg);
    free(c->fol);
    c->fol = NULL;
}
