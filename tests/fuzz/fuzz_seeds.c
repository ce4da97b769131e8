/*
 * fuzz_seeds.c -- writes the fuzzers' seed corpora: a small real segment
 * (2 thread slots, 4 KiB rings, 16 KiB of strings) holding every kind of
 * event, and captures of it, packed and raw, whole and cut short.
 *
 *   fuzz_seeds DIR   -> DIR/segment/, DIR/capture/, DIR/pack/ (the rings'
 *                       entries alone, for fuzz_pack)
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "recorder/capture.h"

static void *worker(void *arg) {
    (void)arg;
    REC_THREAD_NAME("worker");
    for (int i = 0; i < 20; i++) {
        REC_SCOPE("work");
        REC_FLOW_STEP(7);
    }
    return NULL;
}

static void record(void) {
    REC_THREAD_NAME("main");
    for (int i = 0; i < 10; i++) {
        REC_SCOPE("outer");
        char n[32];
        snprintf(n, sizeof n, "matmul_blk.%d", i % 3);
        REC_SCOPE_DYN(n);
        REC_COUNTER("kv", i * 1.5);
        REC_ARG("shape", "4096x32x1x1");   /* scope arguments: an instant's encoding */
        REC_ARG("type", "a value long enough for three continuation entries");
    }
    REC_INSTANT("mark", "a message that needs three continuation entries!");
    REC_FLOW_BEGIN(7);
    REC_BEGIN("left_open");
    pthread_t t;
    pthread_create(&t, NULL, worker, NULL);
    pthread_join(t, NULL);
}

static int copy_file(const char *from, const char *to, long cut) {
    FILE *a = fopen(from, "rb"), *b = fopen(to, "wb");
    if (!a || !b) return -1;
    char buf[65536];
    size_t n;
    long total = 0;
    while ((n = fread(buf, 1, sizeof buf, a)) > 0) {
        if (cut >= 0 && total + (long)n > cut) n = (size_t)(cut - total);
        if (fwrite(buf, 1, n, b) != n) return -1;
        total += (long)n;
        if (cut >= 0 && total >= cut) break;
    }
    fclose(a);
    return fclose(b);
}

static int capture(const char *path, int raw) {
    rec_seg *s;
    char err[512];
    if (rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "fuzz_seeds: %s\n", err);
        return -1;
    }
    struct rec_capture_opts o = {0, raw, 0};
    rec_capture *c;
    if (rec_capture_start(s, path, &o, &c, err, sizeof err) != REC_OK) {
        fprintf(stderr, "fuzz_seeds: %s\n", err);
        return -1;
    }
    int rc = rec_capture_finish(c, REC_CAPTURE_END_STOPPED, NULL, err, sizeof err);
    rec_seg_close(s);
    return rc == REC_OK ? 0 : -1;
}

/* Each thread slot's ring, as raw entries, from a copy of the segment. */
static int write_rings(const char *seg, const char *dir) {
    FILE *f = fopen(seg, "rb");
    if (!f) return -1;
    struct rec_header h;
    if (fread(&h, sizeof h, 1, f) != 1) return -1;
    size_t bytes = (size_t)h.ring_entries * sizeof(struct rec_entry);
    unsigned char *buf = malloc(bytes);
    int rc = buf ? 0 : -1;
    for (uint32_t i = 0; rc == 0 && i < h.max_threads; i++) {
        char p[600];
        snprintf(p, sizeof p, "%.512s/ring%u", dir, i);
        FILE *o = NULL;
        if (fseek(f, (long)(h.rings_off + i * bytes), SEEK_SET) != 0 || fread(buf, 1, bytes, f) != bytes ||
            !(o = fopen(p, "wb")) || fwrite(buf, 1, bytes, o) != bytes)
            rc = -1;
        if (o) fclose(o);
    }
    free(buf);
    fclose(f);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_seeds DIR\n");
        return 2;
    }
    setenv("RECORDER_MAX_THREADS", "2", 1);
    setenv("RECORDER_RING_KB", "4", 1);
    setenv("RECORDER_STRINGS_KB", "16", 1);
    if (rec_init() != 0) return 1;
    record();
    char p[512], q[512];
    snprintf(p, sizeof p, "%s", argv[1]);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/segment", argv[1]);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/capture", argv[1]);
    mkdir(p, 0700);
    snprintf(p, sizeof p, "%s/segment/live", argv[1]);
    if (copy_file(rec_segment_path(), p, -1) != 0) return 1;
    snprintf(q, sizeof q, "%s/pack", argv[1]);
    mkdir(q, 0700);
    if (write_rings(p, q) != 0) return 1;
    snprintf(p, sizeof p, "%s/capture/packed.rec", argv[1]);
    if (capture(p, 0) != 0) return 1;
    snprintf(p, sizeof p, "%s/capture/raw.rec", argv[1]);
    if (capture(p, 1) != 0) return 1;
    snprintf(q, sizeof q, "%s/capture/packed_cut.rec", argv[1]);
    snprintf(p, sizeof p, "%s/capture/packed.rec", argv[1]);
    struct stat st;
    if (stat(p, &st) != 0 || copy_file(p, q, (long)st.st_size * 2 / 3) != 0) return 1;
    /* After a clean shutdown the segment says CLOSED. */
    rec_shutdown();
    return 0;
}
