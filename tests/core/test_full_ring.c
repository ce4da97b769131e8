/*
 * test_full_ring.c -- what the writer does when its ring is full.
 *
 * Every event here is a counter whose value is the ring index it was
 * written at (the writer reads its own head first), so a reader can check
 * each event it gets against its index: a torn or stale entry cannot pass.
 * RECORDER_RING_KB=4: 256 entries.
 *
 *  1. flight mode: the writer runs on over a full ring; a reader gets the
 *     newest entries intact and counts every older one as overwritten,
 *     exactly (received + overwritten == emitted).
 *  2. stale consumer: a consumer process opens the segment with
 *     REC_OPEN_STREAM and never reads: the writer drops (counted in the
 *     slot) instead of overwriting, and a second consumer is refused
 *     (REC_ERR_BUSY).  The consumer is SIGKILLed; the writer, still
 *     dropping, finds its heartbeat stale after REC_STREAM_STALE_SEC and
 *     goes back to flight mode: no more drops, and another consumer may
 *     attach.  (The deadline below is a hang guard, not a timing check.)
 *     A consumer that dies while the writer has nothing to drop is
 *     replaced by the next one at once.
 *  3. revived consumer: a checking consumer is SIGSTOPped until the writer
 *     drops it, then continued: it must notice it no longer owns the
 *     rings, read on as a flight reader with exact counts and no torn
 *     event, and must not throttle the writer again.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <poll.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "check.h"
#include "segread.h"
#include "spawn.h"

#define SETUP 3u              /* THREAD_START, THREAD_NAME (comm), THREAD_NAME */

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_ms(long ms) {
    struct timespec d = {ms / 1000, (ms % 1000) * 1000000L};
    while (nanosleep(&d, &d) != 0) {}
}

/* A counter whose value is its own ring index; returns entries emitted. */
static inline uint64_t emit_indexed(void) {
    uint64_t idx = __atomic_load_n(&rec__t.slot->head, __ATOMIC_RELAXED);
    REC_COUNTER("full.idx", (double)idx);
    return 2;
}

/* Checks events of one read; returns the number of bad ones. */
static uint64_t check_indexed(const struct rec_event *ev, size_t n, uint64_t *last_ticks) {
    uint64_t bad = 0;
    for (size_t k = 0; k < n; k++) {
        const struct rec_event *e = &ev[k];
        if (e->ticks < *last_ticks) bad++;
        *last_ticks = e->ticks;
        if (e->index < SETUP) {
            bad += e->type != (e->index == 0 ? REC_EV_THREAD_START : REC_EV_THREAD_NAME);
            continue;
        }
        if (e->type != REC_EV_COUNTER || e->value != (double)e->index) {
            if (bad < 5) fprintf(stderr, "index %llu: type %u value %.0f\n", (unsigned long long)e->index, e->type, e->value);
            bad++;
        }
    }
    return bad;
}

/* ---- the consumer processes ------------------------------------------- */

/* "idle PID": attach as the stream consumer, say so, never read. */
static int consumer_idle(const char *pid) {
    rec_seg *s;
    char err[256];
    if (rec_seg_open(pid, REC_OPEN_STREAM, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "consumer: %s\n", err);
        return 1;
    }
    printf("ready\n");
    fflush(stdout);
    char buf[8];
    while (read(0, buf, sizeof buf) > 0) {}
    rec_seg_close(s);
    return 0;
}

/* "check PID": the stream consumer that reads and checks every slot until
 * stdin closes, then prints "S slot received overwritten dropped bad". */
