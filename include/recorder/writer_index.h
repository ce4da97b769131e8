/*
 * writer_index.h -- the string table's storage: appending records, the
 * index that finds them again, and growing both on demand.  Part of the
 * implementation of recorder.h.
 *
 * The segment reserves the table's limit (RECORDER_STRINGS_KB) and an index
 * sized for it, but tmpfs commits only the pages a program touches.  The
 * writer commits (posix_fallocate) the first MiB of strings and the index's
 * first level when it makes the segment, and the rest as names arrive: a
 * program with a few hundred names pays for a few pages, one with a million
 * gets room for them, and a full /dev/shm stops the table from growing
 * (the names are counted in strings_dropped) instead of raising SIGBUS.
 *
 * An open-addressing index cannot be rehashed while other threads probe it
 * without locks, so it grows by levels, each 8 times the one before
 * (docs/format.md, "Strings").  A name is looked for in every level up to
 * the one new names go to, which the count of indexed names picks so that
 * no level is more than half full: at a million names, three or four
 * levels.  Two threads that insert one name as the level changes may give
 * it two ids; both are valid, and readers show the same text for each.
 */

#define REC__MAX_PROBES 64u     /* per level; then the next level */
#define REC__INDEX_GROWTH 3u    /* level k + 1 is 2^3 times level k */

/* The index's levels, from a header: level k holds entries
 * [start(k), end(k)).  A header with no level 0 size (an older writer's)
 * is one level, committed whole. */
struct rec__levels {
    uint64_t base, total;
    unsigned count;             /* levels */
    unsigned grows;             /* 0: one level, committed at creation */
};

static void rec__levels_of(const struct rec_header *h, struct rec__levels *lv) {
    uint64_t b = h->index_base, t = h->index_entries;
    lv->total = t;
    lv->grows = b >= 64 && b <= t && (b & (b - 1)) == 0;
    lv->base = lv->grows ? b : t;
    lv->count = 1;
    while (lv->grows && (lv->base << (REC__INDEX_GROWTH * (lv->count - 1))) < t) lv->count++;
}
static inline uint64_t rec__level_start(const struct rec__levels *lv, unsigned k) {
    return k == 0 ? 0 : lv->base << (REC__INDEX_GROWTH * (k - 1));
}
static inline uint64_t rec__level_end(const struct rec__levels *lv, unsigned k) {
    uint64_t e = lv->base << (REC__INDEX_GROWTH * k);
    return e < lv->total ? e : lv->total;
}

/* Commit len bytes of the segment at off, so that a full /dev/shm is an
 * error here rather than SIGBUS at the first store.  0 if done. */
static int rec__commit(const struct rec__global *g, uint64_t off, uint64_t len) {
    if (g->fd < 0 || len == 0) return 0;
    int e = posix_fallocate(g->fd, (off_t)off, (off_t)len);
    return e == 0 || e == EOPNOTSUPP || e == EINVAL ? 0 : -1;
}

/* Levels 0..k of the index may be used (committed).  1 if so. */
static int rec__index_ready(struct rec__global *g, const struct rec__levels *lv, unsigned k) {
    uint32_t have = __atomic_load_n(&g->hdr->index_levels, __ATOMIC_ACQUIRE);
    if (!lv->grows || k < have) return 1;
    uint64_t from = rec__level_start(lv, have), to = rec__level_end(lv, k);
    if (rec__commit(g, g->hdr->index_off + 4u * from, 4u * (to - from)) != 0) return 0;
    while (have < k + 1 &&
           !__atomic_compare_exchange_n(&g->hdr->index_levels, &have, k + 1, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE)) {
    }
    return 1;
}

/* Strings up to byte `end` of the region may be written.  0 if so. */
static int rec__strings_ready(struct rec__global *g, uint64_t end) {
    struct rec_header *h = g->hdr;
    uint64_t have = __atomic_load_n(&h->strings_committed, __ATOMIC_ACQUIRE);
    if (end <= have || !h->index_base) return 0;
    while (have < end) {
        /* Double, so that a million names cost a few dozen commits. */
        uint64_t to = have * 2 > end ? have * 2 : end;
        to = (to + REC_PAGE - 1) & ~(uint64_t)(REC_PAGE - 1);
        if (to > h->strings_size) to = h->strings_size;
        if (to < end || rec__commit(g, h->strings_off + have, to - have) != 0) return -1;
        if (__atomic_compare_exchange_n(&h->strings_committed, &have, to, 0, __ATOMIC_RELEASE, __ATOMIC_ACQUIRE))
            have = to;
    }
    return 0;
}

/* A new segment's table: commit its first strings and index level.  A
 * forked child's copies its parent's, whose ids call sites have cached in
 * statics.  0, or -1 if /dev/shm cannot hold them. */
