/*
 * recorder.h -- a tracing recorder for programs whose speed matters.
 *
 * Mark code with scopes; events go into a lock-free ring per thread inside a
 * POSIX shared-memory segment, /dev/shm/recorder.<pid>, that this process
 * owns.  Other processes (recorder, recorder-top, recorder-web) map it
 * read-only and show or save it, live or after a crash.
 *
 *   // exactly one .c or .cpp file of the program (or of each shared library):
 *   #define RECORDER_IMPLEMENTATION
 *   #include "recorder.h"
 *
 *   void layer(int i) {
 *       REC_SCOPE("layer");              // ends with the block
 *       char n[64]; snprintf(n, sizeof n, "matmul_blk.%d.attn_q", i);
 *       REC_SCOPE_DYN(n);                // a run-time name, interned once
 *       REC_COUNTER("kv_cache", 1234);
 *   }
 *   void sync(void) {
 *       REC_SCOPE_WAIT("barrier");       // waiting, not work: not "busy"
 *       ...
 *   }
 *
 * Build with -DRECORDER_DISABLE and every macro vanishes.
 * Configuration is by environment, read once: see docs/configuration.md.
 * The segment layout is a contract with readers: see docs/format.md.
 *
 * Hot-path rules (DESIGN.md): after a thread's first event there are no
 * syscalls, no locks, no allocation, no read-modify-write atomics and no
 * stores to cache lines that other threads write.  One counter read per
 * event, two 8-byte stores per ring entry, one release store of the head.
 */
#ifndef RECORDER_H
#define RECORDER_H

/* The implementation needs POSIX and Linux declarations: include recorder.h
 * first in the file that defines RECORDER_IMPLEMENTATION. */
#if defined(RECORDER_IMPLEMENTATION) && !defined(_GNU_SOURCE)
#define _GNU_SOURCE 1
#endif

#include <stdint.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* The segment format (the structures every reader shares). */
#include "recorder/writer/format.h"

/* ------------------------------------------------------------------------ */
/* The public API.                                                          */
/* ------------------------------------------------------------------------ */

/* Optional: recording starts lazily at the first event.  rec_init() sets up
 * the segment now; returns 0, or -1 if recording is disabled or failed. */
#if defined(RECORDER_DISABLE)

static inline int rec_init(void) { return -1; }
static inline void rec_shutdown(void) {}
static inline const char *rec_segment_path(void) { return (const char *)0; }

/* Arguments are never evaluated, yet count as used: a value computed only
 * for the tracing must not become an "unused" warning (an error under
 * -Werror) when the tracing is compiled out. */
#define REC__NOP(x) (0 ? (void)(x) : (void)0)
#define REC__NOP2(x, y) (0 ? ((void)(x), (void)(y)) : (void)0)
#define REC__NOP_SEL(a, b, f, ...) f
#define REC_SCOPE(name) REC__NOP(name)
#define REC_SCOPE_DYN(name) REC__NOP(name)
#define REC_SCOPE_WAIT(name) REC__NOP(name)
#define REC_SCOPE_WAIT_DYN(name) REC__NOP(name)
#define REC_BEGIN(name) REC__NOP(name)
#define REC_BEGIN_DYN(name) REC__NOP(name)
#define REC_END() ((void)0)
#define REC_INSTANT(...) REC__NOP_SEL(__VA_ARGS__, REC__NOP2, REC__NOP, _)(__VA_ARGS__)
#define REC_COUNTER(name, value) REC__NOP2(name, value)
#define REC_FLOW_BEGIN(id) REC__NOP(id)
#define REC_FLOW_STEP(id) REC__NOP(id)
#define REC_FLOW_END(id) REC__NOP(id)
#define REC_THREAD_NAME(name) REC__NOP(name)
#define REC_ARG(key, value) REC__NOP2(key, value)

#else /* !RECORDER_DISABLE */

