/*
 * variants.h -- the loops the hot-path benchmark times, one per design.
 *
 * Every variant runs the same loop: n scopes, each a begin, an empty
 * "user code" barrier, and an end, with another barrier between scopes.
 * The barrier is an empty asm with a memory clobber: it costs no
 * instruction, but the compiler must assume user code read and wrote
 * memory there, so no variant can keep its ring head or ring pointer in a
 * register from one event to the next, nor merge, sink or drop the stores.
 * That is what a real program around a scope forces too.
 */
#ifndef BENCH_VARIANTS_H
#define BENCH_VARIANTS_H

#include <stdint.h>

#define BENCH_WORK() __asm__ __volatile__("" ::: "memory")

/* The ring the hand-written floor uses has as many entries as the
 * recorder's (bench_scope sets RECORDER_RING_KB to match), so both write
 * the same number of bytes over the same span of memory. */
#define BENCH_RING_KB      1024u
#define BENCH_RING_ENTRIES (BENCH_RING_KB * 1024u / 16u)

/* Dynamic names: BENCH_DYN_NAMES run-time strings shaped like ggml op
 * names, used in turn so the per-thread name cache sees several.  Each is
 * in a zero-padded buffer of at least BENCH_DYN_COPY bytes, so a loop may
 * copy a fixed BENCH_DYN_COPY bytes to rebuild one in its own buffer. */
#define BENCH_DYN_NAMES 16u
#define BENCH_DYN_COPY 24u
extern const char *bench_dyn_names[BENCH_DYN_NAMES];
/* A fixed pseudo-random order of those names, BENCH_DYN_ORDER long. */
#define BENCH_DYN_ORDER 256u
extern unsigned char bench_dyn_order[BENCH_DYN_ORDER];
extern const char *bench_dyn_filtered[BENCH_DYN_NAMES];
/* What bench_scope puts in RECORDER_FILTER_OUT; filtered names contain it. */
#define BENCH_FILTER_OUT "bench_filtered"

struct bench_variant {
    const char *key;          /* short label in the table */
    const char *what;         /* one line for --list */
    /* Runs n scopes on the calling thread. */
    void (*run)(uint64_t n);
    /* Ring entries this thread has written so far (for bytes per scope),
     * or NULL when the design has no per-thread ring to count. */
    uint64_t (*entries)(void);
    /* Once per thread before timing: attach, allocate, warm up.  Returns 0,
     * or -1 when the variant cannot run (the table then says why). */
    int (*thread_init)(void);
    /* Why it cannot run, when thread_init failed or before it runs. */
    const char *(*unavailable)(void);
    /* Once per thread at the end: free what thread_init took. */
    void (*thread_fini)(void);
};

/* Each file adds its variants here; bench_scope.c lists them in order. */
extern const struct bench_variant bench_empty, bench_copy, bench_floor;
extern const struct bench_variant bench_rec_static, bench_rec_dyn, bench_rec_dyn_buf, bench_rec_dyn_rand;
extern const struct bench_variant bench_rec_filtered, bench_rec_dyn_filtered, bench_rec_arg;
extern const struct bench_variant bench_mutex;
extern const struct bench_variant bench_lttng_static, bench_lttng_dyn;

static inline uint64_t bench_rdtsc(void) {
#if defined(__x86_64__) || defined(__i386__)
    uint32_t lo, hi;
    __asm__ __volatile__("rdtsc" : "=a"(lo), "=d"(hi));
    return ((uint64_t)hi << 32) | lo;
#elif defined(__aarch64__)
    uint64_t v;
    __asm__ __volatile__("mrs %0, cntvct_el0" : "=r"(v));
    return v;
#else
#error "the floor needs a cycle counter: x86-64 or aarch64"
#endif
}

#endif /* BENCH_VARIANTS_H */
