/*
 * args_prog.c -- scope arguments (REC_ARG) for test_args.py: a ggml-like
 * node with its shape and type, nested scopes each with their own, a
 * scope given more than XS_ARGS_MAX, a value cut, a key repeated in one
 * scope, and one with no scope open.  Exits when done; its segment is
 * what the test reads.
 */
#include <stdio.h>
#include <unistd.h>

#define RECORDER_IMPLEMENTATION
#include "recorder.h"

int main(void) {
    REC_THREAD_NAME("main");
    REC_ARG("orphan", "no scope");   /* counted as args_outside */
    for (int i = 0; i < 3; i++) {
        REC_SCOPE("graph");
        char shape[64];
        snprintf(shape, sizeof shape, "4096x%dx1x1", 32 + i);
        {
            REC_SCOPE("mul_mat");
            REC_ARG("shape", shape);
            REC_ARG("type", "q8_0");
        }
        REC_ARG("layer", i == 0 ? "0" : i == 1 ? "1" : "2");
    }
    {
        REC_SCOPE("many");
        REC_ARG("long", "0123456789012345678901234567890123456789012345678901234567890");
        REC_ARG("a0", "v");
        REC_ARG("a1", "v");
        REC_ARG("a2", "v");
        REC_ARG("a3", "v");
        REC_ARG("a4", "v");
        REC_ARG("a5", "v");
        REC_ARG("a6", "v");
        REC_ARG("a7", "v");   /* the 9th and 10th: counted as args_over */
        REC_ARG("a8", "v");
    }
    {
        REC_SCOPE("again");          /* a key repeated: numbered, every value kept */
        REC_ARG("step", "1");
        REC_ARG("step", "2");
        REC_ARG("step", "3");
    }
    printf("pid %d\n", (int)getpid());
    return 0;
}