int rec_init(void);
/* Marks the segment closed and removes it unless RECORDER_KEEP=1.  The
 * mapping stays valid, so threads still running are harmless. */
void rec_shutdown(void);
/* The segment's path (/dev/shm/...) or NULL if not recording. */
const char *rec_segment_path(void);

#define REC__CAT2(a, b) a##b
#define REC__CAT(a, b) REC__CAT2(a, b)
#define REC__UNIQ(p) REC__CAT(p, __COUNTER__)
#define REC_LIKELY(x) __builtin_expect(!!(x), 1)
#define REC_UNLIKELY(x) __builtin_expect(!!(x), 0)

/* Per-thread writer state.  initial-exec TLS costs the same in a -fPIC
 * shared library as in an executable (one GOT load, no __tls_get_addr). */
struct rec__dyn_cache;
struct rec__tls {
    uint64_t *ring;           /* 2 words per entry */
    uint64_t mask;            /* ring entries - 1 */
    struct rec_slot *slot;    /* NULL until the first event */
    const uint64_t *limit;    /* this slot's limit in the consumer page */
    uint64_t explicit_skip;   /* REC_BEGIN/REC_END: bit set = that begin was not recorded */
    struct rec__dyn_cache *dyn;
    /* The kept subtree open on this thread (subtree filters only): the id
     * of the outermost open scope whose name is a subtree root, 0 if none;
     * if it was opened by REC_BEGIN, explicit_skip just after (never 0),
     * else 0. */
    uint32_t sub_id;
    uint32_t sub_pad;
    uint64_t sub_skip;
};
extern __thread struct rec__tls rec__t __attribute__((tls_model("initial-exec")));

void rec__attach(struct rec__tls *t);
void rec__full(struct rec__tls *t, unsigned n);
uint32_t rec__resolve_site(uint32_t *site, const char *name);
uint32_t rec__intern_dyn(const char *name);
uint32_t rec__intern_dyn_v(const char *name);
uint32_t rec__scope_slow(uint32_t *site, const char *name, uint32_t id);
uint32_t rec__scope_root(uint32_t id);
void rec__explicit_root(uint32_t id);
void rec__sub_end(void);
void rec__instant_msg(uint32_t id, const char *msg);
void rec__arg(uint32_t id, const char *value);
void rec__thread_name(const char *name);

uint64_t rec__mono_ns(void);   /* CLOCK_MONOTONIC in ns (the implementation's) */

static inline uint64_t rec_now(void) {
#if defined(RECORDER_CLOCK_MONOTONIC) || !(defined(__x86_64__) || defined(__i386__) || defined(__aarch64__))
    return rec__mono_ns();
#elif defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#else
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#endif
}

/* Reserve n entries and return the first, or NULL (nothing recorded).
 * The release stores order this event after the previous head store, so a
 * reader that sees the new payload also sees a head that proves the
 * overwrite (docs/format.md, "reading a ring"). */
static inline uint64_t *rec__reserve(struct rec__tls *t, unsigned n, uint64_t *hout) {
    struct rec_slot *s = t->slot;
    if (REC_UNLIKELY(!s)) {
        rec__attach(t);
        s = t->slot;
    }
    uint64_t h = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
    if (REC_UNLIKELY(h + n > __atomic_load_n(t->limit, __ATOMIC_RELAXED))) {
        rec__full(t, n);
        return NULL;
    }
    *hout = h;
    return t->ring + ((h & t->mask) << 1);
}

static inline void rec__put(uint64_t *e, uint64_t w0, uint64_t w1) {
    __atomic_store_n(&e[0], w0, __ATOMIC_RELEASE);
    __atomic_store_n(&e[1], w1, __ATOMIC_RELEASE);
}

static inline void rec__publish(struct rec__tls *t, uint64_t h) {
    __atomic_store_n(&t->slot->head, h, __ATOMIC_RELEASE);
}

