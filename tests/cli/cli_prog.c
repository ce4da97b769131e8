/*
 * cli_prog.c -- small instrumented programs for the `recorder` CLI tests,
 * one per mode:
 *
 *   cli_prog scopes [N]       a known workload on 3 threads, print "pid P",
 *                             exit 0
 *   cli_prog hold             finish some scopes, open "outer" > "inner",
 *                             print "ready", and wait to be killed
 *   cli_prog late MS          print "started P", sleep MS ms or until
 *                             SIGUSR1 (no segment yet: --wait), then as hold
 *   cli_prog silent MS        print "started P", sleep MS ms or until
 *                             SIGUSR1, exit 0 without recording anything
 *   cli_prog spin N           wait for a capture (stream mode), emit N
 *                             instants "tick" at full speed, print "emitted N"
 *   cli_prog threads T K      wait for a capture, run T threads one after
 *                             another, K scopes each (slot reuse with
 *                             RECORDER_MAX_THREADS=1), print "emitted T*K"
 *   cli_prog loop             wait for a capture, then record scopes until
 *                             killed
 *   cli_prog fork             scopes in the parent and in a forked child
 *   cli_prog exit CODE        one scope, then exit with CODE
 *   cli_prog segv             open a scope, print "pid P" and crash
 *   cli_prog barrier N KIND   N steps of 10 us work and a 90 us barrier:
 *                             KIND "macro" (REC_SCOPE_WAIT) or "named"
 *                             (a plain scope "ggml_barrier"), print "pid P"
 *   cli_prog crowd T          one scope on main, then T threads alive at once,
 *                             one scope each (with RECORDER_MAX_THREADS=2,
 *                             exactly T-1 get no ring), print "pid P", exit 0
 *   cli_prog evil             name itself, two threads and their scopes with
 *                             terminal controls (ESC, CR, BEL, C1 CSI 0x9b,
 *                             raw and UTF-8), print "pid P", exit 0
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <signal.h>
#include <sys/prctl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "recorder/reader.h"

static void spin_ns(long ns) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

static void layer(int i) {
    REC_SCOPE("layer");
    char name[64];
    snprintf(name, sizeof name, "matmul_blk.%d.attn_q", i % 4);
    {
        REC_SCOPE_DYN(name);
        spin_ns(20000);
    }
    {
        REC_SCOPE("softmax");
        spin_ns(5000);
    }
    REC_COUNTER("kv_cache", i);
}

static void *worker(void *arg) {
    int n = *(int *)arg;
    REC_THREAD_NAME("worker");
    for (int i = 0; i < n; i++) {
        layer(i);
        spin_ns(15000);  /* an idle gap between top-level slices */
    }
    return NULL;
}

static int wait_stream(void);

/* CLI_PROG_WAIT_STREAM=1: first wait for a capture to attach (run's own),
 * so that a slow start (sanitizers) cannot overwrite the first ring. */
static int mode_scopes(int n) {
    if (getenv("CLI_PROG_WAIT_STREAM") && wait_stream() != 0) return 3;
    REC_THREAD_NAME("main");
    REC_INSTANT("start", "cli_prog scopes");
    pthread_t t[2];
    for (int i = 0; i < 2; i++) pthread_create(&t[i], NULL, worker, &n);
    for (int i = 0; i < n; i++) {
        REC_SCOPE("step");
        layer(i);
        REC_FLOW_BEGIN(1000 + i);
    }
    for (int i = 0; i < 2; i++) pthread_join(t[i], NULL);
    REC_INSTANT("done");
    printf("pid %d\n", (int)getpid());
    return 0;
}

/* Per-layer names, as llama.cpp's graphs have: blk.L.ffn_up for 4 layers,
 * n times each (report --fold). */
static int mode_layers(int n) {
    REC_THREAD_NAME("main");
    static const char *const name[4] = {"blk.0.ffn_up", "blk.1.ffn_up", "blk.2.ffn_up", "blk.3.ffn_up"};
    for (int i = 0; i < n; i++)
        for (int l = 0; l < 4; l++) {
            REC_SCOPE_DYN(name[l]);
        }
    return 0;
}
static volatile sig_atomic_t usr1;
static void on_usr1(int sig) { usr1 = sig; }

static _Noreturn void mode_hold(void) {
    REC_THREAD_NAME("holder");
    for (int i = 0; i < 10; i++) layer(i);
    REC_BEGIN("outer");
    REC_BEGIN("inner");
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    for (;;) pause();
}

