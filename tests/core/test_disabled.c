/*
 * test_disabled.c -- built with -DRECORDER_DISABLE (and extra warnings, as
 * errors): every macro vanishes.
 *
 * The build is half the test: values, parameters and buffers that only the
 * tracing uses must not turn into "unused" warnings, which -Werror would
 * make a broken build.  At run time: the arguments are not evaluated,
 * rec_init() returns -1, rec_segment_path() is NULL, and no segment exists.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"

static int evaluated;

static int side_effect(void) { return ++evaluated; }

/* Parameters used only by the tracing. */
static void layer(int i, const char *op, double load, unsigned long long flow) {
    REC_SCOPE("layer");
    REC_SCOPE_DYN(op);
    REC_COUNTER("load", load);
    REC_INSTANT("layer.mark");
    REC_INSTANT("layer.msg", op);
    REC_ARG("op", op);
    REC_FLOW_STEP(flow);
    REC_BEGIN("explicit");
    REC_END();
    REC_BEGIN_DYN(op);
    REC_END();
    (void)i;
}

int main(void) {
    REC_THREAD_NAME("main");
    char name[64];
    snprintf(name, sizeof name, "matmul_blk.%d.attn_q", 3);
    REC_SCOPE_DYN(name);
    double kv = 1234.5;          /* only traced */
    unsigned long long id = 42;  /* only traced */
    const char *msg = "hello";   /* only traced */
    REC_COUNTER("kv_cache", kv);
    REC_FLOW_BEGIN(id);
    REC_FLOW_END(id);
    REC_INSTANT("start", msg);
    REC_COUNTER("calls", side_effect());
    REC_INSTANT("calls", side_effect() ? "a" : "b");
    REC_FLOW_STEP(side_effect());
    REC_ARG("calls", side_effect() ? "a" : "b");
    layer(1, "op", 0.5, 7);
    for (int i = 0; i < 3; i++) {
        REC_SCOPE("loop");
        REC_SCOPE("loop.inner");
    }
    CHECK_EQ_U(evaluated, 0);
    CHECK(rec_init() == -1);
    CHECK(rec_segment_path() == NULL);
    rec_shutdown();
    char path[64];
    snprintf(path, sizeof path, "/dev/shm/recorder.%d", (int)getpid());
    CHECK(access(path, F_OK) != 0);
    CHECK_DONE();
}
