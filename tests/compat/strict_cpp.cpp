// strict_cpp.cpp -- recorder.h and the compatibility headers in C++,
// compiled by strict_headers.py under the union of big projects' warning
// sets (docs/compat.md, "Strict warnings"), as the implementation file and
// as an ordinary one.  Compiled, not run.
#include "recorder.h"
#include "recorder/compat/tracy/Tracy.hpp"
#include "recorder/simple_perf.h"

int strict_cpp_user(int k);
int strict_cpp_user(int k) {
    REC_SCOPE("strict_cpp");
    char dyn[32] = "dyn";
    REC_SCOPE_DYN(dyn);
    { REC_SCOPE_WAIT("strict_cpp_wait"); }
    { REC_SCOPE_WAIT_DYN(dyn); }
    REC_INSTANT("mark", "with a message");
    REC_COUNTER("counter", static_cast<double>(k));
    ZoneScopedN("zone");
    FrameMark;
    TracyPlot("plot", static_cast<int64_t>(k));
    char name_buffer[64];
    begin_trace("simple-perf", name_buffer);
    end_trace("simple-perf");
    return k;
}
