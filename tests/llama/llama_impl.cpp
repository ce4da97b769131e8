// snippet: llama-impl
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
// end snippet: llama-impl

/*
 * llama_impl.cpp -- stands for src/llama.cpp, the one file of libllama
 * that holds recorder's implementation (docs/llama.cpp.md, section 2);
 * the other files of the library that record (llama_context.cpp) only
 * include recorder.h.
 */
