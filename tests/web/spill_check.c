/*
 * spill_check.c -- recorder-web's spill thread (viewer-web/spill.c): the
 * rings read on a second thread while the reader is busy are handed back
 * whole and in order.
 *
 * In one process: two writer threads record counters 0, 1, 2 ... in
 * rounds smaller than a ring, so nothing can be overwritten whatever the
 * machine's load.  Reads alternate between the reader's own rec_seg_read
 * and spills:
 *   - a spill begun and ended at once still reads what was written before
 *     it began (one pass at least);
 *   - a spill that runs while the writers write reads until it has all of
 *     it (waited for as a condition, not a time);
 *   - a spill with nothing new returns no reads and does not hang;
 *   - across all of them, every slot's reads follow each other (each
 *     read's first entry is the one after the previous read's last), no
 *     loss is counted, and the decoded counters come in order with none
 *     missing.
 * Runs under ASan and TSan (suites web and tsan).
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "check.h"
#include "spill.h"

/* recorder-web's main.c defines it (the TSan annotation of its grace
 * periods, shared.h); this test links the reader's files without main.c. */
char web_grace_period;

#define WRITERS 2
#define PER_ROUND 2000   /* counters per thread per round: 4000 entries, a ring holds 16384 */
#define MAX_SLOTS 16

static pthread_barrier_t go, done;
static int quit;

static void *writer(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "w%d", (int)(long)arg);
    REC_THREAD_NAME(name);
    double v = 0;
    for (;;) {
        pthread_barrier_wait(&go);
        if (__atomic_load_n(&quit, __ATOMIC_ACQUIRE)) break;
        for (int i = 0; i < PER_ROUND; i++) REC_COUNTER("seq", v++);
        pthread_barrier_wait(&done);
    }
    return NULL;
}

static void round_of_writes(void) {
    pthread_barrier_wait(&go);
    pthread_barrier_wait(&done);
}

/* What the checks know of each slot. */
static struct {
    int seen;
    uint64_t next_first;  /* the entry the next read must start at */
    double next;          /* the counter expected next */
    int in_order;
    uint64_t counters;
} slot_state[MAX_SLOTS];

static uint64_t lost;

static void take(uint32_t slot, const struct rec_entry *ents, size_t n, uint64_t first, const struct rec_loss *loss) {
    REQUIRE(slot < MAX_SLOTS);
    lost += loss->overwritten + loss->dropped + loss->bad;
    if (!n) return;
    if (slot_state[slot].seen) CHECK_EQ_U(first, slot_state[slot].next_first);
    slot_state[slot].seen = 1;
    slot_state[slot].next_first = first + n;
    static struct rec_event ev[65536];
    size_t used = 0;
    size_t k = rec_decode(ents, n, first, ev, 65536, &used, NULL);
    for (size_t i = 0; i < k; i++) {
        if (ev[i].type != REC_EV_COUNTER) continue;
        if (ev[i].value != slot_state[slot].next) slot_state[slot].in_order = 0;
        slot_state[slot].next = ev[i].value + 1;
        slot_state[slot].counters++;
    }
}

static uint64_t direct_read(rec_seg *s, const uint32_t *slots, uint32_t n) {
    static struct rec_entry buf[65536];
    uint64_t total = 0;
    for (uint32_t i = 0; i < n; i++) {
        for (;;) {
            uint64_t first;
            struct rec_loss loss = {0};
            size_t got = rec_seg_read(s, slots[i], buf, 65536, &first, &loss);
            take(slots[i], buf, got, first, &loss);
            total += got;
            if (got < 65536) break;
        }
    }
    return total;
}

static uint64_t take_spilled(struct spill *sp, size_t from, size_t to) {
    uint64_t total = 0;
    for (size_t i = from; i < to; i++) {
        const struct spill_read *rd = &sp->reads[i];
        take(rd->slot, sp->ents + rd->off, rd->n, rd->first, &rd->loss);
        total += rd->n;
    }
    return total;
}

