/*
 * outfile.c -- opening an output file by one rule for every writer
 * (recorder/outfile.h): a temporary file renamed onto a new or regular
 * target; devices, FIFOs and stdout written straight through; links and
 * other users' files in shared sticky directories refused.
 *
 * Everything after the directory lookup is relative to the directory's
 * O_PATH descriptor, so a directory renamed or replaced meanwhile cannot
 * send the temporary file, the rename or the removal somewhere else.
 */
#define _GNU_SOURCE
#include "recorder/outfile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "internal.h"

static int errno_status(int e) { return e == EACCES || e == EPERM ? REC_ERR_ACCESS : REC_ERR_IO; }

static int is_dev_like(mode_t m) { return S_ISCHR(m) || S_ISFIFO(m); }

/* A sticky directory others can write: there, names are not ours to trust
 * (the kernel's protected_* checks use the same test). */
static int shared_sticky(const struct stat *d) {
    return (d->st_mode & S_ISVTX) && (d->st_mode & (S_IWOTH | S_IWGRP));
}

/* The fd of ours (stdout, stderr) that is the same file as st, or -1. */
static int own_fd_like(const struct stat *st) {
    for (int fd = 1; fd <= 2; fd++) {
        struct stat f;
        if (fstat(fd, &f) == 0 && f.st_dev == st->st_dev && f.st_ino == st->st_ino) return fd;
    }
    return -1;
}

/* Open an existing device or FIFO at name in dirfd (following a link only
 * if follow), and check it is still the file st describes.  A FIFO gets
 * REC_OUT_FIFO_WAIT_SEC seconds to have a reader: without one, opening
 * for writing would block forever. */
static int open_direct(struct rec_out *o, const char *name, const struct stat *st, int follow, char *err,
                       size_t errlen) {
    int flags = O_WRONLY | O_NOCTTY | O_CLOEXEC | O_NONBLOCK | (follow ? 0 : O_NOFOLLOW);
    int fd = -1;
    for (int waited_ms = 0;; waited_ms += 10) {
        fd = openat(o->dirfd, name, flags);
        if (fd >= 0 || errno != ENXIO || !S_ISFIFO(st->st_mode) || waited_ms >= REC_OUT_FIFO_WAIT_SEC * 1000) break;
        struct timespec d = {0, 10 * 1000 * 1000};
        nanosleep(&d, NULL);
    }
    if (fd < 0) {
        int e = errno;
        if (e == ENXIO && S_ISFIFO(st->st_mode))
            return rec__fail(err, errlen, REC_ERR_IO, "%s: a FIFO that no process opened for reading within %d s",
                             o->path, REC_OUT_FIFO_WAIT_SEC);
        return rec__fail(err, errlen, errno_status(e), "%s: %s", o->path, strerror(e));
    }
    struct stat now;
    if (fstat(fd, &now) != 0 || now.st_dev != st->st_dev || now.st_ino != st->st_ino ||
        (now.st_mode & S_IFMT) != (st->st_mode & S_IFMT)) {
        close(fd);
        return rec__fail(err, errlen, REC_ERR_IO, "%s: it changed while being opened", o->path);
    }
    /* Blocking writes from here on: a slow reader slows us, as with any pipe. */
    int fl = fcntl(fd, F_GETFL);
    if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) != 0) {
        int e = errno;
        close(fd);
        return rec__fail(err, errlen, REC_ERR_IO, "%s: %s", o->path, strerror(e));
    }
    o->fd = fd;
    o->direct = 1;
    return REC_OK;
}

/* Our own stdout or stderr by name (/dev/stdout when stdout is a socket,
 * which cannot be opened by name, or a file the shell opened for us):
 * written through a copy of that descriptor. */
static int open_own_fd(struct rec_out *o, const struct stat *st, char *err, size_t errlen) {
    int own = own_fd_like(st);
    if (own < 0)
        return rec__fail(err, errlen, REC_ERR_ACCESS, "%s: is a socket: only one's own stdout or stderr is written",
                         o->path);
    int fd = fcntl(own, F_DUPFD_CLOEXEC, 3);
    if (fd < 0) return rec__fail(err, errlen, REC_ERR_IO, "%s: %s", o->path, strerror(errno));
    o->fd = fd;
    o->direct = 1;
    return REC_OK;
}

/* An unpredictable name for the temporary file, hidden, short enough. */
static void temp_name(char *buf, size_t cap, const char *base) {
    static const char set[] = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789";
    unsigned char r[8];
    if (getrandom(r, sizeof r, GRND_NONBLOCK) != (ssize_t)sizeof r) {
        uint64_t x = rec__clock_ns(CLOCK_MONOTONIC) ^ ((uint64_t)getpid() << 32);
        for (size_t i = 0; i < sizeof r; i++) r[i] = (unsigned char)(x >> (i * 8)) ^ (unsigned char)(i * 37);
    }
    char tail[sizeof r + 1];
    for (size_t i = 0; i < sizeof r; i++) tail[i] = set[r[i] % (sizeof set - 1)];
    tail[sizeof r] = 0;
    snprintf(buf, cap, ".%.200s.%s.tmp", base, tail);
}

