/*
 * writer_names.h -- names to ids: call sites, subtree filters and dynamic
 * names.  Part of the implementation of recorder.h, on the string table
 * (writer_strtab.h) and the thread set-up (writer_threads.h).
 *
 * Call sites cache static names' ids, and each thread keeps a small cache
 * of dynamic names so the common case touches no shared cache line.
 */

/* Each thread keeps its dynamic names (REC_SCOPE_DYN) in tables of its
 * own, so the common case touches no shared cache line and calls no libc:
 *  - by address (p): the name last seen at an address.  A name kept in
 *    place (tensor->name) is found there and checked by comparing its
 *    len + 1 bytes with the interned text.  An address whose text changes
 *    is a buffer rewritten per call (snprintf); for it, the name that
 *    followed the last one there the previous time (n, by id) is tried,
 *    since a program mostly names its operations in the same order, as
 *    long as such guesses have been right;
 *  - by key (e): a hash of the text, for everything else; 2-way sets,
 *    entries 2i and 2i+1, the newest first.  Keys come from the word scan
 *    (rec__dyn_by_key) for names that fit in REC__DYN_WORDS aligned words,
 *    from rec__hash for longer ones.
 * An entry is trusted only after its text is compared with the name; a
 * filtered name has no text (its 64-bit key and length must match), so it
 * is kept only by key.  160 KiB a thread that names scopes at run time:
 * a model's graph nodes or per-layer names, a thousand or two (Qcur-12,
 * blk.12.attn_q, ...), fit.  With 256
 * entries by address, 256 "next" entries and 1,024 by key (24 KiB), 1,024
 * tensor names kept in place cost 228 instructions a scope and a buffer
 * rewritten with them 304 (ids are record offsets, a few apart, so 256
 * next entries held about 64 names); now 100 and 138
 * (docs/performance/hot-path.md, "Names that come round"). */
#define REC__DYN_BITS 12u
#define REC__DYN_CACHE (1u << REC__DYN_BITS)
#define REC__DYN_PTR_BITS 12u
#define REC__DYN_NEXT_BITS 11u
struct rec__dyn_ent {
    uint64_t key;
    uint32_t id;                     /* REC_ID_FILTERED for a filtered name */
    uint32_t len;
};
struct rec__dyn_ptr {
    const char *ptr;
    uint32_t id;                     /* > REC_ID_OVERFLOW: a name with text, or 0 */
    uint16_t len;
    uint16_t mode;                   /* REC__DYN_KEPT, or rewritten: see below */
};
/* A rewritten buffer's mode counts how well guesses have done: from
 * REC__DYN_NOGUESS (looked up by key only) to REC__DYN_SURE. */
#define REC__DYN_KEPT    0u
#define REC__DYN_NOGUESS 1u
#define REC__DYN_GUESS   2u
#define REC__DYN_SURE    4u
static inline uint16_t rec__dyn_hit(uint16_t m) {
    return (uint16_t)(m == REC__DYN_KEPT || m == REC__DYN_SURE ? m : m + 1u);
}
static inline uint16_t rec__dyn_miss(uint16_t m) {
    return (uint16_t)(m == REC__DYN_KEPT ? REC__DYN_NOGUESS : m - 1u);
}
struct rec__dyn_next {
    uint32_t id, next;               /* in a rewritten buffer, next followed id */
    uint32_t next_len, pad;
};
struct rec__dyn_cache {
    struct rec__dyn_ptr p[1u << REC__DYN_PTR_BITS];
    struct rec__dyn_next n[1u << REC__DYN_NEXT_BITS];
    struct rec__dyn_ent e[REC__DYN_CACHE];
};
/* A key's set: its top bits (the keys' best mixed). */
#define REC__DYN_SET(c, key) (&(c)->e[((key) >> (64 - REC__DYN_BITS)) & ~(uint64_t)1])
#define REC__DYN_MATCH(e, key, len) ((e)->key == (key) && (e)->len == (len))
#define REC__DYN_PTR(c, a) (&(c)->p[((a) >> 3) & ((1u << REC__DYN_PTR_BITS) - 1)])
/* ids are offsets of records of 16 bytes or more, so their low bits are
 * few: a multiplicative hash spreads them. */
#define REC__DYN_NEXT(c, id) (&(c)->n[((uint32_t)(id) * 2654435761u) >> (32 - REC__DYN_NEXT_BITS)])

/* What a call site or a name cache keeps for a name: REC_ID_FILTERED, or
 * its id with the subtree flag of its verdict (writer_config.h).  A name
 * that found the string table full keeps no flag: it is recorded as
 * "<strings full>" wherever it appears. */
