/*
 * tui_bench_writer.c -- the program recorder-top must keep up with: N
 * threads writing nested scopes at a set total rate, or as fast as they
 * can (--rate 0).
 *
 *   tui_bench_writer --threads N --rate EVENTS_PER_SEC --seconds S [--names N]
 *
 * --names N: every scope gets a run-time name (REC_SCOPE_DYN) of N
 * distinct ones, taken in turn across the threads, so the viewers see N
 * names (bench/tui/names_bench.py: issue 22's million names).
 *
 * A scope is two events (begin, end).  Paced threads write a batch every
 * millisecond and sleep to the next millisecond, the way a busy program's
 * bursts arrive; the batch is small next to a 1 MiB ring (65536 entries).
 * It starts writing at a line on stdin and at the end prints how many
 * events it wrote, so the runner can set recorder-top's decoded + lost
 * against it.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <errno.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench_args.h"

static double rate_per_thread;   /* events/s; 0 = full speed */
static double seconds = 10;
static volatile int go;
static unsigned n_names;         /* 0: the four static names */
static int n_threads = 4;

struct worker {
    pthread_t th;
    int id;
    uint64_t events;
};

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Eight events: a layer holding three ops. */
static inline void burst(void) {
    REC_SCOPE("layer");
    { REC_SCOPE("matmul"); }
    { REC_SCOPE("softmax"); }
    { REC_SCOPE("norm"); }
}

/* Eight events, each scope of its own run-time name: the names of thread
 * id are id, id + threads, ... (mod n_names), one after another. */
static inline void burst_dyn(unsigned *next) {
    for (int k = 0; k < 4; k++) {
        char name[24];
        snprintf(name, sizeof name, "name-%07u", *next);
        *next = (*next + (unsigned)n_threads) % n_names;
        REC_SCOPE_DYN(name);
    }
}

static void *run(void *arg) {
    struct worker *w = arg;
    char name[32];
    snprintf(name, sizeof name, "writer-%d", w->id);
    REC_THREAD_NAME(name);
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) usleep(100);
    double start = now_s(), end = start + seconds;
    uint64_t n = 0;
    unsigned nm = n_names ? (unsigned)w->id % n_names : 0;
#define BURST() (n_names ? burst_dyn(&nm) : burst())
    if (rate_per_thread <= 0) {
        while (now_s() < end) {
            for (int i = 0; i < 1024; i++) BURST();
            n += 1024 * 8;
        }
    } else {
        /* One batch per millisecond, to an absolute schedule. */
        uint64_t per_ms = (uint64_t)(rate_per_thread / 1000 / 8);
        if (per_ms == 0) per_ms = 1;
        struct timespec next;
        clock_gettime(CLOCK_MONOTONIC, &next);
        while (now_s() < end) {
            for (uint64_t i = 0; i < per_ms; i++) BURST();
            n += per_ms * 8;
            next.tv_nsec += 1000000;
            if (next.tv_nsec >= 1000000000) next.tv_nsec -= 1000000000, next.tv_sec++;
            clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
        }
    }
    w->events = n;
    return NULL;
}

#define USAGE "usage: tui_bench_writer [--threads N] [--rate EV/S] [--seconds S] [--names N]\n"

static void usage(FILE *f) {
    fprintf(f, USAGE
               "  --threads N    writer threads, 1-64 (default 4)\n"
               "  --rate EV/S    events per second, all threads together; 0 = full speed (default 20e6)\n"
               "  --seconds S    how long to write once started (default 10)\n"
               "  --names N      run-time names, N distinct ones; 0 = four static names (default 0)\n"
               "  -h, --help     this text\n"
               "It prints \"ready PID\", writes once a line comes on stdin, then prints what it wrote.\n");
}

/* A bad command line: why, the usage line, exit status 2 (bench_args.h). */
static int bad(const char *why, const char *arg) { return bench_bad("tui_bench_writer", USAGE, why, arg); }

int main(int argc, char **argv) {
    int threads = 4;
    double rate = 20e6;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        long long x;
        if (bench_is_help(a)) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--threads") && strcmp(a, "--rate") && strcmp(a, "--seconds") && strcmp(a, "--names"))
            return bad("unknown option", a);
        if (i + 1 == argc) return bad("missing value after", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--rate")) {
            if (bench_parse_d(v, 0, 1e12, &rate)) return bad("--rate wants events/s, 0 or more", v);
        } else if (!strcmp(a, "--seconds")) {
            if (bench_parse_d(v, 0, 1e9, &seconds) || seconds <= 0) return bad("--seconds wants a number above 0", v);
        } else if (!strcmp(a, "--threads")) {
            if (bench_parse_ll(v, 1, 64, &x)) return bad("--threads wants an integer from 1 to 64", v);
            threads = (int)x;
        } else {
            if (bench_parse_ll(v, 0, UINT_MAX, &x)) return bad("--names wants an integer, 0 or more", v);
            n_names = (unsigned)x;
        }
    }
    rate_per_thread = rate / threads;
    n_threads = threads;
    if (rec_init() != 0) {
        fprintf(stderr, "tui_bench_writer: recording is off\n");
        return 1;
    }
    struct worker *w = calloc((size_t)threads, sizeof *w);
    for (int i = 0; i < threads; i++) {
        w[i].id = i;
        pthread_create(&w[i].th, NULL, run, &w[i]);
    }
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    /* Write once the runner says so (a line on stdin): by then recorder-top
     * is attached, so every event written is either decoded or lost. */
    char line[16];
    if (!fgets(line, sizeof line, stdin)) return 1;
    double t0 = now_s();
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    uint64_t total = 0;
    for (int i = 0; i < threads; i++) {
        pthread_join(w[i].th, NULL);
        total += w[i].events;
    }
    double t = now_s() - t0;
    printf("written=%llu seconds=%.3f rate=%.0f\n", (unsigned long long)total, t, (double)total / t);
    free(w);
    return 0;
}
