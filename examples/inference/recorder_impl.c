/* The one file of the program that compiles recorder's implementation. */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