/* Until `recorder capture` has switched our rings to stream mode. */
static int wait_stream(void) {
    if (rec_init() != 0) return -1;
    rec_seg *s;
    char err[256];
    if (rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "cli_prog: %s\n", err);
        return -1;
    }
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    struct rec_seg_info info;
    for (int i = 0; i < 60000; i++) {
        rec_seg_get_info(s, &info);
        if (info.mode == REC_MODE_STREAM) break;
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
    rec_seg_close(s);
    return info.mode == REC_MODE_STREAM ? 0 : -1;
}

/* CLI_PROG_NOWAIT=1: start at once (the benchmark's writer-alone run). */
static int mode_spin(long n) {
    if (!getenv("CLI_PROG_NOWAIT") && wait_stream() != 0) return 3;
    REC_INSTANT("tick");  /* attach this thread outside the timed loop */
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (long i = 1; i < n; i++) REC_INSTANT("tick");
    clock_gettime(CLOCK_MONOTONIC, &b);
    double ns = (double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec);
    printf("emitted %ld in %.0f ns\n", n, ns);
    return 0;
}

/* One thread always inside a scope: back-to-back "busy" scopes, n of them
 * (test_partial.py: a reader that loses some must still call it 100%). */
static int mode_busy(long n) {
    /* The capture attaches first: a slow start (sanitizers) must not make
     * everything history, not kept, instead of lost while read. */
    if (wait_stream() != 0) return 3;
    REC_THREAD_NAME("busy-thread");
    for (long i = 0; i < n; i++) {
        REC_SCOPE("busy");
        spin_ns(200);
    }
    printf("pid %d\n", (int)getpid());
    return 0;
}

/* A worker that waits at a barrier most of the time (docs/analysis.md,
 * "Wait scopes"): busy ~10%, not ~100%. */
static int mode_barrier(long n, int macro) {
    REC_THREAD_NAME("waiter");
    for (long i = 0; i < n; i++) {
        REC_SCOPE("step");
        {
            REC_SCOPE("work");
            spin_ns(10000);
        }
        if (macro) {
            REC_SCOPE_WAIT("barrier");
            spin_ns(90000);
        } else {
            REC_SCOPE("ggml_barrier");
            spin_ns(90000);
        }
    }
    printf("pid %d\n", (int)getpid());
    return 0;
}

static int mode_loop(void) {
    if (wait_stream() != 0) return 3;
    for (int i = 0;; i++) {
        REC_SCOPE("iteration");
        layer(i);
    }
}

struct tk {
    long k;
};

static void *thread_k(void *arg) {
    long k = ((struct tk *)arg)->k;
    for (long i = 0; i < k; i++) REC_INSTANT("tick");
    return NULL;
}

/* Wait (bounded) until the capture has read every slot up to its head: its
 * limit, one ring past what it has read, covers the head.  Makes thread
 * tests independent of how often the capture happens to poll. */
static void wait_drained(void) {
    const struct rec_header *h = rec__g.hdr;
    for (int tries = 0; tries < 10000; tries++) {
        int behind = 0;
        for (uint32_t i = 0; i < h->max_threads; i++) {
            uint64_t head = __atomic_load_n(&rec__g.slots[i].head, __ATOMIC_ACQUIRE);
            uint64_t limit = __atomic_load_n(&rec_consumer_limit(rec__g.cons)[i], __ATOMIC_ACQUIRE);
            behind |= limit != UINT64_MAX && limit - h->ring_entries < head;
        }
        if (!behind) return;
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
}

static int mode_threads(int t, long k) {
    if (wait_stream() != 0) return 3;
    struct tk a = {k};
    for (int i = 0; i < t; i++) {
        pthread_t th;
        pthread_create(&th, NULL, thread_k, &a);
        pthread_join(th, NULL);
        wait_drained();
    }
    printf("emitted %ld\n", (long)t * k);
    return 0;
}

/* Every thread is alive before any records, and none ends before all
 * have tried: which get a ring is then a matter of slots, not timing. */
static pthread_barrier_t crowd_in, crowd_out;

static void *crowd_thread(void *arg) {
    (void)arg;
    pthread_barrier_wait(&crowd_in);
    { REC_SCOPE("crowd"); }
    pthread_barrier_wait(&crowd_out);
    return NULL;
}

static int mode_crowd(int t) {
    if (t < 1 || t > 1000) return 2;
    { REC_SCOPE("main"); }
    pthread_t th[1000];
    pthread_barrier_init(&crowd_in, NULL, (unsigned)t);
    pthread_barrier_init(&crowd_out, NULL, (unsigned)t);
    for (int i = 0; i < t; i++) pthread_create(&th[i], NULL, crowd_thread, NULL);
    for (int i = 0; i < t; i++) pthread_join(th[i], NULL);
    printf("pid %d\n", (int)getpid());
    return 0;
}

static int mode_fork(void) {
    REC_THREAD_NAME("parent");
    { REC_SCOPE("before_fork"); spin_ns(10000); }
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        REC_THREAD_NAME("child");
        for (int i = 0; i < 5; i++) {
            REC_SCOPE("in_child");
            spin_ns(10000);
        }
        printf("child %d\n", (int)getpid());
        fflush(stdout);
        _exit(0);
    }
    for (int i = 0; i < 3; i++) {
        REC_SCOPE("in_parent");
        spin_ns(10000);
    }
    int st = 0;
    waitpid(p, &st, 0);
    printf("parent %d\n", (int)getpid());
    return WIFEXITED(st) ? WEXITSTATUS(st) : 1;
}

