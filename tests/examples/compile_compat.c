/*
 * compile_compat.c -- both compatibility headers in a file that is not
 * the implementation, built as strict C99 and C11 and with
 * RECORDER_DISABLE (tests/examples/meson.build): users' -std and -Werror
 * must not break on them.
 */
#include "recorder/simple_perf.h"
#include "recorder/tracy.h"

void compile_compat_c(int k);
void compile_compat_c(int k) {
    char name_buffer[4096];
    begin_trace("build graph", name_buffer);
    TracyCZoneN(ctx, "zone", 1);
    TracyCZoneName(ctx, "name", 4);
    TracyCZoneText(ctx, "text", 4);
    TracyCZoneValue(ctx, k);
    TracyCPlot("plot", k);
    TracyCMessage("message", 7);
    TracyCMessageL("literal");
    TracyCZoneEnd(ctx);
    TracyCFrameMark
    end_trace(name_buffer);
}

void compile_compat_session(void);
void compile_compat_session(void) {
    start_tracing_session();
    stop_tracing_session("trace.json");
}
