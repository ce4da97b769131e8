/*
 * simple_perf.h -- the path users include for the simple-perf compatibility
 * header (docs/compat.md).  The header lives with the other compatibility
 * headers in recorder/compat/; this name stays so code written against it,
 * and the seed snippets compiled verbatim, keep compiling.
 */
#include "compat/simple_perf.h"
