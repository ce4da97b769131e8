/*
 * gen_capture.c -- writes a large capture file quickly and exactly: the
 * program records into its own segment and captures it itself, as a
 * stream-mode consumer that drains the rings between batches, so nothing
 * is ever dropped and the file holds exactly what is printed.  The input
 * of the big-export test (test_export_big.py) and of the export memory
 * benchmark (bench/export/export_rss.py).
 *
 *   gen_capture OUT.rec scopes N   the main thread opens "main", records
 *                                  N scopes "work" in it (a counter
 *                                  "done" every 2^20), closes "main";
 *                                  a second thread records 3 scopes "side"
 *   gen_capture OUT.rec threads N  N threads one after another, each one
 *                                  scope "job" (thread records past 4096)
 *   gen_capture OUT.rec paced N    as scopes, in 30 batches 100 ms apart
 *                                  (3 s of large chunks: tests/tui's
 *                                  lazily found corrupt chunk)
 *
 * Prints "slices S threads T entries E dropped D" on success.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/capture.h"

static rec_capture *cap;

/* Everything the rings hold, into the file. */
static void drain(void) {
    char err[256];
    for (;;) {
        size_t moved = 0;
        if (rec_capture_poll(cap, &moved, err, sizeof err) != REC_OK) {
            fprintf(stderr, "gen_capture: %s\n", err);
            exit(1);
        }
        if (!moved) return;
    }
}

static void *side(void *arg) {
    (void)arg;
    REC_THREAD_NAME("side");
    for (int i = 0; i < 3; i++) {
        REC_SCOPE("side");
    }
    return NULL;
}

static void *job(void *arg) {
    (void)arg;
    REC_SCOPE("job");
    return NULL;
}

int main(int argc, char **argv) {
    if (argc != 4 || (strcmp(argv[2], "scopes") && strcmp(argv[2], "threads") && strcmp(argv[2], "paced") &&
                      strcmp(argv[2], "names"))) {
        fprintf(stderr, "usage: gen_capture OUT.rec scopes|threads|paced|names N\n");
        return 2;
    }
    long n = atol(argv[3]);
    int threads = !strcmp(argv[2], "threads");
    setenv("RECORDER_RING_KB", threads ? "64" : "65536", 1);
    setenv("RECORDER_MAX_THREADS", "8", 1);
    unsetenv("RECORDER");
    unsetenv("RECORDER_FILTER");
    unsetenv("RECORDER_FILTER_OUT");
    if (rec_init() != 0) {
        fprintf(stderr, "gen_capture: recording is off\n");
        return 1;
    }
    REC_THREAD_NAME("main");
    char err[256];
    rec_seg *s;
    if (rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) != REC_OK ||
        rec_capture_start(s, argv[1], NULL, &cap, err, sizeof err) != REC_OK) {
        fprintf(stderr, "gen_capture: %s\n", err);
        return 1;
    }
    long slices = 0, nthreads = 1;
    if (threads) {
        for (long i = 0; i < n; i++) {
            pthread_t t;
            pthread_create(&t, NULL, job, NULL);
            pthread_join(t, NULL);
            drain();   /* before the slot is taken again */
        }
        slices = n;
        nthreads += n;
    } else {
        pthread_t t;
        pthread_create(&t, NULL, side, NULL);
        pthread_join(t, NULL);
        REC_BEGIN("main");
        const long batch = 1L << 20;   /* 2 Mi entries: half a 64 MiB ring */
        const long paced = !strcmp(argv[2], "paced") ? (n + 29) / 30 : 0;
        const int names = !strcmp(argv[2], "names");   /* each scope a name of its own: n<i> */
        for (long i = 0; i < n; i++) {
            char nm[24];
            if (names) {
                snprintf(nm, sizeof nm, "n%ld", i);
                REC_BEGIN_DYN(nm);
            } else {
                REC_BEGIN("work");
            }
            if ((i & (batch - 1)) == batch - 1) {
                REC_COUNTER("done", (double)(i + 1));
                drain();
            }
            if (paced && i % paced == paced - 1) {
                drain();
                nanosleep(&(struct timespec){0, 100000000}, NULL);
            }
            REC_END();
        }
        REC_END();
        slices = n + 1 + 3;
        nthreads = 2;
    }
    drain();
    struct rec_capture_stats st;
    if (rec_capture_finish(cap, REC_CAPTURE_END_STOPPED, &st, err, sizeof err) != REC_OK) {
        fprintf(stderr, "gen_capture: %s\n", err);
        return 1;
    }
    rec_seg_close(s);
    printf("slices %ld threads %ld entries %llu dropped %llu\n", slices, nthreads, (unsigned long long)st.entries,
           (unsigned long long)(st.dropped + st.overwritten));
    rec_shutdown();
    return st.dropped + st.overwritten ? 1 : 0;
}
