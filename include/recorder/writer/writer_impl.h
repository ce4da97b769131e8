/*
 * writer_impl.h -- the implementation of recorder.h, compiled into the one
 * file of a program (or of each shared library) that defines
 * RECORDER_IMPLEMENTATION before including recorder.h.  Everything on the
 * hot path is inline in recorder.h; what is here runs once per process,
 * once per thread, or once per distinct name.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Each part uses only the parts above it: no forward declaration crosses
 * from one file to another (tests/core/check_layout.py checks the order). */
#include "writer_config.h"
#include "writer_state.h"
#include "writer_strtab.h"
#include "writer_segment.h"
#include "writer_threads.h"
#include "writer_names.h"
#include "lanes.h"
#include "writer_lanes.h"

#ifdef __cplusplus
}
#endif
