/*
 * watch_work.c -- the workload that shows what watching costs: every core
 * busy, in lock step at a spinning barrier, the way ggml's CPU backend
 * runs llama.cpp.
 *
 *   watch_work [--threads N] [--seconds S] [--work-us US]
 *
 * Each "op" gives every thread the same slice of arithmetic (about US
 * microseconds), inside a scope named like llama.cpp's ops, and then a
 * barrier where the threads spin until the last one arrives.  A viewer that
 * wakes up takes a core from one thread for a moment, and the others wait
 * for it at the barrier: that is the cost bench/watch/watch.js measures, as
 * the ratio of ops per second with a viewer attached to ops per second
 * alone.  A blocking barrier (examples/inference uses condition variables)
 * would hide it: the waiters would give their cores to the viewer.
 *
 * Thread 0 also writes a counter (ops/s) and an instant every 256 ops, as a
 * token loop would.  It prints "ready PID", starts at a line on stdin (so a
 * viewer can attach first), and at the end prints
 * "ops N seconds S events E".
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../bench_args.h"

#define MAX_THREADS 64

static int nthreads;
static double seconds = 5;
static long work_iters;              /* arithmetic per thread per op */
static volatile int go;
static volatile int stop;

/* A sense-reversing spin barrier: arrivals count down; the last one resets
 * the count and flips the sense the others spin on. */
static int bar_left;
static int bar_sense;

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static void barrier(int *local_sense) {
    *local_sense = !*local_sense;
    if (__atomic_sub_fetch(&bar_left, 1, __ATOMIC_ACQ_REL) == 0) {
        __atomic_store_n(&bar_left, nthreads, __ATOMIC_RELAXED);
        __atomic_store_n(&bar_sense, *local_sense, __ATOMIC_RELEASE);
    } else {
        while (__atomic_load_n(&bar_sense, __ATOMIC_ACQUIRE) != *local_sense) cpu_relax();
    }
}

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* The op's arithmetic: a dependent chain the compiler cannot drop. */
static double work(long iters, double x) {
    for (long i = 0; i < iters; i++) x = x * 1.0000001 + 0.5e-9;
    return x;
}

static const char *const op_names[] = {"mul_mat", "rms_norm", "mul_mat", "rope", "soft_max", "mul_mat", "add"};
#define N_OPS (sizeof op_names / sizeof op_names[0])

struct worker {
    pthread_t th;
    int id;
    long ops;
    double sink;
};

static void *run(void *arg) {
    struct worker *w = arg;
    char name[32];
    snprintf(name, sizeof name, "worker-%d", w->id);
    REC_THREAD_NAME(name);
    int sense = 0;
    while (!__atomic_load_n(&go, __ATOMIC_ACQUIRE)) usleep(100);
    barrier(&sense);
    double t0 = now_s(), last = t0;
    long ops = 0;
    for (;;) {
        {
            REC_SCOPE_DYN(op_names[ops % N_OPS]);
            w->sink = work(work_iters, w->sink);
        }
        {
            REC_SCOPE_WAIT("barrier");
            barrier(&sense);
        }
        ops++;
        /* Thread 0 decides when to stop; everyone sees it after the same
         * barrier, so every thread does the same number of ops. */
        if (w->id == 0 && (ops & 15) == 0) {
            double t = now_s();
            if ((ops & 255) == 0) {
                REC_COUNTER("ops_per_s", 256.0 / (t - last));
                REC_INSTANT("token", "256 ops");
                last = t;
            }
            if (t - t0 >= seconds) __atomic_store_n(&stop, 1, __ATOMIC_RELEASE);
        }
        {
            REC_SCOPE_WAIT("barrier");
            barrier(&sense);
        }
        if (__atomic_load_n(&stop, __ATOMIC_ACQUIRE)) break;
    }
    w->ops = ops;
    return NULL;
}

#define USAGE "usage: watch_work [--threads N] [--seconds S] [--work-us US]\n"

static void usage(FILE *f) {
    fprintf(f, USAGE "  --threads N   threads in lock step, 1-64 (default: the CPUs online)\n"
                     "  --seconds S   how long to run after the go line, above 0 (default 5)\n"
                     "  --work-us US  arithmetic per thread per op, microseconds, above 0 (default 20)\n");
}

static int bad(const char *why, const char *arg) { return bench_bad("watch_work", USAGE, why, arg); }

int main(int argc, char **argv) {
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    nthreads = cpus < 1 ? 1 : cpus > MAX_THREADS ? MAX_THREADS : (int)cpus;
    double work_us = 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (bench_is_help(a)) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--threads") && strcmp(a, "--seconds") && strcmp(a, "--work-us"))
            return bad("unknown option", a);
        if (i + 1 == argc) return bad("missing value after", a);
        const char *v = argv[++i];
        long long n;
        if (!strcmp(a, "--threads")) {
            if (bench_parse_ll(v, 1, MAX_THREADS, &n)) return bad("--threads wants 1-64", v);
            nthreads = (int)n;
        } else if (!strcmp(a, "--seconds")) {
            if (bench_parse_d(v, 1e-9, 1e9, &seconds)) return bad("--seconds wants a number above 0", v);
        } else if (bench_parse_d(v, 1e-9, 1e9, &work_us)) {
            return bad("--work-us wants a number above 0", v);
        }
    }

    /* Calibrate the arithmetic to work_us on this machine. */
    long probe = 1 << 20;
    double t = now_s();
    volatile double keep = work(probe, 1.0);
    (void)keep;
    double per_iter = (now_s() - t) / (double)probe;
    work_iters = (long)(work_us * 1e-6 / (per_iter > 0 ? per_iter : 1e-9));
    if (work_iters < 1) work_iters = 1;

    __atomic_store_n(&bar_left, nthreads, __ATOMIC_RELAXED);
    struct worker w[MAX_THREADS];
    memset(w, 0, sizeof w);
    for (int i = 1; i < nthreads; i++) {
        w[i].id = i;
        if (pthread_create(&w[i].th, NULL, run, &w[i])) { perror("pthread_create"); return 1; }
    }
    /* The segment exists before "ready": a viewer started on that line
     * finds it (the main thread, worker 0, names itself here). */
    REC_THREAD_NAME("worker-0");
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    char line[16];
    if (!fgets(line, sizeof line, stdin)) return 1;
    double start = now_s();
    __atomic_store_n(&go, 1, __ATOMIC_RELEASE);
    run(&w[0]);
    double took = now_s() - start;
    for (int i = 1; i < nthreads; i++) pthread_join(w[i].th, NULL);
    /* Per op and thread: a scope and two wait scopes (6 entries); thread 0
     * adds a counter and an instant every 256 ops. */
    long ops = w[0].ops;
    long events = ops * 6L * nthreads + (ops / 256) * 2;
    printf("ops %ld seconds %.6f events %ld\n", ops, took, events);
    return 0;
}
