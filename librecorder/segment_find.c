/*
 * segment_find.c -- which file is a process's segment, and opening files
 * in /dev/shm without trusting them.
 *
 * /dev/shm is writable by every local user.  Anything there may be a
 * FIFO (open() would block forever), a symlink to a file of root's, a
 * file of another user's made to look like a segment, or a segment whose
 * name says one pid and whose header says another.  So a reader:
 *   - opens with O_NONBLOCK | O_NOFOLLOW and looks (fstat) before using;
 *   - accepts only regular files, owned by itself (root may read anyone's,
 *     and is told whose);
 *   - finds a pid's segment by the header's pid and process start time,
 *     not by the name alone: a writer that found its name taken falls back
 *     to recorder.<pid>.<suffix> (docs/format.md, "Where segments live").
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "internal.h"

static const char *kind_of(mode_t m) {
    if (S_ISFIFO(m)) return "a FIFO";
    if (S_ISSOCK(m)) return "a socket";
    if (S_ISCHR(m)) return "a character device";
    if (S_ISBLK(m)) return "a block device";
    if (S_ISDIR(m)) return "a directory";
    if (S_ISLNK(m)) return "a symbolic link";
    return "not a regular file";
}

int rec__open_regular(const char *path, int rdwr, struct stat *st, char *err, size_t errlen) {
    /* Look before opening: opening a device can have effects of its own. */
    if (lstat(path, st) == 0 && !S_ISREG(st->st_mode))
        return -rec__fail(err, errlen, REC_ERR_FORMAT, "%s: %s, not a segment: skipped", path, kind_of(st->st_mode));
    int fd = open(path, (rdwr ? O_RDWR : O_RDONLY) | O_NONBLOCK | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        if (e == ELOOP) {
            /* O_NOFOLLOW on a symlink; say what it is, never where it points. */
            return -rec__fail(err, errlen, REC_ERR_FORMAT, "%s: a symbolic link (not followed)", path);
        }
        if (e == ENOENT) return -rec__fail(err, errlen, REC_ERR_NOTFOUND, "%s: no such file", path);
        return -rec__fail(err, errlen, e == EACCES || e == EPERM ? REC_ERR_ACCESS : REC_ERR_IO, "%s: %s", path,
                          strerror(e));
    }
    if (fstat(fd, st) != 0) {
        int e = errno;
        close(fd);
        return -rec__fail(err, errlen, REC_ERR_IO, "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode)) {
        close(fd);
        return -rec__fail(err, errlen, REC_ERR_FORMAT, "%s: %s, not a segment: skipped", path, kind_of(st->st_mode));
    }
    uid_t me = geteuid();
    if (st->st_uid != me && me != 0) {
        close(fd);
        return -rec__fail(err, errlen, REC_ERR_ACCESS, "%s: owned by uid %u, not by you (uid %u): refused", path,
                          (unsigned)st->st_uid, (unsigned)me);
    }
    /* Back to blocking: a regular file never blocks, and later reads must
     * not see EAGAIN from a flag meant for open. */
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

int rec__open_user_file(const char *path, struct stat *st, char *err, size_t errlen) {
    /* A user's own symlink to a file is fine to read through; a FIFO or a
     * device is never opened (it could block, or do something). */
    if (stat(path, st) != 0) {
        int e = errno;
        return -rec__fail(err, errlen,
                          e == ENOENT ? REC_ERR_NOTFOUND : e == EACCES || e == EPERM ? REC_ERR_ACCESS : REC_ERR_IO,
                          "%s: %s", path, strerror(e));
    }
    if (!S_ISREG(st->st_mode))
        return -rec__fail(err, errlen, REC_ERR_FORMAT, "%s: %s, not a recorder file", path, kind_of(st->st_mode));
    struct stat st2;
    int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (fd < 0) {
        int e = errno;
        return -rec__fail(err, errlen, e == EACCES || e == EPERM ? REC_ERR_ACCESS : REC_ERR_IO, "%s: %s", path,
                          strerror(e));
    }
    if (fstat(fd, &st2) != 0 || !S_ISREG(st2.st_mode) || st2.st_ino != st->st_ino || st2.st_dev != st->st_dev) {
        close(fd);
        return -rec__fail(err, errlen, REC_ERR_FORMAT, "%s: replaced while being opened", path);
    }
    *st = st2;
    int fl = fcntl(fd, F_GETFL);
    if (fl >= 0) fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
    return fd;
}

/* A candidate's header, read with pread (never mapped: the file may be
 * anything), and its owner.  Returns 1 if it is a published segment of
 * pid. */
static int header_of(const char *path, int pid, struct rec_header *h, uid_t *owner) {
    struct stat st;
    int fd = rec__open_regular(path, 0, &st, NULL, 0);
    if (fd < 0) return 0;
    ssize_t n = pread(fd, h, sizeof *h, 0);
    close(fd);
    *owner = st.st_uid;
    return n == (ssize_t)sizeof *h && h->magic == REC_SEG_MAGIC && h->pid == pid;
}

/* The effective uid of a running process ("Uid: real effective ..." in
 * /proc/<pid>/status): its segment is created as that user.  -1 if gone. */
long rec__read_proc(int pid, const char *file, char *buf, size_t cap) {
    char p[96];
    snprintf(p, sizeof p, "/proc/%d/%s", pid, file);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, cap - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    return (long)n;
}

long rec__proc_euid(int pid) {
    char buf[4096];
    if (rec__read_proc(pid, "status", buf, sizeof buf) < 0) return -1;
    const char *u = strstr(buf, "\nUid:");
    unsigned long real, eff;
    if (!u || sscanf(u + 5, "%lu %lu", &real, &eff) != 2) return -1;
    return (long)eff;
}

/* How much a candidate looks like the process's segment: owned by the
 * process's user (or, the process gone, by us) first -- anyone can write
 * any header, nobody can make a file another user owns -- then with the
 * process's start time, then the newest. */
static int score(const struct rec_header *h, uid_t owner, long euid, uint64_t start, int running) {
    int by_owner = euid >= 0 ? owner == (uid_t)euid : owner == geteuid();
    int exact = running && h->proc_start == start;
    return by_owner * 2 + exact;
}

/* Keeps in earlier the newest segment of an earlier process seen so far. */
static void keep_newest(char *earlier, size_t cap, uint64_t *earlier_start, const char *cand, uint64_t start) {
    if (earlier[0] && start <= *earlier_start) return;
    snprintf(earlier, cap, "%s", cand);
    *earlier_start = start;
}

int rec__find_pid_segment(int pid, char *path, size_t cap) {
    char plain[96];
    snprintf(plain, sizeof plain, "/dev/shm/" REC_SEG_PREFIX "%d", pid);
    snprintf(path, cap, "%s", plain);
    uint64_t start = rec__proc_start_of(pid);
    int running = start != 0 && start != UINT64_MAX;
    long euid = running ? rec__proc_euid(pid) : -1;
    struct rec_header h;
    uid_t owner;
    int best = -1;
    uint64_t best_start = 0;
    /* A running process's segment has its start time: one with another is
     * what an earlier process with this pid left (a crash, then the pid
     * reused), never this process's data.  The newest such is named in
     * the error (its name reads it), not opened for the pid. */
    char earlier[512] = "";
    uint64_t earlier_start = 0;
    /* The usual case: the plain name is this very process's. */
    if (header_of(plain, pid, &h, &owner)) {
        if (running && h.proc_start != start) {
            keep_newest(earlier, sizeof earlier, &earlier_start, plain, h.proc_start);
        } else {
            best = score(&h, owner, euid, start, running);
            best_start = h.proc_start;
            if (best == 3 || (!running && best >= 2)) return 0;
        }
    }
    char prefix[64];
    int plen = snprintf(prefix, sizeof prefix, REC_SEG_PREFIX "%d.", pid);
    DIR *d = opendir("/dev/shm");
    if (d) {
        struct dirent *de;
        while ((de = readdir(d)) != NULL) {
            if (strncmp(de->d_name, prefix, (size_t)plen) != 0 || !de->d_name[plen]) continue;
            char cand[512];
            snprintf(cand, sizeof cand, "/dev/shm/%.255s", de->d_name);
            if (!header_of(cand, pid, &h, &owner)) continue;
            if (running && h.proc_start != start) {
                keep_newest(earlier, sizeof earlier, &earlier_start, cand, h.proc_start);
                continue;
            }
            int sc = score(&h, owner, euid, start, running);
            if (sc > best || (sc == best && h.proc_start > best_start)) {
                snprintf(path, cap, "%s", cand);
                best = sc;
                best_start = h.proc_start;
            }
        }
        closedir(d);
    }
    if (best >= 0) return 0;
    if (earlier[0]) {
        snprintf(path, cap, "%s", earlier);
        return -2;
    }
    struct stat lst;
    return lstat(plain, &lst) == 0 ? 0 : -1;
}

int rec__pid_segment_exists(int pid, uint64_t start, long euid) {
    char cand[512];
    snprintf(cand, sizeof cand, "/dev/shm/" REC_SEG_PREFIX "%d", pid);
    struct rec_header h;
    uid_t owner, want = euid >= 0 ? (uid_t)euid : geteuid();
    if (header_of(cand, pid, &h, &owner) && owner == want && (!start || h.proc_start == start)) return 1;
    char prefix[64];
    int plen = snprintf(prefix, sizeof prefix, REC_SEG_PREFIX "%d.", pid), found = 0;
    DIR *d = opendir("/dev/shm");
    if (!d) return 0;
    struct dirent *de;
    while (!found && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, prefix, (size_t)plen) != 0 || !de->d_name[plen]) continue;
        snprintf(cand, sizeof cand, "/dev/shm/%.255s", de->d_name);
        found = header_of(cand, pid, &h, &owner) && owner == want && (!start || h.proc_start == start);
    }
    closedir(d);
    return found;
}