static uint32_t rec__name_value_filtered(struct rec__global *g, const char *name, size_t len, uint64_t h) {
    unsigned v = rec__verdict(&g->cfg, name);
    if (v == REC__DROP) return REC_ID_FILTERED;
    uint32_t id = rec__intern(g, name, len, h);
    if (v != REC__KEEP && id > REC_ID_OVERFLOW) id |= v == REC__COND ? REC__ID_COND : REC__ID_ROOT;
    return id;
}
static REC__INLINE uint32_t rec__name_value_in(struct rec__global *g, const char *name, size_t len, uint64_t h,
                                               int inl) {
    /* No filters (the common case): one test, the filters' work apart. */
    if (REC_UNLIKELY(g->cfg.filtering)) return rec__name_value_filtered(g, name, len, h);
    return inl ? rec__intern_in(g, name, len, h) : rec__intern(g, name, len, h);
}
/* The call sites' (a new dynamic name's inlines it all: rec__dyn_new). */
static uint32_t rec__name_value(struct rec__global *g, const char *name, size_t len) {
    return rec__name_value_in(g, name, len, rec__hash(name, len), 0);
}

/* A call site's first event: its value, flags included (0 if filtered). */
uint32_t rec__resolve_site(uint32_t *site, const char *name) {
    uint32_t id = REC_ID_FILTERED;
    if (rec__ensure_init() == 0 && name) id = rec__name_value(&rec__g, name, strnlen(name, REC_STR_MAXLEN));
    __atomic_store_n(site, id, __ATOMIC_RELAXED);
    return id == REC_ID_FILTERED ? 0 : id;
}

/* ---- subtree filters --------------------------------------------------- */

/* A scope of a REC__ID_ROOT name begins: it opens its thread's kept
 * subtree unless one is open (then it is a scope like any other, inside
 * it).  Returns what the scope's end needs (recorder.h, rec__scope_site). */
uint32_t rec__scope_root(uint32_t id) {
    struct rec__tls *t = &rec__t;
    id &= REC__ID_MASK;
    rec_begin_id(id);
    if (t->sub_id) return id;
    t->sub_id = id;
    t->sub_skip = 0;
    return REC__SCOPE_SUB;
}

/* REC_SCOPE's begin off its common path: a call site's first event, or a
 * name with a subtree flag (also REC_SCOPE_DYN's, with no site). */
uint32_t rec__scope_slow(uint32_t *site, const char *name, uint32_t id) {
    if (id == REC_ID_NONE) id = rec__resolve_site(site, name);
    if (id & REC__ID_ROOT) return rec__scope_root(id);
    if (id & REC__ID_COND) {
        if (!rec__t.sub_id) return 0;
        id &= REC__ID_MASK;
    }
    if (id) rec_begin_id(id);
    return id;
}

/* REC_BEGIN of a REC__ID_ROOT name (recorder.h, rec__explicit_begin). */
void rec__explicit_root(uint32_t id) {
    struct rec__tls *t = &rec__t;
    id &= REC__ID_MASK;
    if (t->sub_id) {
        t->explicit_skip <<= 1;
    } else {
        t->explicit_skip = (t->explicit_skip << 1) | 1;
        t->sub_id = id;
        t->sub_skip = t->explicit_skip;
    }
    rec_begin_id(id);
}

/* The scope that opened this thread's kept subtree ends. */
void rec__sub_end(void) {
    struct rec__tls *t = &rec__t;
    uint32_t id = t->sub_id;
    t->sub_id = 0;
    t->sub_skip = 0;
    rec_end_id(id);
}

/* ---- dynamic names --------------------------------------------------- */

#if defined(__GNUC__)
#define REC__NOINLINE __attribute__((noinline))
#define REC__NO_SANITIZE __attribute__((no_sanitize_address, no_sanitize_thread))
#else
#define REC__NOINLINE
#define REC__NO_SANITIZE
#endif
/* Names are a few words long: clang would vectorize and unroll the word
 * loops for long strings, at a cost of many instructions for short ones. */
#if defined(__clang__)
#define REC__SHORT_LOOP _Pragma("clang loop vectorize(disable) interleave(disable) unroll(disable)")
#else
#define REC__SHORT_LOOP
#endif
#define REC__DYN_WORDS 8u  /* the scan's limit: names of up to 56-63 bytes */
#define REC__ONES  UINT64_C(0x0101010101010101)
#define REC__HIGHS UINT64_C(0x8080808080808080)

