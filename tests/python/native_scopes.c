/*
 * native_scopes.c -- a C library that includes recorder.h, as a ggml
 * binding or a custom op would, for test_native.py: loaded into Python
 * with ctypes, it has its own copy of the writer (hidden visibility) that
 * joins the process's segment, so its scopes land on the calling Python
 * thread's lane, inside the Python scope that called it.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>

#define EXPORT __attribute__((visibility("default")))

typedef int (*native_cb)(int);

/* native_work > native_step.<i> > cb(i) (a Python function, recorded too) */
EXPORT int native_work(int n, native_cb cb) {
    REC_SCOPE("native_work");
    int acc = 0;
    for (int i = 0; i < n; i++) {
        char name[32];
        snprintf(name, sizeof name, "native_step.%d", i);
        REC_SCOPE_DYN(name);
        acc += cb ? cb(i) : i;
    }
    REC_COUNTER("native_acc", acc);
    return acc;
}

EXPORT const char *native_segment(void) {
    rec_init();
    return rec_segment_path();
}
