/* snippet: ggml-impl */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
/* end snippet: ggml-impl */

/*
 * ggml_cpu.c -- the snippets docs/llama.cpp.md gives for
 * ggml/src/ggml-cpu/ggml-cpu.c, compiled and run: each sits between
 * "snippet:" markers, which test_llama_doc.py compares with the doc's text
 * (lines between "snippet: hide" and "snippet: show" stand for ggml's own
 * code, which the doc does not repeat).  Around them, stand-ins of our own
 * (ggml_stub.h): a graph computed by a pool of threads the way ggml's CPU
 * backend does it -- every thread walks every node, skips views, tries a
 * fusion of the node with the next (RMS_NORM + MUL) before computing it,
 * and waits at a barrier between nodes.  Thread 0 is the caller.  Built
 * twice: with a pool of pthreads (GGML_OPENMP=OFF) and, where the compiler
 * has it, with OpenMP (-DGGML_USE_OPENMP -fopenmp, ggml's default), whose
 * pool has no thread function of ours.
 *
 * The snippet markers at the top: the implementation comes first in the
 * file, as the doc says.
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef GGML_USE_OPENMP
#include <omp.h>
#endif

#include "ggml_stub.h"

/* snippet: ggml-node-name */
/* recorder: the name for a node's tensor scope.  A node nobody named is
 * called "node_<its index in the graph>" by ggml, a different name in
 * every layer and graph: use the name of its first input instead, which
 * says the layer ("Qcur-6 (view) (permuted)" for flash attention). */
static const char * rec_node_name(const struct ggml_tensor * node) {
    if (strncmp(node->name, "node_", 5) == 0 && node->src[0] != NULL) {
        return node->src[0]->name;
    }
    return node->name;
}
/* end snippet: ggml-node-name */

/* ---- stand-ins -------------------------------------------------------- */

#define POOL_MAX 16

struct ggml_threadpool {
    int n_threads;
    struct ggml_compute_state workers[POOL_MAX];
    struct ggml_cgraph *cgraph;
    struct ggml_cplan *cplan;
#ifndef GGML_USE_OPENMP
    pthread_t thrd[POOL_MAX];
    pthread_barrier_t start;     /* a graph to compute (or stop) */
    pthread_barrier_t between;   /* ggml_barrier */
    int stop;
#endif
};

static struct ggml_threadpool pool;
static int pool_up;

const char *ggml_type_name(enum ggml_type type) { return type == GGML_TYPE_Q8_0 ? "q8_0" : "f32"; }

const char *ggml_op_desc(const struct ggml_tensor *t) {
    static const char *const names[GGML_OP_COUNT] = {"NONE", "VIEW", "RMS_NORM", "MUL", "MUL_MAT", "ROPE",
                                                     "FLASH_ATTN_EXT"};
    return t->op < GGML_OP_COUNT ? names[t->op] : "?";
}

static void spin_us(int64_t us) {
    struct timespec t0, t;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    do
        clock_gettime(CLOCK_MONOTONIC, &t);
    while ((t.tv_sec - t0.tv_sec) * 1000000 + (t.tv_nsec - t0.tv_nsec) / 1000 < us);
}

static void ggml_barrier(struct ggml_threadpool *tp);

/* A MUL_MAT waits for the other threads once inside the op, as ggml's
 * does after converting src1 (flash attention too, in real ggml). */
static void ggml_compute_forward(const struct ggml_compute_params *params, struct ggml_tensor *node) {
    spin_us(node->work);
    if (node->op == GGML_OP_MUL_MAT) ggml_barrier(params->threadpool);
}

/* RMS_NORM followed by the MUL of its result: both at once, one node
 * skipped (returns how many). */
static int ggml_cpu_try_fuse_ops(const struct ggml_cgraph *cgraph, int node_n,
                                 const struct ggml_compute_params *params, const struct ggml_cplan *cplan) {
    struct ggml_tensor *node = cgraph->nodes[node_n];
    if (cplan->use_ref || node->op != GGML_OP_RMS_NORM || node_n + 1 >= cgraph->n_nodes) return 0;
    struct ggml_tensor *next = cgraph->nodes[node_n + 1];
    if (next->op != GGML_OP_MUL || next->src[0] != node) return 0;
    (void)params;
    spin_us(node->work + next->work);
    return 1;
}

static void ggml_barrier(struct ggml_threadpool *tp) {
    if (tp->n_threads == 1) return;   /* ggml's own first lines */

    /* snippet: ggml-barrier */
    /* recorder: in ggml_barrier() (ggml-cpu.c), after its
     * `if (n_threads == 1) return;`: every barrier, between the nodes and
     * inside ops (mul_mat's src1 conversion, flash attention) */
    REC_SCOPE_WAIT("barrier");
    /* end snippet: ggml-barrier */
#ifdef GGML_USE_OPENMP
#pragma omp barrier
#else
    pthread_barrier_wait(&tp->between);
#endif
}

/* ---- the compute loop, instrumented ------------------------------------ */