/* rec__reserve for the one-entry events of the hot path: returns the slot,
 * or NULL (nothing recorded).  Returning the slot rather than the entry
 * spares a test of the entry's address and a reload of t->slot (the
 * release stores in between stop the compiler from reusing it). */
static inline struct rec_slot *rec__room1(struct rec__tls *t, uint64_t *hout) {
    struct rec_slot *s = t->slot;
    if (REC_UNLIKELY(!s)) {
        rec__attach(t);
        s = t->slot;
    }
    uint64_t h = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
    if (REC_UNLIKELY(h + 1 > __atomic_load_n(t->limit, __ATOMIC_RELAXED))) {
        rec__full(t, 1);
        return NULL;
    }
    *hout = h;
    return s;
}

/* One-entry event: begin, end, flows. */
static inline void rec__emit1(uint64_t w1) {
    struct rec__tls *t = &rec__t;
    uint64_t h = 0;  /* always set when used; GCC 14 cannot tell (-Wmaybe-uninitialized) */
    struct rec_slot *s = rec__room1(t, &h);
    if (REC_UNLIKELY(!s)) return;
    rec__put(t->ring + ((h & t->mask) << 1), rec_now(), w1);
    __atomic_store_n(&s->head, h + 1, __ATOMIC_RELEASE);
}

/* Two-entry event: a counter. */
static inline void rec__emit2(uint64_t w1, uint64_t payload) {
    struct rec__tls *t = &rec__t;
    uint64_t h = 0;  /* always set when used; GCC 14 cannot tell (-Wmaybe-uninitialized) */
    uint64_t *e = rec__reserve(t, 2, &h);
    if (REC_UNLIKELY(!e)) return;
    rec__put(e, rec_now(), w1);
    e = t->ring + (((h + 1) & t->mask) << 1);
    rec__put(e, payload, (uint64_t)REC_EV_CONT << 56);
    rec__publish(t, h + 2);
}

static inline void rec_begin_id(uint32_t id) {
    rec__emit1(((uint64_t)REC_EV_BEGIN << 56) | id);
}
static inline void rec_end_id(uint32_t id) {
    rec__emit1(((uint64_t)REC_EV_END << 56) | id);
}
/* A wait scope's begin and end: the same single entry with REC_EV_WAIT
 * set, so that ordinary scopes pay nothing for it. */
static inline void rec_begin_wait_id(uint32_t id) {
    rec__emit1(((uint64_t)REC_EV_BEGIN << 56) | REC_EV_WAIT | id);
}
static inline void rec_end_wait_id(uint32_t id) {
    rec__emit1(((uint64_t)REC_EV_END << 56) | REC_EV_WAIT | id);
}

/* A call site caches its name's id in a static: 0 = not yet resolved,
 * REC_ID_FILTERED = filtered out or recording off (one load, one branch),
 * else an id, with a REC__ID_COND or REC__ID_ROOT flag under subtree
 * filters.  Once REC_ID_FILTERED is out, one unsigned compare sends both
 * the unresolved and the flagged values off the common path (id - 2
 * wraps for 0), and tells the compiler that an id on it is above 1. */
#define REC__SITE_ODD(id) ((uint32_t)((id) - 2u) >= REC__ID_ROOT - 2u)

/* The id to record an instant, a counter or a plain begin with, or 0. */
static inline uint32_t rec__site_id(uint32_t *site, const char *name) {
    uint32_t id = __atomic_load_n(site, __ATOMIC_RELAXED);
    /* No hint on this test: marked unlikely, the compiler moves the
     * filtered case out of line and a filtered scope pays a chain of
     * taken jumps instead of one branch to the end of the scope. */
    if (id == REC_ID_FILTERED) return 0;
    if (REC_UNLIKELY(REC__SITE_ODD(id))) {
        if (id == REC_ID_NONE) id = rec__resolve_site(site, name);
        if ((id & REC__ID_COND) && !rec__t.sub_id) return 0;  /* outside every kept subtree */
        id &= REC__ID_MASK;
    }
    return id;
}

