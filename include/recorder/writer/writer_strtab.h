/*
 * writer_strtab.h -- the segment's string table: appending records, the
 * index that finds them again, and growing both on demand.  Part of the
 * implementation of recorder.h.  What uses the table (the segment's
 * process name, threads' names, call sites, dynamic names:
 * writer_names.h) comes after it.
 *
 * Strings are appended lock-free (one fetch_add on a bump pointer) and
 * found again through an open-addressing index of ids (one CAS to
 * insert).  Both live in shared memory, so every copy of the
 * implementation in the process and every reader sees the same ids, and a
 * string is interned once.
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
 * no level is more than a quarter full: at a million names, four levels.
 * Two threads that insert one name as the level changes may give it two
 * ids; both are valid, and readers show the same text for each.
 */

#if defined(__GNUC__)
#define REC__INLINE inline __attribute__((always_inline))
/* Keeps a word loop scalar: a few words long, vectorized it costs more. */
#define REC__SCALAR(x) __asm__("" : "+r"(x))
#else
#define REC__INLINE inline
#define REC__SCALAR(x) ((void)0)
#endif

static REC__INLINE uint64_t rec__ld64(const char *p) {
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}
static REC__INLINE uint32_t rec__ld32(const char *p) {
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

/* The n < 8 bytes at s as a little-endian word, read in loads that stay
 * inside them (two that may overlap, or three single bytes). */
static REC__INLINE uint64_t rec__tail_word(const char *s, size_t n) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (n >= 4) return rec__ld32(s) | (uint64_t)rec__ld32(s + n - 4) << (8 * (n - 4));
    if (n == 0) return 0;
    return (uint64_t)(unsigned char)s[0] | (uint64_t)(unsigned char)s[n / 2] << (8 * (n / 2)) |
           (uint64_t)(unsigned char)s[n - 1] << (8 * (n - 1));
#else
    uint64_t v = 0;
    for (size_t i = 0; i < n; i++) v |= (uint64_t)(unsigned char)s[i] << (8 * i);
    return v;
#endif
}

/* Copy n bytes in words, the last one ending at byte n - 1 (it may overlap
 * the one before): no call, and no byte read or written outside the n. */
static REC__INLINE void rec__copy_bytes(char *d, const char *s, size_t n) {
    if (n < 8) {
        if (n >= 4) {
            uint32_t a = rec__ld32(s), b = rec__ld32(s + n - 4);
            memcpy(d, &a, 4);
            memcpy(d + n - 4, &b, 4);
        } else if (n) {
            char a = s[0], b = s[n / 2], c = s[n - 1];
            d[0] = a;
            d[n / 2] = b;
            d[n - 1] = c;
        }
        return;
    }
    uint64_t last = rec__ld64(s + n - 8);
    for (size_t j = 0; j + 8 < n; j += 8) {
        uint64_t w = rec__ld64(s + j);
        REC__SCALAR(w);
        memcpy(d + j, &w, 8);
    }
    memcpy(d + n - 8, &last, 8);
}

/* Do the n bytes at a and b differ?  Nonzero if so.  Reads exactly those
 * bytes, in words of which the last ends at byte n - 1 (it may overlap
 * the one before), so neither string's alignment matters and no byte
 * outside them is read. */
static REC__INLINE uint64_t rec__bytes_diff(const char *a, const char *b, size_t n) {
    if (REC_LIKELY(n >= 8)) {
        uint64_t d = (rec__ld64(a) ^ rec__ld64(b)) | (rec__ld64(a + n - 8) ^ rec__ld64(b + n - 8));
        for (size_t j = 8; j + 8 < n; j += 8) {
            d |= rec__ld64(a + j) ^ rec__ld64(b + j);
            REC__SCALAR(d);
        }
        return d;
    }
    return rec__tail_word(a, n) ^ rec__tail_word(b, n);
}

/* A 64-bit hash, 8 bytes a step; not for adversaries, for names.  Every
 * copy of the implementation in a process should compute the same one
 * (the index is shared; a copy that hashes otherwise only interns its
 * names again, under other ids that are as valid).  The length goes in
 * last, so that the lookup by key's word scan, which finds the length at
 * the end, computes the same value in the same pass (rec__dyn_by_key: a
 * new name costs no second pass over it).  Word by word: */
