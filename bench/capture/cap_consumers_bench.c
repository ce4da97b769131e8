/*
 * cap_consumers_bench.c -- how a capture's drain scales with consumer
 * threads (rec_capture_opts.consumers, recorder capture --consumers).
 *
 * In one process, W writer threads each fill their ring to half (flight
 * mode is off: we are the stream-mode consumer, so nothing is dropped),
 * then the capture drains them all with N consumer threads into
 * /dev/null, packed.  Writers and consumers take turns, so the drain's
 * time is its own.  For N = 1 .. max, in one run, interleaved over the
 * rounds, each as a ratio to N = 1:
 *   - entries drained per second of wall time: the scaling, which needs a
 *     core per consumer thread (past the cores the threads share them);
 *   - entries drained per CPU-second of the consumers: the per-thread
 *     throughput, which holds as threads are added unless they get in
 *     each other's way (the lock around the file, shared cache lines).
 *     It is what a loaded machine can still tell.
 *
 *   cap_consumers_bench [-w WRITERS] [-n MAX_CONSUMERS] [-r ROUNDS]   (--help: the defaults)
 *
 * With --writer W SCOPES it is instead the program a capture starts:
 * W threads write SCOPES scopes each, flat out, at once (scale.sh runs
 * `recorder capture --consumers N -- cap_consumers_bench --writer ...`).
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

#include "recorder/capture.h"
#include "recorder/reader.h"

#include "../bench_args.h"

static int writers = 8, max_n = 4, rounds = 10;
static uint64_t per_writer;
static pthread_barrier_t go, done;

static double clock_s(clockid_t id) {
    struct timespec t;
    clock_gettime(id, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void *writer(void *arg) {
    (void)arg;
    for (;;) {
        pthread_barrier_wait(&go);
        if (!per_writer) break;
        for (uint64_t i = 0; i < per_writer / 2; i++) {
            REC_SCOPE("work");
        }
        pthread_barrier_wait(&done);
    }
    return NULL;
}

static uint64_t flat_out_scopes;

static void *flat_out(void *arg) {
    (void)arg;
    pthread_barrier_wait(&go);
    for (uint64_t i = 0; i < flat_out_scopes; i++) {
        REC_SCOPE("work");
    }
    return NULL;
}

/* --writer W SCOPES: every thread starts together, after its ring is set up. */
static int writer_mode(int w, long long scopes) {
    if (w < 1 || w > 256 || scopes < 1) return 2;
    flat_out_scopes = (uint64_t)scopes;
    pthread_barrier_init(&go, NULL, (unsigned)w);
    pthread_t *th = calloc((size_t)w, sizeof *th);
    for (int i = 0; i < w; i++) pthread_create(&th[i], NULL, flat_out, NULL);
    for (int i = 0; i < w; i++) pthread_join(th[i], NULL);
    return 0;
}

#define USAGE "usage: cap_consumers_bench [-w WRITERS] [-n MAX_CONSUMERS] [-r ROUNDS]\n" \
              "       cap_consumers_bench --writer W SCOPES\n"

static void usage(FILE *f) {
    fprintf(f, USAGE
               "  -w WRITERS        writer threads, 1-64 (default 8)\n"
               "  -n MAX_CONSUMERS  consumer threads 1 .. this, 1-64 (default 4)\n"
               "  -r ROUNDS         rounds, each N drained once a round, at least 1 (default 10)\n"
               "  --writer W SCOPES the program a capture starts: W threads (1-256) write\n"
               "                    SCOPES scopes each, flat out (scale.sh)\n"
               "  -h, --help        this text\n");
}

/* A bad command line: why, the usage line, exit status 2 (bench_args.h). */
static int bad(const char *why, const char *arg) { return bench_bad("cap_consumers_bench", USAGE, why, arg); }