/* Can the len + 1 bytes at address a be read, whatever the buffer holds
 * by then?  Yes if byte a + len is in the page of byte a, which the
 * caller's name proves mapped. */
#define REC__DYN_IN_PAGE(a, len) (((a) & (REC_PAGE - 1)) + (len) < REC_PAGE)

/* After a lookup by key found id: remember the name by its address.  At an
 * address known to be rewritten, also note that id followed the name there
 * before, and if guessing is off, whether a guess would have been right
 * (then turn it on). */
static inline uint32_t rec__dyn_keep(struct rec__dyn_cache *c, struct rec__dyn_ptr *p, const char *name,
                                     uint32_t id, size_t len) {
    if (p->ptr == name && p->mode != REC__DYN_KEPT) {
        if (p->id > REC_ID_OVERFLOW && id > REC_ID_OVERFLOW) {
            struct rec__dyn_next *x = REC__DYN_NEXT(c, p->id);
            if (p->mode == REC__DYN_NOGUESS && x->id == p->id && x->next == id) p->mode = REC__DYN_GUESS;
            x->id = p->id;
            x->next = id;
            x->next_len = (uint32_t)len;
        }
        p->id = id > REC_ID_OVERFLOW ? id : 0;
        p->len = (uint16_t)len;
    } else if (id > REC_ID_OVERFLOW && REC__DYN_IN_PAGE((uintptr_t)name, len)) {
        p->ptr = name;
        p->id = id;
        p->len = (uint16_t)len;
        p->mode = REC__DYN_KEPT;
    }
    return id == REC_ID_FILTERED ? 0 : id;
}

/* The cache miss path: intern (or filter) the name.  The string table's
 * work is inlined here (rec__name_value_in), where a new name's
 * instructions count; with three values live (not the cache's), it needs
 * few registers.  The key of an 8-byte-aligned name is its rec__hash
 * (rec__dyn_by_key's scan, or rec__dyn_long's), so the index's hash is
 * computed again only for a name that is not. */
static REC__NOINLINE uint32_t rec__dyn_new(const char *name, size_t len, uint64_t key) {
    struct rec__global *g = &rec__g;
    if (__atomic_load_n(&g->state, __ATOMIC_ACQUIRE) != REC__READY && rec__ensure_init() != 0) return 0;
    uint64_t h = REC_LIKELY(((uintptr_t)name & 7u) == 0) ? key : rec__hash(name, len);
    return rec__name_value_in(g, name, len, h, 1);
}

/* A name the cache misses: intern it, and remember it first in its set
 * and by its address.  The set's entry is written before the interning
 * (so that neither the key nor the set is held across the call), with id
 * 0 (never a match) until the id is known. */
static inline uint32_t rec__dyn_miss_key(struct rec__dyn_cache *c, struct rec__dyn_ent *set, struct rec__dyn_ptr *p,
                                         const char *name, size_t len, uint64_t key) {
    set[1] = set[0];
    set[0].key = key;
    set[0].len = (uint32_t)len;
    set[0].id = 0;
    uint32_t id = rec__dyn_new(name, len, key);
    set[0].id = id;
    return rec__dyn_keep(c, p, name, id, len);
}

/* The cache miss path whole, off the lookup by key's own miss. */
static REC__NOINLINE uint32_t rec__dyn_fill(struct rec__dyn_cache *c, struct rec__dyn_ent *set,
                                            struct rec__dyn_ptr *p, const char *name, size_t len, uint64_t key) {
    return rec__dyn_miss_key(c, set, p, name, len, key);
}

/* A hit by key for a name not 8-byte aligned: compare, then keep or fill. */
static REC__NOINLINE uint32_t rec__dyn_hit_shifted(struct rec__dyn_cache *c, struct rec__dyn_ent *set,
                                                   struct rec__dyn_ent *e, struct rec__dyn_ptr *p,
                                                   const char *name, size_t len, uint64_t key) {
    if (!rec__bytes_diff(name, rec_str_text(rec__str(&rec__g, e->id)), len))
        return rec__dyn_keep(c, p, name, e->id, len);
    return rec__dyn_fill(c, set, p, name, len, key);
}

/* Names too long for the word scan, keyed by rec__hash and compared with
 * memcmp. */
