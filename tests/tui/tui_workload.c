/*
 * tui_workload.c -- a small multi-threaded instrumented program for the
 * recorder-top tests: known thread names, nested scopes with known names,
 * one thread parked inside two scopes (for "inside now"), a UTF-8 name and
 * a name holding a terminal escape (which must be drawn harmlessly), two
 * long names that differ only at the end, two counters and instants (one
 * whose message holds an escape).
 *
 *   tui_workload [--workers N] [--comm NAME] [--delay-ms MS] [--layer-names 1]
 *
 * --layer-names 1: also per-layer names that differ only in a middle
 * layer number (matmul_blk.2.ffn_down ... matmul_blk.12.ffn_up), as
 * llama.cpp's, and counters kv_cache.blk.N.attention.bytes (value N)
 * for the same layers; 2: and one name longer than the details panel is wide at
 * 80 columns (tui_test.py's names cases).
 * --delay-ms: sleep before the first event (or until SIGUSR1), so that
 * there is no segment yet (recorder-top --wait); prints "held PID" once
 * SIGUSR1 is caught (signalled before, the program would die of it).
 * Prints "ready PID" once every worker has closed a step (so each scope
 * name is in the segment), then runs until SIGTERM or SIGINT and exits 0.
 * --comm sets the process name (what the segment records), so a test can
 * find it by a name no other test uses.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdatomic.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop, go;
/* Workers named that have closed a whole step (matmul in it).  The
 * sleeper starts after them, so that slot order (and recorder-top's t
 * order) is main, the workers, then the sleeper; and "ready" waits for
 * them, so a test that stops the program at once still finds each scope
 * name in the segment, with no sleep. */
static atomic_int stepped;

static void on_signal(int sig) {
    (void)sig;
    stop = 1;
}

static void on_go(int sig) {
    (void)sig;
    go = 1;
}

static void spin_us(long us) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000L + (b.tv_nsec - a.tv_nsec) / 1000 < us);
}

static void sleep_us(long us) {
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&t, NULL);
}

static void *worker(void *arg) {
    char name[32];
    snprintf(name, sizeof name, "worker-%d", (int)(long)arg);
    REC_THREAD_NAME(name);
    int first_done = 0;
    while (!stop) {
        {
            REC_SCOPE("step");
            {
                REC_SCOPE("matmul");
                spin_us(120);
            }
            {
                REC_SCOPE("softmax");
                spin_us(30);
            }
        }
        {
            REC_SCOPE_WAIT("sync_wait");   /* marked [wait] in Top */
            spin_us(20);
        }
        if (!first_done) {
            first_done = 1;
            atomic_fetch_add(&stepped, 1);
        }
        sleep_us(1000);
    }
    return NULL;
}

/* Parked inside two scopes until the end: Threads shows its stack. */
static void *sleeper(void *arg) {
    (void)arg;
    REC_THREAD_NAME("sleeper");
    REC_SCOPE("wait_for_input");
    REC_SCOPE("deep_sleep");
    while (!stop) sleep_us(20000);
    return NULL;
}