static int consumer_check(const char *pid) {
    rec_seg *s;
    char err[256];
    if (rec_seg_open(pid, REC_OPEN_STREAM, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "consumer: %s\n", err);
        return 1;
    }
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    uint32_t n = info.max_threads;
    struct acc {
        uint64_t recv, over, drop, bad, last_ticks;
    } *a = calloc(n, sizeof *a);
    struct rec_entry *buf = malloc(4096 * sizeof *buf);
    struct rec_event *ev = malloc(4096 * sizeof *ev);
    if (!a || !buf || !ev) return 1;
    printf("ready\n");
    fflush(stdout);
    for (int last = 0; last < 2;) {
        struct pollfd p = {0, POLLIN, 0};
        if (last == 0 && poll(&p, 1, 0) == 1) last = 1;  /* stdin closed: one more full pass */
        else if (last == 1) last = 2;
        for (uint32_t i = 0; i < n; i++) {
            for (;;) {
                uint64_t first;
                struct rec_loss loss = {0};
                size_t got = rec_seg_read(s, i, buf, 4096, &first, &loss);
                a[i].over += loss.overwritten + loss.history;
                a[i].drop += loss.dropped;
                if (!got) break;
                size_t used = 0;
                uint64_t bad = 0;
                size_t k = rec_decode(buf, got, first, ev, 4096, &used, &bad);
                a[i].bad += bad + (used != got) + check_indexed(ev, k, &a[i].last_ticks);
                a[i].recv += got;
                if (!last) break;  /* while racing: one read per slot per pass */
            }
        }
        rec_seg_heartbeat(s);
    }
    for (uint32_t i = 0; i < n; i++)
        if (a[i].recv || a[i].over || a[i].drop)
            printf("S %u %llu %llu %llu %llu\n", i, (unsigned long long)a[i].recv, (unsigned long long)a[i].over,
                   (unsigned long long)a[i].drop, (unsigned long long)a[i].bad);
    free(a);
    free(buf);
    free(ev);
    rec_seg_close(s);
    return 0;
}

/* ---- the writer -------------------------------------------------------- */

static rec_seg *seg;

static struct rec_thread_info slot_info(int slot) {
    struct rec_thread_info t;
    memset(&t, 0, sizeof t);
    CHECK(rec_seg_thread(seg, (uint32_t)slot, &t) == 0);
    return t;
}

static unsigned seg_mode(void) {
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    return info.mode;
}

static struct child start_consumer(const char *argv0, const char *mode) {
    char pid[16];
    snprintf(pid, sizeof pid, "%d", (int)getpid());
    char *cargv[] = {(char *)argv0, (char *)mode, pid, NULL};
    struct child c;
    REQUIRE(child_spawn(&c, "/proc/self/exe", cargv, NULL, 1, 0) == 0);
    char line[64];
    REQUIRE(fd_read_line(c.out, line, sizeof line) == 0 && !strcmp(line, "ready"));
    return c;
}

/* A second writer thread for part 3: indexed counters until told to stop. */
struct w2 {
    int stop;
    int tid;
    uint64_t emitted;
};

