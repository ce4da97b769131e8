/*
 * writer.c -- the writer's implementation, compiled into the GPU library
 * once.  Loaded into a program that records (or not), it joins the
 * process's segment as any second copy of the implementation does
 * (docs/format.md, "Publishing"): the program's threads and the GPU's
 * lanes end up in one segment, on one clock.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "recorder/writer/lanes.h"