static REC__NOINLINE uint32_t rec__dyn_long(struct rec__dyn_cache *c, struct rec__dyn_ptr *p, const char *name) {
    size_t len = strnlen(name, REC_STR_MAXLEN);
    uint64_t key = rec__hash(name, len);
    struct rec__dyn_ent *set = REC__DYN_SET(c, key);
    for (struct rec__dyn_ent *e = set; e < set + 2; e++) {
        if (!REC__DYN_MATCH(e, key, len) || !e->id) continue;
        if (e->id == REC_ID_FILTERED) return 0;
        if (e->id == REC_ID_OVERFLOW) return e->id;  /* no text to compare */
        if (memcmp(rec_str_text(rec__str(&rec__g, e->id)), name, len) == 0) return rec__dyn_keep(c, p, name, e->id, len);
    }
    return rec__dyn_fill(c, set, p, name, len, key);
}

/* A thread's first dynamic name (or recording off, or a NULL name). */
static REC__NOINLINE uint32_t rec__dyn_first(const char *name) {
    struct rec__global *g = &rec__g;
    if (rec__ensure_init() != 0 || !name) return 0;
    struct rec__tls *t = &rec__t;
    if (!t->dyn) {
        t->dyn = (struct rec__dyn_cache *)calloc(1, sizeof *t->dyn);
        /* The thread-exit destructor frees it, even if this thread never
         * records an event (its names may all be filtered). */
        if (t->dyn && g->key_ok && !pthread_getspecific(g->key))
            pthread_setspecific(g->key, (void *)&rec__dummy_slot);
    }
    if (t->dyn) return rec__intern_dyn_v(name);
    uint32_t id = rec__name_value(g, name, strnlen(name, REC_STR_MAXLEN));
    return id == REC_ID_FILTERED ? 0 : id;
}

/* The lookup by key: one pass over the name in aligned 8-byte words finds
 * its length (the first zero byte, 8 bytes at a time) and computes its
 * key with rec__hash's steps: for an 8-byte-aligned name (most: buffers
 * and allocations are) the words are rec__hash's and so is the key, which
 * a new name's index lookup then uses as is.  For a name r bytes into its
 * first word, the key covers those bytes too (as 0xff), with r in the
 * seed: a key for this cache, not the index.  A hit is checked by
 * comparing the same words with the text. */
static REC__NO_SANITIZE REC__INLINE uint32_t rec__dyn_by_key_in(struct rec__dyn_cache *c, struct rec__dyn_ptr *p,
                                                               const char *name, int aligned) {
#if defined(__BYTE_ORDER__) && __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    uintptr_t a = (uintptr_t)name;
    unsigned r = aligned ? 0 : (unsigned)(a & 7u);       /* bytes before the name */
    const char *q = name - r;
    uint64_t w, z, key = REC__H_SEED ^ r;
    unsigned k = 0;
    memcpy(&w, q, 8);
    w |= (UINT64_C(1) << (8 * r)) - 1;                  /* those are not zero bytes */
    REC__SHORT_LOOP
    while (!(z = (w - REC__ONES) & ~w & REC__HIGHS)) {   /* exact for the lowest zero */
        key = rec__hash_word(key, w);
        if (REC_UNLIKELY(++k == REC__DYN_WORDS)) return rec__dyn_long(c, p, name);
        memcpy(&w, q + 8 * k, 8);
    }
    uint64_t last = (z ^ (z - 1)) >> 8;                 /* bytes before the NUL */
    size_t len = 8u * k + ((unsigned)__builtin_ctzll(z) >> 3) - r;
    key = rec__hash_end(key, w & last, len);
    struct rec__dyn_ent *set = REC__DYN_SET(c, key), *e = set;
    if (REC_UNLIKELY(!REC__DYN_MATCH(e, key, len))) {
        e = set + 1;
        if (!REC__DYN_MATCH(e, key, len)) return rec__dyn_miss_key(c, set, p, name, len, key);
    }
    uint32_t id = e->id;
    if (REC_UNLIKELY(id <= REC_ID_OVERFLOW)) {          /* no text to compare */
        if (id == 0) return rec__dyn_fill(c, set, p, name, len, key);
        return id == REC_ID_FILTERED ? 0 : id;
    }
    if (REC_UNLIKELY(r != 0)) return rec__dyn_hit_shifted(c, set, e, p, name, len, key);
    /* Word j of the text lines up with word j of the name; the text's word
     * k holds its NUL, inside its record. */
    const char *t = rec_str_text(rec__str(&rec__g, id));
    uint64_t diff, tw, nw;
    memcpy(&tw, t + 8 * k, 8);
    diff = (w ^ tw) & last;
    REC__SHORT_LOOP
    for (unsigned j = 0; j < k; j++) {
        memcpy(&tw, t + 8 * j, 8);
        memcpy(&nw, q + 8 * j, 8);
        diff |= nw ^ tw;
    }
    if (REC_LIKELY(diff == 0)) return rec__dyn_keep(c, p, name, id, len);
    return rec__dyn_fill(c, set, p, name, len, key);
#else
    (void)aligned;
    return rec__dyn_long(c, p, name);
#endif
}
/* The lookup by key in two copies: a name that starts on an 8-byte
 * boundary (nearly all) takes one with nothing to shift or mask for its
 * first word (rec__dyn_by_key), the others the general one. */
