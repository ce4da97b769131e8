/*
 * test_threads10k.c -- many short-lived threads on few slots, and more live
 * threads than slots.
 *
 * RECORDER_MAX_THREADS=64.  10,000 threads, 32 at a time (each batch
 * released together from a barrier, so their claims race), each record a
 * few scopes and exit.  After every batch: the segment file keeps its size,
 * the fd count of the process is unchanged, at most 64 slots are in use,
 * nothing is lost, and each slot's THREAD_START generations count up by one
 * across reuses.  At the end threads_attached counts every thread and
 * threads_no_slot is 0.
 *
 * Flood: 80 threads start together and hold on a barrier after their first
 * event, so they are all alive at once: exactly 16 find no slot (counted in threads_no_slot)
 * and record nothing, and the other 64 record everything.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "segread.h"
#include "spawn.h"

#define MAX_THREADS 64
#define TOTAL 10000
#define BATCH 32
#define FLOOD 80

static rec_seg *seg;

/* Per thread: BEGIN/END of 3 scopes + a counter = 8 entries, plus the
 * attach's THREAD_START and THREAD_NAME. */
struct short_arg {
    pthread_barrier_t *bar;
    int n;
};

static void *short_thread(void *arg) {
    const struct short_arg *a = (const struct short_arg *)arg;
    char dyn[32];
    snprintf(dyn, sizeof dyn, "t10k.dyn.%d", a->n % 8);
    pthread_barrier_wait(a->bar);  /* the batch claims its slots at once */
    REC_SCOPE("t10k.outer");
    {
        REC_SCOPE_DYN(dyn);
        REC_SCOPE("t10k.inner");
        REC_COUNTER("t10k.n", a->n);
    }
    return NULL;
}

struct flood_arg {
    pthread_barrier_t *bar;
    int tid;
};

static void *flood_thread(void *arg) {
    struct flood_arg *a = (struct flood_arg *)arg;
    a->tid = (int)gettid();
    char dyn[32];
    snprintf(dyn, sizeof dyn, "flood.dyn.%d", a->tid % 4);
    pthread_barrier_wait(a->bar);  /* all claim at once */
    {
        REC_SCOPE_DYN(dyn);  /* the first event: claims a slot, or finds none */
    }
    pthread_barrier_wait(a->bar);
    for (int i = 0; i < 10; i++) {
        REC_SCOPE("flood.work");
        REC_INSTANT("flood.mark");
    }
    return NULL;
}

/* Per slot: generation of the last THREAD_START seen. */
static uint32_t last_gen[MAX_THREADS];
static uint64_t starts_seen, events_seen;

static void read_all_slots(void) {
    for (uint32_t i = 0; i < MAX_THREADS; i++) {
        struct evlist l = {0};
        CHECK(evlist_drain(seg, i, &l) == 0);
        CHECK_EQ_U(l.overwritten, 0);
        CHECK_EQ_U(l.bad, 0);
        for (size_t k = 0; k < l.n; k++) {
            events_seen++;
            if (l.ev[k].type != REC_EV_THREAD_START) continue;
            starts_seen++;
            CHECK_EQ_U(l.ev[k].gen, last_gen[i] + 1);
            last_gen[i] = l.ev[k].gen;
        }
        evlist_free(&l);
    }
}

static off_t seg_size(void) {
    struct stat st;
    return stat(rec_segment_path(), &st) == 0 ? st.st_size : -1;
}

static int used_slots(void) {
    struct rec_thread_info th[MAX_THREADS + 1];
    return rec_seg_threads(seg, th, MAX_THREADS + 1);
}

