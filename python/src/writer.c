/*
 * writer.c -- the extension's copy of the writer (include/recorder.h).
 *
 * Compiled with hidden visibility like the rest of the extension, it is a
 * copy of its own: the first copy in the process to record creates the
 * segment, and the others (a C library loaded with ctypes, another
 * extension) join it and the same thread slots, so their scopes land on
 * the same lanes, nested in the Python scopes that called them
 * (include/recorder/writer/writer_segment.h, "join").
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
