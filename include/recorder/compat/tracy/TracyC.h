/* <tracy/TracyC.h> for C code instrumented for Tracy: with
 * include/recorder/compat on the include path, it records with recorder.
 * See recorder/tracy.h and docs/compat.md. */
#include "../tracy.h"
