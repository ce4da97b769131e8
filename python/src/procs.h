/*
 * procs.h -- what the runner asks of its process's segment (writer.c, the
 * copy of the writer that owns it; procs.c, the Python side): its ring
 * size, its process name, and its removal on SIGTERM.
 */
#ifndef PYREC_PROCS_H
#define PYREC_PROCS_H

#include <stddef.h>
#include <stdint.h>

/* Each thread's ring in bytes (the segment made if need be); 0 if off. */
uint64_t pyrec_ring_bytes(void);
/* The segment's process name, if this copy made the segment: 0, else -1. */
int pyrec_set_process_name(const char *s, size_t n);
/* Close the segment as the writer's atexit does (os._exit() skips it). */
void pyrec_close_segment(void);
/* SIGTERM removes the segment (unless kept or a launcher waits for it),
 * then ends the process as before; only where SIGTERM's action is the
 * default.  0, or -1. */
int pyrec_unlink_on_term(void);

#endif
