/*
 * seg_list.c -- the segments on this machine: every file named recorder.*
 * in /dev/shm, classified (alive, dead, reused pid, corrupt, foreign ...).
 *
 * Listing never follows a symlink and never writes: it opens each regular
 * file through rec_seg_open (which validates it, read-only, O_NOFOLLOW) and
 * falls back to a look at the first page to say why a file is not a
 * usable segment.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "grow.h"
#include "internal.h"
#include "recorder/capture.h"

const char *rec_seg_state_str(enum rec_seg_state st) {
    switch (st) {
    case REC_SEGST_ALIVE: return "alive";
    case REC_SEGST_CLOSED: return "closed";
    case REC_SEGST_DEAD: return "dead";
    case REC_SEGST_REUSED: return "pid-reused";
    case REC_SEGST_CORRUPT: return "corrupt";
    case REC_SEGST_VERSION: return "other-version";
    case REC_SEGST_FOREIGN: return "foreign";
    case REC_SEGST_UNREADABLE: return "unreadable";
    }
    return "?";
}

int rec_pid_alive(int pid, uint64_t proc_start) {
    if (pid <= 0) return 0;
    if (kill(pid, 0) != 0 && errno != EPERM) return 0;
    uint64_t now = rec__proc_start_of(pid);
    if (now == UINT64_MAX) return 0;  /* exited, not yet reaped: not running */
    return !proc_start || now == proc_start;
}

/* Why a file that rec_seg_open refused is not a segment: a look at its
 * first page without trusting any of it. */
static void inspect_raw(struct rec_seg_entry *e) {
    int fd = open(e->path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW | O_NONBLOCK);
    if (fd < 0) return;
    unsigned char page[sizeof(struct rec_header)];
    ssize_t n = pread(fd, page, sizeof page, 0);
    close(fd);
    if (n < 0) return;
    int zero = 1;
    for (ssize_t i = 0; i < n && zero; i++) zero = page[i] == 0;
    e->all_zero_header = zero;
    if (n >= (ssize_t)offsetof(struct rec_header, process_name) + 64) {
        struct rec_header h;
        memcpy(&h, page, sizeof h < (size_t)n ? sizeof h : (size_t)n);
        if (h.magic == REC_SEG_MAGIC) {
            e->pid = h.pid;
            e->proc_start = h.proc_start;
            e->launcher_pid = h.launcher_pid;
            e->launcher_start = h.launcher_start;
            e->parent_pid = h.parent_pid;
            e->parent_start = h.parent_start;
            rec__copy_printable(e->process_name, sizeof e->process_name, h.process_name, sizeof h.process_name);
        }
    }
}

/* The latest counter value a slot shows: its last entries (the ring's
 * head back by one event at most), its start and its exit.  Read through
 * the checked reading layer; a hostile value only moves gc's clock. */
static uint64_t slot_last_ticks(rec_seg *s, const struct rec_thread_info *t) {
    uint64_t last = t->exit_ticks > t->start_ticks ? t->exit_ticks : t->start_ticks;
    if (t->head == 0) return last;
    struct rec_entry tail[REC_MAX_ENTRIES_PER_EVENT];
    uint64_t first;
    struct rec_loss loss = {0};
    rec_seg_set_cursor(s, t->slot, t->head > REC_MAX_ENTRIES_PER_EVENT ? t->head - REC_MAX_ENTRIES_PER_EVENT : 0);
    size_t n = rec_seg_read(s, t->slot, tail, REC_MAX_ENTRIES_PER_EVENT, &first, &loss);
    for (size_t i = 0; i < n; i++)
        if (REC_EV_TYPE(tail[i].w1) != REC_EV_CONT && tail[i].w0 > last) last = tail[i].w0;
    return last;
}