static int open_temp(struct rec_out *o, char *err, size_t errlen) {
    for (int tries = 0; tries < 100; tries++) {
        temp_name(o->tmp, sizeof o->tmp, o->base);
        int fd = openat(o->dirfd, o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd >= 0) {
            o->fd = fd;
            return REC_OK;
        }
        if (errno == EEXIST) continue;
        int e = errno;
        o->tmp[0] = 0;
        return rec__fail(err, errlen, errno_status(e), "%s: cannot create a file in its directory: %s", o->path,
                         strerror(e));
    }
    o->tmp[0] = 0;
    return rec__fail(err, errlen, REC_ERR_IO, "%s: cannot create a temporary file next to it", o->path);
}

/* Split path into its directory (opened into o->dirfd) and o->base. */
static int open_dir(struct rec_out *o, const char *path, char *err, size_t errlen) {
    const char *slash = strrchr(path, '/');
    const char *base = slash ? slash + 1 : path;
    if (!*base) {   /* "dir/": the user means a directory */
        struct stat st;
        if (stat(path, &st) == 0 && S_ISDIR(st.st_mode))
            return rec__fail(err, errlen, REC_ERR_IO, "%s: is a directory", path);
        return rec__fail(err, errlen, REC_ERR_IO, "%s: no such directory", path);
    }
    size_t blen = strlen(base);
    if (blen >= sizeof o->base) return rec__fail(err, errlen, REC_ERR_USAGE, "%s: name too long", path);
    memcpy(o->base, base, blen + 1);
    char dir[sizeof o->path];
    if (!slash) snprintf(dir, sizeof dir, ".");
    else if (slash == path) snprintf(dir, sizeof dir, "/");
    else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
    o->dirfd = open(dir, O_PATH | O_DIRECTORY | O_CLOEXEC);
    if (o->dirfd < 0) {
        int e = errno;
        if (e == ENOENT || e == ENOTDIR)
            return rec__fail(err, errlen, REC_ERR_IO, "%s: its directory does not exist", path);
        return rec__fail(err, errlen, errno_status(e), "%s: %s", path, strerror(e));
    }
    return REC_OK;
}

/* How a path that passed the rule is written. */
enum how { HOW_TEMP, HOW_DIRECT, HOW_DIRECT_FOLLOW, HOW_OWN_FD };

/* The final component is a symbolic link (link): follow it only if it is
 * ours or root's and leads to a device, a FIFO or our own stdout/stderr
 * (/dev/stdout, whatever it is); *t gets what it leads to. */
static int judge_link(struct rec_out *o, const struct stat *dir, const struct stat *link, struct stat *t,
                      enum how *how, char *err, size_t errlen) {
    if (shared_sticky(dir))
        return rec__fail(err, errlen, REC_ERR_ACCESS,
                         "%s: is a symbolic link in a sticky directory others can write (like /tmp): not followed "
                         "(as fs.protected_symlinks)",
                         o->path);
    if (link->st_uid != geteuid() && link->st_uid != 0)
        return rec__fail(err, errlen, REC_ERR_ACCESS, "%s: is a symbolic link owned by uid %u: not followed",
                         o->path, (unsigned)link->st_uid);
    if (fstatat(o->dirfd, o->base, t, 0) != 0)
        return rec__fail(err, errlen, REC_ERR_ACCESS, "%s: is a symbolic link to nothing (%s): not followed",
                         o->path, strerror(errno));
    if (is_dev_like(t->st_mode)) *how = HOW_DIRECT_FOLLOW;
    else if (S_ISSOCK(t->st_mode) || own_fd_like(t) >= 0) *how = HOW_OWN_FD;
    else
        return rec__fail(err, errlen, REC_ERR_ACCESS,
                         "%s: is a symbolic link%s: recorder neither writes through it nor replaces it; give the "
                         "real path",
                         o->path, S_ISREG(t->st_mode) ? " to a file" : S_ISDIR(t->st_mode) ? " to a directory" : "");
    return REC_OK;
}

/* The rule, applied to o->path without writing anything: *how to write
 * it, and *st what it is now (if it exists).  Leaves o->dirfd open. */
