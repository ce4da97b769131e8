/*
 * collect.h -- callgrind's collection switch and labelled dumps for the
 * instruction-count benchmarks (bench_names.c, bench_cycle.c): each
 * counted loop runs between two COLLECT()s and is dumped under a label
 * that names.sh and cycle.sh read back.  Without valgrind's header
 * (BENCH_HAVE_CALLGRIND unset) they do nothing and the programs still run.
 */
#ifndef BENCH_COLLECT_H
#define BENCH_COLLECT_H

#if defined(BENCH_HAVE_CALLGRIND)
#include <valgrind/callgrind.h>
#define COLLECT() CALLGRIND_TOGGLE_COLLECT
#define DUMP(label) CALLGRIND_DUMP_STATS_AT(label)
#else
#define COLLECT() ((void)0)
#define DUMP(label) ((void)(label))
#endif

#endif
