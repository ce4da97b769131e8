/*
 * web_target.c -- a multi-threaded instrumented program for recorder-web's
 * tests and benchmark: named worker threads with nested scopes (static and
 * dynamic names), instants with messages, a counter, flows from a
 * dispatcher to the workers, and one scope that stays open all run long.
 *
 *   web_target [--threads N] [--rate EVENTS_PER_SEC_PER_THREAD]
 *              [--work-ns NS] [--events N] [--seconds S] [--delay-ms MS]
 *              [--layers N]
 *
 * --delay-ms: sleep before the first event (or until SIGUSR1), so that
 * there is no segment yet (recorder-web --wait).
 * Prints "held PID" once SIGUSR1 is caught (with --delay-ms: signalled
 * before, the program would die of it), and "ready PID" once every thread
 * has recorded its first event.
 * With --events, each worker stops after about N events, the program
 * prints "done" and idles (alive, recording nothing) until --seconds or
 * SIGTERM.
 * --layers N: the matmul scopes are N long names that differ only in a
 * middle number, transformer.model.layers.2.feed_forward.down_proj.matmul
 * to ...N+1...
 * (the page's name elision, tests/web/names.test.js).
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define EVENTS_PER_STEP 10    /* 4 scopes (8), a counter, an instant */

static int n_threads = 4;
static double rate = 20000;   /* events per second per worker */
static long work_ns = 2000;   /* busy time inside the innermost scope */
static long max_events = 0;   /* 0 = no limit */
static double seconds = 3600;
static long layers = 0;       /* --layers: long names, differing in a middle number */
static atomic_int stop;
static atomic_int go;         /* SIGUSR1: --delay-ms is over */
static atomic_int started;
static atomic_int finished;   /* workers that reached --events */
static atomic_ullong handoff; /* flow id from the dispatcher, 0 = none */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void spin(long ns) {
    if (ns <= 0) return;
    double end = now_s() + (double)ns / 1e9;
    while (now_s() < end) {
    }
}

static void step(int worker, long i) {
    REC_SCOPE("step");
    {
        REC_SCOPE("layer");
        char name[96];
        if (layers > 0)
            snprintf(name, sizeof name, "transformer.model.layers.%ld.feed_forward.down_proj.matmul", i % layers + 2);
        else
            snprintf(name, sizeof name, "matmul_blk.%ld", i % 4);
        {
            REC_SCOPE_DYN(name);
            spin(work_ns);
        }
        {
            REC_SCOPE("attention");
            spin(work_ns / 2);
        }
    }
    REC_COUNTER("queue_depth", (double)((i * 7 + worker) % 32));
    char msg[32];
    snprintf(msg, sizeof msg, "token=%ld", i);
    REC_INSTANT("token", msg);
    unsigned long long f = atomic_exchange(&handoff, 0);
    if (f) REC_FLOW_END(f);
}

static void *worker_main(void *arg) {
    int k = (int)(long)arg;
    char name[32];
    snprintf(name, sizeof name, "worker-%d", k);
    REC_THREAD_NAME(name);
    atomic_fetch_add(&started, 1);
    double t0 = now_s();
    long done = 0;
    int reached = 0;
    while (!atomic_load(&stop)) {
        if (max_events && done * EVENTS_PER_STEP >= max_events) {
            if (!reached) atomic_fetch_add(&finished, 1);
            reached = 1;
            usleep(10000);
            continue;
        }
        /* Pace in 1 ms bursts: the steps due by now, then sleep. */
        long due = (long)((now_s() - t0) * rate / EVENTS_PER_STEP) + 1;
        if (max_events && due * EVENTS_PER_STEP > max_events) due = max_events / EVENTS_PER_STEP;
        while (done < due && !atomic_load(&stop)) step(k, done++);
        usleep(1000);
    }
    return NULL;
}

static void on_signal(int sig) {
    (void)sig;
    atomic_store(&stop, 1);
}

static void on_go(int sig) {
    (void)sig;
    atomic_store(&go, 1);
}

int main(int argc, char **argv) {
    long delay_ms = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads")) n_threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--rate")) rate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--work-ns")) work_ns = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--events")) max_events = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--delay-ms")) delay_ms = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--layers")) layers = atol(argv[i + 1]);
        else {
            fprintf(stderr, "web_target: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (n_threads < 1 || n_threads > 64 || rate <= 0 || layers < 0 || layers > 1000) {
        fprintf(stderr, "web_target: bad --threads, --rate or --layers\n");
        return 2;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    signal(SIGUSR1, on_go);
    if (delay_ms > 0) {   /* SIGUSR1 is caught from here on: a test waits for this line to send it */
        printf("held %d\n", (int)getpid());
        fflush(stdout);
    }
    for (; delay_ms > 0 && !atomic_load(&go) && !atomic_load(&stop); delay_ms -= 10) {
        struct timespec d = {0, 10000000L};
        nanosleep(&d, NULL);
    }
    if (atomic_load(&stop)) return 0;
    if (rec_init() != 0) {
        fprintf(stderr, "web_target: recording is off (RECORDER=0?)\n");
        return 1;
    }
    REC_THREAD_NAME("dispatcher");
    REC_BEGIN("session");
    pthread_t *t = calloc((size_t)n_threads, sizeof *t);
    for (int k = 0; k < n_threads; k++) pthread_create(&t[k], NULL, worker_main, (void *)(long)k);
    while (atomic_load(&started) < n_threads) usleep(1000);
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    double end = now_s() + seconds;
    unsigned long long flow = 0;
    long round = 0;
    int said_done = 0;
    while (!atomic_load(&stop) && now_s() < end) {
        if (max_events && !said_done && atomic_load(&finished) == n_threads && round >= 200) {
            printf("done\n");
            fflush(stdout);
            said_done = 1;
        }
        if (!max_events || round < 200) {
            REC_SCOPE("dispatch");
            if (atomic_load(&handoff) == 0) {
                REC_FLOW_BEGIN(++flow);
                atomic_store(&handoff, flow);
            }
            REC_INSTANT("tick");
            spin(20000);
            round++;
        }
        usleep(20000);
    }
    atomic_store(&stop, 1);
    for (int k = 0; k < n_threads; k++) pthread_join(t[k], NULL);
    REC_END();
    free(t);
    rec_shutdown();
    return 0;
}