/* Entries written so far by the writers' slots, by their heads. */
static uint64_t written(rec_seg *s, const uint32_t *slots, uint32_t n) {
    uint64_t w = 0;
    struct rec_thread_info ti[MAX_SLOTS];
    int m = rec_seg_threads(s, ti, MAX_SLOTS);
    for (int i = 0; i < m; i++)
        for (uint32_t j = 0; j < n; j++)
            if (ti[i].slot == slots[j]) w += ti[i].head;
    return w;
}

int main(void) {
    setenv("RECORDER_MAX_THREADS", "16", 1);
    setenv("RECORDER_RING_KB", "256", 1);
    REQUIRE(rec_init() == 0);
    pthread_t th[WRITERS];
    pthread_barrier_init(&go, NULL, WRITERS + 1);
    pthread_barrier_init(&done, NULL, WRITERS + 1);
    for (long i = 0; i < WRITERS; i++) pthread_create(&th[i], NULL, writer, (void *)i);
    round_of_writes();   /* the writers have their slots */

    char err[512];
    rec_seg *s;
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) == REC_OK);
    struct wsrc src;
    wsrc_init_segs(&src, &s, 1);
    uint32_t slots[MAX_SLOTS], n = 0;
    struct rec_thread_info writers[MAX_SLOTS];
    struct rec_thread_info ti[MAX_SLOTS];
    int m = rec_seg_threads(s, ti, MAX_SLOTS);
    for (int i = 0; i < m; i++)
        if (!strncmp(ti[i].name, "w", 1)) {
            writers[n] = ti[i];
            slots[n++] = ti[i].slot;
        }
    REQUIRE(n == WRITERS);
    for (uint32_t i = 0; i < n; i++) slot_state[slots[i]].in_order = 1;
    struct spill sp;
    REQUIRE(spill_init(&sp, &src, src.max_threads) == 0);

    uint64_t got = direct_read(s, slots, n);
    /* Begun and ended at once: written before the spill, read by it. */
    round_of_writes();
    uint64_t before = written(s, slots, n);
    REQUIRE(spill_begin(&sp, writers, n, 1.0) == 0);
    spill_end(&sp);
    got += take_spilled(&sp, 0, sp.n_reads);
    CHECK_EQ_U(got, before);

    /* While the writers write: taken as it comes, until all of it. */
    REQUIRE(spill_begin(&sp, writers, n, 1.0) == 0);
    size_t done_reads = 0;
    for (int r = 0; r < 3; r++) round_of_writes();
    uint64_t want = written(s, slots, n);
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (;;) {
        size_t a = spill_avail(&sp);
        got += take_spilled(&sp, done_reads, a);
        done_reads = a;
        if (got == want) break;
        clock_gettime(CLOCK_MONOTONIC, &t);
        REQUIRE(t.tv_sec - t0.tv_sec < 120);   /* a hang, not a slow machine */
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
    spill_end(&sp);
    got += take_spilled(&sp, done_reads, sp.n_reads);
    CHECK_EQ_U(got, want);

    /* Nothing new: no reads, and back at once. */
    REQUIRE(spill_begin(&sp, writers, n, 1.0) == 0);
    spill_end(&sp);
    CHECK_EQ_U(sp.n_reads, 0);

    /* The reader carries on where the spill stopped. */
    round_of_writes();
    got += direct_read(s, slots, n);
    CHECK_EQ_U(got, written(s, slots, n));
    CHECK_EQ_U(lost, 0);
    for (uint32_t i = 0; i < n; i++) {
        CHECK(slot_state[slots[i]].in_order);
        CHECK_EQ_U(slot_state[slots[i]].counters, 6 * PER_ROUND);
    }
    CHECK_EQ_U(sp.spills, 3);

    __atomic_store_n(&quit, 1, __ATOMIC_RELEASE);
    pthread_barrier_wait(&go);
    for (int i = 0; i < WRITERS; i++) pthread_join(th[i], NULL);
    spill_destroy(&sp);
    rec_seg_close(s);
    rec_shutdown();
    CHECK_DONE();
}