#define REC__H_SEED UINT64_C(0x9e3779b97f4a7c15)
static REC__INLINE uint64_t rec__hash_word(uint64_t h, uint64_t w) {
    h = (h ^ w) * UINT64_C(0xbf58476d1ce4e5b9);
    return h << 29 | h >> 35;   /* the product's high bits into the next's low */
}
/* ... and the last 0-7 bytes (zero-extended), with the length n in the
 * high bits, through one 64 x 64 -> 128-bit product folded to 64 bits,
 * so that a change anywhere changes every bit as often as not, the top
 * bits (a name cache's set) and the low ones (the index's slot) alike. */
static REC__INLINE uint64_t rec__hash_end(uint64_t h, uint64_t tail, size_t n) {
    uint64_t x = h ^ tail ^ ((uint64_t)n << 52);
#if defined(__x86_64__) && defined(__GNUC__)
    /* What the __int128 code below means; GCC 12 spills the product to the
     * stack and back, which costs more than the multiply. */
    uint64_t hi, lo = x;
    __asm__("mulq %2" : "+a"(lo), "=d"(hi) : "r"(UINT64_C(0xd6e8feb86659fd93)) : "cc");
    return hi ^ lo;
#elif defined(__SIZEOF_INT128__)
    unsigned __int128 m = (unsigned __int128)x * UINT64_C(0xd6e8feb86659fd93);
    return (uint64_t)(m >> 64) ^ (uint64_t)m;
#else
    x = (x ^ (x >> 32)) * UINT64_C(0xd6e8feb86659fd93);  /* weaker, for 32-bit hosts */
    x = (x ^ (x >> 29)) * UINT64_C(0x94d049bb133111eb);
    return x ^ (x >> 32);
#endif
}
static inline uint64_t rec__hash(const char *s, size_t n) {
    uint64_t h = REC__H_SEED;
    size_t m = n;
    for (; m >= 8; m -= 8, s += 8) h = rec__hash_word(h, rec__ld64(s));
    return rec__hash_end(h, rec__tail_word(s, m), n);
}

#define REC__MAX_PROBES 64u     /* per level (levels have 64 entries or more) */
#define REC__INDEX_GROWTH 3u    /* level k + 1 is 2^3 times level k */
#define REC__INDEX_LOAD 4u      /* a level takes new names up to 1/4 full */

/* The index's levels, from the header (rec__geo_set, when the segment is
 * mapped): level k holds entries [start[k], start[k] + size[k]).  A header
 * with no level 0 size (an older writer's) is one level, committed whole.
 * New names go to the newest level committed; the next one is committed
 * when the names indexed reach a quarter of the entries up to the end of
 * this one (REC__INDEX_LOAD), so that a name not in a level is found so
 * after one or two probes. */
#define REC__LEVELS_MAX 12u
static struct rec__geo {
    unsigned count;
    unsigned grows;             /* 0: one level, committed at creation */
    uint64_t ids;               /* ids below this have a record's tag in the region */
    uint64_t start[REC__LEVELS_MAX], size[REC__LEVELS_MAX];
    uint64_t full[REC__LEVELS_MAX]; /* level k + 1 opens at this many names: level k's end / REC__INDEX_LOAD */
} rec__geo;

static void rec__geo_set(const struct rec_header *h) {
    uint64_t b = h->index_base, t = h->index_entries;
    struct rec__geo *lv = &rec__geo;
    lv->ids = (h->strings_size - sizeof(struct rec_str)) / 8;
    lv->grows = b >= 64 && b <= t && (b & (b - 1)) == 0;
    if (!lv->grows) b = t;
    lv->count = 0;
    for (uint64_t start = 0, end = b; start < t && lv->count < REC__LEVELS_MAX; lv->count++) {
        if (end > t || lv->count + 1 == REC__LEVELS_MAX) end = t;
        lv->start[lv->count] = start;
        lv->size[lv->count] = end - start;
        lv->full[lv->count] = (end + REC__INDEX_LOAD - 1) / REC__INDEX_LOAD;
        start = end;
        end <<= REC__INDEX_GROWTH;
    }
}
static inline uint64_t rec__level_end(unsigned k) { return rec__geo.start[k] + rec__geo.size[k]; }

/* Commit len bytes of the segment at off, so that a full /dev/shm is an
 * error here rather than SIGBUS at the first store.  0 if done. */
