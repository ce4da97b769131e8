/*
 * rec_impl.c -- the recorder's implementation for the benchmark, in a file
 * of its own as in a real program, so the timed loops (variant_recorder.c)
 * reach rec__t the way user code does.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
