/*
 * compile_compat.cpp -- both compatibility headers in C++11 (and with
 * RECORDER_DISABLE), outside the implementation file.
 */
#include "recorder/simple_perf.h"
#include "recorder/tracy.h"

void compile_compat_cpp(int k);
void compile_compat_cpp(int k) {
    char name_buffer[4096];
    begin_trace("build graph", name_buffer);
    {
        ZoneScoped;
        ZoneNameF("op.%d", k);
        ZoneTextF("k=%d", k);
        ZoneValue(k);
        TracyPlot("plot", k);
        TracyMessageL("literal");
        FrameMark;
    }
    end_trace(name_buffer);
}
