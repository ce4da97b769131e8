/*
 * descendants.c -- which segments in /dev/shm belong to the command we
 * started or to a process it forked or ran.
 *
 * Every process of the tree inherits RECORDER_LAUNCHER=<our pid>:<our
 * start time>, and its writer copies that into its segment's header.  We
 * watch /dev/shm with inotify and read the header of each new segment: a
 * writer links a segment under its name only once the header is written,
 * so the tag is there however short the process's life.  Only a regular
 * file owned by the command's user, with our tag, counts: another user
 * can neither plant a segment in the tree nor forge one (docs/security.md).
 *
 * A process that cleared its environment carries no tag; for those the
 * parent chain in /proc must lead to us while it lives (we are a child
 * subreaper, so an orphaned grandchild becomes our zombie until we reap
 * it, which we do only after looking at new segments).
 */
#define _GNU_SOURCE
#include "descendants.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "recorder/capture.h"
#include "recorder.h"

#define SHM_DIR "/dev/shm"
#define MAX_TRACKED DESC_MAX_TRACKED
#define PENDING_MS 2000            /* a custom-named segment's header must be readable by then */

static int64_t mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int is_descendant(const struct descendants *d, int pid, uint64_t *start) {
    int p = pid, ppid = 0;
    uint64_t st;
    for (int depth = 0; depth < 256 && p > 1; depth++) {
        if (rec_proc_parent(p, &ppid, &st) != 0) return 0;
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

/* 0, or -1 past the table (or out of memory): not followed, but the last
 * look counts those (desc_end), and desc_free says so -- never a process
 * silently missing. */
static int track(struct descendants *d, const char *name, int pid, uint64_t start) {
    if (find(d, name)) return 0;
    if (d->n == MAX_TRACKED || (!d->segs && !(d->segs = calloc(MAX_TRACKED, sizeof *d->segs)))) return -1;
    struct desc_seg *t = &d->segs[d->n++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->pid = pid;
    t->start = start;
    return 0;
}

/* The effective uid in /proc/<pid>/status ("Uid: real effective ..."):
 * its files are created as that user. */
static int proc_euid(int pid, uid_t *uid) {
    char p[64], buf[4096];
    snprintf(p, sizeof p, "/proc/%d/status", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    const char *u = strstr(buf, "\nUid:");
    unsigned long real, eff;
    if (!u || sscanf(u + 5, "%lu %lu", &real, &eff) != 2) return -1;
    *uid = (uid_t)eff;
    return 0;
}

/* What a candidate's first page says, read without trusting it or
 * opening more than a regular file's first page (never a link, never
 * blocking): which file is ours is decided on these few fields, cheaply,
 * since it runs in the capture's loop; the segment itself is validated
 * whole when it is opened (rec_seg_open). */
struct peek {
    uid_t uid;
    int readable;             /* the header could be read */
    int zero;                 /* its first page is still zeroes (being made) */
    int pid;                  /* the header's, with a recorder magic; else 0 */
    uint64_t start, launcher_start;
    int launcher_pid;
};

static int peek(const char *path, struct peek *k) {
    memset(k, 0, sizeof *k);
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    struct stat st;
    if (fd < 0) {
        if (errno != EACCES || lstat(path, &st) != 0 || !S_ISREG(st.st_mode)) return -1;
        k->uid = st.st_uid;   /* another user's: whose, at least */
        return 0;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        close(fd);
        return -1;
    }
    k->uid = st.st_uid;
    struct rec_header h;
    ssize_t n = pread(fd, &h, sizeof h, 0);
    close(fd);
    if (n != (ssize_t)sizeof h) {
        k->zero = n >= 0 && (uint64_t)st.st_size < sizeof h;
        return 0;
    }
    k->readable = 1;
    const unsigned char *b = (const unsigned char *)&h;
    k->zero = 1;
    for (size_t i = 0; i < sizeof h && k->zero; i++) k->zero = b[i] == 0;
    if (__atomic_load_n(&h.magic, __ATOMIC_RELAXED) != REC_SEG_MAGIC || h.pid <= 0) return 0;
    k->pid = h.pid;
    k->start = h.proc_start;
    k->launcher_pid = h.launcher_pid;
    k->launcher_start = h.launcher_start;
    return 0;
}

/* The pid in a default name, recorder.<pid>, or 0. */
static int name_pid(const char *name) {
    const char *p = name + strlen(REC_SEG_PREFIX);
    char *end;
    long v = isdigit((unsigned char)*p) ? strtol(p, &end, 10) : 0;
    return v > 0 && v <= 0x7fffffff && !*end ? (int)v : 0;
}

/* A process of our tree runs as another user now (runuser, su, a setuid
 * binary, a daemon dropping privileges): its segment is that user's and
 * is not read (docs/security.md).  Noted once per pid, for the caller to
 * say so. */
static void note_other_user(struct descendants *d, int pid, uid_t uid) {
    for (int i = 0; i < d->n_other && i < DESC_MAX_OTHER; i++)
        if (d->other[i].pid == pid) return;
    if (d->n_other < DESC_MAX_OTHER) {
        d->other[d->n_other].pid = pid;
        d->other[d->n_other].uid = uid;
        /* At once, not only at the end: the run may be long. */
        cli_warn("pid %d changed user (it runs as uid %u now): its events will not be in the output", pid,
                 (unsigned)uid);
    }
    d->n_other++;
}

/* Is this segment (peeked) one of our descendants'?  Our launcher tag, or
 * (untagged) a process whose parent chain leads to us, with its start
 * time. */
static int ours(struct descendants *d, const struct peek *k) {
    if (k->launcher_pid == d->self_pid && k->launcher_start == d->self_start) return 1;
    uint64_t start = 0;
    return is_descendant(d, k->pid, &start) && start == k->start;
}

/* Is the new segment `name` one of our descendants'?  A header not
 * readable yet (a writer still making it) is decided in
 * resolve_pending(). */
static int consider(struct descendants *d, const char *name) {
    if (find(d, name)) return 0;
    char path[PATH_MAX];
    snprintf(path, sizeof path, SHM_DIR "/%.255s", name);
    struct peek k;
    if (peek(path, &k) != 0) return 0;
    if (k.uid != d->uid) {
        /* Another user's: never read, never ours; but if a process of our
         * tree made it, say that it changed user. */
        /* The pid it names (or its name's) is a process of our tree
         * that runs as the file's owner now.  Not the tag alone: anyone
         * can write our tag (pid and start time are public) into a file
         * of theirs, and that must change nothing in our run. */
        uint64_t start = 0;
        uid_t now;
        int pid = k.pid ? k.pid : name_pid(name);
        if (pid > 0 && is_descendant(d, pid, &start) && (!k.pid || start == k.start) && proc_euid(pid, &now) == 0 &&
            now == k.uid)
            note_other_user(d, pid, k.uid);
        return 0;
    }
    if (k.pid <= 0) return k.zero ? track(d, name, 0, 0) : 0;
    return ours(d, &k) ? track(d, name, k.pid, k.start) : 0;
}

static void resolve_pending(struct descendants *d) {
    for (int i = 0; i < d->n; i++) {
        struct desc_seg *t = &d->segs[i];
        if (t->pid != 0 || t->tries < 0) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, SHM_DIR "/%.255s", t->name);
        struct peek k;
        if (peek(path, &k) == 0 && k.pid > 0) {
            if (k.uid == d->uid && ours(d, &k)) {
                t->pid = k.pid;
                t->start = k.start;
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

/* Every segment in /dev/shm now: at the start, after the watch's queue
 * overflowed, and at the end.  Nothing tagged with our launcher can be
 * missed there: its writer keeps it while we run (docs/configuration.md). */
/* Every segment in /dev/shm looked at; returns how many of ours did not
 * fit in the table. */
static int rescan(struct descendants *d) {
    DIR *dir = opendir(SHM_DIR);
    if (!dir) return 0;
    struct dirent *de;
    int over = 0;
    while ((de = readdir(dir)) != NULL)
        if (!strncmp(de->d_name, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX))) over -= consider(d, de->d_name);
    closedir(dir);
    return over;
}

static void read_events(struct descendants *d) {
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(d->ino, buf, sizeof buf);
        if (n <= 0) return;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)(void *)p;
            if (ev->mask & IN_Q_OVERFLOW) rescan(d);
            if (ev->len && !strncmp(ev->name, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX))) consider(d, ev->name);
            p += sizeof *ev + ev->len;
        }
    }
}

void desc_start(struct descendants *d, const char *lost_what) {
    memset(d, 0, sizeof *d);
    d->self_pid = (int)getpid();
    int ppid;
    rec_proc_parent(d->self_pid, &ppid, &d->self_start);
    snprintf(d->launcher, sizeof d->launcher, "%d:%llu", d->self_pid, (unsigned long long)d->self_start);
    d->uid = geteuid();
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
    d->child_start = start;
    uid_t u;
    if (proc_euid((int)child, &u) == 0) d->uid = u;
    char own[64];
    snprintf(own, sizeof own, REC_SEG_PREFIX "%d", (int)child);
    track(d, own, (int)child, start);
    rescan(d);   /* anything already there (it may have been quick) */
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
        d->untracked = rescan(d);
    }
    resolve_pending(d);
}

void desc_free(struct descendants *d) {
    if (d->untracked)
        cli_warn("%d new segments were not followed (at most %d are): the command's processes among them are "
                 "not in the output; recorder ls shows them, recorder gc removes those of exited processes",
                 d->untracked, MAX_TRACKED);
    d->untracked = 0;
    free(d->segs);
    d->segs = NULL;
    d->n = 0;
}

void desc_path(const struct desc_seg *t, char *buf, size_t cap) {
    snprintf(buf, cap, SHM_DIR "/%.255s", t->name);
}

int desc_is_tracked(const struct descendants *d, const struct desc_seg *t, const struct rec_seg_entry *e) {
    /* The same process as the one we saw start, and a file its user made:
     * a header anyone can write, a file of that user's nobody else can. */
    return e->uid == d->uid && e->pid == t->pid && (!t->start || e->proc_start == t->start);
}

void desc_remove(const struct descendants *d, const struct desc_seg *t) {
    char path[PATH_MAX];
    desc_path(t, path, sizeof path);
    struct rec_seg_entry e;
    if (t->pid <= 0 || rec_seg_inspect(path, &e) == REC_ERR_NOTFOUND) return;
    if (!desc_is_tracked(d, t, &e)) return;
    if (e.state == REC_SEGST_ALIVE || e.state == REC_SEGST_CLOSED) {
        cli_warn("pid %d is still running: its segment %s is kept", t->pid, path);
        return;
    }
    struct rec_seg_entry again;
    if (rec_seg_inspect(path, &again) != REC_ERR_NOTFOUND && again.ino == e.ino && unlink(path) != 0 &&
        errno != ENOENT)
        cli_warn("cannot remove %s: %s", path, strerror(errno));
}
