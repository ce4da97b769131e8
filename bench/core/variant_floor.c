/*
 * variant_floor.c -- the floor: per event one counter read and one 16-byte
 * entry (two 8-byte stores) into a thread-local ring, then the head.  No
 * checks, no shared memory, nothing a reader could use: it is what a
 * scope cannot cost less than.  Also the empty loop, to show what the loop
 * and barriers alone cost, and the same loop rebuilding a name in a stack
 * buffer (the user's work in the rec_dyn_buf variant).
 */
#include <stdlib.h>
#include <string.h>

#include "floor_tls.h"
#include "variants.h"

static inline void floor_event(uint64_t w1) {
    struct floor_tls *t = &floor_t;
    uint64_t h = t->head;
    uint64_t *e = t->ring + ((h & (BENCH_RING_ENTRIES - 1)) << 1);
    e[0] = bench_rdtsc();
    e[1] = w1;
    t->head = h + 1;
}

__attribute__((noinline)) static void floor_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        floor_event(UINT64_C(1) << 56 | 42);
        BENCH_WORK();
        floor_event(UINT64_C(2) << 56 | 42);
        BENCH_WORK();
    }
}

static uint64_t floor_entries(void) {
    return floor_t.head;
}

static int floor_init(void) {
    if (floor_t.ring) return 0;
    void *p = NULL;
    if (posix_memalign(&p, 4096, BENCH_RING_ENTRIES * 16u) != 0) return -1;
    memset(p, 0, BENCH_RING_ENTRIES * 16u);  /* fault the pages in now */
    floor_t.ring = (uint64_t *)p;
    return 0;
}

static void floor_fini(void) {
    free(floor_t.ring);
    floor_t.ring = NULL;
}

const struct bench_variant bench_floor = {
    .key = "floor",
    .what = "2 x (rdtsc + one 16-byte entry in a thread-local ring)",
    .run = floor_run,
    .entries = floor_entries,
    .thread_init = floor_init,
    .thread_fini = floor_fini,
};

__attribute__((noinline)) static void empty_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        BENCH_WORK();
        BENCH_WORK();
    }
}

const struct bench_variant bench_empty = {
    .key = "empty", .what = "the loop and its barriers alone", .run = empty_run};

__attribute__((noinline)) static void copy_run(uint64_t n) {
    char name[32];
    for (uint64_t i = 0; i < n; i++) {
        memcpy(name, bench_dyn_names[i & (BENCH_DYN_NAMES - 1)], BENCH_DYN_COPY);
        BENCH_WORK();
        BENCH_WORK();
    }
}

const struct bench_variant bench_copy = {
    .key = "copy", .what = "the loop rebuilding a name in a stack buffer, no scope", .run = copy_run};