/* Text a terminal would obey: set the title, clear the screen, ring, go
 * back to the line start, and CSI both as a raw C1 byte and in UTF-8. */
#define EVIL "\x1b]0;pwned\x07\x1b[2J\r\x9b" "31m\xc2\x9b" "1m"

static void *evil_worker(void *arg) {
    (void)arg;
    REC_THREAD_NAME("w" EVIL);
    for (int i = 0; i < 3; i++) {
        REC_SCOPE_DYN("scope" EVIL);
        spin_ns(10000);
    }
    return NULL;
}

static int mode_evil(void) {
    prctl(PR_SET_NAME, "\x1b[2J\r\a\x9b" "evil", 0, 0, 0);   /* before the segment: its process name */
    REC_THREAD_NAME("main" EVIL);
    pthread_t t;
    pthread_create(&t, NULL, evil_worker, NULL);
    for (int i = 0; i < 3; i++) {
        REC_SCOPE("plain");
        REC_SCOPE_DYN("inner" EVIL);
        spin_ns(10000);
    }
    pthread_join(t, NULL);
    printf("pid %d\n", (int)getpid());
    return 0;
}

int main(int argc, char **argv) {
    setvbuf(stdout, NULL, _IOLBF, 0);
    const char *m = argc > 1 ? argv[1] : "";
    if (!strcmp(m, "scopes")) return mode_scopes(argc > 2 ? atoi(argv[2]) : 20);
    if (!strcmp(m, "hold")) mode_hold();
    if (!strcmp(m, "layers") && argc > 2) return mode_layers(atoi(argv[2]));
    if ((!strcmp(m, "late") || !strcmp(m, "silent")) && argc > 2) {
        signal(SIGUSR1, on_usr1);
        printf("started %d\n", (int)getpid());
        for (long ms = atol(argv[2]); ms > 0 && !usr1; ms -= 10) {
            struct timespec d = {0, 10000000L};
            nanosleep(&d, NULL);
        }
        if (!strcmp(m, "late")) mode_hold();
        return 0;
    }
    if (!strcmp(m, "spin") && argc > 2) return mode_spin(atol(argv[2]));
    if (!strcmp(m, "busy") && argc > 2) return mode_busy(atol(argv[2]));
    if (!strcmp(m, "barrier") && argc > 3) return mode_barrier(atol(argv[2]), !strcmp(argv[3], "macro"));
    if (!strcmp(m, "threads") && argc > 3) return mode_threads(atoi(argv[2]), atol(argv[3]));
    if (!strcmp(m, "fork")) return mode_fork();
    if (!strcmp(m, "crowd") && argc > 2) return mode_crowd(atoi(argv[2]));
    if (!strcmp(m, "evil")) return mode_evil();
    if (!strcmp(m, "loop")) return mode_loop();
    if (!strcmp(m, "exit") && argc > 2) {
        { REC_SCOPE("before_exit"); }
        return atoi(argv[2]);
    }
    if (!strcmp(m, "segv")) {
        REC_BEGIN("doomed");
        printf("pid %d\n", (int)getpid());
        fflush(stdout);
        signal(SIGSEGV, SIG_DFL);  /* a sanitizer's handler would exit(1) instead */
        raise(SIGSEGV);
        return 0;
    }
    fprintf(stderr, "usage: cli_prog scopes|hold|late MS|silent MS|spin N|busy N|barrier N macro|named|layers N|"
                    "threads T K|crowd T|fork|exit CODE|segv|evil\n");
    return 2;
}