static int judge(struct rec_out *o, enum how *how, struct stat *st, char *err, size_t errlen) {
    const char *path = o->path;
    int rc = open_dir(o, path, err, errlen);
    if (rc != REC_OK) return rc;
    struct stat d;
    if (fstat(o->dirfd, &d) != 0) return rec__fail(err, errlen, REC_ERR_IO, "%s: %s", path, strerror(errno));
    *how = HOW_TEMP;
    if (fstatat(o->dirfd, o->base, st, AT_SYMLINK_NOFOLLOW) != 0) {
        int e = errno;
        if (e == ENOENT) return REC_OK;
        return rec__fail(err, errlen, errno_status(e), "%s: %s", path, strerror(e));
    }
    if (S_ISLNK(st->st_mode)) {
        struct stat link = *st;
        return judge_link(o, &d, &link, st, how, err, errlen);
    }
    if (S_ISDIR(st->st_mode)) return rec__fail(err, errlen, REC_ERR_IO, "%s: is a directory", path);
    if (S_ISBLK(st->st_mode))
        return rec__fail(err, errlen, REC_ERR_ACCESS, "%s: is a block device: recorder does not write to one", path);
    if (shared_sticky(&d) && st->st_uid != geteuid() && st->st_uid != d.st_uid)
        return rec__fail(err, errlen, REC_ERR_ACCESS,
                         "%s: belongs to uid %u, in a sticky directory others can write (like /tmp): not replaced "
                         "or written (as fs.protected_regular)",
                         path, (unsigned)st->st_uid);
    if (is_dev_like(st->st_mode)) *how = HOW_DIRECT;
    else if (S_ISSOCK(st->st_mode)) *how = HOW_OWN_FD;
    else if (!S_ISREG(st->st_mode)) return rec__fail(err, errlen, REC_ERR_ACCESS, "%s: not a regular file", path);
    return REC_OK;
}

static int open_path(struct rec_out *o, char *err, size_t errlen) {
    enum how how;
    struct stat st;
    int rc = judge(o, &how, &st, err, errlen);
    if (rc != REC_OK) return rc;
    switch (how) {
    case HOW_DIRECT: return open_direct(o, o->base, &st, 0, err, errlen);
    case HOW_DIRECT_FOLLOW: return open_direct(o, o->base, &st, 1, err, errlen);
    case HOW_OWN_FD: return open_own_fd(o, &st, err, errlen);
    case HOW_TEMP: break;
    }
    return open_temp(o, err, errlen);
}

/* Fills o->path; "-" is stdout. */
static int start(struct rec_out *o, const char *path, char *err, size_t errlen) {
    memset(o, 0, sizeof *o);
    o->fd = -1;
    o->dirfd = -1;
    if (!path || !*path) return rec__fail(err, errlen, REC_ERR_USAGE, "an empty output path");
    if (strlen(path) >= sizeof o->path) return rec__fail(err, errlen, REC_ERR_USAGE, "output path too long");
    snprintf(o->path, sizeof o->path, "%s", path);
    if (!strcmp(path, "-")) {
        o->fd = 1;
        o->direct = o->is_stdout = 1;
    }
    return REC_OK;
}

int rec_out_check(const char *path, char *err, size_t errlen) {
    struct rec_out o;
    int rc = start(&o, path, err, errlen);
    if (rc != REC_OK || o.is_stdout) return rc;
    enum how how;
    struct stat st;
    rc = judge(&o, &how, &st, err, errlen);
    if (rc == REC_OK && how == HOW_TEMP && faccessat(o.dirfd, ".", W_OK | X_OK, AT_EACCESS) != 0) {
        int e = errno;
        rc = rec__fail(err, errlen, errno_status(e), "%s: cannot create a file in its directory: %s", o.path,
                       strerror(e));
    }
    if (rc == REC_OK && how == HOW_OWN_FD && own_fd_like(&st) < 0)
        rc = rec__fail(err, errlen, REC_ERR_ACCESS, "%s: is a socket: only one's own stdout or stderr is written",
                       o.path);
    rec_out_abort(&o);
    return rc;
}

int rec_out_open(struct rec_out *o, const char *path, char *err, size_t errlen) {
    int rc = start(o, path, err, errlen);
    if (rc != REC_OK || o->is_stdout) return rc;
    rc = open_path(o, err, errlen);
    if (rc != REC_OK) rec_out_abort(o);
    return rc;
}

int rec_out_publish(struct rec_out *o, char *err, size_t errlen) {
    if (o->direct || !o->tmp[0]) return REC_OK;
    if (renameat(o->dirfd, o->tmp, o->dirfd, o->base) != 0) {
        int e = errno;
        unlinkat(o->dirfd, o->tmp, 0);
        o->tmp[0] = 0;
        return rec__fail(err, errlen, errno_status(e), "%s: %s", o->path, strerror(e));
    }
    o->tmp[0] = 0;
    return REC_OK;
}

static void release(struct rec_out *o) {
    if (o->fd >= 0 && !o->is_stdout) close(o->fd);
    o->fd = -1;
    if (o->dirfd >= 0) close(o->dirfd);
    o->dirfd = -1;
}

int rec_out_commit(struct rec_out *o, char *err, size_t errlen) {
    int rc = REC_OK;
    if (o->fd >= 0 && !o->is_stdout && close(o->fd) != 0)
        rc = rec__fail(err, errlen, REC_ERR_IO, "%s: %s", o->path, strerror(errno));
    o->fd = -1;
    if (rc == REC_OK) rc = rec_out_publish(o, err, errlen);
    else if (o->tmp[0]) {
        unlinkat(o->dirfd, o->tmp, 0);
        o->tmp[0] = 0;
    }
    release(o);
    return rc;
}

void rec_out_abort(struct rec_out *o) {
    if (o->tmp[0] && o->dirfd >= 0) unlinkat(o->dirfd, o->tmp, 0);
    o->tmp[0] = 0;
    release(o);
}
