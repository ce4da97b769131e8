/*
 * thread_flood.c -- a program that starts and ends thousands of short
 * threads a second, for recorder-web's bounds test (flood.test.js): with
 * the RECORDER environment's defaults (256 slots) every slot is reused
 * over and over, so the viewer sees a new thread generation per thread.
 *
 *   thread_flood [--rate THREADS_PER_SEC] [--seconds S] [--count N]
 *
 * It stops after S seconds or N threads, whichever comes first (a build
 * with sanitizers starts threads several times slower: tests give N).
 * Each thread names itself, records one scope and one instant, and exits.
 * Prints "ready PID" after the first threads, "done N" (threads started)
 * when the flood is over, then idles, alive and recording nothing, until
 * SIGTERM.
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

#define BATCH_MAX 64          /* threads alive at once */

static atomic_int stop;
static atomic_long serial;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void *short_thread(void *arg) {
    (void)arg;
    char name[32];
    snprintf(name, sizeof name, "flood-%ld", atomic_fetch_add(&serial, 1));
    REC_THREAD_NAME(name);
    REC_SCOPE("short_task");
    REC_INSTANT("tick");
    return NULL;
}

static void on_signal(int sig) {
    (void)sig;
    atomic_store(&stop, 1);
}

int main(int argc, char **argv) {
    double rate = 1000, seconds = 10;
    long count = -1;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rate")) rate = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--seconds")) seconds = atof(argv[i + 1]);
        else if (!strcmp(argv[i], "--count")) count = atol(argv[i + 1]);
        else {
            fprintf(stderr, "thread_flood: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (rate <= 0 || seconds <= 0) {
        fprintf(stderr, "thread_flood: bad --rate or --seconds\n");
        return 2;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    if (rec_init() != 0) {
        fprintf(stderr, "thread_flood: recording is off (RECORDER=0?)\n");
        return 1;
    }
    REC_THREAD_NAME("main");
    REC_INSTANT("flood starts");
    double t0 = now_s(), end = t0 + seconds;
    long started = 0;
    int said_ready = 0;
    pthread_t t[BATCH_MAX];
    while (!atomic_load(&stop) && now_s() < end && started != count) {
        /* The threads due by now, at most BATCH_MAX at a time. */
        long due = (long)((now_s() - t0) * rate) + 1;
        if (count >= 0 && due > count) due = count;
        while (started < due && !atomic_load(&stop)) {
            int n = 0;
            while (n < BATCH_MAX && started < due) {
                if (pthread_create(&t[n], NULL, short_thread, NULL) != 0) break;
                n++;
                started++;
            }
            for (int k = 0; k < n; k++) pthread_join(t[k], NULL);
            if (n == 0) break;
        }
        if (!said_ready) {
            printf("ready %d\n", (int)getpid());
            fflush(stdout);
            said_ready = 1;
        }
        usleep(2000);
    }
    REC_INSTANT("flood ends");
    printf("done %ld\n", started);
    fflush(stdout);
    while (!atomic_load(&stop)) usleep(20000);
    rec_shutdown();
    return 0;
}
