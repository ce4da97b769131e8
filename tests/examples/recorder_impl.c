/* The seed snippets' program: the one file that compiles recorder's
 * implementation, so that the snippets' files stay as the guide has them. */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