int main(int argc, char **argv) {
    int workers = 3;
    long delay_ms = 0;
    int layer_names = 0;
    for (int i = 1; i + 1 < argc; i++) {
        if (!strcmp(argv[i], "--workers")) workers = atoi(argv[++i]);
        else if (!strcmp(argv[i], "--delay-ms")) delay_ms = atol(argv[++i]);
        else if (!strcmp(argv[i], "--comm")) prctl(PR_SET_NAME, argv[++i], 0, 0, 0);
        else if (!strcmp(argv[i], "--layer-names")) layer_names = atoi(argv[++i]);
    }
    if (workers < 1 || workers > 16) workers = 3;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    struct sigaction su;
    memset(&su, 0, sizeof su);
    su.sa_handler = on_go;
    sigaction(SIGUSR1, &su, NULL);
    if (delay_ms > 0) {   /* SIGUSR1 is caught from here on: a test waits for this line to send it */
        printf("held %d\n", (int)getpid());
        fflush(stdout);
    }
    for (; delay_ms > 0 && !go && !stop; delay_ms -= 10) sleep_us(10000);
    if (stop) return 0;
    if (rec_init() != 0) {
        fprintf(stderr, "tui_workload: recording is off\n");
        return 1;
    }
    REC_THREAD_NAME("main");
    pthread_t th[17];
    for (int i = 0; i < workers; i++) pthread_create(&th[i], NULL, worker, (void *)(long)i);
    while (atomic_load(&stepped) < workers && !stop) sleep_us(1000);   /* a condition, not a delay */
    pthread_create(&th[workers], NULL, sleeper, NULL);
    printf("ready %d\n", (int)getpid());
    fflush(stdout);
    long frames = 0;
    while (!stop) {
        {
            REC_SCOPE("frame");
            {
                REC_SCOPE("prepare");
                spin_us(50);
            }
            {
                REC_SCOPE("zz_unique_scope");
                spin_us(10);
            }
            /* Per-layer names, as llama.cpp's: folded by 'f'. */
            static const char *const layer[3] = {"ffn_up-0", "ffn_up-1", "ffn_up-2"};
            for (int l = 0; l < 3; l++) {
                REC_SCOPE_DYN(layer[l]);
                spin_us(2);
            }
            {
                REC_SCOPE("na\xc3\xafve_\xc3\xbc");   /* "naïve_ü" */
                spin_us(5);
            }
            {
                REC_SCOPE("\x1b[31mevil");               /* must not color the terminal */
                spin_us(5);
            }
            /* Long names that differ only at the end: distinct at 80x24. */
            {
                REC_SCOPE("matmul_blk.10.attention.ffn_up");
                spin_us(2);
            }
            {
                REC_SCOPE("matmul_blk.10.attention.ffn_down");
                spin_us(2);
            }
            static const char *const per_layer[] = {
                "matmul_blk.2.ffn_down", "matmul_blk.3.ffn_down", "matmul_blk.11.ffn_down", "matmul_blk.12.ffn_down",
                "matmul_blk.2.ffn_up",   "matmul_blk.3.ffn_up",   "matmul_blk.11.ffn_up",   "matmul_blk.12.ffn_up",
                "matmul_blk.12.attention.ffn_down.q8_0.a_name_longer_than_the_details_panel_is_wide_at_80x24"};
            for (size_t l = 0; layer_names && l < sizeof per_layer / sizeof per_layer[0] - (layer_names < 2); l++) {
                REC_SCOPE_DYN(per_layer[l]);
                spin_us(2);
            }
        }
        /* Counters (Counters view): tokens_per_s is used first, so it is
         * listed first; a value that goes round 0..9. */
        frames++;
        REC_COUNTER("tokens_per_s", 40.0 + (double)(frames % 5));
        REC_COUNTER("queue_depth", (double)(frames % 10));
        if (layer_names) {   /* per-layer counters: the layer in the middle again */
            REC_COUNTER("kv_cache.blk.2.attention.bytes", 2.0);
            REC_COUNTER("kv_cache.blk.3.attention.bytes", 3.0);
            REC_COUNTER("kv_cache.blk.11.attention.bytes", 11.0);
            REC_COUNTER("kv_cache.blk.12.attention.bytes", 12.0);
        }
        /* Messages: a checkpoint every 20 frames, and one whose text
         * holds a terminal escape (drawn harmlessly). */
        if (frames % 20 == 0) {
            char msg[40];
            snprintf(msg, sizeof msg, "frame %ld done", frames);
            REC_INSTANT("checkpoint", msg);
        }
        if (frames % 50 == 0) REC_INSTANT("alert", "\x1b[2Jcleared?");
        sleep_us(5000);
    }
    for (int i = 0; i <= workers; i++) pthread_join(th[i], NULL);
    return 0;
}
