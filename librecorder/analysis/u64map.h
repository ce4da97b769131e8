/*
 * u64map.h -- an open-addressing hash map from 64-bit keys to 64-bit
 * values, for the analysis layer's hot tables (statistics cells, path
 * nodes, names).  Linear probing, power-of-two capacity, no deletion:
 * tables are only ever cleared whole (a window bucket that rotates).
 * UINT64_MAX is the empty key and is never stored.
 */
#ifndef REC_ANALYSIS_U64MAP_H
#define REC_ANALYSIS_U64MAP_H

#include <stddef.h>
#include <stdint.h>

/* Internal to librecorder: not exported from the shared library. */
#pragma GCC visibility push(hidden)

#define U64MAP_EMPTY UINT64_MAX

struct u64map {
    uint64_t *keys;
    uint64_t *vals;
    size_t cap;               /* 0 or a power of two */
    size_t n;
};

/* Mixes every key bit into the low bits (keys are packed bit fields). */
static inline size_t u64map_hash(uint64_t k) {
    k ^= k >> 33;
    k *= UINT64_C(0xff51afd7ed558ccd);
    k ^= k >> 33;
    return (size_t)k;
}

/* The value slot of key, or NULL. */
static inline uint64_t *u64map_get(const struct u64map *m, uint64_t key) {
    if (!m->cap) return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = u64map_hash(key) & mask;; i = (i + 1) & mask) {
        if (m->keys[i] == key) return &m->vals[i];
        if (m->keys[i] == U64MAP_EMPTY) return NULL;
    }
}

/* Ask the cache for key's first probe, ahead of a put or get: a loop over
 * keys known in advance (agg.c, stats_fold) hides the memory's latency
 * behind the updates of the keys before it.  always_inline: GCC may
 * otherwise take a function that only prefetches for pure and drop its
 * calls before inlining it (docs/performance/names.md). */
static inline __attribute__((always_inline)) void u64map_prefetch(const struct u64map *m, uint64_t key) {
    if (!m->cap) return;
    size_t i = u64map_hash(key) & (m->cap - 1);
    __builtin_prefetch(&m->keys[i], 1);
    __builtin_prefetch(&m->vals[i], 1);
}

/* The value slot of key, inserted with value 0 (*isnew = 1) if absent.
 * NULL if memory ran out. */
uint64_t *u64map_put(struct u64map *m, uint64_t key, int *isnew);
void u64map_clear(struct u64map *m);
void u64map_free(struct u64map *m);

/* Iteration: for (size_t i = 0; i < m->cap; i++) if (m->keys[i] != U64MAP_EMPTY) ... */

#pragma GCC visibility pop

#endif
