/*
 * capture_bench.c -- can `recorder capture` keep up with one thread
 * writing scopes at full speed?  (docs/performance/capture.md)
 *
 *   capture_bench RECORDER [-n ENTRIES] [-r RUNS] [-k RING_KB] [-o FILE] [--raw] [--launch]
 *
 * First, in this process, the consumer's own cost: fill a ring (stream
 * mode: the writer drops what does not fit), drain it with the capture
 * library into /dev/null, again and again; time per entry of each side.
 *
 * Then each run forks a writer that records ENTRIES/2 scopes of one static name
 * in a tight loop, twice: alone (flight mode, nothing reading), and while
 * `RECORDER capture` streams it to FILE.  Everything is reported as ratios
 * within the run, since the machine is shared and noisy:
 *   - captured / written entries (1.000 = lossless) and the dropped count;
 *   - the writer's speed under capture vs alone;
 *   - the capture's CPU time per entry vs the writer's time per entry
 *     (below 1: the consumer needs less than a core to keep up);
 *   - bytes in the file per entry.
 *
 * With --launch the capture starts the writer itself (`RECORDER capture -o
 * FILE -- capture_bench --writer ...`), with the rings that mode gives
 * unless -k says otherwise, and the writer starts at once, before the
 * capture has attached: the way a user captures a program from its start.
 */
#define _GNU_SOURCE
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/capture.h"
#include "recorder/reader.h"

#include "../bench_args.h"

extern char **environ;

static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

/* The writer: waits for a byte on go (if go >= 0), records, reports its
 * loop time on res, exits. */
static void writer(long iters, int go, int res) {
    if (rec_init() != 0) _exit(3);
    REC_INSTANT("attach");  /* claim the slot outside the timed loop */
    if (go >= 0) {
        int pid = (int)getpid();
        if (write(res, &pid, sizeof pid) != sizeof pid) _exit(4);
        char c;
        if (read(go, &c, 1) != 1) _exit(5);
    }
    double t0 = now_ns();
    for (long i = 0; i < iters; i++) {
        REC_SCOPE("work");
    }
    double ns = now_ns() - t0;
    /* Then its whole CPU time: under --launch it is the capture's child,
     * and the capture's rusage counts it. */
    struct rusage ru;
    getrusage(RUSAGE_SELF, &ru);
    double cpu = ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
                 ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
    if (write(res, &ns, sizeof ns) != sizeof ns || write(res, &cpu, sizeof cpu) != sizeof cpu) _exit(6);
    _exit(0);
}

/* The writers end with _exit(), which skips the recorder's atexit: their
 * segments stay, as after a crash.  A benchmark must not leave them. */
static void remove_segment(pid_t pid) {
    char name[64];
    snprintf(name, sizeof name, "/recorder.%d", (int)pid);
    shm_unlink(name);
}

static double writer_alone(long iters) {
    int res[2];
    if (pipe(res) != 0) exit(1);
    pid_t p = fork();
    if (p == 0) writer(iters, -1, res[1]);
    double ns = 0;
    if (read(res[0], &ns, sizeof ns) != sizeof ns) ns = -1;
    waitpid(p, NULL, 0);
    remove_segment(p);
    close(res[0]);
    close(res[1]);
    return ns;
}

struct cap_run {
    double writer_ns, cap_cpu_ns;
    unsigned long long events, entries, dropped, overwritten;
    long long bytes;
    int ok;
};

static int wait_stream(int pid) {
    char target[32], err[256];
    snprintf(target, sizeof target, "%d", pid);
    for (int i = 0; i < 20000; i++) {
        rec_seg *s;
        if (rec_seg_open(target, 0, &s, err, sizeof err) == REC_OK) {
            struct rec_seg_info info;
            rec_seg_get_info(s, &info);
            rec_seg_close(s);
            if (info.mode == REC_MODE_STREAM) return 0;
        }
        usleep(1000);
    }
    return -1;
}

/* Runs argv (argv[0]: the recorder) with its stderr into errfd, which it
 * then closes here. */
