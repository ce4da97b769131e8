/*
 * lttng_provider.c -- instantiates the tracepoint provider (probes and
 * tracepoint definitions) of bench_tp.h, statically linked into
 * bench_scope.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "bench_tp.h"
