/*
 * seed_llama.cpp -- the C++ snippets of llama.cpp's simple-perf guide (the
 * seed document), compiled verbatim against recorder/simple_perf.h: main()
 * with start_tracing_session/stop_tracing_session, and llama_decode_impl()
 * with begin_trace("build graph", name_buffer).  The lines between
 * "verbatim" markers are the guide's; around them is the least scaffolding
 * that makes them compile and run.
 *
 * The guide's main loop has an elided body ("// ..."), so the scaffold's
 * n_remain does the work: each `n_remain != 0` runs one decode step, which
 * runs seed_ggml.c's verbatim ggml_compute_forward on four worker threads.
 * stop_tracing_session("./trace.txt") then writes Perfetto JSON to the
 * working directory; test_seed_snippets.py checks it.
 */
#include <cstdio>
#include <cstring>
#include <thread>
#include <vector>

#include "recorder/simple_perf.h"

extern "C" void seed_ggml_compute(int ith, int nth, const char *tensor_name, float *dst, const float *a,
                                  const float *b, int n);

/* The guide's llama_decode_impl ends in an elided "// ..." with no return,
 * and leaves parameters and a result unused: silence exactly those. */
#pragma GCC diagnostic ignored "-Wreturn-type"
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wunused-variable"

/* ---- scaffold: what the snippets refer to ---- */

struct llama_context {
    int n_layer;
};
struct llama_batch {
    int n_tokens;
};
struct ggml_cgraph;
struct ggml_threadpool;
static ggml_cgraph *gf;
static int n_threads = 4;
static ggml_threadpool *threadpool;
static int llama_graph_compute(llama_context &, ggml_cgraph *, int, ggml_threadpool *) { return 0; }

static const int kThreads = 4, kSteps = 3;
static const char *const kTensors[] = {"blk.0.attn_q", "blk.0.ffn_up", "blk.1.attn_q", "blk.1.ffn_up"};

/* One decode step: the graph's matmuls on kThreads worker threads, under
 * a "build graph" scope on this thread, recorded as the guide's
 * llama_decode_impl records it. */
static void decode_step() {
    char name_buffer[4096];
    begin_trace("build graph", name_buffer);
    std::vector<std::thread> workers;
    for (int ith = 0; ith < kThreads; ith++)
        workers.emplace_back([ith] {
            float a[64], b[64], dst;
            for (int i = 0; i < 64; i++) a[i] = b[i] = (float)(i + ith);
            for (const char *t : kTensors) seed_ggml_compute(ith, kThreads, t, &dst, a, b, 64);
        });
    for (auto &w : workers) w.join();
    end_trace(name_buffer);
}

/* `n_remain != 0` runs the next step, while steps remain. */
struct Remaining {
    int left;
    bool operator!=(int) {
        if (left <= 0) return false;
        left--;
        decode_step();
        return true;
    }
};
static Remaining n_remain = {kSteps};
static bool is_antiprompt = false;
static struct {
    bool interactive;
} params = {false};

/* Recorded before the session starts: must not be in the trace. */
static struct BeforeSession {
    BeforeSession() {
        char buf[64];
        begin_trace("before_session", buf);
        end_trace(buf);
    }
} before_session;

/* ---- verbatim ---- */

int main(int argc, char ** argv) {
    start_tracing_session();
    while ((n_remain != 0 && !is_antiprompt) || params.interactive) {
        // ...
    }
    stop_tracing_session("./trace.txt");
}

/* ---- end of verbatim ---- */

/* ---- verbatim ---- */

static int llama_decode_impl(
         llama_context & lctx,
           llama_batch   inp_batch) {
        // ...
        char name_buffer[4096];
        begin_trace("build graph", name_buffer);
        const auto compute_status = llama_graph_compute(lctx, gf, n_threads, threadpool);
        end_trace(name_buffer);
        // ...
}

/* ---- end of verbatim ---- */

/* Compiled, not called: with its elided return it cannot be run. */
int (*seed_llama_decode_impl)(llama_context &, llama_batch) = llama_decode_impl;
