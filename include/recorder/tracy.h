/*
 * tracy.h -- the path users include for the Tracy compatibility header
 * (docs/compat.md).  The header lives with the other compatibility headers
 * in recorder/compat/; this name stays so code written against it keeps
 * compiling.
 */
#include "compat/tracy.h"
