/*
 * strict_c.c -- recorder.h and the compatibility headers in C, compiled
 * by strict_headers.py under the union of big projects' warning sets
 * (docs/compat.md, "Strict warnings"), as the implementation file and as
 * an ordinary one.  Compiled, not run.
 */
#include "recorder.h"
#include "recorder/simple_perf.h"
#include "recorder/tracy.h"

int strict_c_user(int k);
int strict_c_user(int k) {
    REC_SCOPE("strict_c");
    char dyn[32] = "dyn";
    REC_SCOPE_DYN(dyn);
    { REC_SCOPE_WAIT("strict_c_wait"); }
    { REC_SCOPE_WAIT_DYN(dyn); }
    REC_BEGIN("pair");
    REC_END();
    REC_INSTANT("mark");
    REC_INSTANT("mark", "with a message");
    REC_COUNTER("counter", (double)k);
    REC_FLOW_BEGIN(1);
    REC_FLOW_STEP(1);
    REC_FLOW_END(1);
    REC_THREAD_NAME("strict");
    char name_buffer[64];
    begin_trace("simple-perf", name_buffer);
    end_trace("simple-perf");
    TracyCZoneN(ctx, "zone", 1);
    TracyCZoneValue(ctx, (uint64_t)k);
    TracyCZoneEnd(ctx);
    TracyCPlot("plot", (double)k);
    return k;
}
