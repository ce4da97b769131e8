/*
 * main.cpp -- the stand-in llama-completion program of llama.cpp's newer
 * shape: all it does is call the tool's library (completion.cpp, built as
 * llama-completion-impl), which records; this file does not include
 * recorder.h.
 */
#include "llama_stub.h"

int main(int argc, char **argv) { return completion_main(argc, argv); }