int main(void) {
    setenv("RECORDER_MAX_THREADS", "64", 1);
    setenv("RECORDER_RING_KB", "16", 1);
    unsetenv("RECORDER_FILTER");
    unsetenv("RECORDER_FILTER_OUT");
    REQUIRE(rec_init() == 0);
    char err[256];
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &seg, err, sizeof err) == REC_OK);
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    REQUIRE(info.max_threads == MAX_THREADS);
    off_t size0 = seg_size();
    REQUIRE(size0 > 0);
    CHECK_EQ_U(size0, info.segment_size);
    int fds0 = count_fds();

    for (int done = 0; done < TOTAL; done += BATCH) {
        pthread_t th[BATCH];
        struct short_arg args[BATCH];
        pthread_barrier_t bar;
        int n = TOTAL - done < BATCH ? TOTAL - done : BATCH;
        pthread_barrier_init(&bar, NULL, (unsigned)n);
        for (int i = 0; i < n; i++) {
            args[i].bar = &bar;
            args[i].n = done + i;
            REQUIRE(pthread_create(&th[i], NULL, short_thread, &args[i]) == 0);
        }
        for (int i = 0; i < n; i++) pthread_join(th[i], NULL);
        pthread_barrier_destroy(&bar);
        read_all_slots();
        CHECK(seg_size() == size0);
        CHECK(count_fds() == fds0);
        CHECK(used_slots() <= MAX_THREADS);
        if (check_failures) break;
    }
    rec_seg_get_info(seg, &info);
    CHECK_EQ_U(info.threads_attached, TOTAL);
    CHECK_EQ_U(info.threads_no_slot, 0);
    CHECK_EQ_U(starts_seen, TOTAL);
    CHECK_EQ_U(events_seen, TOTAL * 9u);
    uint64_t gens = 0, reused = 0;
    struct rec_thread_info th[MAX_THREADS];
    int nt = rec_seg_threads(seg, th, MAX_THREADS);
    CHECK_EQ_U(nt, MAX_THREADS);
    for (int i = 0; i < nt; i++) {
        CHECK_EQ_U(th[i].state, REC_SLOT_EXITED);
        CHECK_EQ_U(th[i].gen, last_gen[th[i].slot]);
        gens += th[i].gen;
        reused += th[i].gen > 1;
    }
    CHECK_EQ_U(gens, TOTAL);  /* every claim bumped one slot's generation */
    CHECK(reused > 0);
    printf("10000 threads: %d slots, %llu reused; segment %lld bytes, %d fds\n", nt,
           (unsigned long long)reused, (long long)size0, fds0);

    /* Flood: more live threads than slots. */
    pthread_barrier_t bar;
    pthread_barrier_init(&bar, NULL, FLOOD);
    pthread_t ft[FLOOD];
    struct flood_arg fa[FLOOD];
    for (int i = 0; i < FLOOD; i++) {
        fa[i].bar = &bar;
        fa[i].tid = 0;
        REQUIRE(pthread_create(&ft[i], NULL, flood_thread, &fa[i]) == 0);
    }
    for (int i = 0; i < FLOOD; i++) pthread_join(ft[i], NULL);
    pthread_barrier_destroy(&bar);
    rec_seg_get_info(seg, &info);
    CHECK_EQ_U(info.threads_no_slot, FLOOD - MAX_THREADS);
    CHECK_EQ_U(info.threads_attached, TOTAL + MAX_THREADS);
    /* Who recorded: each of 64 threads exactly its 2 + 2 + 10 * 3 entries
     * (attach, dynamic scope, ten scopes and instants); the rest nothing. */
    int recorded = 0;
    for (uint32_t i = 0; i < MAX_THREADS; i++) {
        struct evlist l = {0};
        CHECK(evlist_drain(seg, i, &l) == 0);
        CHECK_EQ_U(l.overwritten, 0);
        int tid = 0;
        for (size_t k = 0; k < l.n; k++)
            if (l.ev[k].type == REC_EV_THREAD_START) tid = l.ev[k].tid;
        int ours = 0;
        for (int j = 0; j < FLOOD; j++) ours += fa[j].tid == tid;
        CHECK_EQ_U(ours, 1);
        CHECK_EQ_U(l.n, 34);
        CHECK_EQ_U(l.entries, 34);
        recorded += ours;
        evlist_free(&l);
    }
    CHECK_EQ_U(recorded, MAX_THREADS);
    CHECK(seg_size() == size0);
    CHECK(count_fds() == fds0);
    rec_seg_close(seg);
    rec_shutdown();
    CHECK_DONE();
}
