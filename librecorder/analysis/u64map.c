/*
 * u64map.c -- growth and clearing of the hash map in u64map.h.
 */
#include "u64map.h"

#include <stdlib.h>
#include <string.h>

static int grow(struct u64map *m) {
    size_t ncap = m->cap ? m->cap * 2 : 64;
    uint64_t *k = malloc(ncap * sizeof *k), *v = malloc(ncap * sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    memset(k, 0xff, ncap * sizeof *k);
    size_t mask = ncap - 1;
    for (size_t i = 0; i < m->cap; i++) {
        if (m->keys[i] == U64MAP_EMPTY) continue;
        size_t j = u64map_hash(m->keys[i]) & mask;
        while (k[j] != U64MAP_EMPTY) j = (j + 1) & mask;
        k[j] = m->keys[i];
        v[j] = m->vals[i];
    }
    free(m->keys);
    free(m->vals);
    m->keys = k;
    m->vals = v;
    m->cap = ncap;
    return 0;
}

uint64_t *u64map_put(struct u64map *m, uint64_t key, int *isnew) {
    *isnew = 0;
    /* Keep the load under 1/2: probes stay short. */
    if ((m->n + 1) * 2 > m->cap && grow(m) != 0) return NULL;
    size_t mask = m->cap - 1;
    for (size_t i = u64map_hash(key) & mask;; i = (i + 1) & mask) {
        if (m->keys[i] == key) return &m->vals[i];
        if (m->keys[i] == U64MAP_EMPTY) {
            m->keys[i] = key;
            m->vals[i] = 0;
            m->n++;
            *isnew = 1;
            return &m->vals[i];
        }
    }
}

void u64map_clear(struct u64map *m) {
    if (m->cap) memset(m->keys, 0xff, m->cap * sizeof *m->keys);
    m->n = 0;
}

void u64map_free(struct u64map *m) {
    free(m->keys);
    free(m->vals);
    memset(m, 0, sizeof *m);
}
