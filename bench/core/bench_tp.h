/*
 * bench_tp.h -- the LTTng-UST tracepoint provider of the hot-path benchmark:
 * a scope is a begin and an end event, with an integer name id (static
 * names) or the name as a string (run-time names), the closest LTTng
 * equivalents of recorder's two kinds of scope.
 */
#undef LTTNG_UST_TRACEPOINT_PROVIDER
#define LTTNG_UST_TRACEPOINT_PROVIDER recbench

#undef LTTNG_UST_TRACEPOINT_INCLUDE
#define LTTNG_UST_TRACEPOINT_INCLUDE "./bench_tp.h"

#if !defined(BENCH_TP_H) || defined(LTTNG_UST_TRACEPOINT_HEADER_MULTI_READ)
#define BENCH_TP_H

#include <lttng/tracepoint.h>

LTTNG_UST_TRACEPOINT_EVENT(recbench, begin, LTTNG_UST_TP_ARGS(uint32_t, id),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint32_t, id, id)))
LTTNG_UST_TRACEPOINT_EVENT(recbench, end, LTTNG_UST_TP_ARGS(uint32_t, id),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_integer(uint32_t, id, id)))
LTTNG_UST_TRACEPOINT_EVENT(recbench, begin_str, LTTNG_UST_TP_ARGS(const char *, name),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_string(name, name)))
LTTNG_UST_TRACEPOINT_EVENT(recbench, end_str, LTTNG_UST_TP_ARGS(const char *, name),
    LTTNG_UST_TP_FIELDS(lttng_ust_field_string(name, name)))

#endif /* BENCH_TP_H */

#include <lttng/tracepoint-event.h>
