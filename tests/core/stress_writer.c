/*
 * stress_writer.c -- the writing half of the stress test (stress_reader.c
 * runs it in a child process).
 *
 *   stress_writer THREADS MILLISECONDS
 *
 * Prints "ready <segment path>", waits for a line on stdin (the reader has
 * attached), then runs THREADS writer threads for MILLISECONDS and prints
 * one line per thread: "W <writer> <tid> <iterations> <entries emitted>".
 *
 * Every thread writes the same fixed pattern, so that the ring index of an
 * entry says exactly what it must hold (docs: tests/core/README.md):
 *   index 0  THREAD_START            (written by the attach)
 *   index 1  THREAD_NAME  comm name  (written by the attach)
 *   index 2  THREAD_NAME  "sw<w>"
 *   then per iteration i, 7 entries from index 3 + 7*i:
 *     +0 BEGIN   "sw<w>.scope"          (dynamic name: one per thread)
 *     +1 COUNTER "stress.ctr" = w << 40 | i   (+2: its payload entry)
 *     +3 INSTANT "stress.msg", message "%02x%013x" of w and i  (+4: text)
 *     +5 INSTANT "stress.tick"
 *     +6 END     "sw<w>.scope"
 * The period (7) is prime to the ring size, so an event sits at every
 * offset of the ring in turn and two-entry events straddle the wrap.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define SETUP_ENTRIES 3u
#define ITER_ENTRIES 7u

struct writer {
    int w;
    int tid;
    uint64_t iters;
    uint64_t entries;
    pthread_t th;
};

static int stop;

static void *writer_main(void *arg) {
    struct writer *me = (struct writer *)arg;
    char name[16], scope[32], msg[16];
    snprintf(name, sizeof name, "sw%d", me->w);
    snprintf(scope, sizeof scope, "sw%d.scope", me->w);
    me->tid = (int)gettid();
    REC_THREAD_NAME(name);
    uint64_t entries = SETUP_ENTRIES, i = 0;
    while (!__atomic_load_n(&stop, __ATOMIC_RELAXED)) {
        for (int rep = 0; rep < 64; rep++, i++) {
            REC_SCOPE_DYN(scope);
            REC_COUNTER("stress.ctr", (double)(((uint64_t)me->w << 40) | i));
            snprintf(msg, sizeof msg, "%02x%013llx", (unsigned)me->w, (unsigned long long)i);
            REC_INSTANT("stress.msg", msg);
            REC_INSTANT("stress.tick");
            entries += ITER_ENTRIES;
        }
    }
    me->iters = i;
    me->entries = entries;
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 3) {
        fprintf(stderr, "usage: stress_writer THREADS MILLISECONDS\n");
        return 2;
    }
    int n = atoi(argv[1]);
    long ms = atol(argv[2]);
    if (n < 1 || n > 64 || ms < 1) {
        fprintf(stderr, "stress_writer: bad arguments\n");
        return 2;
    }
    if (rec_init() != 0) {
        fprintf(stderr, "stress_writer: rec_init failed\n");
        return 1;
    }
    printf("ready %s\n", rec_segment_path());
    fflush(stdout);
    char go[16];
    if (!fgets(go, sizeof go, stdin)) return 1;

    struct writer *ws = (struct writer *)calloc((size_t)n, sizeof *ws);
    if (!ws) return 1;
    for (int i = 0; i < n; i++) {
        ws[i].w = i;
        if (pthread_create(&ws[i].th, NULL, writer_main, &ws[i]) != 0) return 1;
    }
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0) {}
    __atomic_store_n(&stop, 1, __ATOMIC_RELAXED);
    for (int i = 0; i < n; i++) pthread_join(ws[i].th, NULL);
    for (int i = 0; i < n; i++)
        printf("W %d %d %llu %llu\n", ws[i].w, ws[i].tid, (unsigned long long)ws[i].iters,
               (unsigned long long)ws[i].entries);
    fflush(stdout);
    free(ws);
    return 0;
}