static void classify(struct rec_seg_entry *e) {
    struct stat st;
    if (lstat(e->path, &st) != 0) {
        int en = errno;
        e->state = REC_SEGST_UNREADABLE;
        e->status = en == ENOENT ? REC_ERR_NOTFOUND : REC_ERR_IO;
        snprintf(e->error, sizeof e->error, "%s", strerror(en));
        return;
    }
    e->uid = st.st_uid;
    e->file_size = (uint64_t)st.st_size;
    e->mem_bytes = (uint64_t)st.st_blocks * 512u;
    e->mtime = st.st_mtime;
    e->dev = (uint64_t)st.st_dev;
    e->ino = (uint64_t)st.st_ino;
    if (S_ISLNK(st.st_mode)) {
        e->is_symlink = 1;
        e->state = REC_SEGST_FOREIGN;
        e->status = REC_ERR_FORMAT;
        snprintf(e->error, sizeof e->error, "a symbolic link (not followed)");
        return;
    }
    if (!S_ISREG(st.st_mode)) {
        e->state = REC_SEGST_FOREIGN;
        e->status = REC_ERR_FORMAT;
        snprintf(e->error, sizeof e->error, "not a regular file");
        return;
    }
    /* Another user's file is not opened, except by root, who is told
     * whose it is (docs/security.md). */
    e->foreign_owner = st.st_uid != geteuid();
    if (e->foreign_owner && geteuid() != 0) {
        e->state = REC_SEGST_FOREIGN;
        e->status = REC_ERR_ACCESS;
        rec_owner_str((uint32_t)st.st_uid, e->error, sizeof e->error);
        return;
    }
    rec_seg *s = NULL;
    char err[256] = "";
    e->status = rec_seg_open(e->path, 0, &s, err, sizeof err);
    if (e->status != REC_OK) {
        /* The message names the path; keep only the reason. */
        const char *why = strncmp(err, e->path, strlen(e->path)) == 0 ? err + strlen(e->path) : err;
        while (*why == ':' || *why == ' ') why++;
        snprintf(e->error, sizeof e->error, "%s", why);
        switch (e->status) {
        case REC_ERR_VERSION: e->state = REC_SEGST_VERSION; break;
        case REC_ERR_TRUNCATED: e->state = REC_SEGST_CORRUPT; break;
        case REC_ERR_ACCESS:
        case REC_ERR_IO:
        case REC_ERR_NOMEM: e->state = REC_SEGST_UNREADABLE; break;
        default: e->state = REC_SEGST_FOREIGN; break;
        }
        inspect_raw(e);
        /* A recorder magic with a bad layout is a torn segment, not a
         * stranger's file. */
        if (e->state == REC_SEGST_FOREIGN && e->pid) e->state = REC_SEGST_CORRUPT;
        return;
    }
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    e->pid = info.pid;
    e->proc_start = s->hcopy.proc_start;
    e->launcher_pid = info.launcher_pid;
    e->launcher_start = info.launcher_start;
    e->parent_pid = info.parent_pid;
    e->parent_start = info.parent_start;
    memcpy(e->process_name, info.process_name, sizeof e->process_name);
    e->mode = info.mode;
    e->threads_no_slot = info.threads_no_slot;
    e->strings_dropped = info.strings_dropped;
    e->gpu_state = info.gpu_state;
    e->keep = (s->hcopy.flags & REC_FLAG_KEEP) != 0;
    uint64_t last = info.ticks0;
    for (uint32_t i = 0; i < info.max_threads; i++) {
        struct rec_thread_info t;
        if (rec_seg_thread(s, i, &t) != 0) continue;
        uint64_t lt = slot_last_ticks(s, &t);
        if (lt > last) last = lt;
        if (t.lane_kind != REC_LANE_THREAD) e->gpu_lanes++;
        else if (t.state == REC_SLOT_LIVE) e->threads_live++;
        else e->threads_exited++;
        e->entries += t.head;
        e->dropped = rec_sat_add(e->dropped, t.dropped);
        if (t.head > info.ring_entries) e->lost_history = rec_sat_add(e->lost_history, t.head - info.ring_entries);
    }
    double since = rec_seg_ticks_to_ns(s, last);
    e->last_real_ns = since > 0 && since < 1e19 ? info.real_ns0 + (uint64_t)since : info.real_ns0;
    rec_seg_close(s);
    int running = e->pid > 0 && (kill(e->pid, 0) == 0 || errno == EPERM);
    uint64_t now_start = running ? rec__proc_start_of(e->pid) : 0;
    if (!running || now_start == UINT64_MAX) e->state = REC_SEGST_DEAD;  /* gone, or a zombie */
    else if (e->proc_start && now_start != e->proc_start) e->state = REC_SEGST_REUSED;
    else e->state = info.closed ? REC_SEGST_CLOSED : REC_SEGST_ALIVE;
    /* A process that is gone has no live threads, whatever its slots say:
     * a crash or a kill never marks them exited. */
    if (e->state == REC_SEGST_DEAD || e->state == REC_SEGST_REUSED) {
        e->threads_exited += e->threads_live;
        e->threads_live = 0;
    }
}

int rec_seg_inspect(const char *path, struct rec_seg_entry *e) {
    memset(e, 0, sizeof *e);
    snprintf(e->path, sizeof e->path, "%s", path);
    const char *slash = strrchr(path, '/');
    snprintf(e->name, sizeof e->name, "%s", slash ? slash + 1 : path);
    classify(e);
    return e->status;
}

static int cmp_entry(const void *a, const void *b) {
    return strcmp(((const struct rec_seg_entry *)a)->name, ((const struct rec_seg_entry *)b)->name);
}

int rec_seg_list(const char *dir, struct rec_seg_entry **out, size_t *n, char *err, size_t errlen) {
    *out = NULL;
    *n = 0;
    if (!dir) dir = "/dev/shm";
    DIR *d = opendir(dir);
    if (!d) {
        int e = errno;
        if (err && errlen) snprintf(err, errlen, "%s: %s", dir, strerror(e));
        return e == ENOENT ? REC_ERR_NOTFOUND : e == EACCES ? REC_ERR_ACCESS : REC_ERR_IO;
    }
    struct rec_seg_entry *v = NULL;
    size_t cnt = 0, cap = 0;
    struct dirent *de;
    const size_t plen = strlen(REC_SEG_PREFIX);
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, REC_SEG_PREFIX, plen) != 0 || !de->d_name[plen]) continue;
        struct rec_seg_entry *p = grow_to(v, &cap, cnt + 1, sizeof *p, 32, 0);
        if (!p) {
            free(v);
            closedir(d);
            if (err && errlen) snprintf(err, errlen, "out of memory");
            return REC_ERR_NOMEM;
        }
        v = p;
        struct rec_seg_entry *e = &v[cnt++];
        memset(e, 0, sizeof *e);
        snprintf(e->name, sizeof e->name, "%s", de->d_name);
        snprintf(e->path, sizeof e->path, "%s/%s", dir, de->d_name);
        classify(e);
    }
    closedir(d);
    if (cnt) qsort(v, cnt, sizeof *v, cmp_entry);
    *out = v;
    *n = cnt;
    return REC_OK;
}
