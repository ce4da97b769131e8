/*
 * test_source_file.c -- recorder-top's capture-file reading
 * (viewer-tui/source_file.c): wherever the cursor goes (forward, back,
 * the end, the start), the model holds exactly the events of the file
 * that are before it, counted here independently by reading the whole
 * capture with rec_cap_next.  Three threads write at once, so each
 * capture pass holds chunks of several threads, and a chunk of one can
 * come after a chunk of another that is already past the cursor: the
 * split-and-hold must still give every thread's events before the cursor.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "recorder/capture.h"
#include "source_file.h"

static volatile int stop;

static void sleep_us(long us) {
    struct timespec t = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&t, NULL);
}

static void *worker(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "w%d", (int)(long)arg);
    REC_THREAD_NAME(name);
    while (!stop) {
        for (int i = 0; i < 50; i++) {
            REC_SCOPE("unit");
        }
        sleep_us(200 + 100 * (long)arg);
    }
    return NULL;
}

/* Every event's time in the file, as source_file.c computes it. */
static double *event_times(const char *path, size_t *n) {
    char err[256];
    rec_cap *c;
    REQUIRE(rec_cap_open(path, &c, err, sizeof err) == REC_OK);
    const struct rec_cap_info *in = rec_cap_get_info(c);
    double npt = 1e9 / in->ticks_per_sec;
    size_t cap = 1 << 16, k = 0;
    double *t = malloc(cap * sizeof *t);
    struct rec_cap_item it;
    while (rec_cap_next(c, &it) == 1) {
        if (it.kind != REC_CAP_ITEM_CHUNK) continue;
        for (size_t i = 0; i < it.n; i++) {
            if (REC_EV_TYPE(it.entries[i].w1) == REC_EV_CONT) continue;
            if (k == cap) t = realloc(t, (cap *= 2) * sizeof *t);
            uint64_t w0 = it.entries[i].w0;
            t[k++] = w0 >= in->ticks0 ? (double)(w0 - in->ticks0) * npt : -(double)(in->ticks0 - w0) * npt;
        }
    }
    rec_cap_close(c);
    *n = k;
    return t;
}

static uint64_t before(const double *t, size_t n, double limit) {
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) k += t[i] < limit;
    return k;
}

static uint64_t model_events(rec_model *m) {
    const struct rec_model_thread *t;
    size_t n = rec_model_threads(m, &t);
    uint64_t k = 0;
    for (size_t i = 0; i < n; i++) k += t[i].events;
    return k;
}

static void read_all(struct file_src *f) {
    int more = 1;
    for (int i = 0; i < 100000 && more; i++) file_src_pass(f, &more);
    CHECK(!more && !f->reading);
}

int main(void) {
    char path[128];
    snprintf(path, sizeof path, "/tmp/test-tuifile-%d.rec", (int)getpid());
    unsetenv("RECORDER_RING_KB");
    REQUIRE(rec_init() == 0);
    REC_THREAD_NAME("main");
    char err[256];
    rec_seg *s;
    rec_capture *cap;
    REQUIRE(rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) == REC_OK);
    REQUIRE(rec_capture_start(s, path, NULL, &cap, err, sizeof err) == REC_OK);
    pthread_t th[3];
    for (long i = 0; i < 3; i++) pthread_create(&th[i], NULL, worker, (void *)i);
    /* A little over three seconds: four cursor positions at least. */
    struct timespec t0, now;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do {
        REQUIRE(rec_capture_poll(cap, NULL, err, sizeof err) == REC_OK);
        sleep_us(3000);
        clock_gettime(CLOCK_MONOTONIC, &now);
    } while (now.tv_sec - t0.tv_sec < 4);
    stop = 1;
    for (int i = 0; i < 3; i++) pthread_join(th[i], NULL);
    struct rec_capture_stats st;
    REQUIRE(rec_capture_finish(cap, REC_CAPTURE_END_STOPPED, &st, err, sizeof err) == REC_OK);
    rec_seg_close(s);

    size_t n;
    double *times = event_times(path, &n);
    REQUIRE(n > 1000);
    struct file_src f;
    REQUIRE(file_src_open(&f, path, err, sizeof err) == REC_OK);
    read_all(&f);
    /* The first window: the end of the first second that holds an event. */
    double first = INFINITY;
    for (size_t i = 0; i < n; i++)
        if (times[i] < first) first = times[i];
    double start = file_src_grid_after(first);
    CHECK(f.cursor_ns == start);
    CHECK_EQ_U(model_events(f.model), before(times, n, start));
    /* Forward, forward, back, the end, the start. */
    double steps[] = {start + 1e9, start + 2e9, start + 1e9, INFINITY, -INFINITY, start + 3e9};
    for (size_t i = 0; i < sizeof steps / sizeof steps[0]; i++) {
        file_src_seek(&f, steps[i] == -INFINITY ? first : steps[i]);
        read_all(&f);
        double want = steps[i] == INFINITY ? INFINITY : steps[i] == -INFINITY ? start : steps[i];
        /* Never past the file's end (issue 20, item 7): there the cursor
         * is just past the last event, or at the END record if later. */
        double end = file_src_end_ns(&f), lim = f.at_end && f.last_ns >= end ? f.last_ns + 1 : end;
        if (!isnan(end) && want > lim) want = lim;
        CHECK(f.cursor_ns == want);
        if (steps[i] == INFINITY) CHECK(f.at_end && f.cursor_ns < file_src_grid_after(f.last_ns));
        CHECK_EQ_U(model_events(f.model), want == lim ? n : before(times, n, want));
        CHECK(f.npool <= FILE_HOLD_MAX);
        CHECK(!f.incomplete);
        /* The windows end at the cursor. */
        CHECK(rec_model_now(f.model) < f.cursor_ns && rec_model_now(f.model) >= f.cursor_ns - 1e9);
    }
    CHECK(f.rewinds >= 2);   /* back a step, and to the start */
    file_src_close(&f);
    /* A first window of 2 s ends a second later; one of 10 s, longer than
     * the file, ends at the file's end, with every event in the model. */
    REQUIRE(file_src_open(&f, path, err, sizeof err) == REC_OK);
    f.first_window_ns = 2e9;
    read_all(&f);
    CHECK(f.cursor_ns == start + 1e9);
    CHECK_EQ_U(model_events(f.model), before(times, n, start + 1e9));
    file_src_close(&f);
    REQUIRE(file_src_open(&f, path, err, sizeof err) == REC_OK);
    f.first_window_ns = 10e9;
    read_all(&f);
    double end = file_src_end_ns(&f);
    CHECK(f.at_end && f.cursor_ns > f.last_ns && f.cursor_ns == (f.last_ns >= end ? f.last_ns + 1 : end));
    CHECK_EQ_U(model_events(f.model), n);
    file_src_close(&f);
    free(times);
    unlink(path);
    rec_shutdown();
    CHECK_DONE();
}