static pid_t spawn_capture(char **argv, int errfd) {
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_adddup2(&fa, errfd, 2);
    pid_t c;
    if (posix_spawn(&c, argv[0], &fa, NULL, argv, environ) != 0) {
        fprintf(stderr, "capture_bench: cannot run %s\n", argv[0]);
        exit(1);
    }
    posix_spawn_file_actions_destroy(&fa);
    close(errfd);
    return c;
}

/* The capture's summary line and resources into r. */
static void read_summary(struct cap_run *r, pid_t c, int errfd) {
    char buf[4096];
    ssize_t n, len = 0;
    while ((n = read(errfd, buf + len, sizeof buf - 1 - (size_t)len)) > 0) len += n;
    buf[len] = 0;
    int st;
    struct rusage ru;
    wait4(c, &st, 0, &ru);
    r->cap_cpu_ns = ((double)ru.ru_utime.tv_sec + (double)ru.ru_stime.tv_sec) * 1e9 +
                    ((double)ru.ru_utime.tv_usec + (double)ru.ru_stime.tv_usec) * 1e3;
    const char *p = strstr(buf, " events (");
    r->ok = WIFEXITED(st) && WEXITSTATUS(st) == 0 && p;
    if (p) {
        const char *q = p;
        while (q > buf && isdigit((unsigned char)q[-1])) q--;
        r->events = strtoull(q, NULL, 10);
        r->entries = strtoull(p + 9, NULL, 10);
    }
    const char *l = strstr(buf, "lost ");
    if (!l || sscanf(l, "lost %*u entries: %llu dropped, %llu overwritten", &r->dropped, &r->overwritten) != 2)
        r->ok = 0;
    if (!r->ok) fprintf(stderr, "capture_bench: capture said: %s\n", buf);
}

static struct cap_run writer_captured(const char *recorder, long iters, const char *out, int raw) {
    struct cap_run r;
    memset(&r, 0, sizeof r);
    int go[2], res[2], errp[2];
    if (pipe(go) || pipe(res) || pipe(errp)) exit(1);
    pid_t w = fork();
    if (w == 0) {
        close(go[1]);
        writer(iters, go[0], res[1]);
    }
    int pid = 0;
    if (read(res[0], &pid, sizeof pid) != sizeof pid) return r;
    char pids[32];
    snprintf(pids, sizeof pids, "%d", pid);
    char *argv[] = {(char *)recorder, "capture", pids, "-o", (char *)out, "-q", raw ? "--raw" : NULL, NULL};
    pid_t c = spawn_capture(argv, errp[1]);
    if (wait_stream(pid) != 0) {
        fprintf(stderr, "capture_bench: the capture never attached\n");
        kill(c, SIGTERM);
    }
    if (write(go[1], "g", 1) != 1) return r;
    if (read(res[0], &r.writer_ns, sizeof r.writer_ns) != sizeof r.writer_ns) return r;
    waitpid(w, NULL, 0);
    remove_segment(w);
    read_summary(&r, c, errp[0]);
    struct stat sb;
    r.bytes = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
    close(go[0]);
    close(go[1]);
    close(res[0]);
    close(res[1]);
    close(errp[0]);
    return r;
}

/* `RECORDER capture -o out -- capture_bench --writer ITERS FD`. */
static struct cap_run writer_launched(const char *recorder, const char *self, long iters, const char *out, int raw,
                                      const char *ring) {
    struct cap_run r;
    memset(&r, 0, sizeof r);
    int res[2], errp[2];
    if (pipe(res) || pipe(errp)) exit(1);
    char its[32], fd[16];
    snprintf(its, sizeof its, "%ld", iters);
    snprintf(fd, sizeof fd, "%d", res[1]);
    char *argv[16];
    int k = 0;
    argv[k++] = (char *)recorder;
    argv[k++] = "capture";
    argv[k++] = "-o";
    argv[k++] = (char *)out;
    argv[k++] = "-q";
    if (raw) argv[k++] = "--raw";
    if (ring) {
        argv[k++] = "--ring-kb";
        argv[k++] = (char *)ring;
    }
    argv[k++] = "--";
    argv[k++] = (char *)self;
    argv[k++] = "--writer";
    argv[k++] = its;
    argv[k++] = fd;
    argv[k] = NULL;
    pid_t c = spawn_capture(argv, errp[1]);
    close(res[1]);
    double child_cpu = 0;
    if (read(res[0], &r.writer_ns, sizeof r.writer_ns) != sizeof r.writer_ns ||
        read(res[0], &child_cpu, sizeof child_cpu) != sizeof child_cpu)
        r.writer_ns = -1;
    close(res[0]);
    read_summary(&r, c, errp[0]);
    r.cap_cpu_ns -= child_cpu;   /* wait4 counted its reaped child, the writer */
    close(errp[0]);
    struct stat sb;
    r.bytes = stat(out, &sb) == 0 ? (long long)sb.st_size : -1;
    return r;
}

