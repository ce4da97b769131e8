/*
 * variant_recorder.c -- scopes through recorder.h's public macros, written
 * as a user would: static names, run-time names, and names removed by
 * RECORDER_FILTER_OUT (bench_scope sets it to BENCH_FILTER_OUT).
 */
#include "recorder.h"

#include <string.h>

#include "variants.h"

__attribute__((noinline)) static void rec_static_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        {
            REC_SCOPE("bench.static");
            BENCH_WORK();
        }
        BENCH_WORK();
    }
}

__attribute__((noinline)) static void rec_dyn_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        {
            REC_SCOPE_DYN(bench_dyn_names[i & (BENCH_DYN_NAMES - 1)]);
            BENCH_WORK();
        }
        BENCH_WORK();
    }
}

/* One stack buffer rewritten with each name in turn, as code that builds
 * names with snprintf does: the address stays, the text changes. */
__attribute__((noinline)) static void rec_dyn_buf_run(uint64_t n) {
    char name[32];
    for (uint64_t i = 0; i < n; i++) {
        memcpy(name, bench_dyn_names[i & (BENCH_DYN_NAMES - 1)], BENCH_DYN_COPY);
        {
            REC_SCOPE_DYN(name);
            BENCH_WORK();
        }
        BENCH_WORK();
    }
}

/* The same buffer, the names in no order the recorder could learn: the
 * worst case of a dynamic name (a full lookup by key, after a wrong guess). */
__attribute__((noinline)) static void rec_dyn_rand_run(uint64_t n) {
    char name[32];
    for (uint64_t i = 0; i < n; i++) {
        memcpy(name, bench_dyn_names[bench_dyn_order[i & (BENCH_DYN_ORDER - 1)]], BENCH_DYN_COPY);
        {
            REC_SCOPE_DYN(name);
            BENCH_WORK();
        }
        BENCH_WORK();
    }
}

__attribute__((noinline)) static void rec_filtered_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        {
            REC_SCOPE("bench.static." BENCH_FILTER_OUT);
            BENCH_WORK();
        }
        BENCH_WORK();
    }
}

__attribute__((noinline)) static void rec_dyn_filtered_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        {
            REC_SCOPE_DYN(bench_dyn_filtered[i & (BENCH_DYN_NAMES - 1)]);
            BENCH_WORK();
        }
        BENCH_WORK();
    }
}

/* A scope with two arguments, as a graph's node with its shape and type
 * (REC_ARG): minus "rec" in the same run, the cost of two REC_ARGs. */
__attribute__((noinline)) static void rec_arg_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        {
            REC_SCOPE("bench.static");
            REC_ARG("shape", "4096x32x1x1");
            REC_ARG("type", "q8_0");
            BENCH_WORK();
        }
        BENCH_WORK();
    }
}

/* The slot's head counts every entry this thread wrote. */
static uint64_t rec_entries(void) {
    struct rec_slot *s = rec__t.slot;
    return s ? __atomic_load_n(&s->head, __ATOMIC_RELAXED) : 0;
}

static const char *rec_why;

static int rec_thread_init(void) {
    if (rec_init() != 0) {
        rec_why = "recording is off (RECORDER=0 or no /dev/shm)";
        return -1;
    }
    REC_INSTANT("bench.attach");  /* claims this thread's slot now */
    return 0;
}

static const char *rec_unavailable(void) {
    return rec_why;
}

#define REC_VARIANT(k, w, fn) \
    {.key = k, .what = w, .run = fn, .entries = rec_entries, .thread_init = rec_thread_init, \
     .unavailable = rec_unavailable}

const struct bench_variant bench_rec_static =
    REC_VARIANT("rec", "REC_SCOPE(\"bench.static\")", rec_static_run);
const struct bench_variant bench_rec_dyn =
    REC_VARIANT("rec_dyn", "REC_SCOPE_DYN(name), 16 run-time names of 19-20 bytes, each in its buffer",
                rec_dyn_run);
const struct bench_variant bench_rec_dyn_buf =
    REC_VARIANT("rec_dynbuf", "REC_SCOPE_DYN(buf), buf rewritten with the 16 names in turn", rec_dyn_buf_run);
const struct bench_variant bench_rec_dyn_rand =
    REC_VARIANT("rec_dynrand", "REC_SCOPE_DYN(buf), buf rewritten with the 16 names in random order",
                rec_dyn_rand_run);
const struct bench_variant bench_rec_arg =
    REC_VARIANT("rec_arg", "REC_SCOPE(\"bench.static\") with REC_ARG(\"shape\", 11 bytes) and REC_ARG(\"type\", 4 bytes)",
                rec_arg_run);
const struct bench_variant bench_rec_filtered =
    REC_VARIANT("rec_filt", "REC_SCOPE of a static name in RECORDER_FILTER_OUT", rec_filtered_run);
const struct bench_variant bench_rec_dyn_filtered =
    REC_VARIANT("rec_dynfilt", "REC_SCOPE_DYN of run-time names in RECORDER_FILTER_OUT",
                rec_dyn_filtered_run);