static int rec__commit(const struct rec__global *g, uint64_t off, uint64_t len) {
    if (g->fd < 0 || len == 0) return 0;
    int e = posix_fallocate(g->fd, (off_t)off, (off_t)len);
    return e == 0 || e == EOPNOTSUPP || e == EINVAL ? 0 : -1;
}

/* Levels 0..k of the index may be used (committed).  1 if so. */
static int rec__index_ready(struct rec__global *g, unsigned k) {
    uint32_t have = __atomic_load_n(&g->hdr->index_levels, __ATOMIC_ACQUIRE);
    if (!rec__geo.grows || k < have) return 1;
    uint64_t from = rec__geo.start[have], to = rec__level_end(k);
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
    uint64_t first = h->strings_size < REC__STRINGS_FIRST ? h->strings_size : REC__STRINGS_FIRST;
    if (rec__commit(g, h->index_off, 4u * rec__level_end(0)) != 0 || rec__commit(g, h->strings_off, first) != 0)
        return -1;
    h->index_levels = 1;
    h->strings_committed = first;
    if (!ph) return 0;
    uint64_t used = __atomic_load_n(&ph->strings_used, __ATOMIC_ACQUIRE), entries = 0;
    uint32_t plevels = __atomic_load_n(&ph->index_levels, __ATOMIC_ACQUIRE);
    if (used > ph->strings_size) used = ph->strings_size;
    /* The parent's committed levels, if its geometry is ours (it is, but
     * for an older writer's segment: then only the strings are copied, so
     * ids stay valid, and names are indexed again as they come). */
    if (rec__geo.grows && ph->index_base == h->index_base && ph->index_entries == h->index_entries && plevels)
        entries = rec__level_end(plevels <= rec__geo.count ? plevels - 1 : rec__geo.count - 1);
    unsigned k = 0;
    while (k + 1 < rec__geo.count && rec__level_end(k) < entries) k++;
    if (rec__strings_ready(g, used) != 0 || (entries && !rec__index_ready(g, k))) return -1;
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
static REC__INLINE uint32_t rec__alloc_str(struct rec__global *g, const char *s, size_t len, uint32_t h32) {
    uint64_t need = (sizeof(struct rec_str) + len + 1 + 7) & ~(uint64_t)7;
    /* Look before the fetch_add so a full table costs no shared write. */
    if (__atomic_load_n(&g->hdr->strings_used, __ATOMIC_RELAXED) + need > g->hdr->strings_size) {
        __atomic_fetch_add(&g->hdr->strings_dropped, 1, __ATOMIC_RELAXED);
        return 0;
    }
    uint64_t off = __atomic_fetch_add(&g->hdr->strings_used, need, __ATOMIC_RELAXED);
    if (off + need > g->hdr->strings_size || off / 8 > UINT32_MAX ||
        (off + need > __atomic_load_n(&g->hdr->strings_committed, __ATOMIC_ACQUIRE) &&
         rec__strings_ready(g, off + need) != 0)) {
        __atomic_fetch_add(&g->hdr->strings_dropped, 1, __ATOMIC_RELAXED);
        return 0;
    }
    struct rec_str *r = (struct rec_str *)(g->strings + off);
    char *text = (char *)(void *)(r + 1);   /* the bytes after the tag (rec_str_text) */
    rec__copy_bytes(text, s, len);
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
           ((tag >> 8) & 0xffffff) == len && !rec__bytes_diff(rec_str_text(r), s, len);
}

/* Looks for s in one level from slot i (rec__probe_from: from slot i's
 * entry v, which the caller loaded): returns its id, or 0 at the first
 * empty slot, or 1 if REC__MAX_PROBES slots hold other names; the slot it
 * stopped at in the high 32 bits (returned, not stored through a pointer,
 * so the caller's frame needs no stack slot).  The hash half in each
 * record's tag is compared before the text. */
#define REC__PROBE_ID(r) ((uint32_t)(r))
#define REC__PROBE_AT(r) ((r) >> 32)
static inline uint64_t rec__probe_from(const struct rec__global *g, const uint32_t *level, uint64_t size,
                                       uint64_t i, uint32_t v, const char *s, size_t len, uint32_t h32) {
    for (uint32_t probe = 1;; probe++) {   /* v: slot i's entry, loaded with acquire */
        if (v == 0) return i << 32;
        /* v is an index entry, not a cache's: no flags to mask (rec__str). */
        if (v < rec__geo.ids &&
            (uint32_t)(__atomic_load_n(&((const struct rec_str *)(g->strings + (uint64_t)v * 8u))->tag,
                                       __ATOMIC_ACQUIRE) >> 32) == h32 &&
            rec__str_equal(g, v, s, len, h32))
            return v;
        if (probe == REC__MAX_PROBES) return 1;
        if (++i == size) i = 0;
        v = __atomic_load_n(&level[i], __ATOMIC_ACQUIRE);
    }
}
static inline uint64_t rec__probe(const struct rec__global *g, const uint32_t *level, uint64_t size, uint64_t i,
                                  const char *s, size_t len, uint32_t h32) {
    return rec__probe_from(g, level, size, i, __atomic_load_n(&level[i], __ATOMIC_ACQUIRE), s, len, h32);
}

/* The id of s, interning it if new.  Never fails: a full table yields
 * REC_ID_OVERFLOW, which readers show as "<strings full>", counted in
 * strings_dropped.  The level new names go to holds most names, so it is
 * searched first; a name is new only if no lower level has it either.
 * Inlined where a new name's instructions count (a dynamic name's miss,
 * writer_names.h); rec__intern below is the call for everything else. */
static REC__INLINE uint32_t rec__intern_in(struct rec__global *g, const char *s, size_t len, uint64_t h) {
    const struct rec__geo *lv = &rec__geo;
    uint32_t h32 = (uint32_t)(h >> 32), mine = 0, v = 1;
    uint64_t r, hlo = (uint32_t)h;
    uint32_t *index = g->index;
    /* New names go to the newest level committed (rec__index_ready adds
     * one when the names reach a quarter of the entries).  A segment of
     * one level (!lv->grows, lv->count 1) has index_levels 1, or 0 from an
     * older writer: top 0 either way. */
    uint32_t have = __atomic_load_n(&g->hdr->index_levels, __ATOMIC_ACQUIRE);
    unsigned top = have - 1u < lv->count ? have - 1 : 0;
    /* The top level, then the others; past a crowded top, the next one. */
    for (;;) {
        r = rec__probe(g, index + lv->start[top], lv->size[top], (hlo * lv->size[top]) >> 32, s, len, h32);
        v = REC__PROBE_ID(r);
        if (REC_LIKELY(v != 1) || top + 1 >= lv->count || !rec__index_ready(g, top + 1)) break;
        top++;
    }
    if (v > 1) return v;
    /* The older levels, newest (largest, most names) first, each at most
     * a quarter full: mostly the name's slot is empty there, one load and
     * one test (with acquire: the probe goes on from the entry it read,
     * whose record it may read). */
    for (unsigned k = top; k-- > 0;) {
        uint64_t size = lv->size[k], i = (hlo * size) >> 32;
        const uint32_t *level = index + lv->start[k];
        uint32_t e = __atomic_load_n(&level[i], __ATOMIC_ACQUIRE);
        if (REC_LIKELY(e == 0)) continue;
        uint32_t w = REC__PROBE_ID(rec__probe_from(g, level, size, i, e, s, len, h32));
        if (w > 1) return w;
    }
    if (!(mine = rec__alloc_str(g, s, len, h32))) return REC_ID_OVERFLOW;
    /* Claim the empty slot found; if another thread took it, go on from
     * there (it may have been this very name). */
    uint32_t *level = index + lv->start[top];
    while (v == 0) {
        uint32_t expect = 0;
        uint64_t at = REC__PROBE_AT(r);
        if (__atomic_compare_exchange_n(&level[at], &expect, mine, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
            uint64_t names = __atomic_add_fetch(&g->hdr->index_names, 1, __ATOMIC_RELAXED);
            if (REC_UNLIKELY(names >= lv->full[top]) && top + 1 < lv->count)
                rec__index_ready(g, top + 1);
            return mine;
        }
        if (rec__str_equal(g, expect, s, len, h32)) return expect;  /* `mine` stays unused */
        r = rec__probe(g, level, lv->size[top], at + 1 == lv->size[top] ? 0 : at + 1, s, len, h32);
        v = REC__PROBE_ID(r);
        if (v > 1) return v;
    }
    return mine;   /* every level is crowded here: kept, not indexed */
}

#if defined(__GNUC__)
__attribute__((noinline))
#endif
static uint32_t rec__intern(struct rec__global *g, const char *s, size_t len, uint64_t h) {
    return rec__intern_in(g, s, len, h);
}