static void *w2_main(void *arg) {
    struct w2 *w = (struct w2 *)arg;
    w->tid = (int)gettid();
    REC_THREAD_NAME("w2");
    uint64_t n = SETUP;
    while (!__atomic_load_n(&w->stop, __ATOMIC_ACQUIRE))
        for (int i = 0; i < 64; i++) n += emit_indexed();
    __atomic_store_n(&w->emitted, n, __ATOMIC_RELEASE);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc == 3 && !strcmp(argv[1], "idle")) return consumer_idle(argv[2]);
    if (argc == 3 && !strcmp(argv[1], "check")) return consumer_check(argv[2]);
    setenv("RECORDER_RING_KB", "4", 1);
    unsetenv("RECORDER_MODE");
    unsetenv("RECORDER_FILTER");
    unsetenv("RECORDER_FILTER_OUT");
    REQUIRE(rec_init() == 0);
    char err[256];
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &seg, err, sizeof err) == REC_OK);
    REC_THREAD_NAME("main");
    uint64_t emitted = SETUP;
    int me = slot_of_tid(seg, (int)gettid());
    REQUIRE(me >= 0);
    struct evlist l = {0};

    /* 1. Flight mode over a full ring. */
    for (int i = 0; i < 10000; i++) emitted += emit_indexed();
    CHECK_EQ_U(slot_info(me).head, emitted);  /* the writer never stopped */
    CHECK(evlist_drain(seg, (uint32_t)me, &l) == 0);
    CHECK(l.entries > 0 && l.entries <= 256);
    CHECK_EQ_U(l.entries + l.overwritten, emitted);
    uint64_t ticks = 0;
    CHECK_EQ_U(check_indexed(l.ev, l.n, &ticks), 0);
    CHECK(l.n > 0 && l.ev[l.n - 1].index == emitted - 2);  /* the newest one */
    CHECK_EQ_U(l.dropped, 0);

    /* 1b. The words for loss (docs/format.md, "Loss"): what the ring had
     * overwritten when a reader first looks is history it did not keep;
     * what the writer overwrites after that is lost by that reader. */
    {
        rec_seg *fresh;
        REQUIRE(rec_seg_open(rec_segment_path(), 0, &fresh, err, sizeof err) == REC_OK);
        struct rec_entry buf[512];
        struct rec_loss loss = {0};
        uint64_t first, head = slot_info(me).head;
        size_t got = rec_seg_read(fresh, (uint32_t)me, buf, 512, &first, &loss);
        CHECK_EQ_U(loss.history + got, head);   /* the first look: history only */
        CHECK_EQ_U(loss.overwritten, 0);
        for (int i = 0; i < 1000; i++) emitted += emit_indexed();
        struct rec_loss later = {0};
        uint64_t before = rec_seg_cursor(fresh, (uint32_t)me);
        got = rec_seg_read(fresh, (uint32_t)me, buf, 512, &first, &later);
        CHECK_EQ_U(later.history, 0);           /* then: lost while reading */
        CHECK(later.overwritten > 0);
        CHECK_EQ_U(before + later.overwritten, first);
        rec_seg_close(fresh);

        /* Open, then the writer laps the ring before the first read:
         * history is what the ring had overwritten when this reader first
         * LOOKED at it (its first read), not when it opened the segment --
         * recorder-web opens, sets up its server, then reads, and counted
         * that stretch as lost where recorder-top, reading at once, said
         * lost 0 (issue 18, item 9).  So all of it is history. */
        REQUIRE(rec_seg_open(rec_segment_path(), 0, &fresh, err, sizeof err) == REC_OK);
        for (int i = 0; i < 1000; i++) emitted += emit_indexed();
        struct rec_loss lap = {0};
        head = slot_info(me).head;
        got = rec_seg_read(fresh, (uint32_t)me, buf, 512, &first, &lap);
        CHECK_EQ_U(lap.overwritten, 0);
        CHECK_EQ_U(lap.history, first);
        CHECK_EQ_U(lap.history + got, head);
        /* From the first read on, a lap is lost. */
        for (int i = 0; i < 1000; i++) emitted += emit_indexed();
        struct rec_loss then = {0};
        before = rec_seg_cursor(fresh, (uint32_t)me);
        got = rec_seg_read(fresh, (uint32_t)me, buf, 512, &first, &then);
        CHECK_EQ_U(then.history, 0);
        CHECK(then.overwritten > 0);
        CHECK_EQ_U(before + then.overwritten, first);
        rec_seg_close(fresh);
    }

    /* 2. A stream consumer that never reads, then dies. */
    struct child c = start_consumer(argv[0], "idle");
    CHECK_EQ_U(seg_mode(), REC_MODE_STREAM);
    rec_seg *other;
    int rc;
    CHECK_EQ_U(rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &other, err, sizeof err), REC_ERR_BUSY);
    uint64_t head0 = slot_info(me).head;
    for (int i = 0; i < 1000; i++) emitted += emit_indexed();
    struct rec_thread_info t = slot_info(me);
    CHECK(t.dropped > 0);
    CHECK(t.head <= head0 + 256);  /* nothing unread was overwritten */
    CHECK_EQ_U(t.head + t.dropped, emitted);
    kill(c.pid, SIGKILL);
    child_wait(&c);
    double deadline = now_s() + 20;
    while (seg_mode() != REC_MODE_FLIGHT && now_s() < deadline) {
        for (int i = 0; i < 1000; i++) emitted += emit_indexed();
        sleep_ms(5);
    }
    REQUIRE(seg_mode() == REC_MODE_FLIGHT);
    t = slot_info(me);
    for (int i = 0; i < 1000; i++) emitted += emit_indexed();
    struct rec_thread_info t2 = slot_info(me);
    CHECK_EQ_U(t2.dropped, t.dropped);                 /* flight again: no drops */
    CHECK_EQ_U(t2.head, t.head + 2000);
    CHECK_EQ_U(t2.head + t2.dropped, emitted);
    CHECK(evlist_drain(seg, (uint32_t)me, &l) == 0);
    CHECK_EQ_U(l.entries + l.overwritten + l.dropped, emitted);  /* exact, across both modes */
    CHECK_EQ_U(l.dropped, t2.dropped);
    ticks = 0;
    CHECK_EQ_U(check_indexed(l.ev, l.n, &ticks), 0);
    CHECK_EQ_U(l.bad, 0);
    CHECK_EQ_U(rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &other, err, sizeof err), REC_OK);
    CHECK_EQ_U(seg_mode(), REC_MODE_STREAM);
    rec_seg_close(other);
    CHECK_EQ_U(seg_mode(), REC_MODE_FLIGHT);

    /* A consumer that died while the writer had nothing to drop: the next
     * consumer takes its place at once. */
    c = start_consumer(argv[0], "idle");
    kill(c.pid, SIGKILL);
    child_wait(&c);
    CHECK_EQ_U(seg_mode(), REC_MODE_STREAM);
    rc = rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &other, err, sizeof err);
    if (rc != REC_OK) fprintf(stderr, "after a dead consumer: %s\n", err);
    CHECK_EQ_U(rc, REC_OK);
    if (rc == REC_OK) rec_seg_close(other);
    CHECK_EQ_U(seg_mode(), REC_MODE_FLIGHT);

    /* 3. A consumer stopped long enough to be dropped, then continued. */
    c = start_consumer(argv[0], "check");
    struct w2 w = {0, 0, 0};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, w2_main, &w) == 0);
    sleep_ms(100);
    kill(c.pid, SIGSTOP);
    deadline = now_s() + 20;
    while (seg_mode() != REC_MODE_FLIGHT && now_s() < deadline) sleep_ms(10);
    CHECK_EQ_U(seg_mode(), REC_MODE_FLIGHT);
    int w2slot = slot_of_tid(seg, w.tid);
    REQUIRE(w2slot >= 0);
    uint64_t dropped_at_revert = slot_info(w2slot).dropped;
    kill(c.pid, SIGCONT);
    sleep_ms(300);  /* the consumer races the writer in flight mode */
    __atomic_store_n(&w.stop, 1, __ATOMIC_RELEASE);
    pthread_join(th, NULL);
    CHECK_EQ_U(slot_info(w2slot).dropped, dropped_at_revert);  /* not throttled again */
    CHECK_EQ_U(seg_mode(), REC_MODE_FLIGHT);
    close(c.in);
    c.in = -1;
    char *out = fd_read_all(c.out);
    CHECK_EQ_U(child_wait(&c), 0);
    int seen = 0;
    for (char *p = out; (p = strstr(p, "S ")) != NULL; p++) {
        unsigned slot;
        unsigned long long recv, over, drop, bad;
        if (sscanf(p, "S %u %llu %llu %llu %llu", &slot, &recv, &over, &drop, &bad) != 5) continue;
        uint64_t want = slot == (unsigned)me ? emitted : slot == (unsigned)w2slot ? w.emitted : 0;
        CHECK_EQ_U(recv + over + drop, want);
        CHECK_EQ_U(bad, 0);
        if (slot == (unsigned)w2slot) CHECK_EQ_U(drop, dropped_at_revert);
        seen++;
    }
    CHECK_EQ_U(seen, 2);
    if (check_failures) fprintf(stderr, "consumer said:\n%s", out);
    free(out);
    evlist_free(&l);
    rec_seg_close(seg);
    rec_shutdown();
    CHECK_DONE();
}