/* In-process: writer and consumer take turns on one ring, so each side's
 * time per entry is its own, whatever else the machine does. */
static void consumer_cost(int raw) {
    setenv("RECORDER_RING_KB", "1024", 1);  /* stays in L2, as a busy ring's tail does */
    if (rec_init() != 0) exit(1);
    char err[256];
    rec_seg *s;
    if (rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "capture_bench: %s\n", err);
        exit(1);
    }
    struct rec_capture_opts o = {0, raw, 0};
    rec_capture *c;
    if (rec_capture_start(s, "/dev/null", &o, &c, err, sizeof err) != REC_OK) {
        fprintf(stderr, "capture_bench: %s\n", err);
        exit(1);
    }
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    size_t m;
    REC_INSTANT("attach");
    rec_capture_poll(c, &m, err, sizeof err);
    double tw = 0, tc = 0;
    uint64_t total = 0;
    for (int r = 0; r < 200; r++) {
        double a = now_ns();
        for (uint64_t i = 0; i < info.ring_entries / 2; i++) {
            REC_SCOPE("work");
        }
        double b = now_ns();
        rec_capture_poll(c, &m, err, sizeof err);
        tc += now_ns() - b;
        tw += b - a;
        total += m;
    }
    rec_capture_finish(c, REC_CAPTURE_END_STOPPED, NULL, err, sizeof err);
    rec_seg_close(s);
    rec_shutdown();
    printf("consumer alone (in-process, 1 MiB ring, %llu entries): writer %.2f ns/entry, capture %.2f ns/entry: ratio %.2f\n",
           (unsigned long long)total, tw / (double)total, tc / (double)total, tc / tw);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

#define USAGE "usage: capture_bench RECORDER [-n ENTRIES] [-r RUNS] [-k RING_KB] [-o FILE] [--raw] [--launch]\n"

static void usage(FILE *f) {
    fprintf(f, USAGE
               "  RECORDER    the recorder CLI to capture with (BUILD/librecorder/cli/recorder)\n"
               "  -n ENTRIES  entries written per run, at least 2 (default 200000000)\n"
               "  -r RUNS     runs, at least 1 (default 3)\n"
               "  -k RING_KB  the writer's ring, KiB (default 1024; 65536 with --launch)\n"
               "  -o FILE     the capture's file, removed at the end (default /dev/shm/capture_bench.rec)\n"
               "  --raw       capture unpacked (default: packed)\n"
               "  --launch    the capture starts the writer (`capture -- CMD`; default: it attaches)\n"
               "  -h, --help  this text\n"
               "(capture_bench --writer ITERS FD is the writer --launch starts.)\n");
}