/* The same, flags kept (for REC_BEGIN, which opens subtrees). */
static inline uint32_t rec__site_raw(uint32_t *site, const char *name) {
    uint32_t id = __atomic_load_n(site, __ATOMIC_RELAXED);
    if (id == REC_ID_FILTERED) return 0;
    if (REC_UNLIKELY(id == REC_ID_NONE)) id = rec__resolve_site(site, name);
    return id;
}

/* A begin whose name may be a subtree root, which it does not open (the
 * compatibility headers' scopes).  Returns the id to end with, or 0. */
static inline uint32_t rec__begin_site(uint32_t *site, const char *name) {
    uint32_t id = rec__site_id(site, name);
    if (id) rec_begin_id(id);
    return id;
}

/* REC_SCOPE's begin.  Returns what its end needs: 0 (nothing recorded),
 * REC__SCOPE_SUB (it opened its thread's kept subtree), or the id. */
static inline uint32_t rec__scope_site(uint32_t *site, const char *name) {
    uint32_t id = __atomic_load_n(site, __ATOMIC_RELAXED);
    /* One compare sends everything but a plain id off the common path:
     * filtered, unresolved and flagged alike (REC__SITE_ODD).  A filtered
     * scope pays a taken branch and one more compare for it; an unfiltered
     * one pays nothing for filters, set or not (docs/performance/
     * hot-path.md). */
    if (REC_UNLIKELY(REC__SITE_ODD(id))) {
        if (id == REC_ID_FILTERED) return 0;
        /* Unresolved, a root, or a name kept inside subtrees and one is open. */
        if (!(id & REC__ID_COND) || rec__t.sub_id) return rec__scope_slow(site, name, id);
        return 0;  /* a name kept only inside subtrees, and none is open */
    }
    rec_begin_id(id);
    return id;
}

/* REC_SCOPE_DYN's begin: the same, for a name interned per thread (0:
 * filtered; never 1).  On the common path the compiler knows the id is
 * above 1, so the scope's end tests nothing. */
static inline uint32_t rec__begin_dyn(const char *name) {
    uint32_t id = rec__intern_dyn_v(name);
    if (REC_LIKELY(id - 2u < REC__ID_ROOT - 2u)) {
        rec_begin_id(id);
        return id;
    }
    if (id < REC__ID_ROOT) return 0;                        /* filtered */
    if ((id & REC__ID_COND) && !rec__t.sub_id) return 0;    /* outside every kept subtree */
    return rec__scope_slow(NULL, NULL, id);
}

static inline void rec__scope_end(uint32_t *id) {
    if (*id > REC__SCOPE_SUB) rec_end_id(*id);
    else if (REC_UNLIKELY(*id == REC__SCOPE_SUB)) rec__sub_end();
}

static inline uint32_t rec__begin_wait_site(uint32_t *site, const char *name) {
    uint32_t id = rec__site_id(site, name);
    if (id) rec_begin_wait_id(id);
    return id;
}

static inline uint32_t rec__begin_wait_dyn(const char *name) {
    uint32_t id = rec__intern_dyn(name);
    if (id) rec_begin_wait_id(id);
    return id;
}

static inline void rec__scope_wait_end(uint32_t *id) {
    if (*id) rec_end_wait_id(*id);
}

/* REC_BEGIN/REC_END keep one bit per nesting level so that an END whose
 * BEGIN was filtered out is not recorded either.  A set bit means "not
 * recorded", so the zeroed state of a new thread needs no set-up (a thread
 * may skip a filtered BEGIN before its first event attaches it).  Levels
 * past 64 count as recorded.  A BEGIN that opens its thread's kept subtree
 * also sets its bit (its END is recorded by rec__sub_end) and notes the
 * bits in sub_skip: its END is the skipped END that finds them again. */
