/*
 * variant_lttng.c -- the same scopes as LTTng-UST tracepoints.  They record
 * only while an LTTng session with these events enabled is active (run.sh
 * starts one); otherwise a tracepoint is a load and a branch and the
 * variant reports itself unavailable rather than time that.
 */
#include "bench_tp.h"
#include "variants.h"

__attribute__((noinline)) static void lttng_static_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        lttng_ust_tracepoint(recbench, begin, 42);
        BENCH_WORK();
        lttng_ust_tracepoint(recbench, end, 42);
        BENCH_WORK();
    }
}

__attribute__((noinline)) static void lttng_dyn_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        const char *name = bench_dyn_names[i & (BENCH_DYN_NAMES - 1)];
        lttng_ust_tracepoint(recbench, begin_str, name);
        BENCH_WORK();
        lttng_ust_tracepoint(recbench, end_str, name);
        BENCH_WORK();
    }
}

static int lttng_enabled(void) {
    return lttng_ust_tracepoint_enabled(recbench, begin) &&
           lttng_ust_tracepoint_enabled(recbench, end) &&
           lttng_ust_tracepoint_enabled(recbench, begin_str) &&
           lttng_ust_tracepoint_enabled(recbench, end_str);
}

static int lttng_init(void) {
    return lttng_enabled() ? 0 : -1;
}

static const char *lttng_why(void) {
    return "no active LTTng session with recbench:* enabled (run bench/core/run.sh as root)";
}

const struct bench_variant bench_lttng_static = {
    .key = "lttng",
    .what = "LTTng-UST tracepoints begin/end with an integer id",
    .run = lttng_static_run,
    .thread_init = lttng_init,
    .unavailable = lttng_why,
};
const struct bench_variant bench_lttng_dyn = {
    .key = "lttng_dyn",
    .what = "LTTng-UST tracepoints begin_str/end_str with the name as a string",
    .run = lttng_dyn_run,
    .thread_init = lttng_init,
    .unavailable = lttng_why,
};