static REC__NO_SANITIZE REC__NOINLINE uint32_t rec__dyn_by_key_shifted(struct rec__dyn_cache *c,
                                                                       struct rec__dyn_ptr *p, const char *name) {
    return rec__dyn_by_key_in(c, p, name, 0);
}
static REC__NO_SANITIZE REC__NOINLINE uint32_t rec__dyn_by_key(struct rec__dyn_cache *c, struct rec__dyn_ptr *p,
                                                               const char *name) {
    if (REC_UNLIKELY((uintptr_t)name & 7u)) return rec__dyn_by_key_shifted(c, p, name);
    return rec__dyn_by_key_in(c, p, name, 1);
}

/* A rewritten buffer (by address, its mode not REC__DYN_KEPT): guess the
 * name that followed the last one there, check it, or look up by key. */
static REC__NO_SANITIZE REC__NOINLINE uint32_t rec__dyn_guess(struct rec__dyn_cache *c, struct rec__dyn_ptr *p,
                                                              const char *name) {
    const struct rec__dyn_next *x = REC__DYN_NEXT(c, p->id);
    if (p->mode == REC__DYN_NOGUESS || x->id != p->id || x->next <= REC_ID_OVERFLOW ||
        !REC__DYN_IN_PAGE((uintptr_t)name, x->next_len))
        return rec__dyn_by_key(c, p, name);
    uint32_t id = x->next;
    size_t len = x->next_len;
    if (REC_LIKELY(!rec__bytes_diff(name, rec_str_text(rec__str(&rec__g, id)), len + 1))) {
        p->id = id;   /* the next guess follows this name */
        p->len = (uint16_t)len;
        p->mode = rec__dyn_hit(p->mode);
        return id;
    }
    p->mode = rec__dyn_miss(p->mode);
    return rec__dyn_by_key(c, p, name);
}

/* The hot path of REC_SCOPE_DYN: guess the name from its address (the one
 * seen there last time, or in a rewritten buffer the one that followed
 * it), and check the guess by comparing len + 1 bytes (the NUL included)
 * with the text (rec__bytes_diff: a few words, whatever the alignment); if
 * it fails, look the name up by key.  In a rewritten buffer whose names
 * come in no learnable order, guesses soon stop (each miss lowers the
 * mode, each hit raises it), until the lookup by key sees that one would
 * have been right.
 *
 * The len + 1 bytes from the name's address all lie in the page of its
 * first byte (REC__DYN_IN_PAGE, checked when the entry was made or the
 * guess taken), which the caller's pointer proves mapped.  If the name
 * there is now shorter, some of them lie past its NUL, which ASan would
 * report and TSan could see as a race with a neighbour's write: hence the
 * attribute. */
REC__NO_SANITIZE uint32_t rec__intern_dyn_v(const char *name) {
    struct rec__dyn_cache *c = rec__t.dyn;
    if (REC_UNLIKELY(!c || !name)) return rec__dyn_first(name);
    struct rec__dyn_ptr *p = REC__DYN_PTR(c, (uintptr_t)name);
    if (REC_UNLIKELY(p->ptr != name)) return rec__dyn_by_key(c, p, name);
    if (REC_UNLIKELY(p->mode != REC__DYN_KEPT)) return rec__dyn_guess(c, p, name);
    /* A name kept in place: a leaf with few values live (no register to
     * save; c is read again on a miss). */
    uint32_t id = p->id;
    if (REC_LIKELY(!rec__bytes_diff(name, rec_str_text(rec__str(&rec__g, id)), (size_t)p->len + 1))) return id;
    p->mode = rec__dyn_miss(REC__DYN_KEPT);
    return rec__dyn_by_key(rec__t.dyn, p, name);
}

/* The id to record a run-time name with now, or 0: a subtree root is a
 * name like any other here, and a name kept only inside subtrees is 0
 * outside them.  (The compatibility headers' entry point.) */
uint32_t rec__intern_dyn(const char *name) {
    uint32_t id = rec__intern_dyn_v(name);
    if (REC_UNLIKELY(id >= REC__ID_ROOT)) id = (id & REC__ID_COND) && !rec__t.sub_id ? 0 : id & REC__ID_MASK;
    return id;
}