static inline void rec__explicit_begin(uint32_t id) {
    struct rec__tls *t = &rec__t;
    if (REC_UNLIKELY(id >= REC__ID_ROOT)) {
        if (!(id & REC__ID_COND)) {
            rec__explicit_root(id);
            return;
        }
        id = t->sub_id ? id & REC__ID_MASK : 0;
    }
    t->explicit_skip = (t->explicit_skip << 1) | (id == 0);
    if (id) rec_begin_id(id);
}
static inline void rec__explicit_end(void) {
    struct rec__tls *t = &rec__t;
    uint64_t skip = t->explicit_skip;
    t->explicit_skip = skip >> 1;
    if (!(skip & 1)) rec_end_id(0);
    else if (REC_UNLIKELY(skip == t->sub_skip)) rec__sub_end();
}

static inline void rec__counter(uint32_t id, double v) {
    if (!id) return;
    uint64_t bits;
    __builtin_memcpy(&bits, &v, sizeof bits);
    rec__emit2(((uint64_t)REC_EV_COUNTER << 56) | id, bits);
}

static inline void rec__instant(uint32_t id, const char *msg) {
    if (!id) return;
    if (msg && *msg) rec__instant_msg(id, msg);
    else rec__emit1(((uint64_t)REC_EV_INSTANT << 56) | id);
}

static inline void rec__flow(unsigned type, uint64_t fid) {
    rec__emit1(((uint64_t)type << 56) | (fid & REC_FLOW_ID_MASK));
}

#ifdef __cplusplus
} /* extern "C" */
struct rec__scope_guard {
    uint32_t id;
    explicit rec__scope_guard(uint32_t i) : id(i) {}
    ~rec__scope_guard() {
        if (id > REC__SCOPE_SUB) rec_end_id(id);
        else if (REC_UNLIKELY(id == REC__SCOPE_SUB)) rec__sub_end();
    }
    rec__scope_guard(const rec__scope_guard &) = delete;
    rec__scope_guard &operator=(const rec__scope_guard &) = delete;
};
#define REC__SCOPE(v, name) \
    static uint32_t REC__CAT(v, _site); \
    rec__scope_guard v(rec__scope_site(&REC__CAT(v, _site), (name)))
#define REC__SCOPE_DYN(v, name) rec__scope_guard v(rec__begin_dyn(name))
struct rec__scope_wait_guard {
    uint32_t id;
    explicit rec__scope_wait_guard(uint32_t i) : id(i) {}
    ~rec__scope_wait_guard() { if (id) rec_end_wait_id(id); }
    rec__scope_wait_guard(const rec__scope_wait_guard &) = delete;
    rec__scope_wait_guard &operator=(const rec__scope_wait_guard &) = delete;
};
#define REC__SCOPE_WAIT(v, name) \
    static uint32_t REC__CAT(v, _site); \
    rec__scope_wait_guard v(rec__begin_wait_site(&REC__CAT(v, _site), (name)))
