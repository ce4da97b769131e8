/*
 * test_simple_perf.c -- simple_perf.h's begin_trace/end_trace from several
 * threads at once, read back from the process's segment: nesting, names
 * built as the guide builds them, names longer than the buffer keeps, a
 * NULL buffer, a buffer that is the name, and names a filter removes
 * (the test runs with RECORDER_FILTER_OUT=filtered).
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include "recorder/simple_perf.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "own_events.h"

#define THREADS 6
#define ITERS 200

static char long_name[2000];

static void *worker(void *arg) {
    int t = (int)(long)arg;
    char tname[16];
    snprintf(tname, sizeof tname, "sp-%d", t);
    REC_THREAD_NAME(tname);
    for (int k = 0; k < ITERS; k++) {
        char outer[64];
        begin_trace("outer", outer);
        {
            char name_buffer[4096];
            char inputname[1024] = "matmul_";
            char tensor[32];
            snprintf(tensor, sizeof tensor, "blk.%d.attn_q", k % 5);
            strncat(inputname, tensor, sizeof inputname - strlen(inputname) - 1);
            begin_trace(inputname, name_buffer);
            if (strcmp(name_buffer, inputname) != 0) abort();  /* the buffer receives the name */
            end_trace(name_buffer);
        }
        end_trace(outer);
    }
    char buf[SIMPLE_PERF_NAME_MAX];
    begin_trace(long_name, buf);
    if (strlen(buf) != SIMPLE_PERF_NAME_MAX - 1) abort();
    end_trace(long_name);  /* the name itself, not the buffer: the same scope */
    begin_trace("no buffer", NULL);
    end_trace("no buffer");
    char same[32] = "aliased";
    begin_trace(same, same);
    end_trace(same);
    char f[32];
    begin_trace("filtered scope", f);
    if (strcmp(f, "filtered scope") != 0) abort();
    end_trace(f);
    begin_trace(NULL, f);  /* ignored */
    end_trace(NULL);
    return NULL;
}

int main(void) {
    memset(long_name, 'x', sizeof long_name - 1);
    pthread_t th[THREADS];
    for (long t = 0; t < THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < THREADS; t++) pthread_join(th[t], NULL);

    size_t cap = 64u * ITERS + 4096, len = 0;
    char *want = malloc(cap);
    if (!want) return 1;
    for (int k = 0; k < ITERS; k++)
        len += (size_t)snprintf(want + len, cap - len, "B outer\nB matmul_blk.%d.attn_q\nE matmul_blk.%d.attn_q\nE outer\n",
                                k % 5, k % 5);
    char kept[SIMPLE_PERF_NAME_MAX];
    memset(kept, 'x', sizeof kept - 1);
    kept[sizeof kept - 1] = 0;
    len += (size_t)snprintf(want + len, cap - len, "B %s\nE %s\n", kept, kept);
    snprintf(want + len, cap - len, "B no buffer\nE no buffer\nB aliased\nE aliased\n");
    int fails = 0;
    for (int t = 0; t < THREADS; t++) {
        char name[16];
        snprintf(name, sizeof name, "sp-%d", t);
        fails += own_events_expect(name, want);
    }
    free(want);
    if (fails) fprintf(stderr, "%d thread(s) differ\n", fails);
    return fails ? 1 : 0;
}
