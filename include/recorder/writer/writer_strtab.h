/*
 * writer_strtab.h -- the segment's string table.  Part of the
 * implementation of recorder.h.
 *
 * Strings are appended lock-free (one fetch_add on a bump pointer) and found
 * again through an open-addressing index of ids (one CAS to insert).  Both
 * live in shared memory, so every copy of the implementation in the process
 * and every reader sees the same ids.  A string is interned once.  What
 * uses the table (the segment's process name, threads' names, call sites,
 * dynamic names: writer_names.h) comes after it.
 */

#define REC__MAX_PROBES 256u

/* A 64-bit hash, 8 bytes a step; not for adversaries, for names. */
static inline uint64_t rec__hash(const char *s, size_t n) {
    uint64_t h = UINT64_C(0x9e3779b97f4a7c15) ^ (n * UINT64_C(0xff51afd7ed558ccd));
    while (n >= 8) {
        uint64_t v;
        memcpy(&v, s, 8);
        h = (h ^ v) * UINT64_C(0xbf58476d1ce4e5b9);
        h ^= h >> 29;
        s += 8;
        n -= 8;
    }
    if (n) {
        uint64_t v = 0;
        for (size_t i = 0; i < n; i++) v |= (uint64_t)(unsigned char)s[i] << (8 * i);
        h = (h ^ v) * UINT64_C(0x94d049bb133111eb);
    }
    h ^= h >> 32;
    h *= UINT64_C(0xd6e8feb86659fd93);
    h ^= h >> 32;
    return h;
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
    if (off + need > g->hdr->strings_size || off / 8 > UINT32_MAX) {
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
 * REC_ID_OVERFLOW, which readers show as "<strings full>". */
static uint32_t rec__intern(struct rec__global *g, const char *s, size_t len, uint64_t h) {
    uint32_t h32 = (uint32_t)(h >> 32), mask = g->hdr->index_entries - 1, mine = 0;
    uint32_t i = (uint32_t)h & mask;
    for (uint32_t probe = 0; probe < REC__MAX_PROBES && probe <= mask; probe++, i = (i + 1) & mask) {
        uint32_t v = __atomic_load_n(&g->index[i], __ATOMIC_ACQUIRE);
        if (v == 0) {
            if (!mine && !(mine = rec__alloc_str(g, s, len, h32))) return REC_ID_OVERFLOW;
            uint32_t expect = 0;
            if (__atomic_compare_exchange_n(&g->index[i], &expect, mine, 0, __ATOMIC_ACQ_REL,
                                            __ATOMIC_ACQUIRE))
                return mine;
            v = expect;
        }
        if (rec__str_equal(g, v, s, len, h32)) return v;  /* `mine`, if any, stays unused */
    }
    /* The index is crowded here: keep the string without indexing it. */
    if (!mine) mine = rec__alloc_str(g, s, len, h32);
    return mine ? mine : REC_ID_OVERFLOW;
}