#define REC__SCOPE_WAIT_DYN(v, name) rec__scope_wait_guard v(rec__begin_wait_dyn(name))
extern "C" {
#else
#define REC__SCOPE(v, name) \
    static uint32_t REC__CAT(v, _site); \
    uint32_t v __attribute__((cleanup(rec__scope_end), unused)) = \
        rec__scope_site(&REC__CAT(v, _site), (name))
#define REC__SCOPE_DYN(v, name) \
    uint32_t v __attribute__((cleanup(rec__scope_end), unused)) = rec__begin_dyn(name)
#define REC__SCOPE_WAIT(v, name) \
    static uint32_t REC__CAT(v, _site); \
    uint32_t v __attribute__((cleanup(rec__scope_wait_end), unused)) = \
        rec__begin_wait_site(&REC__CAT(v, _site), (name))
#define REC__SCOPE_WAIT_DYN(v, name) \
    uint32_t v __attribute__((cleanup(rec__scope_wait_end), unused)) = rec__begin_wait_dyn(name)
#endif

/* A statement with a call-site cache for a static name. */
#define REC__AT_SITE(name, call) \
    do { \
        static uint32_t rec__s_; \
        uint32_t rec__id_ = rec__site_id(&rec__s_, (name)); \
        call; \
    } while (0)

/* A scope that ends with the enclosing block. */
#define REC_SCOPE(name) REC__SCOPE(REC__UNIQ(rec__scope_), name)
/* The same for a name built at run time; each distinct string is interned
 * once per process. */
#define REC_SCOPE_DYN(name) REC__SCOPE_DYN(REC__UNIQ(rec__scope_), name)
/* A wait scope: a barrier, a lock, a queue -- time the thread spends
 * waiting rather than working.  Recorded like REC_SCOPE (its statistics
 * show how long the waits take), but busy figures leave it and everything
 * inside it out.  Costs what REC_SCOPE costs. */
#define REC_SCOPE_WAIT(name) REC__SCOPE_WAIT(REC__UNIQ(rec__scope_), name)
#define REC_SCOPE_WAIT_DYN(name) REC__SCOPE_WAIT_DYN(REC__UNIQ(rec__scope_), name)
#define REC_BEGIN(name) \
    do { \
        static uint32_t rec__s_; \
        rec__explicit_begin(rec__site_raw(&rec__s_, (name))); \
    } while (0)
#define REC_BEGIN_DYN(name) rec__explicit_begin(rec__intern_dyn_v(name))
#define REC_END() rec__explicit_end()
/* REC_INSTANT("name") or REC_INSTANT("name", "message"); messages longer
 * than REC_MSG_MAX bytes are cut. */
#define REC_INSTANT(...) REC__INSTANT_SEL(__VA_ARGS__, REC__INSTANT2, REC__INSTANT1, _)(__VA_ARGS__)
#define REC__INSTANT_SEL(a, b, f, ...) f
#define REC__INSTANT1(name) REC__AT_SITE(name, rec__instant(rec__id_, NULL))
#define REC__INSTANT2(name, msg) REC__AT_SITE(name, rec__instant(rec__id_, (msg)))
#define REC_COUNTER(name, value) REC__AT_SITE(name, rec__counter(rec__id_, (double)(value)))
#define REC_FLOW_BEGIN(id) rec__flow(REC_EV_FLOW_BEGIN, (uint64_t)(id))
#define REC_FLOW_STEP(id) rec__flow(REC_EV_FLOW_STEP, (uint64_t)(id))
#define REC_FLOW_END(id) rec__flow(REC_EV_FLOW_END, (uint64_t)(id))
#define REC_THREAD_NAME(name) rec__thread_name(name)
/* REC_ARG("key", "value"): a key/value argument of the calling thread's
 * innermost open scope (the exports show it in that slice's args).  The
 * key is interned once per call site, as REC_INSTANT's name; a value
 * longer than REC_MSG_MAX bytes keeps its first REC_MSG_MAX - 3 bytes and
 * ends in "...".  Out of line: scopes pay nothing for it (README.md, "Scope arguments"). */
#define REC_ARG(key, value) \
    REC__AT_SITE(key, if (rec__id_) rec__arg(rec__id_, (value)))

#endif /* RECORDER_DISABLE */

#ifdef __cplusplus
}
#endif

#endif /* RECORDER_H */

/* ------------------------------------------------------------------------ */
/* The implementation: define RECORDER_IMPLEMENTATION in one file.          */
/* ------------------------------------------------------------------------ */
#if defined(RECORDER_IMPLEMENTATION) && !defined(RECORDER_DISABLE) && \
    !defined(RECORDER_IMPLEMENTATION_DONE)
#define RECORDER_IMPLEMENTATION_DONE
#include "recorder/writer/writer_impl.h"
#endif
