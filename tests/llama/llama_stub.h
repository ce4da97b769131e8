/*
 * llama_stub.h -- stand-ins for the parts of llama.cpp that the snippets
 * of docs/llama.cpp.md touch: a batch, a ubatch (its tokens' positions),
 * and a context whose decode() splits a batch into ubatches and computes
 * a graph per ubatch, building the graph only when the previous one cannot
 * be reused.  Our own minimal definitions, not llama.cpp's.
 */
#ifndef LLAMA_TEST_LLAMA_STUB_H
#define LLAMA_TEST_LLAMA_STUB_H

#include <cstdint>
#include <vector>

#include "ggml_stub.h"

typedef int32_t llama_pos;
typedef int32_t llama_token;

struct llama_batch {
    int32_t n_tokens;
    const llama_token *token;
    const llama_pos *pos;
};

struct llama_ubatch {
    uint32_t n_tokens;
    const llama_pos *pos;
};

struct llama_context {
    int n_threads = 1;
    uint32_t n_ubatch = 4;

    int decode(const llama_batch &batch_inp);

    /* stand-in internals */
    int process_ubatch(const llama_ubatch &ubatch);
    void build_graph(uint32_t n_tokens);
    std::vector<ggml_tensor> tensors;
    std::vector<ggml_tensor *> nodes;
    ggml_cgraph graph = {0, nullptr};
    uint32_t graph_tokens = 0;
};

/* The layers of the stand-in model's graph. */
#define LLAMA_STUB_LAYERS 2

/* The stand-in tool (completion.cpp): main.cpp's only call. */
int completion_main(int argc, char **argv);

#endif
