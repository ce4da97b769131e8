/*
 * test_sharedlib.c -- an app and a shared library that both define
 * RECORDER_IMPLEMENTATION, linked together (run once with the library built
 * with default visibility, once with -fvisibility=hidden).
 *
 * The library's copy sets up the segment first; the app's copy must join
 * it.  Checks: one segment for the process, the same path from both copies;
 * each thread holds exactly one slot (one THREAD_START, counted once in
 * threads_attached), whichever copy saw it first; events from app and
 * library code land in that one ring, properly nested; a dynamic name
 * interned by both copies has one id; the slot is marked exited when the
 * thread ends; and the segment is gone after both copies shut down.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <dirent.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "segread.h"
#include "sharedlib_lib.h"

static rec_seg *seg;

static void app_cb(void) {
    REC_SCOPE("app.cb");
    REC_SCOPE_DYN("shared.dyn");
}

struct thr {
    int lib_first;
    int tid;
    pthread_barrier_t *bar;
};

static void *thread_main(void *arg) {
    struct thr *t = (struct thr *)arg;
    t->tid = (int)gettid();
    if (t->lib_first) lib_instant();  /* the library's copy attaches us */
    {
        REC_SCOPE("app.thread");
        lib_work(app_cb);
    }
    pthread_barrier_wait(t->bar);     /* the main thread checks us alive */
    pthread_barrier_wait(t->bar);
    return NULL;
}

/* Entries of /dev/shm for this process: recorder.<pid> and any
 * recorder.<pid>.* a second segment might have been put aside as. */
static int segments_of_pid(void) {
    char want[64];
    int n = snprintf(want, sizeof want, "recorder.%d", (int)getpid()), found = 0;
    DIR *d = opendir("/dev/shm");
    if (!d) return -1;
    struct dirent *e;
    while ((e = readdir(d)) != NULL)
        if (!strncmp(e->d_name, want, (size_t)n) && (e->d_name[n] == 0 || e->d_name[n] == '.')) found++;
    closedir(d);
    return found;
}

/* BEGIN/END/INSTANT names of a slot's new events, as "B x", "E x", "I x". */
static void slot_events(int slot, char *out, size_t cap, int *starts) {
    struct evlist l = {0};
    CHECK(evlist_drain(seg, (uint32_t)slot, &l) == 0);
    CHECK_EQ_U(l.overwritten + l.bad, 0);
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < l.n; i++) {
        const struct rec_event *e = &l.ev[i];
        if (e->type == REC_EV_THREAD_START) (*starts)++;
        char c = e->type == REC_EV_BEGIN ? 'B' : e->type == REC_EV_END ? 'E' : e->type == REC_EV_INSTANT ? 'I' : 0;
        if (c && k < cap) k += (size_t)snprintf(out + k, cap - k, "%c %s;", c, ev_name(seg, e));
    }
    evlist_free(&l);
}

static const char *const nested =
    "B app.thread;B lib.work;B shared.dyn;B app.cb;B shared.dyn;E shared.dyn;E app.cb;E shared.dyn;E lib.work;E "
    "app.thread;";

int main(void) {
    unsetenv("RECORDER_KEEP");
    unsetenv("RECORDER_NAME");
    REQUIRE(lib_init() == 0);  /* the library's copy creates the segment */
    REQUIRE(rec_init() == 0);  /* the app's copy joins it */
    REQUIRE(rec_segment_path() && lib_segment_path());
    CHECK(!strcmp(rec_segment_path(), lib_segment_path()));
    char err[256];
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &seg, err, sizeof err) == REC_OK);

    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, 5);
    struct thr t[4];
    pthread_t th[4];
    for (int i = 0; i < 4; i++) {
        t[i].lib_first = i % 2;
        t[i].bar = &bar;
        REQUIRE(pthread_create(&th[i], NULL, thread_main, &t[i]) == 0);
    }
    pthread_barrier_wait(&bar);
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    CHECK_EQ_U(info.threads_attached, 4);
    CHECK_EQ_U(info.threads_no_slot, 0);
    struct rec_thread_info ti[8];
    CHECK_EQ_U(rec_seg_threads(seg, ti, 8), 4);
    for (int i = 0; i < 4; i++) {
        int slot = slot_of_tid(seg, t[i].tid);
        REQUIRE(slot >= 0);
        char got[512], want[512];
        snprintf(want, sizeof want, "%s%s", t[i].lib_first ? "I lib.first;" : "", nested);
        int starts = 0;
        slot_events(slot, got, sizeof got, &starts);
        if (strcmp(got, want)) fprintf(stderr, "thread %d:\n got %s\nwant %s\n", i, got, want);
        CHECK(!strcmp(got, want));
        CHECK_EQ_U(starts, 1);
        struct rec_thread_info one;
        CHECK(rec_seg_thread(seg, (uint32_t)slot, &one) == 0 && one.state == REC_SLOT_LIVE);
    }
    pthread_barrier_wait(&bar);
    for (int i = 0; i < 4; i++) pthread_join(th[i], NULL);
    pthread_barrier_destroy(&bar);
    int n = rec_seg_threads(seg, ti, 8);
    CHECK_EQ_U(n, 4);
    for (int i = 0; i < n; i++) CHECK_EQ_U(ti[i].state, REC_SLOT_EXITED);  /* both copies let go */

    CHECK_EQ_U(segments_of_pid(), 1);
    char path[128];
    snprintf(path, sizeof path, "%s", rec_segment_path());
    rec_seg_close(seg);
    rec_shutdown();
    lib_shutdown();
    CHECK(access(path, F_OK) != 0);
    CHECK_EQ_U(segments_of_pid(), 0);
    CHECK_DONE();
}
