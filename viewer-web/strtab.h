/*
 * strtab.h -- scope, counter and instant names, renumbered densely.
 *
 * A segment's string ids are byte offsets (large, sparse); the page gets
 * small dense ids instead (1, 2, 3, ...; 0 = no name), which keeps EVENTS
 * frames short and lets the page index arrays by id.
 *
 * The reader thread owns the id map.  The names themselves form an
 * append-only table published with RCU: the service thread sends each
 * client the names it has not had yet, before any frame that uses them.
 */
#ifndef WEB_STRTAB_H
#define WEB_STRTAB_H

#include <stdint.h>
#include <urcu.h>

#include "recorder/reader.h"
#include "source.h"

struct strtab_pub {
    struct rcu_head rcu;
    uint32_t count;           /* names[0..count) are valid; load with acquire */
    uint32_t cap;
    char **names;             /* names[0] is "" (dense id 0) */
};

#define STRTAB_CACHE 256u

struct strtab {
    uint32_t ckey[STRTAB_CACHE], cval[STRTAB_CACHE];   /* direct-mapped, in front of the map */
    uint32_t *keys, *vals;    /* open addressing, key 0 = empty */
    uint32_t mask, used;
    struct strtab_pub **slot; /* where the table is published */
    int shared;               /* another strtab made the table (and frees it) */
    int identity;             /* ids are dense ids already (several programs, source.h) */
};

int strtab_init(struct strtab *t, struct strtab_pub **slot);
/* Another map into the same table (one per program when several). */
int strtab_init_shared(struct strtab *t, struct strtab_pub **slot);
/* Free everything; no reader may use the published table any more. */
void strtab_destroy(struct strtab *t);
/* The slot of seg_id in the cache in front of the map. */
static inline uint32_t strtab_slot(uint32_t seg_id) { return (seg_id ^ (seg_id >> 8)) & (STRTAB_CACHE - 1); }
/* Where seg_id's probe starts in the map. */
static inline uint32_t strtab_hash(uint32_t x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    return x ^ (x >> 16);
}
/* Starts loading the map's slot of seg_id, the name of an event a few
 * ahead of the one being handled, when the cache does not hold it: with a
 * million names the map is far larger than the caches, and each lookup
 * waited for its slot (18% of recorder-web's time at 1 M names,
 * docs/performance/names.md).  Always inlined: GCC 12 takes a function
 * that only prefetches for one without effect and drops its calls. */
static inline __attribute__((always_inline)) void strtab_prefetch(const struct strtab *t, uint32_t seg_id) {
    if (t->identity || t->ckey[strtab_slot(seg_id)] == seg_id) return;
    uint32_t i = strtab_hash(seg_id) & t->mask;
    __builtin_prefetch(&t->keys[i]);
    __builtin_prefetch(&t->vals[i]);
}
/* strtab_id past the cache: the map, interning on first use. */
uint32_t strtab_id_miss(struct strtab *t, const struct wsrc *src, uint32_t seg_id);
/* The dense id of a source's string id (0 for 0); interns it on first use.
 * An id the segment cannot resolve gets a placeholder name.  Inline: two
 * per event, nearly always answered by the cache (most events reuse a
 * handful of names); a call cost three quarters of the lookup. */
static inline uint32_t strtab_id(struct strtab *t, const struct wsrc *src, uint32_t seg_id) {
    if (seg_id == 0 || t->identity) return seg_id;
    uint32_t c = strtab_slot(seg_id);
    return t->ckey[c] == seg_id ? t->cval[c] : strtab_id_miss(t, src, seg_id);
}
/* The same for a name already in hand (statistics rows carry theirs). */
uint32_t strtab_id_named(struct strtab *t, uint32_t seg_id, const char *name);

#endif
