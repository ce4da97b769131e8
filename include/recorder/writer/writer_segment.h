/*
 * writer_segment.h -- creating, joining and releasing the process's
 * segment.  Part of the implementation of recorder.h.
 *
 * One process, one segment.  A program and a shared library may each carry
 * a copy of this implementation (each defined RECORDER_IMPLEMENTATION); the
 * first copy to need the segment creates it, the others find it by name and
 * join it after checking it belongs to this very process (pid and process
 * start time), so every copy writes into the same rings and string table.
 */

uint64_t rec__mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t rec__real_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_REALTIME, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* Field 22 of /proc/<pid>/stat (self: /proc/self/stat): with the pid it
 * names a process for good. */
static uint64_t rec__proc_start_of(const char *stat) {
    char buf[1024];
    int fd = open(stat, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *p = strrchr(buf, ')');
    if (!p) return 0;
    /* after ") " come fields 3..; starttime is field 22 */
    int field = 2;
    for (; *p && field < 22; p++)
        if (*p == ' ') field++;
    return strtoull(p, NULL, 10);
}

static uint64_t rec__proc_start(void) { return rec__proc_start_of("/proc/self/stat"); }

/* Does the launcher that tagged us (RECORDER_LAUNCHER=PID:START: recorder
 * run, recorder capture -- CMD) still wait for our segment?  Only the
 * same process (its pid and its start time, not any live pid), and only
 * if it runs as the user who owns the segment: a launcher of another user
 * (the program changed user: runuser, su, a setuid binary) does not read
 * it, so keeping it would only leave it behind (docs/security.md).  fd:
 * the segment.  Asked at exit, never on the hot path. */
static int rec__launcher_waits(const struct rec__config *c, int fd) {
    if (c->launcher_pid <= 0 || fd < 0) return 0;
    char p[48];
    snprintf(p, sizeof p, "/proc/%d/stat", (int)c->launcher_pid);
    struct stat ls, ss;
    if (rec__proc_start_of(p) != c->launcher_start || stat(p, &ls) != 0 || fstat(fd, &ss) != 0) return 0;
    /* Read again: the pid was still the launcher's while we looked. */
    return ls.st_uid == ss.st_uid && rec__proc_start_of(p) == c->launcher_start;
}

/* Is this process's segment to be kept after a clean exit?  On purpose
 * (RECORDER_KEEP), or while its launcher waits for it: the launcher reads
 * every segment of its tree and then removes it, so a process that lives
 * for a millisecond is read all the same (docs/configuration.md).  A
 * launcher that is gone (or is another process now) leaves nothing
 * behind. */
static int rec__keeps(const struct rec__config *c, int fd) {
    return rec__keeps_on_purpose(c) || rec__launcher_waits(c, fd);
}

static int rec__tid(void) {
    char link[64];
    ssize_t n = readlink("/proc/thread-self", link, sizeof link - 1);
    if (n <= 0) return (int)getpid();
    link[n] = 0;
    const char *slash = strrchr(link, '/');
    return slash ? atoi(slash + 1) : (int)getpid();
}

/* Counter ticks per second: compare the counter to CLOCK_MONOTONIC over
 * about a millisecond, keeping the least disturbed of three tries.  Readers
 * refine it later over a longer baseline (docs/format.md, "clocks"). */
static uint64_t rec__calibrate(void) {
#if defined(RECORDER_CLOCK_MONOTONIC) || !(defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
    return 1000000000u;
#else
    double best = 0, best_err = 1e30;
    for (int i = 0; i < 3; i++) {
        uint64_t m0a = rec__mono_ns(), t0 = rec_now(), m0b = rec__mono_ns();
        uint64_t m1a, t1, m1b;
        do {
            m1a = rec__mono_ns();
            t1 = rec_now();
            m1b = rec__mono_ns();
        } while (m1a - m0a < 1000000u);
        double err = (double)(m0b - m0a) + (double)(m1b - m1a);
        double mid0 = (double)m0a + (double)(m0b - m0a) / 2, mid1 = (double)m1a + (double)(m1b - m1a) / 2;
        if (err < best_err && mid1 > mid0) {
            best_err = err;
            best = (double)(t1 - t0) * 1e9 / (mid1 - mid0);
        }
    }
    return best > 0 ? (uint64_t)best : 1000000000u;
#endif
}

static unsigned rec__clock_source(void) {
#if defined(RECORDER_CLOCK_MONOTONIC) || !(defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
    return REC_CLOCK_MONOTONIC;
#elif defined(__aarch64__)
    return REC_CLOCK_CNTVCT;
#else
    return REC_CLOCK_TSC;
#endif
}

static uint64_t rec__round_page(uint64_t x) {
    return (x + REC_PAGE - 1) & ~(uint64_t)(REC_PAGE - 1);
}

/* Offsets of every region, from the configuration. */
static void rec__layout(const struct rec__config *c, struct rec_header *h) {
    uint64_t off = REC_PAGE;
    h->max_threads = c->max_threads;
    h->slot_size = (uint32_t)sizeof(struct rec_slot);
    h->entry_size = (uint32_t)sizeof(struct rec_entry);
    h->consumer_off = off;
    h->consumer_size = rec__round_page(sizeof(struct rec_consumer) + 8u * (uint64_t)c->max_threads);
    off += h->consumer_size;
    h->slots_off = off;
    off += rec__round_page(sizeof(struct rec_slot) * (uint64_t)c->max_threads);
    h->index_off = off;
    h->index_entries = c->index_entries;
    h->index_base = rec__index_base_for(c->strings_size);   /* levels: writer_strtab.h */
    if (h->index_base > h->index_entries) h->index_base = h->index_entries;
    off += rec__round_page(4u * (uint64_t)c->index_entries);
    h->strings_off = off;
    h->strings_size = rec__round_page(c->strings_size);
    off += h->strings_size;
    h->rings_off = off;
    h->ring_entries = c->ring_entries;
    off += c->ring_entries * sizeof(struct rec_entry) * c->max_threads;
    h->segment_size = off;
}

static void rec__geo_set(const struct rec_header *h);
static void rec__set_regions(struct rec__global *g) {
    struct rec_header *h = (struct rec_header *)g->base;
    g->hdr = h;
    g->cons = (struct rec_consumer *)(g->base + h->consumer_off);
    g->slots = (struct rec_slot *)(g->base + h->slots_off);
    g->index = (uint32_t *)(g->base + h->index_off);
    g->strings = g->base + h->strings_off;
    g->rings = g->base + h->rings_off;
    rec__geo_set(h);
}

static void rec__process_name(char *out, size_t cap) {
    int fd = open("/proc/self/comm", O_RDONLY | O_CLOEXEC);
    ssize_t n = fd >= 0 ? read(fd, out, cap - 1) : -1;
    if (fd >= 0) close(fd);
    if (n <= 0) n = 0;
    while (n > 0 && (out[n - 1] == '\n' || out[n - 1] == 0)) n--;
    out[n] = 0;
}


/* Fill a new segment's header and tables, then publish the magic.  0, or
 * -1 if its tables cannot be committed. */
static int rec__table_init(struct rec__global *g, const struct rec_header *ph, const unsigned char *pbase);
static int rec__segment_format(struct rec__global *g, uint64_t proc_start) {
    struct rec_header *h = g->hdr;
    h->version = REC_SEG_VERSION;
    h->header_size = (uint32_t)sizeof(struct rec_header);
    h->pid = (int32_t)getpid();
    h->proc_start = proc_start;
    h->launcher_pid = g->cfg.launcher_pid;
    h->launcher_start = g->cfg.launcher_start;
    char ps[48];
    h->parent_pid = (int32_t)getppid();
    snprintf(ps, sizeof ps, "/proc/%d/stat", (int)h->parent_pid);
    h->parent_start = rec__proc_start_of(ps);
    rec__process_name(h->process_name, sizeof h->process_name);
    h->flags = rec__keeps_on_purpose(&g->cfg) ? REC_FLAG_KEEP : 0;
    h->clock_source = rec__clock_source();
    h->ticks_per_sec = rec__calibrate();
    h->mono_ns0 = rec__mono_ns();
    h->ticks0 = rec_now();
    h->real_ns0 = rec__real_ns();
    g->cons->mode = g->cfg.mode;
    for (uint32_t i = 0; i < h->max_threads; i++)
        rec_consumer_limit(g->cons)[i] = g->cfg.mode == REC_MODE_STREAM ? h->ring_entries : UINT64_MAX;
    /* A forked child keeps the parent's string ids, which call sites have
     * cached in statics: rec__table_init copies the table. */
    if (rec__table_init(g, (const struct rec_header *)g->parent_base, g->parent_base) != 0) return -1;
    if (!g->parent_base) {
        h->strings_used = 8u * REC_ID_OVERFLOW;
        rec__alloc_str(g, "<strings full>", 14, 0);
    }
    __atomic_store_n(&h->magic, REC_SEG_MAGIC, __ATOMIC_RELEASE);
    return 0;
}

/* Wait (bounded) for a segment another copy of this implementation is
 * creating right now; returns its header mapping or NULL.  (A writer of
 * this version publishes only complete segments; an older copy in the
 * same process may not.) */
static const struct rec_header *rec__peek_header(int fd) {
    for (int i = 0; i < 200; i++) {
        struct stat st;
        if (fstat(fd, &st) == 0 && (uint64_t)st.st_size >= REC_PAGE) {
            void *p = mmap(NULL, REC_PAGE, PROT_READ, MAP_SHARED, fd, 0);
            if (p != MAP_FAILED) {
                const struct rec_header *h = (const struct rec_header *)p;
                if (__atomic_load_n(&h->magic, __ATOMIC_ACQUIRE) == REC_SEG_MAGIC) return h;
                munmap(p, REC_PAGE);
            }
        }
        struct timespec d = {0, 5000000};
        nanosleep(&d, NULL);
    }
    return NULL;
}

static int rec__pid_alive(int pid) {
    return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

/* Not for secrecy: names are created with O_EXCL.  Unpredictable names
 * only keep a squatter from pre-creating every name we might pick. */
static uint64_t rec__random64(void) {
    uint64_t r = 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd >= 0) {
        if (read(fd, &r, sizeof r) != (ssize_t)sizeof r) r = 0;
        close(fd);
    }
    return r ^ (rec__mono_ns() * UINT64_C(0x9e3779b97f4a7c15)) ^ ((uint64_t)getpid() << 40);
}

/* What is at a segment's name now (docs/format.md, "Where segments live"). */
enum { REC__NAME_FREE, REC__NAME_OURS, REC__NAME_STALE, REC__NAME_BUSY, REC__NAME_FOREIGN };

/* Looks at path without following a link or opening anything but a
 * regular file of ours.  On REC__NAME_OURS, *fd is open read-write on it;
 * otherwise *other gets the pid and start time its header names (0 if
 * none) and why holds a reason for a notice. */
static int rec__name_state(const char *path, int pid, uint64_t start, int *fd, int *other, uint64_t *other_start,
                           const char **why) {
    struct stat st, st2;
    *fd = -1;
    *other = 0;
    *other_start = 0;
    *why = "";
    if (lstat(path, &st) != 0) return errno == ENOENT ? REC__NAME_FREE : REC__NAME_FOREIGN;
    if (!S_ISREG(st.st_mode)) {
        *why = S_ISLNK(st.st_mode) ? "a symbolic link" : S_ISFIFO(st.st_mode) ? "a FIFO" : "not a regular file";
        return REC__NAME_FOREIGN;
    }
    if (st.st_uid != geteuid()) {
        *why = "another user's";
        return REC__NAME_FOREIGN;
    }
    int f = open(path, O_RDWR | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
    if (f < 0) return errno == ENOENT ? REC__NAME_FREE : REC__NAME_FOREIGN;
    if (fstat(f, &st2) != 0 || st2.st_ino != st.st_ino || st2.st_dev != st.st_dev || !S_ISREG(st2.st_mode)) {
        close(f);
        *why = "replaced while looked at";
        return REC__NAME_FOREIGN;
    }
    const struct rec_header *h = rec__peek_header(f);
    if (!h) {
        close(f);
        *why = "not a segment";
        return REC__NAME_FOREIGN;
    }
    int hpid = h->pid;
    uint64_t hstart = h->proc_start, hsize = h->segment_size;
    munmap((void *)(uintptr_t)h, REC_PAGE);
    *other = hpid;
    *other_start = hstart;
    if (hpid == pid && hstart == start && hsize == (uint64_t)st2.st_size) {
        *fd = f;
        return REC__NAME_OURS;
    }
    close(f);
    /* Another live process's, or left by a dead one (one that had our pid
     * before us, or our custom name). */
    return hpid != pid && rec__pid_alive(hpid) ? REC__NAME_BUSY : REC__NAME_STALE;
}

/* The segment's path, and its shm name (the path without "/dev/shm").
 * Every path here is built to fit. */
static void rec__set_name(struct rec__global *g, const char *path) {
    size_t n = strlen(path);
    if (n >= sizeof g->path) n = sizeof g->path - 1;
    memcpy(g->path, path, n);
    g->path[n] = 0;
    memcpy(g->shm_name, g->path + 8, n - 8 + 1);
}

/* Map a segment another copy of the implementation in this process made. */
static int rec__segment_join(struct rec__global *g, int fd, const char *path) {
    struct stat st;
    if (fstat(fd, &st) != 0) {
        close(fd);
        return -1;
    }
    size_t size = (size_t)st.st_size;
    void *p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) {
        close(fd);
        return -1;
    }
    g->base = (unsigned char *)p;
    g->size = size;
    rec__set_regions(g);
    g->fd = fd;
    g->created = 0;
    rec__set_name(g, path);
    return 0;
}

/* Our own segment under a name some other copy in this process already
 * published: the plain name, or a fallback recorder.<pid>.<suffix>.
 * Returns 0 if joined. */
static int rec__join_existing(struct rec__global *g, const char *plain, int pid, uint64_t start) {
    int fd, other;
    uint64_t ostart;
    const char *why;
    int st = rec__name_state(plain, pid, start, &fd, &other, &ostart, &why);
    if (st == REC__NAME_OURS) return rec__segment_join(g, fd, plain);
    if (st == REC__NAME_FREE) return -1;   /* nobody fell back either */
    char prefix[64];
    int plen = snprintf(prefix, sizeof prefix, REC_SEG_PREFIX "%d.", pid);
    DIR *d = opendir("/dev/shm");
    if (!d) return -1;
    struct dirent *de;
    int rc = -1;
    while (rc != 0 && (de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, prefix, (size_t)plen) != 0) continue;
        char cand[sizeof g->path];
        if (snprintf(cand, sizeof cand, "/dev/shm/%s", de->d_name) >= (int)sizeof cand) continue;
        if (rec__name_state(cand, pid, start, &fd, &other, &ostart, &why) == REC__NAME_OURS)
            rc = rec__segment_join(g, fd, cand);
    }
    closedir(d);
    return rc;
}

