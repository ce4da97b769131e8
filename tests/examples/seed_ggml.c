/*
 * seed_ggml.c -- the ggml snippet of llama.cpp's simple-perf guide (the
 * seed document), compiled verbatim against recorder/simple_perf.h.  The
 * lines between "verbatim" markers are the guide's; around them is the
 * least scaffolding that lets them compile: a tensor with a name and an
 * op, and the functions the snippet calls.
 */
#include <stdio.h>
#include <string.h>

#include "recorder/simple_perf.h"

/* The snippet bounds strncat by the source's length, which GCC rightly
 * flags; it is the guide's code, so the flag is silenced here only. */
#if defined(__GNUC__) && !defined(__clang__)
#pragma GCC diagnostic ignored "-Wstringop-overflow"
#endif

enum { GGML_OP_NONE = 0, GGML_OP_MUL_MAT = 29 };

struct ggml_compute_params {
    int ith, nth;
};

struct ggml_tensor {
    int op;
    char name[64];
    float *dst;
    const float *a, *b;
    int n;
};

/* A small real product, so the scope has something to time. */
static void ggml_compute_forward_mul_mat(const struct ggml_compute_params *params, struct ggml_tensor *tensor) {
    (void)params;
    float s = 0;
    for (int i = 0; i < tensor->n; i++) s += tensor->a[i] * tensor->b[i];
    *tensor->dst = s;
}

/* ---- verbatim ---- */

static void ggml_compute_forward(struct ggml_compute_params * params, struct ggml_tensor * tensor) {
    // ...
    switch (tensor->op) {
        // ...
        case GGML_OP_MUL_MAT:
            {
                char name_buffer[4096];
                char inputname[1024] = "matmul_";
                strncat(inputname, tensor->name, strlen(tensor->name)); 
                begin_trace(inputname, name_buffer);
                ggml_compute_forward_mul_mat(params, tensor);
                end_trace(name_buffer);
            } break;
    }
    // ...
}

/* ---- end of verbatim ---- */

/* What the C++ side's worker threads call. */
void seed_ggml_compute(int ith, int nth, const char *tensor_name, float *dst, const float *a, const float *b, int n);
void seed_ggml_compute(int ith, int nth, const char *tensor_name, float *dst, const float *a, const float *b, int n) {
    struct ggml_compute_params params = {ith, nth};
    struct ggml_tensor t;
    memset(&t, 0, sizeof t);
    t.op = GGML_OP_MUL_MAT;
    snprintf(t.name, sizeof t.name, "%s", tensor_name);
    t.dst = dst;
    t.a = a;
    t.b = b;
    t.n = n;
    ggml_compute_forward(&params, &t);
    t.op = GGML_OP_NONE;  /* not traced: the snippet traces matmuls only */
    ggml_compute_forward(&params, &t);
}
