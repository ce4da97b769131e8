/*
 * test_tracy_c.c -- Tracy's C API (TracyC.h), used as C code instrumented
 * for Tracy uses it, from several threads; each thread's events are read
 * back from the process's segment and compared with the mapping promised
 * in recorder/tracy.h.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <tracy/TracyC.h>  /* include/recorder/compat: Tracy's own include line */

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "own_events.h"

#define THREADS 4
#define ITERS 50

static void compute(int k) {
    TracyCZone(ctx, 1);  /* named after the function: "compute" */
    char name[32];
    int n = snprintf(name, sizeof name, "tensor.%d", k % 4);
    TracyCZoneName(ctx, name, (size_t)n);
    TracyCZoneText(ctx, "some text", 4);
    TracyCZoneValue(ctx, k);
    TracyCZoneColor(ctx, 0xff00ff);
    TracyCZoneEnd(ctx);
}

static void *worker(void *arg) {
    int t = (int)(long)arg;
    char tname[32];
    snprintf(tname, sizeof tname, "tracy-c-%d", t);
    TracyCSetThreadName(tname);
    TracyCLockCtx(lock);
    TracyCLockAnnounce(lock);
    for (int k = 0; k < ITERS; k++) {
        TracyCZoneNC(outer, "iteration", 0x00ff00, 1);
        compute(k);
        TracyCZoneN(off, "inactive", 0);
        TracyCZoneText(off, "ignored", 7);
        TracyCZoneEnd(off);
        TracyCPlot("depth", k);
        TracyCPlotI("depth_i", k * 2);
        TracyCMessageL("literal");
        char msg[48];
        int n = snprintf(msg, sizeof msg, "t%d k%d", t, k);
        TracyCMessage(msg, (size_t)n);
        void *p = malloc(8);
        TracyCAlloc(p, 8);
        TracyCFree(p);
        free(p);
        TracyCLockBeforeLock(lock);
        TracyCLockAfterLock(lock);
        TracyCLockAfterUnlock(lock);
        TracyCZoneEnd(outer);
        TracyCFrameMark
    }
    TracyCFrameMarkNamed("named_frame");
    TracyCFrameMarkStart("disc");
    TracyCFrameMarkEnd("disc");
    TracyCLockTerminate(lock);
    return NULL;
}

static char *expected(int t) {
    size_t cap = 512 * ITERS + 1024, len = 0;
    char *s = malloc(cap);
    if (!s) abort();
    for (int k = 0; k < ITERS; k++)
        len += (size_t)snprintf(s + len, cap - len,
                                "B iteration\nB compute\nB tensor.%d\nI zone_text some\nI zone_value %d\n"
                                "E tensor.%d\nE compute\nC depth %d\nC depth_i %d\nI literal\n"
                                "I message t%d k%d\nE iteration\nI frame\n",
                                k % 4, k, k % 4, k, 2 * k, t, k);
    snprintf(s + len, cap - len, "I named_frame\nB disc\nE disc\n");
    return s;
}

int main(void) {
    if (!TracyCIsConnected) {
        fprintf(stderr, "recording is off\n");
        return 1;
    }
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);
    int fails = 0;
    for (int t = 0; t < THREADS; t++) {
        char name[32];
        snprintf(name, sizeof name, "tracy-c-%d", t);
        char *e = expected(t);
        fails += own_events_expect(name, e);
        free(e);
    }
    if (fails) fprintf(stderr, "%d thread(s) differ\n", fails);
    return fails ? 1 : 0;
}
