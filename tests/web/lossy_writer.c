/*
 * lossy_writer.c -- a program that loses entries on purpose, for the page's
 * loss test (browser.test.js): one thread records a steady pace of small
 * scopes that a reader keeps up with, and every --every ms a burst of
 * --burst scopes written back to back, far more than its ring holds (the
 * test runs it with RECORDER_RING_KB=4: 256 entries), so a reader that is
 * watching loses most of each burst: "lost" entries, a gap on the lane,
 * partial statistics.  What it wrote before the reader attached and the
 * ring no longer holds is "not kept".
 *
 *   lossy_writer [--every MS] [--burst N] [--seconds S]
 *
 * Scope names carry layer numbers (x-0, x-1, blk.3.attn_q) for the page's
 * "fold layer numbers" switch.  Prints "ready PID" once its first burst
 * has lapped the ring, then runs until --seconds or SIGTERM.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int stop;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void spin(double s) {
    double end = now_s() + s;
    while (now_s() < end) {
    }
}

static void on_signal(int sig) {
    (void)sig;
    atomic_store(&stop, 1);
}

int main(int argc, char **argv) {
    double every_ms = 400, seconds = 3600;
    long burst = 4000;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--every")) every_ms = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--burst")) burst = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else {
            fprintf(stderr, "lossy_writer: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (every_ms <= 0 || burst <= 0 || seconds <= 0) {
        fprintf(stderr, "lossy_writer: bad --every, --burst or --seconds\n");
        return 2;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    if (rec_init() != 0) {
        fprintf(stderr, "lossy_writer: recording is off (RECORDER=0?)\n");
        return 1;
    }
    REC_THREAD_NAME("lossy");
    double t0 = now_s(), next_burst = t0 + every_ms / 1e3;
    long i = 0;
    int said_ready = 0;
    while (!atomic_load(&stop) && now_s() < t0 + seconds) {
        /* Steady: a layer's scopes every 2 ms, 6 entries, busy 300 µs. */
        {
            REC_SCOPE("tick");
            if (i++ % 2) {
                REC_SCOPE("x-1");
                spin(150e-6);
            } else {
                REC_SCOPE("x-0");
                spin(150e-6);
            }
            REC_SCOPE("blk.3.attn_q");
            spin(150e-6);
        }
        /* The first burst at once: "ready" then means the ring has been
         * lapped, so what a reader attaching now finds gone is history. */
        if (!said_ready || now_s() >= next_burst) {
            /* Back to back: the ring is lapped many times over. */
            for (long k = 0; k < burst; k++) {
                REC_SCOPE("burst");
            }
            next_burst = now_s() + every_ms / 1e3;
        }
        if (!said_ready) {
            printf("ready %d\n", (int)getpid());
            fflush(stdout);
            said_ready = 1;
        }
        usleep(1700);
    }
    rec_shutdown();
    return 0;
}