/* Build a complete segment under a private name in /dev/shm; its header
 * is written, magic last, before any reader can find it by its real name.
 * Returns the fd, or -1 (with a message). */
static int rec__segment_build(struct rec__global *g, const struct rec_header *want, uint64_t start, char *tmp,
                              size_t cap) {
    int fd = -1;
    for (int i = 0; i < 8 && fd < 0; i++) {
        if (snprintf(tmp, cap, "/dev/shm/.recorder-new.%d.%016llx", (int)getpid(),
                     (unsigned long long)rec__random64()) >= (int)cap)
            break;
        fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
        if (fd < 0 && errno != EEXIST) break;
    }
    void *p = MAP_FAILED;
    int e = 0;
    if (fd < 0) goto fail;
    if (fchmod(fd, 0600) != 0 || ftruncate(fd, (off_t)want->segment_size) != 0) goto fail;
    /* Commit the header and slots now so a full /dev/shm fails here, not
     * with SIGBUS later; the string table is committed as it grows
     * (writer_strtab.h), a ring when a thread claims one. */
    e = posix_fallocate(fd, 0, (off_t)want->index_off);
    if (e && e != EOPNOTSUPP && e != EINVAL) {
        errno = e;
        goto fail;
    }
    p = mmap(NULL, want->segment_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) goto fail;
    g->base = (unsigned char *)p;
    g->size = want->segment_size;
    memcpy(g->base, want, sizeof *want);
    rec__set_regions(g);
    g->fd = fd;
    g->created = 1;
    if (rec__segment_format(g, start) == 0) return fd;
    munmap(p, want->segment_size);
    g->base = NULL;
    g->fd = -1;
    g->created = 0;
    errno = ENOSPC;
fail:
    e = errno;
    fprintf(stderr, "recorder: cannot create a segment in /dev/shm: %s; recording is off\n", strerror(e));
    if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    return -1;
}