int main(int argc, char **argv) {
    for (int i = 1; i < argc; i++)
        if (bench_is_help(argv[i])) {
            usage(stdout);
            return 0;
        }
    if (argc > 1 && !strcmp(argv[1], "--writer")) {
        long long w, scopes;
        if (argc != 4) return bad("--writer wants W SCOPES and nothing else", NULL);
        if (bench_parse_ll(argv[2], 1, 256, &w)) return bad("--writer W wants an integer from 1 to 256", argv[2]);
        if (bench_parse_ll(argv[3], 1, LLONG_MAX, &scopes)) return bad("--writer SCOPES wants a positive integer", argv[3]);
        return writer_mode((int)w, scopes);
    }
    for (int i = 1; i < argc; i++) {
        int *v = !strcmp(argv[i], "-w")   ? &writers
                 : !strcmp(argv[i], "-n") ? &max_n
                 : !strcmp(argv[i], "-r") ? &rounds
                                          : NULL;
        long long x;
        if (!v) return bad("unknown option", argv[i]);
        if (i + 1 == argc) return bad("missing value after", argv[i]);
        if (bench_parse_ll(argv[++i], 1, v == &rounds ? INT_MAX : 64, &x))
            return bad(v == &rounds ? "-r wants a positive integer" : "-w and -n want an integer from 1 to 64",
                       argv[i]);
        *v = (int)x;
    }
    setenv("RECORDER_RING_KB", "16384", 1);   /* 1 M entries a ring: each fill is 0.5 M */
    setenv("RECORDER_MAX_THREADS", "80", 1);
    if (rec_init() != 0) return 1;
    char err[512];
    rec_seg *s;
    if (rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "cap_consumers_bench: %s\n", err);
        return 1;
    }
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    per_writer = info.ring_entries / 2;
    rec_capture **cap = calloc((size_t)max_n + 1, sizeof *cap);
    for (int n = 1; n <= max_n; n++) {
        struct rec_capture_opts o = {0, 0, 0};
        if (rec_capture_start(s, "/dev/null", &o, &cap[n], err, sizeof err) != REC_OK ||
            rec_capture_set_consumers(cap[n], (unsigned)n, err, sizeof err) != REC_OK) {
            fprintf(stderr, "cap_consumers_bench: %s\n", err);
            return 1;
        }
    }
    double *secs = calloc((size_t)max_n + 1, sizeof *secs), *cpu = calloc((size_t)max_n + 1, sizeof *cpu);
    uint64_t *moved = calloc((size_t)max_n + 1, sizeof *moved);
    pthread_barrier_init(&go, NULL, (unsigned)writers + 1);
    pthread_barrier_init(&done, NULL, (unsigned)writers + 1);
    pthread_t *th = calloc((size_t)writers, sizeof *th);
    for (int i = 0; i < writers; i++) pthread_create(&th[i], NULL, writer, NULL);
    /* Round r drains with each N in turn: one capture per N, all reading
     * through the segment's one cursor per ring, so each drains what the
     * writers added since the last drain, whichever capture did it. */
    const uint64_t fill = per_writer;
    for (int r = 0; r < rounds; r++)
        for (int n = 1; n <= max_n; n++) {
            pthread_barrier_wait(&go);
            pthread_barrier_wait(&done);
            double a = clock_s(CLOCK_MONOTONIC), ca = clock_s(CLOCK_PROCESS_CPUTIME_ID);
            size_t m = 0, total = 0;
            do {
                if (rec_capture_poll(cap[n], &m, err, sizeof err) != REC_OK) {
                    fprintf(stderr, "cap_consumers_bench: %s\n", err);
                    return 1;
                }
                total += m;
            } while (m);
            secs[n] += clock_s(CLOCK_MONOTONIC) - a;
            cpu[n] += clock_s(CLOCK_PROCESS_CPUTIME_ID) - ca;   /* the writers wait at the barrier meanwhile */
            moved[n] += total;
        }
    per_writer = 0;
    pthread_barrier_wait(&go);
    for (int i = 0; i < writers; i++) pthread_join(th[i], NULL);
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    printf("capture drain: %d writers, %llu entries each per round, %d rounds, %ld CPUs, packed into /dev/null\n",
           writers, (unsigned long long)fill, rounds, cpus);
    printf("%-10s %12s %8s %14s %8s\n", "consumers", "M entries/s", "x N=1", "M per CPU-s", "x N=1");
    double base = moved[1] / secs[1], cbase = moved[1] / cpu[1];
    for (int n = 1; n <= max_n; n++) {
        double rate = moved[n] / secs[n], crate = moved[n] / cpu[n];
        printf("%-10d %12.1f %8.2f %14.1f %8.2f\n", n, rate / 1e6, rate / base, crate / 1e6, crate / cbase);
    }
    for (int n = 1; n <= max_n; n++) rec_capture_finish(cap[n], REC_CAPTURE_END_STOPPED, NULL, err, sizeof err);
    rec_seg_close(s);
    rec_shutdown();
    return 0;
}
