#define RECORDER_IMPLEMENTATION
#include "recorder.h"

/*
 * completion.cpp -- a stand-in llama-completion (tools/completion): the
 * snippets docs/llama.cpp.md gives for the program itself, compiled and
 * run.  It decodes a prompt of 8 tokens in one batch, then generates 4
 * tokens one at a time, on the stand-in context (llama_context.cpp) and
 * ggml (ggml_cpu.c), each a shared library with its own copy of the
 * implementation, as llama.cpp's are; the program has a third.
 *
 *   completion [--threads N] [--session TRACE.json]
 *
 * --session brackets the run with simple-perf's start_tracing_session() /
 * stop_tracing_session(TRACE.json), which need librecorder: the CMake
 * test links it the way the doc says.
 *
 * As in llama.cpp since its tools were split into a library and a thin
 * program, this file is the library (llama-completion-impl) and main.cpp
 * the program; cmake/ also builds the older shape, this file alone as
 * llama-completion.
 */
#include <cstdio>
#include <cstdlib>
#include <cstring>

/* snippet: simple-perf-include */
#include "recorder/simple_perf.h"     /* instead of simple-perf's header */
/* end snippet: simple-perf-include */

#include "llama_stub.h"

int completion_main(int argc, char **argv) {
    int n_threads = 3;
    const char *session = nullptr;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--threads")) n_threads = atoi(argv[i + 1]);
        else if (!strcmp(argv[i], "--session")) session = argv[i + 1];
    }
    if (session) start_tracing_session();

    llama_context ctx;
    ctx.n_threads = n_threads;
    llama_token prompt[8] = {1, 2, 3, 4, 5, 6, 7, 8};
    llama_pos pos[8] = {0, 1, 2, 3, 4, 5, 6, 7};
    int n_past = 0;
    if (ctx.decode(llama_batch{8, prompt, pos}) != 0) return 1;
    n_past += 8;
    for (int i = 0; i < 4; i++) {
        const llama_token id = 100 + i;  // "sampled"
        // snippet: token-instant
        // llama-completion (tools/completion): once a token `id` is sampled
        char msg[46];
        snprintf(msg, sizeof msg, "token %d at %d", id, n_past);
        REC_INSTANT("token", msg);
        // end snippet: token-instant
        const llama_pos p = n_past;
        if (ctx.decode(llama_batch{1, &id, &p}) != 0) return 1;
        n_past++;
    }

    ggml_stub_shutdown();
    if (session) stop_tracing_session(session);
    return 0;
}