/* A bad command line: why, the usage line, exit status 2 (bench_args.h). */
static int bad(const char *why, const char *arg) { return bench_bad("capture_bench", USAGE, why, arg); }

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "--writer")) {   /* the command of --launch */
        long long iters, fd;
        if (argc != 4 || bench_parse_ll(argv[2], 0, LONG_MAX, &iters) || bench_parse_ll(argv[3], 0, INT_MAX, &fd))
            return bad("--writer wants ITERS FD", NULL);
        writer(iters, -1, (int)fd);
        return 0;
    }
    const char *recorder = NULL, *out = "/dev/shm/capture_bench.rec", *ring = "1024";
    long long entries = 200000000;
    int runs = 3, raw = 0, launch = 0, ring_given = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long x;
        if (bench_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else if (!strcmp(a, "--launch")) {
            launch = 1;
        } else if (!strcmp(a, "-n") || !strcmp(a, "-r") || !strcmp(a, "-k") || !strcmp(a, "-o")) {
            if (i + 1 == argc) return bad("missing value after", a);
            const char *v = argv[++i];
            if (a[1] == 'o') {
                out = v;
            } else if (a[1] == 'n') {
                if (bench_parse_ll(v, 2, LONG_MAX, &entries)) return bad("-n wants an integer of at least 2", v);
            } else if (bench_parse_ll(v, 1, INT_MAX, &x)) {
                return bad(a[1] == 'r' ? "-r wants a positive integer" : "-k wants a positive integer", v);
            } else if (a[1] == 'r') {
                runs = (int)x;
            } else {
                ring = v, ring_given = 1;
            }
        } else if (a[0] == '-') {
            return bad("unknown option", a);
        } else if (recorder) {
            return bad("unexpected argument", a);
        } else {
            recorder = a;
        }
    }
    if (!recorder) return bad("no RECORDER given", NULL);
    if (access(recorder, X_OK) != 0) return bad("cannot run", recorder);
    if (launch && !ring_given) ring = "65536";   /* what `capture -- CMD` gives */
    char self[4096];
    ssize_t sl = readlink("/proc/self/exe", self, sizeof self - 1);
    if (sl <= 0) return 1;
    self[sl] = 0;
    setenv("RECORDER_RING_KB", ring, 1);
    unsetenv("RECORDER_MODE");
    unsetenv("RECORDER_KEEP");
    long iters = entries / 2;
    pid_t cc = fork();
    if (cc == 0) {
        consumer_cost(raw);
        fflush(stdout);
        _exit(0);
    }
    waitpid(cc, NULL, 0);
    remove_segment(cc);
    printf("capture_bench: %ld scopes (%ld entries) per run, ring %s KiB, %s to %s%s\n", iters, 2 * iters, ring,
           raw ? "raw" : "packed", out, launch ? ", capture -- CMD" : "");
    printf("%4s %12s %12s %10s %12s %10s %10s %8s\n", "run", "alone ns/e", "captured", "dropped", "writer x",
           "cap cpu x", "bytes/e", "lossless");
    double *ratio = calloc((size_t)runs, sizeof *ratio), *cpu = calloc((size_t)runs, sizeof *cpu);
    int lossless = 0;
    for (int i = 0; i < runs; i++) {
        setenv("RECORDER_RING_KB", ring, 1);
        double alone = writer_alone(iters);
        struct cap_run r;
        if (launch) {
            unsetenv("RECORDER_RING_KB");   /* the capture's own default, unless -k */
            r = writer_launched(recorder, self, iters, out, raw, ring_given ? ring : NULL);
        } else {
            r = writer_captured(recorder, iters, out, raw);
        }
        if (!r.ok || alone <= 0) return 1;
        /* The writer's entries: the scopes, plus THREAD_START, THREAD_NAME
         * and the "attach" instant. */
        double written = (double)(2 * iters + 3);
        double per_entry = alone / (double)(2 * iters);
        ratio[i] = (double)r.entries / written;
        cpu[i] = r.cap_cpu_ns / (double)r.entries / per_entry;
        lossless += r.dropped == 0 && r.overwritten == 0;
        printf("%4d %12.2f %12.4f %10llu %12.2f %10.2f %10.2f %8s\n", i + 1, per_entry, ratio[i], r.dropped,
               r.writer_ns / alone, cpu[i], (double)r.bytes / (double)r.entries,
               r.dropped == 0 && r.overwritten == 0 ? "yes" : "no");
        if ((unsigned long long)written != r.entries + r.dropped + r.overwritten)
            printf("     (accounting: %llu captured + %llu dropped + %llu overwritten != %.0f written)\n", r.entries,
                   r.dropped, r.overwritten, written);
    }
    qsort(ratio, (size_t)runs, sizeof *ratio, cmp_d);
    qsort(cpu, (size_t)runs, sizeof *cpu, cmp_d);
    printf("median: captured/written %.4f, capture cpu per entry / writer time per entry %.2f, lossless runs %d/%d\n",
           ratio[runs / 2], cpu[runs / 2], lossless, runs);
    /* Only a file we made: -o /dev/null must not remove /dev/null. */
    struct stat sb;
    if (stat(out, &sb) == 0 && S_ISREG(sb.st_mode)) unlink(out);
    return 0;
}
