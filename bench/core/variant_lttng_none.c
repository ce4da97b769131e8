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
    "lttng", "LTTng-UST (not built)", NULL, NULL, lttng_init, lttng_why};
const struct bench_variant bench_lttng_dyn = {
    "lttng_dyn", "LTTng-UST (not built)", NULL, NULL, lttng_init, lttng_why};
