/*
 * capture_child.h -- `recorder capture -o FILE -- CMD`: the command we
 * start, wait for, and whose segment we attach to and clean up.
 */
#ifndef RECORDER_CLI_CAPTURE_CHILD_H
#define RECORDER_CLI_CAPTURE_CHILD_H

#include <sys/types.h>

#include "recorder/reader.h"

/* The ring size a launched command gets unless told otherwise: 64 MiB
 * (4 M entries) per thread rides out the pauses a shared machine gives a
 * consumer while one thread writes at full speed (docs/performance/
 * capture.md); a 1 MiB ring lasts about a millisecond. */
#define CAPTURE_CHILD_RING_KB "65536"

struct capture_child {
    pid_t pid;
    int reaped, status;       /* status: the wait status, once reaped */
    int remove_segment;       /* we set RECORDER_KEEP: the segment is ours to remove */
};

/* Start cmd with RECORDER_RING_KB = ring_kb (NULL: the environment's, or
 * CAPTURE_CHILD_RING_KB) and RECORDER_KEEP=1 (so that a command that exits
 * before we attach still leaves its events).  Returns 0, or the exit
 * status to end with (the reason printed). */
int capture_child_start(struct capture_child *c, char **cmd, const char *ring_kb);

/* Wait until the command's segment exists and open it: for streaming
 * while it runs (*live = 1), or, if it has already exited, as it left it
 * (*live = 0).  Returns REC_OK, or a status with the reason printed (the
 * command exited without ever recording). */
int capture_child_attach(struct capture_child *c, rec_seg **seg, int *live);

/* Has the command exited?  Reaps it (once). */
int capture_child_exited(struct capture_child *c);

/* Wait for the command to exit; returns its exit status. */
int capture_child_wait(struct capture_child *c);

/* Remove the segment at path if we made it outlive the command and the
 * command is gone. */
void capture_child_cleanup(struct capture_child *c, const char *path);

#endif
