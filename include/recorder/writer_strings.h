/*
 * writer_strings.h -- the segment's string table.  Part of the
 * implementation of recorder.h.
 *
 * Strings are appended lock-free (one fetch_add on a bump pointer) and found
 * again through an open-addressing index of ids (one CAS to insert).  Both
 * live in shared memory, so every copy of the implementation in the process
 * and every reader sees the same ids.  A string is interned once; call sites
 * cache static names' ids, and each thread keeps a small cache of dynamic
 * names so the common case touches no shared cache line.
 */

#define REC__DYN_CACHE 128u  /* entries per thread, power of two */
#define REC__MAX_PROBES 256u

struct rec__dyn_cache {
    struct {
        uint64_t hash;
        uint32_t id;                 /* REC_ID_FILTERED for a filtered name */
        uint32_t len;
    } e[REC__DYN_CACHE];
};

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

static const struct rec_str *rec__str(const struct rec__global *g, uint32_t id) {
    return (const struct rec_str *)(g->strings + (uint64_t)id * 8u);
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
    memcpy(r->text, s, len);
    r->text[len] = 0;
    __atomic_store_n(&r->tag, ((uint64_t)h32 << 32) | ((uint64_t)len << 8) | REC_STR_READY,
                     __ATOMIC_RELEASE);
    return (uint32_t)(off / 8);
}

static int rec__str_equal(const struct rec__global *g, uint32_t id, const char *s, size_t len, uint32_t h32) {
    if ((uint64_t)id * 8u + sizeof(struct rec_str) > g->hdr->strings_size) return 0;
    const struct rec_str *r = rec__str(g, id);
    uint64_t tag = __atomic_load_n(&r->tag, __ATOMIC_ACQUIRE);
    return (tag & 0xff) == REC_STR_READY && (uint32_t)(tag >> 32) == h32 &&
           ((tag >> 8) & 0xffffff) == len && memcmp(r->text, s, len) == 0;
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

static int rec__ensure_init(void);

uint32_t rec__resolve_site(uint32_t *site, const char *name) {
    uint32_t id = REC_ID_FILTERED;
    if (rec__ensure_init() == 0 && name && !rec__filtered(&rec__g.cfg, name)) {
        size_t len = strnlen(name, REC_STR_MAXLEN);
        id = rec__intern(&rec__g, name, len, rec__hash(name, len));
    }
    __atomic_store_n(site, id, __ATOMIC_RELAXED);
    return id == REC_ID_FILTERED ? 0 : id;
}

uint32_t rec__intern_dyn(const char *name) {
    struct rec__global *g = &rec__g;
    if (REC_UNLIKELY(__atomic_load_n(&g->state, __ATOMIC_ACQUIRE) != REC__READY))
        if (rec__ensure_init() != 0) return 0;
    if (!name) return 0;
    size_t len = strnlen(name, REC_STR_MAXLEN);
    uint64_t h = rec__hash(name, len);
    struct rec__tls *t = &rec__t;
    if (REC_UNLIKELY(!t->dyn)) t->dyn = (struct rec__dyn_cache *)calloc(1, sizeof *t->dyn);
    if (REC_LIKELY(t->dyn != NULL)) {
        __typeof__(t->dyn->e[0]) *e = &t->dyn->e[h & (REC__DYN_CACHE - 1)];
        if (e->hash == h && e->len == len && e->id) {
            if (e->id == REC_ID_FILTERED) return 0;
            if (e->id == REC_ID_OVERFLOW) return e->id;  /* no text to compare */
            if (memcmp(rec__str(g, e->id)->text, name, len) == 0) return e->id;
        }
        uint32_t id = rec__filtered(&g->cfg, name) ? REC_ID_FILTERED : rec__intern(g, name, len, h);
        e->hash = h;
        e->len = (uint32_t)len;
        e->id = id;
        return id == REC_ID_FILTERED ? 0 : id;
    }
    return rec__filtered(&g->cfg, name) ? 0 : rec__intern(g, name, len, h);
}
