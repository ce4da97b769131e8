/*
 * ring_put.h -- writing ring entries by hand, for the test programs that
 * must control every bit recorder-web reads: hostile_writer.c (nonsense)
 * and range_writer.c (exact times).  The caller's thread must have
 * recorded once (its slot and ring exist).  Include after recorder.h
 * with RECORDER_IMPLEMENTATION.
 */
#ifndef TESTS_WEB_RING_PUT_H
#define TESTS_WEB_RING_PUT_H

#include <stdint.h>

/* One entry at the head of this thread's ring, published at once. */
static inline void put(uint64_t w0, uint64_t w1) {
    struct rec_slot *s = rec__t.slot;
    uint64_t h = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
    uint64_t *e = rec__t.ring + ((h & rec__t.mask) << 1);
    __atomic_store_n(&e[0], w0, __ATOMIC_RELEASE);
    __atomic_store_n(&e[1], w1, __ATOMIC_RELEASE);
    __atomic_store_n(&s->head, h + 1, __ATOMIC_RELEASE);
}

/* An entry's second word: its type over its low 56 bits. */
static inline uint64_t ev(unsigned type, uint64_t low) { return (uint64_t)type << 56 | low; }

#endif
