/*
 * ggml_stub.h -- stand-ins for the few parts of ggml that the snippets of
 * docs/llama.cpp.md touch: a tensor with an op, sources and a name,
 * a graph, a plan, compute parameters, a pool thread's state.  Our own
 * minimal definitions, shaped like ggml's where a snippet reads a field,
 * so the snippets compile here as they would in ggml-cpu.c; nothing else
 * of ggml is imitated.
 */
#ifndef LLAMA_TEST_GGML_STUB_H
#define LLAMA_TEST_GGML_STUB_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

enum ggml_op {
    GGML_OP_NONE,
    GGML_OP_VIEW,       /* a view: no work, skipped by the compute loop */
    GGML_OP_RMS_NORM,
    GGML_OP_MUL,
    GGML_OP_MUL_MAT,
    GGML_OP_ROPE,
    GGML_OP_FLASH_ATTN_EXT,
    GGML_OP_COUNT
};

enum ggml_type { GGML_TYPE_F32 = 0, GGML_TYPE_Q8_0 = 8 };

#define GGML_MAX_SRC 10
#define GGML_MAX_NAME 64

struct ggml_tensor {
    enum ggml_op op;
    struct ggml_tensor *src[GGML_MAX_SRC];
    char name[GGML_MAX_NAME];
    int64_t ne[4];               /* its dimensions, as ggml's */
    enum ggml_type type;
    int64_t work;                /* stand-in: how long computing it takes (us) */
};

struct ggml_cgraph {
    int n_nodes;
    struct ggml_tensor **nodes;
};

struct ggml_threadpool;

struct ggml_cplan {
    int n_threads;
    bool use_ref;
};

struct ggml_compute_params {
    int ith, nth;
    struct ggml_threadpool *threadpool;
};

/* One thread of the pool: ith 0 is the thread that called the compute. */
struct ggml_compute_state {
    struct ggml_threadpool *threadpool;
    int ith;
};

enum ggml_status { GGML_STATUS_SUCCESS = 0, GGML_STATUS_FAILED = -1 };

const char *ggml_op_desc(const struct ggml_tensor *t);
const char *ggml_type_name(enum ggml_type type);
enum ggml_status ggml_graph_compute(struct ggml_cgraph *cgraph, struct ggml_cplan *cplan);
/* Stand-in only: stops and joins the pool's threads. */
void ggml_stub_shutdown(void);

#ifdef __cplusplus
}
#endif

#endif
