// snippet: llama-context-include
#include "recorder.h"   // recorder: with the other includes of src/llama-context.cpp
// end snippet: llama-context-include

/*
 * llama_context.cpp -- the snippets docs/llama.cpp.md gives for
 * src/llama-context.cpp (llama_impl.cpp has libllama's implementation), compiled
 * and run inside stand-ins of our own (llama_stub.h): decode() splits a
 * batch into ubatches of n_ubatch tokens and computes a graph per ubatch,
 * building it only when the previous graph does not fit.  The graph is
 * named the way llama.cpp names its tensors ("Qcur-0" for a MUL_MAT and
 * for the ROPE after it, "norm-0", a view "Qcur-0 (view) (permuted)", and a
 * flash attention node nobody named, so "node_<index>").  Built as a
 * shared library, as libllama is by default.
 */
#include <algorithm>
#include <cstdio>

#include "llama_stub.h"

int llama_context::decode(const llama_batch &batch_inp) {
    // snippet: llama-decode
    // llama_context::decode(), src/llama-context.cpp: first line
    REC_SCOPE("llama_decode");
    // snippet: hide
    if (batch_inp.n_tokens <= 0) return -1;
    const uint32_t n_tokens_all = (uint32_t)batch_inp.n_tokens;
    // snippet: show
    // once n_tokens_all (the batch's tokens) is set:
    REC_COUNTER("n_tokens", n_tokens_all);
    // snippet: hide
    for (uint32_t first = 0; first < n_tokens_all; first += n_ubatch) {
        const llama_ubatch ubatch = {std::min(n_ubatch, n_tokens_all - first), batch_inp.pos + first};
        // snippet: show
        // in the loop over ubatches, once `ubatch` is set: the position of
        // its last token (one sequence: the tokens in the context, minus 1)
        REC_COUNTER("pos", ubatch.pos[ubatch.n_tokens - 1]);
        // end snippet: llama-decode
        if (process_ubatch(ubatch) != 0) return -3;
    }
    return 0;
}

int llama_context::process_ubatch(const llama_ubatch &ubatch) {
    if (graph_tokens != ubatch.n_tokens) {  // the previous graph cannot be reused
        // snippet: llama-build-graph
        // llama_context::process_ubatch(): first line of the branch that
        // builds a new graph (taken only when the last one cannot be reused)
        REC_SCOPE("build graph");
        // end snippet: llama-build-graph
        build_graph(ubatch.n_tokens);
    }
    ggml_cplan plan = {n_threads, false};
    return ggml_graph_compute(&graph, &plan) == GGML_STATUS_SUCCESS ? 0 : -1;
}

void llama_context::build_graph(uint32_t n_tokens) {
    static const struct {
        ggml_op op;
        const char *name;    // "<name>-<layer><suffix>"; nullptr: unnamed
        const char *suffix;
        int src;             // index in the layer of src[0], -1: the layer's input
        int64_t work;        // us per token
    } layer[] = {
        {GGML_OP_RMS_NORM, "norm", "", -1, 20},
        {GGML_OP_MUL, "attn_norm", "", 0, 10},
        {GGML_OP_MUL_MAT, "Qcur", "", 1, 60},
        {GGML_OP_ROPE, "Qcur", "", 2, 15},
        {GGML_OP_VIEW, "Qcur", " (view) (permuted)", 3, 0},
        {GGML_OP_FLASH_ATTN_EXT, nullptr, "", 4, 40},
        {GGML_OP_MUL_MAT, "ffn_up", "", 5, 80},
    };
    const int per_layer = (int)(sizeof layer / sizeof layer[0]);
    tensors.assign((size_t)(1 + LLAMA_STUB_LAYERS * per_layer), ggml_tensor());
    nodes.clear();
    ggml_tensor *input = &tensors[0];
    snprintf(input->name, sizeof input->name, "inp_embd");
    for (int il = 0; il < LLAMA_STUB_LAYERS; il++) {
        ggml_tensor *first = &tensors[(size_t)(1 + il * per_layer)];
        for (int k = 0; k < per_layer; k++) {
            ggml_tensor *t = first + k;
            t->op = layer[k].op;
            t->src[0] = layer[k].src < 0 ? input : first + layer[k].src;
            t->work = layer[k].work * (int64_t)n_tokens;
            t->ne[0] = 4096;
            t->ne[1] = n_tokens;
            t->ne[2] = t->ne[3] = 1;
            t->type = t->op == GGML_OP_MUL_MAT ? GGML_TYPE_Q8_0 : GGML_TYPE_F32;
            if (!layer[k].name)
                snprintf(t->name, sizeof t->name, "node_%d", (int)nodes.size());  // ggml's name for it
            else
                snprintf(t->name, sizeof t->name, "%s-%d%s", layer[k].name, il, layer[k].suffix);
            nodes.push_back(t);
        }
        input = first + per_layer - 1;
    }
    graph.n_nodes = (int)nodes.size();
    graph.nodes = nodes.data();
    graph_tokens = n_tokens;
}
