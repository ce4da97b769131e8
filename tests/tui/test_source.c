/*
 * test_source.c -- recorder-top's reading layer (viewer-tui/source.c and
 * drain.c) against this process's own segment: history older than the
 * attach is not reported as lost (but as not kept), a pass reads a
 * bounded amount, the ring fill is measured before reading, decoded +
 * lost is exactly what was written when the writer laps the reader, and a
 * segment that shrinks under the reader stops the reading, not the reader.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "source.h"

#define RING 65536u   /* entries in the default 1 MiB ring */

static void scopes(int n) {
    for (int i = 0; i < n; i++) {
        REC_SCOPE("unit");
    }
}

static double mono(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static uint64_t drain_all(struct source *s) {
    uint64_t total = 0;
    for (int pass = 0; pass < 1000; pass++) {
        size_t k = source_drain(s);
        if (!k) break;
        total += k;
    }
    source_tick(s, mono());
    return total;
}

static void *second_thread(void *arg) {
    (void)arg;
    REC_THREAD_NAME("second");
    scopes(10000);
    return NULL;
}

/* A copy of a (mostly sparse) segment, writing only its non-zero blocks. */
static int copy_sparse(const char *from, const char *to) {
    int in = open(from, O_RDONLY | O_CLOEXEC), out = open(to, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    static char buf[65536];
    off_t pos = 0;
    ssize_t n = 0;
    int ok = in >= 0 && out >= 0;
    while (ok && (n = read(in, buf, sizeof buf)) > 0) {
        size_t i = 0;
        while (i < (size_t)n && !buf[i]) i++;
        if (i < (size_t)n) ok = pwrite(out, buf, (size_t)n, pos) == n;
        pos += n;
    }
    ok = ok && n == 0 && ftruncate(out, pos) == 0;
    if (in >= 0) close(in);
    if (out >= 0) close(out);
    return ok ? 0 : -1;
}

/* The program shrinks its segment while we read it: a drain faults on the
 * missing pages (librecorder's guard turns that into a status), the next
 * tick notices, and from then on nothing is read and what was stays. */
static void truncated_segment(void) {
    char path[96];
    snprintf(path, sizeof path, "/dev/shm/recorder.tuisrc-trunc-%d", (int)getpid());
    REQUIRE(copy_sparse(rec_segment_path(), path) == 0);
    struct source s;
    char err[256];
    REQUIRE(source_open(&s, path, err, sizeof err) == REC_OK);
    uint64_t got = drain_all(&s);
    CHECK(got > 0);
    CHECK(!s.truncated);
    REQUIRE(truncate(path, 4096) == 0);
    scopes(10);                              /* in our segment, not the copy: nothing new there */
    CHECK_EQ_U(source_drain(&s), 0);         /* faults inside: no crash */
    CHECK_EQ_U(source_tick(&s, mono()), 1);  /* noticed */
    CHECK(s.truncated);
    CHECK_EQ_U(source_drain(&s), 0);
    CHECK(!s.drain.more);                    /* no pass comes back at once */
    CHECK_EQ_U(s.decoded, got);
    const struct rec_model_thread *t;
    CHECK(rec_model_threads(s.model, &t) >= 1);   /* what was read stays */
    CHECK_EQ_U(source_tick(&s, mono()), 0);  /* noticed once */
    source_close(&s);
    unlink(path);
}

int main(void) {
    unsetenv("RECORDER_RING_KB");
    REQUIRE(rec_init() == 0);
    REC_THREAD_NAME("main");
    /* Before we attach, the ring laps: its oldest entries are gone. */
    scopes(40000);

    struct source s;
    char err[256];
    REQUIRE(source_open(&s, rec_segment_path(), err, sizeof err) == REC_OK);
    CHECK_EQ_U(s.info.ring_entries, RING);
    CHECK(!s.exited);
    uint64_t first = drain_all(&s);
    CHECK(first > 0 && first <= RING);
    CHECK_EQ_U(s.lost, 0);                   /* history is not our loss */
    const struct rec_model_thread *t;
    REQUIRE(rec_model_threads(s.model, &t) == 1);
    CHECK(t[0].history > 0);                 /* ... though the model saw it, as not kept */
    CHECK_EQ_U(t[0].overwritten, 0);
    CHECK_EQ_U(source_thread_lost(&t[0]), 0);

    /* A pass reads at most a quarter ring of a thread. */
    scopes(15000);                           /* 30000 entries */
    uint64_t before = s.decoded;
    CHECK_EQ_U(source_drain(&s), RING / 4);
    CHECK(s.fill > 29999.0 / RING && s.fill < 30001.0 / RING);
    CHECK(s.drain.more);                     /* stopped at the bound: come back at once */
    CHECK_EQ_U(source_drain(&s), 30000 - RING / 4);
    CHECK(!s.drain.more);
    CHECK_EQ_U(source_drain(&s), 0);
    CHECK(s.fill == 0 && !s.drain.more);
    CHECK_EQ_U(s.decoded - before, 30000);
    source_tick(&s, mono());
    CHECK_EQ_U(s.lost, 0);

    /* The writer laps the reader: every entry is decoded or counted lost. */
    scopes(50000);                           /* 100000 entries */
    before = s.decoded;
    uint64_t lost_before = s.lost;
    source_drain(&s);
    CHECK(s.fill > 1.5);                     /* measured before reading */
    CHECK(s.drain.more);                     /* lapped */
    drain_all(&s);
    CHECK(s.lost > lost_before);
    CHECK_EQ_U((s.decoded - before) + (s.lost - lost_before), 100000);

    /* A second thread: its start and name events, and its scopes. */
    pthread_t th;
    pthread_create(&th, NULL, second_thread, NULL);
    pthread_join(th, NULL);
    scopes(10000);
    before = s.decoded;
    lost_before = s.lost;
    drain_all(&s);
    /* 40000 scope events and the new thread's metadata (start, name...). */
    CHECK(s.decoded - before >= 40002 && s.decoded - before <= 40004);
    CHECK_EQ_U(s.lost, lost_before);
    size_t n = rec_model_threads(s.model, &t);
    CHECK_EQ_U(n, 2);
    CHECK(n == 2 && !strcmp(t[1].name, "second"));
    CHECK(!strcmp(source_name(&s, 0), "?"));
    /* Not kept, summed over threads: the first thread's history. */
    CHECK(s.not_kept > 0);
    CHECK_EQ_U(s.lost, s.overwritten + s.dropped + s.bad);

    source_close(&s);
    truncated_segment();
    rec_shutdown();
    CHECK_DONE();
}
