/*
 * simple_perf_session.c -- a simple-perf session from several threads:
 * a scope before start_tracing_session and one after stop_tracing_session
 * (neither may be in the file), and, in between, SP_THREADS named threads
 * each recording SP_ITERS "outer" scopes with a "matmul_blk.N.attn_q" in
 * each.  Writes the session to argv[1]; test_simple_perf_session.py
 * checks the file.  With --no-start, start_tracing_session() is not
 * called: stop_tracing_session() then writes what the rings hold.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include "recorder/simple_perf.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>

#define SP_THREADS 6
#define SP_ITERS 300

static void *worker(void *arg) {
    char tname[16];
    snprintf(tname, sizeof tname, "sp-%d", (int)(long)arg);
    pthread_setname_np(pthread_self(), tname);  /* before the first event: the slot takes it */
    for (int k = 0; k < SP_ITERS; k++) {
        char outer[64];
        begin_trace("outer", outer);
        char name_buffer[4096];
        char inputname[1024] = "matmul_";
        char tensor[32];
        snprintf(tensor, sizeof tensor, "blk.%d.attn_q", k % 4);
        strncat(inputname, tensor, sizeof inputname - strlen(inputname) - 1);
        begin_trace(inputname, name_buffer);
        end_trace(name_buffer);
        end_trace(outer);
    }
    return NULL;
}

int main(int argc, char **argv) {
    int no_start = argc == 3 && !strcmp(argv[2], "--no-start");
    if (argc != 2 && !no_start) {
        fprintf(stderr, "usage: simple_perf_session OUT.json [--no-start]\n");
        return 2;
    }
    char b[32];
    begin_trace("before_session", b);
    end_trace(b);
    if (!no_start) start_tracing_session();
    begin_trace("session", b);
    pthread_t th[SP_THREADS];
    for (long t = 0; t < SP_THREADS; t++) pthread_create(&th[t], NULL, worker, (void *)t);
    for (int t = 0; t < SP_THREADS; t++) pthread_join(th[t], NULL);
    end_trace(b);
    stop_tracing_session(argv[1]);
    begin_trace("after_session", b);
    end_trace(b);
    return 0;
}