static int rec__table_init(struct rec__global *g, const struct rec_header *ph, const unsigned char *pbase) {
    struct rec_header *h = g->hdr;
    struct rec__levels lv;
    uint64_t first = h->strings_size < REC__STRINGS_FIRST ? h->strings_size : REC__STRINGS_FIRST;
    h->index_base = rec__index_base_for(h->strings_size);
    if (h->index_base > h->index_entries) h->index_base = h->index_entries;
    rec__levels_of(h, &lv);
    if (rec__commit(g, h->index_off, 4u * rec__level_end(&lv, 0)) != 0 || rec__commit(g, h->strings_off, first) != 0)
        return -1;
    h->index_levels = 1;
    h->strings_committed = first;
    if (!ph) return 0;
    struct rec__levels plv;
    rec__levels_of(ph, &plv);
    uint64_t used = __atomic_load_n(&ph->strings_used, __ATOMIC_ACQUIRE);
    uint32_t plevels = __atomic_load_n(&ph->index_levels, __ATOMIC_ACQUIRE);
    uint64_t entries = plv.grows ? (plevels ? rec__level_end(&plv, plevels - 1) : 0) : plv.total;
    if (used > ph->strings_size) used = ph->strings_size;
    if (entries > h->index_entries || ph->index_base != h->index_base || !plv.grows) {
        /* Another geometry (an older writer's): copy the strings only, so
         * ids stay valid; names are indexed again as they come. */
        entries = 0;
    }
    unsigned k = 0;
    while (k + 1 < lv.count && rec__level_end(&lv, k) < entries) k++;
    if (rec__strings_ready(g, used) != 0 || (entries && !rec__index_ready(g, &lv, k))) return -1;
    memcpy(g->strings, pbase + ph->strings_off, used);
    memcpy(g->index, pbase + ph->index_off, 4u * entries);
    h->strings_used = used;
    h->index_names = entries ? __atomic_load_n(&ph->index_names, __ATOMIC_RELAXED) : 0;
    return 0;
}

/* An id's record; a name cache's subtree flags (REC__ID_COND, ...) are
 * ignored. */
static const struct rec_str *rec__str(const struct rec__global *g, uint32_t id) {
    return (const struct rec_str *)(g->strings + (uint64_t)(id & REC__ID_MASK) * 8u);
}

/* Append a string; returns its id, or 0 if the table is full. */
static uint32_t rec__alloc_str(struct rec__global *g, const char *s, size_t len, uint32_t h32) {
    uint64_t need = (sizeof(struct rec_str) + len + 1 + 7) & ~(uint64_t)7;
    /* Look before the fetch_add so a full table costs no shared write. */
    if (__atomic_load_n(&g->hdr->strings_used, __ATOMIC_RELAXED) + need > g->hdr->strings_size) {
        __atomic_fetch_add(&g->hdr->strings_dropped, 1, __ATOMIC_RELAXED);
        return 0;
    }
    uint64_t off = __atomic_fetch_add(&g->hdr->strings_used, need, __ATOMIC_RELAXED);
    if (off + need > g->hdr->strings_size || off / 8 > UINT32_MAX || rec__strings_ready(g, off + need) != 0) {
        __atomic_fetch_add(&g->hdr->strings_dropped, 1, __ATOMIC_RELAXED);
        return 0;
    }
    struct rec_str *r = (struct rec_str *)(g->strings + off);
    char *text = (char *)(void *)(r + 1);   /* the bytes after the tag (rec_str_text) */
    memcpy(text, s, len);
    text[len] = 0;
    __atomic_store_n(&r->tag, ((uint64_t)h32 << 32) | ((uint64_t)len << 8) | REC_STR_READY,
                     __ATOMIC_RELEASE);
    return (uint32_t)(off / 8);
}

static int rec__str_equal(const struct rec__global *g, uint32_t id, const char *s, size_t len, uint32_t h32) {
    if ((uint64_t)id * 8u + sizeof(struct rec_str) > g->hdr->strings_size) return 0;
    const struct rec_str *r = rec__str(g, id);
    uint64_t tag = __atomic_load_n(&r->tag, __ATOMIC_ACQUIRE);
    return (tag & 0xff) == REC_STR_READY && (uint32_t)(tag >> 32) == h32 &&
           ((tag >> 8) & 0xffffff) == len && memcmp(rec_str_text(r), s, len) == 0;
}

/* The id of s, interning it if new.  Never fails: a full table yields
 * REC_ID_OVERFLOW, which readers show as "<strings full>", counted in
 * strings_dropped. */
static uint32_t rec__intern(struct rec__global *g, const char *s, size_t len, uint64_t h) {
    uint32_t h32 = (uint32_t)(h >> 32), mine = 0;
    struct rec__levels lv;
    rec__levels_of(g->hdr, &lv);
    /* New names go to the first level that is less than half full. */
    uint64_t twice = 2u * __atomic_load_n(&g->hdr->index_names, __ATOMIC_RELAXED);
    unsigned top = 0;
    while (top + 1 < lv.count && twice >= rec__level_end(&lv, top)) top++;
    for (unsigned k = 0; k < lv.count && k <= top; k++) {
        if (!rec__index_ready(g, &lv, k)) break;
        uint64_t start = rec__level_start(&lv, k), end = rec__level_end(&lv, k);
        uint64_t i = start + (((uint64_t)(uint32_t)h * (end - start)) >> 32);  /* h mod size, by a multiply */
        uint32_t probe = 0;
        for (; probe < REC__MAX_PROBES && probe < end - start; probe++) {
            uint32_t v = __atomic_load_n(&g->index[i], __ATOMIC_ACQUIRE);
            if (v == 0) {
                if (k < top) break;   /* not in this level */
                if (!mine && !(mine = rec__alloc_str(g, s, len, h32))) return REC_ID_OVERFLOW;
                uint32_t expect = 0;
                if (__atomic_compare_exchange_n(&g->index[i], &expect, mine, 0, __ATOMIC_ACQ_REL,
                                                __ATOMIC_ACQUIRE)) {
                    __atomic_fetch_add(&g->hdr->index_names, 1, __ATOMIC_RELAXED);
                    return mine;
                }
                v = expect;
            }
            if (rec__str_equal(g, v, s, len, h32)) return v;  /* `mine`, if any, stays unused */
            if (++i == end) i = start;
        }
        if (k == top && top + 1 < lv.count && probe == REC__MAX_PROBES) top++;  /* crowded: on to the next */
    }
    /* Every level is crowded here: keep the string without indexing it. */
    if (!mine) mine = rec__alloc_str(g, s, len, h32);
    return mine ? mine : REC_ID_OVERFLOW;
}
