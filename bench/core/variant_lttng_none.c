/*
 * variant_lttng_none.c -- stands in for variant_lttng.c when lttng-ust is
 * not installed at build time.
 */
#include <stddef.h>

#include "variants.h"

static int lttng_init(void) {
    return -1;
}

static const char *lttng_why(void) {
    return "built without lttng-ust (install liblttng-ust-dev and reconfigure)";
}

const struct bench_variant bench_lttng_static = {
    .key = "lttng", .what = "LTTng-UST (not built)", .thread_init = lttng_init, .unavailable = lttng_why};
const struct bench_variant bench_lttng_dyn = {
    .key = "lttng_dyn", .what = "LTTng-UST (not built)", .thread_init = lttng_init, .unavailable = lttng_why};