static void *ggml_graph_compute_thread(void *data) {
    struct ggml_compute_state *state = (struct ggml_compute_state *)data;
    struct ggml_threadpool *tp = state->threadpool;
    const struct ggml_cgraph *cgraph = tp->cgraph;
    const struct ggml_cplan *cplan = tp->cplan;

    /* snippet: ggml-thread-name */
    /* recorder, ggml_graph_compute_thread() once `state` is set: name the
     * pool's threads, once each (thread 0 is the caller's own thread: it
     * keeps its name) */
    static _Thread_local int rec_named = -1;
    if (state->ith > 0 && rec_named != state->ith) {
        char name[32];
        snprintf(name, sizeof name, "ggml-worker-%d", state->ith);
        REC_THREAD_NAME(name);
        rec_named = state->ith;
    }
    /* end snippet: ggml-thread-name */

#ifdef GGML_USE_OPENMP
    int nth = omp_get_num_threads();
#else
    int nth = tp->n_threads;
#endif
    struct ggml_compute_params params = {state->ith, nth, tp};

    for (int node_n = 0; node_n < cgraph->n_nodes; node_n++) {
        struct ggml_tensor *node = cgraph->nodes[node_n];
        if (node->op == GGML_OP_VIEW) continue;  /* as ggml skips the nodes that need no work */

        /* snippet: ggml-ops */
        /* recorder, in the loop over nodes, after the nodes ggml skips: */
        REC_BEGIN_DYN(ggml_op_desc(node));   /* RMS_NORM, MUL_MAT, ROPE, ... */
        REC_BEGIN_DYN(rec_node_name(node));  /* norm-0, Qcur-0, ffn_up-12, ... */
        {   /* its shape and type: args of the node's slice (optional) */
            char ne[96];
            snprintf(ne, sizeof ne, "%lldx%lldx%lldx%lld", (long long)node->ne[0], (long long)node->ne[1],
                     (long long)node->ne[2], (long long)node->ne[3]);
            REC_ARG("ne", ne);
            REC_ARG("type", ggml_type_name(node->type));
        }

        /* ggml's lines: n_fused = ggml_cpu_try_fuse_ops(...), node_n
         * moved past the nodes it fused, or ggml_compute_forward(...) */
        /* snippet: hide */
        int n_fused = ggml_cpu_try_fuse_ops(cgraph, node_n, &params, cplan);
        if (n_fused == 0) ggml_compute_forward(&params, node);
        node_n += n_fused;
        /* snippet: show */

        if (n_fused > 0 && state->ith == 0) {
            /* node_n is the last node fused: the fusion's result.  Once
             * per graph, on thread 0: every thread runs the fusion */
            REC_INSTANT("fused", cgraph->nodes[node_n]->name);
        }
        REC_END();
        REC_END();
        /* end snippet: ggml-ops */

        if (node_n + 1 < cgraph->n_nodes) ggml_barrier(state->threadpool);
    }
    ggml_barrier(state->threadpool);
    return NULL;
}

#ifndef GGML_USE_OPENMP
static void *ggml_graph_compute_secondary_thread(void *data) {
    struct ggml_compute_state *state = (struct ggml_compute_state *)data;
    for (;;) {
        pthread_barrier_wait(&state->threadpool->start);
        if (state->threadpool->stop) return NULL;
        ggml_graph_compute_thread(state);
    }
}
#endif

static struct ggml_threadpool *pool_get(int n_threads) {
    if (pool_up) return &pool;
    pool.n_threads = n_threads < 1 ? 1 : n_threads > POOL_MAX ? POOL_MAX : n_threads;
    for (int j = 0; j < pool.n_threads; j++) {
        pool.workers[j].threadpool = &pool;
        pool.workers[j].ith = j;
    }
#ifndef GGML_USE_OPENMP
    pthread_barrier_init(&pool.start, NULL, (unsigned)pool.n_threads);
    pthread_barrier_init(&pool.between, NULL, (unsigned)pool.n_threads);
    for (int j = 1; j < pool.n_threads; j++)
        if (pthread_create(&pool.thrd[j], NULL, ggml_graph_compute_secondary_thread, &pool.workers[j]) != 0) abort();
#endif
    pool_up = 1;
    return &pool;
}

void ggml_stub_shutdown(void) {
    if (!pool_up) return;
#ifndef GGML_USE_OPENMP
    pool.stop = 1;
    pthread_barrier_wait(&pool.start);
    for (int j = 1; j < pool.n_threads; j++) pthread_join(pool.thrd[j], NULL);
    pthread_barrier_destroy(&pool.start);
    pthread_barrier_destroy(&pool.between);
#endif
    pool_up = 0;
}

enum ggml_status ggml_graph_compute(struct ggml_cgraph *cgraph, struct ggml_cplan *cplan) {
    /* snippet: ggml-graph-compute */
    REC_SCOPE("ggml_graph_compute");   /* recorder: first line of ggml_graph_compute() */
    /* end snippet: ggml-graph-compute */
    struct ggml_threadpool *tp = pool_get(cplan->n_threads);
    tp->cgraph = cgraph;
    tp->cplan = cplan;
#ifdef GGML_USE_OPENMP
#pragma omp parallel num_threads(tp->n_threads)
    ggml_graph_compute_thread(&tp->workers[omp_get_thread_num()]);
#else
    pthread_barrier_wait(&tp->start);
    ggml_graph_compute_thread(&tp->workers[0]);
#endif
    return GGML_STATUS_SUCCESS;
}
