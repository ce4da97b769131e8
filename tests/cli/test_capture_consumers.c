/*
 * test_capture_consumers.c -- several consumer threads lose nothing one
 * would keep, and keep every ring's order (librecorder/capture/cap_workers.c).
 *
 * In one process: six writer threads record a known sequence per thread
 * (scope names "t<i>", counters 0, 1, 2 ... in order), in rounds smaller
 * than a ring, with a capture pass after each round, so that no entry can
 * be dropped whatever the machine's load.  The same run is captured with
 * 1, 2, 3 and 8 consumer threads, packed and raw; each file must open
 * complete (consecutive sequence numbers, every check right), hold every
 * entry, and give each thread its counters in order.  Runs under ASan and
 * TSan (suites cli and tsan).
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "recorder/capture.h"

#define WRITERS 6
#define ROUNDS 4
#define PER_ROUND 3000   /* entries per thread per round: well under the 16384 of a 256 KiB ring */

static pthread_barrier_t go, done;
static int rounds_left;

static void *writer(void *arg) {
    int k = (int)(long)arg;
    char name[16];
    snprintf(name, sizeof name, "t%d", k);
    REC_THREAD_NAME(name);
    double v = 0;
    for (int r = 0; r < ROUNDS; r++) {
        pthread_barrier_wait(&go);
        for (int i = 0; i < PER_ROUND / 3; i++) {
            REC_SCOPE_DYN(name);
            REC_COUNTER("seq", v);
            v += 1;
        }
        pthread_barrier_wait(&done);
    }
    return NULL;
}

struct per_thread {
    int seen;
    double next;       /* the counter value expected next */
    uint64_t begins;
    int in_order;
};

static void check_file(const char *path, uint64_t entries) {
    char err[512];
    rec_cap *c;
    REQUIRE(rec_cap_open(path, &c, err, sizeof err) == REC_OK);
    const struct rec_cap_info *in = rec_cap_get_info(c);
    CHECK(in->complete);
    CHECK(!in->truncated);
    CHECK_EQ_U(in->warning[0], 0);
    CHECK_EQ_U(in->entries, entries);
    CHECK_EQ_U(in->valid_size, in->file_size);
    static struct per_thread pt[64];
    memset(pt, 0, sizeof pt);
    static struct rec_event ev[65536];
    struct rec_cap_item it;
    uint64_t got = 0;
    int r;
    while ((r = rec_cap_next(c, &it)) == 1) {
        if (it.kind == REC_CAP_ITEM_THREAD || it.slot >= 64) continue;
        got += it.n;
        struct per_thread *t = &pt[it.slot];
        if (!t->seen) t->seen = t->in_order = 1;
        size_t used = 0;
        size_t n = rec_decode(it.entries, it.n, it.first, ev, 65536, &used, NULL);
        for (size_t i = 0; i < n; i++) {
            if (ev[i].type == REC_EV_BEGIN) t->begins++;
            if (ev[i].type != REC_EV_COUNTER) continue;
            if (ev[i].value != t->next) t->in_order = 0;
            t->next = ev[i].value + 1;
        }
    }
    CHECK_EQ_U(r, 0);
    CHECK_EQ_U(got, entries);
    int writers = 0;
    for (int i = 0; i < 64; i++) {
        if (!pt[i].seen || !pt[i].begins) continue;
        writers++;
        CHECK(pt[i].in_order);
        CHECK_EQ_U(pt[i].begins, ROUNDS * (PER_ROUND / 3));
        CHECK_EQ_U((uint64_t)pt[i].next, ROUNDS * (PER_ROUND / 3));
    }
    CHECK_EQ_U(writers, WRITERS);
    rec_cap_close(c);
}

/* One recorded run, captured by `consumers` threads into path. */
static void run(const char *path, unsigned consumers, int raw) {
    char err[512];
    rec_seg *s;
    REQUIRE(rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) == REC_OK);
    struct rec_capture_opts o = {1, raw, 0};
    rec_capture *c;
    REQUIRE(rec_capture_start(s, path, &o, &c, err, sizeof err) == REC_OK);
    REQUIRE(rec_capture_set_consumers(c, consumers, err, sizeof err) == REC_OK);
    pthread_t th[WRITERS];
    pthread_barrier_init(&go, NULL, WRITERS + 1);
    pthread_barrier_init(&done, NULL, WRITERS + 1);
    for (long i = 0; i < WRITERS; i++) pthread_create(&th[i], NULL, writer, (void *)i);
    for (rounds_left = ROUNDS; rounds_left > 0; rounds_left--) {
        pthread_barrier_wait(&go);
        pthread_barrier_wait(&done);
        size_t moved = 0;
        CHECK(rec_capture_poll(c, &moved, err, sizeof err) == REC_OK);
    }
    for (int i = 0; i < WRITERS; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&go);
    pthread_barrier_destroy(&done);
    struct rec_capture_stats st;
    REQUIRE(rec_capture_finish(c, REC_CAPTURE_END_STOPPED, &st, err, sizeof err) == REC_OK);
    rec_seg_close(s);
    CHECK_EQ_U(st.dropped, 0);
    CHECK_EQ_U(st.overwritten, 0);
    /* Begin, end and counter (2 entries) per iteration, plus each
     * thread's start and name: at least the loop's entries. */
    CHECK(st.entries >= (uint64_t)WRITERS * ROUNDS * (PER_ROUND / 3) * 4);
    check_file(path, st.entries);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    mkdir(dir, 0700);
    setenv("RECORDER_MAX_THREADS", "16", 1);
    setenv("RECORDER_RING_KB", "256", 1);
    REQUIRE(rec_init() == 0);
    static const unsigned n[] = {1, 2, 3, 8};
    for (size_t i = 0; i < sizeof n / sizeof *n; i++)
        for (int raw = 0; raw < 2; raw++) {
            char path[512];
            snprintf(path, sizeof path, "%s/consumers-%u-%s.rec", dir, n[i], raw ? "raw" : "packed");
            run(path, n[i], raw);
        }
    rec_shutdown();
    CHECK_DONE();
}
