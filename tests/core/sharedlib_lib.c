/*
 * sharedlib_lib.c -- a -fPIC shared library that defines
 * RECORDER_IMPLEMENTATION itself, as a library shipped on its own would.
 * Built twice by the sharedlib test: with default symbol visibility, and
 * with -fvisibility=hidden (then the process holds two real copies of the
 * implementation, which must share one segment).
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include "sharedlib_lib.h"

int lib_init(void) { return rec_init(); }
void lib_shutdown(void) { rec_shutdown(); }
const char *lib_segment_path(void) { return rec_segment_path(); }
void lib_instant(void) { REC_INSTANT("lib.first"); }

void lib_work(void (*cb)(void)) {
    REC_SCOPE("lib.work");
    REC_SCOPE_DYN("shared.dyn");
    cb();
}