static void rec__segment_discard(struct rec__global *g, const char *tmp) {
    munmap(g->base, g->size);
    close(g->fd);
    unlink(tmp);
    g->base = NULL;
    g->fd = -1;
    g->created = 0;
}

/* Create or join the segment.  Returns 0 on success.
 *
 * The name is recorder.<pid> (or recorder.<RECORDER_NAME>).  The segment
 * is built under a private name and linked to it only when complete, so
 * a reader never sees a half-made header.  link() never replaces: if the
 * name is taken, by a stale segment of ours it is moved aside (kept for a
 * post-mortem), by another copy of this implementation in this process we
 * join that one, and by anything else -- another user's file, a FIFO, a
 * symlink, a live program -- we fall back to recorder.<pid>.<random>,
 * which readers find by pid through the header (docs/format.md).  Nobody
 * else can switch our recording off, and we never write into a file that
 * is not ours. */
static int rec__segment_open(struct rec__global *g) {
    uint64_t start = rec__proc_start();
    int pid = (int)getpid();
    const char *custom = g->cfg.name[0] ? g->cfg.name : NULL;
    char plain[sizeof g->path], tmp[sizeof g->path], path[sizeof g->path];
    snprintf(plain, sizeof plain, "/dev/shm/" REC_SEG_PREFIX "%d", pid);
    if (!custom && rec__join_existing(g, plain, pid, start) == 0) return 0;
    struct rec_header want;
    memset(&want, 0, sizeof want);
    if (g->parent_base) {  /* same sizes as the parent, so ids carry over */
        const struct rec_header *ph = (const struct rec_header *)g->parent_base;
        g->cfg.strings_size = ph->strings_size;
        g->cfg.index_entries = ph->index_entries;
    }
    rec__layout(&g->cfg, &want);
    int built = 0;
    if (custom && snprintf(path, sizeof path, "/dev/shm/" REC_SEG_PREFIX "%s", custom) >= (int)sizeof path)
        custom = NULL;
    if (!custom) memcpy(path, plain, sizeof plain);
    for (int attempt = 0; attempt < 8; attempt++) {
        if (!built) {
            if (rec__segment_build(g, &want, start, tmp, sizeof tmp) < 0) return -1;
            built = 1;
        }
        if (link(tmp, path) == 0) {
            unlink(tmp);
            rec__set_name(g, path);
            return 0;
        }
        int fd = -1, other = 0, link_errno = errno;
        uint64_t other_start = 0;
        const char *why = strerror(link_errno);
        int st = link_errno == EEXIST ? rec__name_state(path, pid, start, &fd, &other, &other_start, &why)
                                      : REC__NAME_FOREIGN;
        if (st == REC__NAME_FREE) continue;              /* removed meanwhile */
        if (st == REC__NAME_OURS) {                      /* another copy won */
            rec__segment_discard(g, tmp);
            return rec__segment_join(g, fd, path);
        }
        if (st == REC__NAME_STALE) {
            /* Left by a dead process that had our pid (or name): keep it
             * for a post-mortem under another name, never replacing one. */
            char aside[sizeof g->path + 24];
            if (snprintf(aside, sizeof aside, "%s.%llu", path, (unsigned long long)other_start) < (int)sizeof aside &&
                (link(path, aside) == 0 || errno == EEXIST))
                unlink(path);
            continue;
        }
        if (st == REC__NAME_BUSY && custom) {
            fprintf(stderr, "recorder: %s is in use by pid %d; using " REC_SEG_PREFIX "%d\n", path, other, pid);
            custom = NULL;
            memcpy(path, plain, sizeof plain);
            continue;
        }
        /* Not ours, and not ours to remove: a name of our own instead. */
        char fallback[sizeof g->path];
        if (snprintf(fallback, sizeof fallback, "/dev/shm/" REC_SEG_PREFIX "%d.%016llx", pid,
                     (unsigned long long)rec__random64()) >= (int)sizeof fallback)
            break;
        fprintf(stderr, "recorder: %s is %s; recording to %s instead\n", path,
                st == REC__NAME_BUSY ? "in use by another process" : why, fallback);
        memcpy(path, fallback, sizeof fallback);
    }
    rec__segment_discard(g, tmp);
    fprintf(stderr, "recorder: cannot publish a segment in /dev/shm; recording is off\n");
    return -1;
}
