/*
 * tui_stress.c -- the hostile cases of the recorder-top tests, as one
 * instrumented program:
 *
 *   tui_stress busy       one thread inside the scope "hot" all the time,
 *                         writing as fast as it can: with a small ring
 *                         (RECORDER_RING_KB=64) no reader keeps up, so what
 *                         recorder-top shows is computed from partial data
 *                         (a counter and a message now and then too);
 *   tui_stress truncate   a quiet workload that, on SIGUSR1, stops
 *                         recording and shrinks its own segment file to one
 *                         page, as a buggy or hostile program could;
 *   tui_stress wrap N     writes N scopes at once (its ring wraps), prints
 *                         "wrapped", then records nothing more: whoever
 *                         attaches afterwards finds history the ring did
 *                         not keep, and nothing lost.
 *
 * Prints "ready PID PATH" once its segment exists; runs until SIGTERM or
 * SIGINT.  After a truncation it leaves with _exit and removes its own
 * segment: an exit handler touching the shrunk mapping would fault.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop, shrink;

static void on_signal(int sig) {
    if (sig == SIGUSR1) shrink = 1;
    else stop = 1;
}

static void sleep_ms(long ms) {
    struct timespec t = {ms / 1000, (ms % 1000) * 1000000L};
    nanosleep(&t, NULL);
}

/* "hot" holds 32 short scopes: between two "hot" there is one event's
 * time, inside it 65, so the thread is inside "hot" ~98% of the time,
 * and a preemption (which the data covers) almost always lands inside
 * it.  With a 64 KiB ring a read holds some 60 calls of "hot", so the
 * few cut at the edges of what was read (whose begin or end was lost,
 * and which no statistic counts) hardly matter; with 4 KiB every read
 * would hold about one, and any reader would undercount it. */
static void busy(void) {
    unsigned long n = 0;
    while (!stop) {
        REC_SCOPE("hot");
        for (int i = 0; i < 32; i++) {
            REC_SCOPE("inner");
        }
        /* A counter and messages of a thread that loses entries: the
         * Counters and Messages views mark them partial. */
        if ((++n & 63) == 0) REC_COUNTER("stress_level", (double)(n & 1023));
        if ((n & 4095) == 0) REC_INSTANT("stress_note", "still busy");
    }
}

static void truncate_on_signal(void) {
    int shrunk = 0;
    while (!stop) {
        if (shrink && !shrunk) {
            /* Nothing records any more: only the reader sees the fault. */
            int fd = open(rec_segment_path(), O_RDWR | O_NOFOLLOW | O_CLOEXEC);
            if (fd < 0 || ftruncate(fd, 4096) != 0) {
                perror("tui_stress: truncate");
                _exit(1);
            }
            close(fd);
            shrunk = 1;
            printf("truncated\n");
            fflush(stdout);
        }
        if (!shrunk) {
            REC_SCOPE("before_truncation");
            sleep_ms(1);
        } else {
            sleep_ms(20);
        }
    }
    if (shrunk) {
        unlink(rec_segment_path());
        _exit(0);
    }
}

static void wrap(long n) {
    for (long i = 0; i < n; i++) {
        REC_SCOPE("wrapped_scope");
    }
    printf("wrapped\n");
    fflush(stdout);
    while (!stop) sleep_ms(20);
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: tui_stress busy | truncate | wrap N\n");
        return 2;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGUSR1, &sa, NULL);
    if (rec_init() != 0) {
        fprintf(stderr, "tui_stress: recording is off\n");
        return 1;
    }
    REC_THREAD_NAME("stress");
    printf("ready %d %s\n", (int)getpid(), rec_segment_path());
    fflush(stdout);
    if (!strcmp(argv[1], "busy")) busy();
    else if (!strcmp(argv[1], "truncate")) truncate_on_signal();
    else if (!strcmp(argv[1], "wrap") && argc > 2) wrap(atol(argv[2]));
    else {
        fprintf(stderr, "tui_stress: unknown mode %s\n", argv[1]);
        return 2;
    }
    return 0;
}
