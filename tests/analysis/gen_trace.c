/*
 * gen_trace.c -- records a small multi-threaded workload with recorder.h,
 * reads its own segment back through librecorder and exports it with the
 * analysis layer: the input of test_export.py and the speedscope test.
 *
 *   gen_trace OUTDIR            writes OUTDIR/trace.json, trace_last.json,
 *                               trace.csv, trace.folded, trace_last.folded
 *   gen_trace --escape IN OUT   IN: one hex-encoded byte string per line;
 *                               OUT: a JSON array of rec_json_string of each
 *
 * The workload has what exports must survive: nested and dynamic names
 * full of quotes, backslashes, control bytes and invalid UTF-8; counters;
 * flows between threads; a scope still open at the snapshot; and a thread
 * whose ring wraps (RECORDER_RING_KB=64), so its oldest begins are gone
 * and the read reports loss.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/analysis.h"

/* The same bytes as in test_export.py. */
#define WEIRD_NAME "q\"uote b\\ack\ttab\x01" "ctl \xff\xfe bad \xe2\x82 cut \xc3\xbc ok"
#define WEIRD_MSG "m\"sg\\ \n\x7f \xc3\x28 \xf0\x9f\x98\x80 end"
#define WRAP_ITERS 3000
#define WORK_ITERS 40

static _Thread_local volatile double sink;   /* per thread: no race between workers */

static void spin(int n) {
    double x = 0;
    for (int i = 0; i < n; i++) x += i * 0.5;
    sink = x;
}

/* Returns once the monotonic clock (which the recorder's ticks follow) is
 * a microsecond past where it was: what comes next is written at a later
 * time than what came before, whatever the clock's granularity.
 * speedscope orders events of one time by its own rule and reads a
 * zero-length slice (a flow) at the very nanosecond its parent begins as
 * ending before it begins (docs/analysis.md, "Known limits"); a host whose
 * counter advances in steps of 10 ns wrote such ties now and then. */
static void until_later(void) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000000L + (t.tv_nsec - t0.tv_nsec) < 1000);
}

static void *worker1(void *arg) {
    (void)arg;
    REC_THREAD_NAME("worker-1");
    for (int i = 0; i < WORK_ITERS; i++) {
        REC_SCOPE("step");
        {
            REC_SCOPE("matmul");
            spin(2000);
        }
        {
            char dyn[32];
            snprintf(dyn, sizeof dyn, "attn.%d", i % 3);
            REC_SCOPE_DYN(dyn);
            spin(500);
        }
        REC_FLOW_END(1000 + i);   /* from main's "submit": binds to "step" */
        REC_COUNTER("kv_cache", i * 1.5);
    }
    {
        REC_SCOPE_DYN(WEIRD_NAME);
        REC_INSTANT("weird", WEIRD_MSG);
        spin(100);
    }
    return NULL;
}

/* Many short scopes in a 64 KB ring: the oldest are overwritten. */
static void *worker2(void *arg) {
    (void)arg;
    REC_THREAD_NAME("worker-2");
    REC_BEGIN("long-running");
    for (int i = 0; i < WRAP_ITERS; i++) {
        REC_SCOPE("outer");
        REC_SCOPE("inner");
        spin(50);
    }
    REC_END();
    return NULL;
}

static int export_all(const char *dir) {
    char err[256];
    rec_seg *seg;
    int rc = rec_seg_open(rec_segment_path(), 0, &seg, err, sizeof err);
    if (rc != REC_OK) {
        fprintf(stderr, "gen_trace: %s\n", err);
        return 1;
    }
    struct rec_model_opts opts = {0, 1, NULL};
    rec_model *m = rec_model_new_seg(seg, &opts);
    if (!m) return 1;
    rec_model_poll_seg(m, seg);
    rec_model_set_now_live(m, seg);
    struct {
        const char *file;
        int kind;
        double last;
    } outs[] = {{"trace.json", 0, 0}, {"trace_last.json", 0, 0.002}, {"trace.csv", 1, 0},
                {"trace.folded", 2, 0}, {"trace_last.folded", 2, 0.002}, {"trace_last.csv", 1, 0.002}};
    for (size_t i = 0; i < sizeof outs / sizeof outs[0]; i++) {
        char path[1024];
        snprintf(path, sizeof path, "%s/%s", dir, outs[i].file);
        FILE *f = fopen(path, "w");
        if (!f) {
            perror(path);
            return 1;
        }
        struct rec_export_opts o = {.last_sec = outs[i].last};
        int r = outs[i].kind == 0 ? rec_export_json(m, f, &o)
              : outs[i].kind == 1 ? rec_export_csv(m, f, &o)
                                  : rec_export_folded(m, f, &o);
        if (fclose(f) != 0 || r != 0) {
            fprintf(stderr, "gen_trace: exporting %s failed\n", path);
            return 1;
        }
    }
    rec_model_free(m);
    rec_seg_close(seg);
    return 0;
}

static int escape_file(const char *in, const char *out) {
    FILE *f = fopen(in, "r"), *o = fopen(out, "w");
    if (!f || !o) {
        perror("gen_trace --escape");
        return 1;
    }
    static char line[1 << 16], raw[1 << 15];
    int first = 1;
    fputs("[", o);
    while (fgets(line, sizeof line, f)) {
        size_t n = 0;
        for (char *p = line; p[0] && p[1] && p[0] != '\n'; p += 2) {
            unsigned v;
            sscanf(p, "%2x", &v);
            raw[n++] = (char)v;
        }
        if (!first) fputs(",\n", o);
        first = 0;
        rec_json_string(o, raw, n);
    }
    fputs("]\n", o);
    fclose(f);
    return fclose(o) != 0;
}

int main(int argc, char **argv) {
    if (argc == 4 && !strcmp(argv[1], "--escape")) return escape_file(argv[2], argv[3]);
    if (argc != 2) {
        fprintf(stderr, "usage: gen_trace OUTDIR | gen_trace --escape IN OUT\n");
        return 2;
    }
    setenv("RECORDER_RING_KB", "64", 1);
    unsetenv("RECORDER");
    unsetenv("RECORDER_FILTER");
    unsetenv("RECORDER_FILTER_OUT");
    if (rec_init() != 0) {
        fprintf(stderr, "gen_trace: recording is off\n");
        return 1;
    }
    REC_THREAD_NAME("main-thread");
    REC_BEGIN("still-open");   /* open when exported */
    pthread_t t1, t2;
    pthread_create(&t2, NULL, worker2, NULL);
    for (int i = 0; i < WORK_ITERS; i++) {
        REC_SCOPE("submit");
        until_later();
        REC_FLOW_BEGIN(1000 + i);
    }
    pthread_create(&t1, NULL, worker1, NULL);
    pthread_join(t1, NULL);
    pthread_join(t2, NULL);
    REC_INSTANT("done");
    int rc = export_all(argv[1]);
    REC_END();
    rec_shutdown();
    return rc;
}
