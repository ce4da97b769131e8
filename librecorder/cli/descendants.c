/*
 * descendants.c -- which segments in /dev/shm belong to the command we
 * started or to a process it forked or ran.
 *
 * A segment is created by its live process, so at that moment
 * /proc/<pid> shows its parent chain, which must lead to us: we watch
 * /dev/shm with inotify and look at each new segment at once.  We are a
 * child subreaper, so an orphaned grandchild becomes our child (and a
 * zombie of ours until we reap it, which we do only after looking at new
 * segments).  A grandchild that lives and is reaped by its own parent
 * faster than we can read /proc is missed; its segment stays for
 * `recorder gc`.
 */
#define _GNU_SOURCE
#include "descendants.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "recorder/capture.h"

#define SHM_DIR "/dev/shm"
#define MAX_TRACKED 4096
#define PENDING_MS 2000            /* a custom-named segment's header must be readable by then */

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Fields 4 (ppid) and 22 (starttime) of /proc/<pid>/stat; -1 if gone. */
static int proc_stat(int pid, int *ppid, uint64_t *start) {
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    char *q = strrchr(buf, ')');
    if (!q) return -1;
    int field = 2;
    for (; *q && field < 22; q++) {
        if (*q != ' ') continue;
        field++;
        if (field == 4) *ppid = atoi(q + 1);
    }
    *start = strtoull(q, NULL, 10);
    return 0;
}

static int is_descendant(const struct descendants *d, int pid, uint64_t *start) {
    int p = pid, ppid = 0;
    uint64_t st;
    for (int depth = 0; depth < 256 && p > 1; depth++) {
        if (proc_stat(p, &ppid, &st) != 0) return 0;
        if (p == pid) *start = st;
        if (ppid == d->self_pid) return 1;
        p = ppid;
    }
    return 0;
}

static struct desc_seg *find(struct descendants *d, const char *name) {
    for (int i = 0; i < d->n; i++)
        if (!strcmp(d->segs[i].name, name)) return &d->segs[i];
    return NULL;
}

static void track(struct descendants *d, const char *name, int pid, uint64_t start) {
    if (d->n == MAX_TRACKED || find(d, name)) return;
    if (!d->segs && !(d->segs = calloc(MAX_TRACKED, sizeof *d->segs))) return;
    struct desc_seg *t = &d->segs[d->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->pid = pid;
    t->start = start;
}

/* Is the new segment `name` one of our descendants'?  A pid name is
 * checked at once; a custom name once its header is readable. */
static void consider(struct descendants *d, const char *name) {
    const char *rest = name + strlen(REC_SEG_PREFIX);
    int digits = *rest != 0;
    for (const char *c = rest; *c; c++) digits &= isdigit((unsigned char)*c) != 0;
    if (find(d, name)) return;
    if (digits) {
        int pid = atoi(rest);
        uint64_t start = 0;
        if (pid == d->child || is_descendant(d, pid, &start)) {
            if (pid == d->child) is_descendant(d, pid, &start);
            track(d, name, pid, start);
        }
        return;
    }
    track(d, name, 0, 0);  /* decided in resolve_pending() */
}

static void resolve_pending(struct descendants *d) {
    for (int i = 0; i < d->n; i++) {
        struct desc_seg *t = &d->segs[i];
        if (t->pid != 0 || t->tries < 0) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, SHM_DIR "/%.255s", t->name);
        struct rec_seg_entry e;
        uint64_t start = 0;
        if (rec_seg_inspect(path, &e) == REC_OK && e.pid > 0) {
            if (is_descendant(d, e.pid, &start) && start == e.proc_start) {
                t->pid = e.pid;
                t->start = start;
            } else {
                t->tries = -1;  /* not ours */
            }
        } else if (t->tries++ == 0) {
            t->since_ms = mono_ms();
        } else if (mono_ms() - t->since_ms > PENDING_MS) {
            t->tries = -1;   /* never became readable */
        }
    }
}

static void read_events(struct descendants *d) {
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(d->ino, buf, sizeof buf);
        if (n <= 0) return;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)(void *)p;
            if (ev->len && !strncmp(ev->name, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX))) consider(d, ev->name);
            p += sizeof *ev + ev->len;
        }
    }
}

void desc_start(struct descendants *d, const char *lost_what) {
    memset(d, 0, sizeof *d);
    d->self_pid = (int)getpid();
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    d->ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (d->ino >= 0 && inotify_add_watch(d->ino, SHM_DIR, IN_CREATE) < 0) {
        close(d->ino);
        d->ino = -1;
    }
    if (d->ino < 0) cli_warn("cannot watch " SHM_DIR " (%s): %s", strerror(errno), lost_what);
}

void desc_child(struct descendants *d, pid_t child) {
    d->child = child;
    uint64_t start = 0;
    is_descendant(d, (int)child, &start);
    char own[64];
    snprintf(own, sizeof own, REC_SEG_PREFIX "%d", (int)child);
    track(d, own, (int)child, start);
}

int desc_poll(struct descendants *d, int timeout_ms) {
    if (d->ino >= 0) {
        struct pollfd pfd = {d->ino, POLLIN, 0};
        if (timeout_ms > 0) poll(&pfd, 1, timeout_ms);
        read_events(d);
    } else if (timeout_ms > 0) {
        usleep((useconds_t)timeout_ms * 1000);
    }
    resolve_pending(d);
    int st;
    pid_t p;
    while ((p = waitpid(-1, &st, WNOHANG)) > 0)
        if (p == d->child) {
            d->child_status = st;
            d->child_done = 1;
        }
    if (p < 0 && errno == ECHILD) d->child_done = 1;
    return d->child_done;
}

void desc_end(struct descendants *d) {
    if (d->ino >= 0) {
        read_events(d);
        close(d->ino);
        d->ino = -1;
    }
    resolve_pending(d);
}

void desc_free(struct descendants *d) {
    free(d->segs);
    d->segs = NULL;
    d->n = 0;
}

void desc_path(const struct desc_seg *t, char *buf, size_t cap) {
    snprintf(buf, cap, SHM_DIR "/%.255s", t->name);
}

void desc_remove(const struct desc_seg *t) {
    char path[PATH_MAX];
    desc_path(t, path, sizeof path);
    struct rec_seg_entry e;
    if (t->pid <= 0 || rec_seg_inspect(path, &e) == REC_ERR_NOTFOUND) return;
    /* The same process as the one we saw start? */
    if (e.pid != t->pid || (t->start && e.proc_start != t->start)) return;
    if (e.state == REC_SEGST_ALIVE || e.state == REC_SEGST_CLOSED) {
        cli_warn("pid %d is still running: its segment %s is kept", t->pid, path);
        return;
    }
    struct rec_seg_entry again;
    if (rec_seg_inspect(path, &again) != REC_ERR_NOTFOUND && again.ino == e.ino && unlink(path) != 0 &&
        errno != ENOENT)
        cli_warn("cannot remove %s: %s", path, strerror(errno));
}
