/*
 * capture_child.h -- `recorder capture -o FILE -- CMD`: the command we
 * start, wait for, and whose segment we attach to and clean up.
 */
#ifndef RECORDER_CLI_CAPTURE_CHILD_H
#define RECORDER_CLI_CAPTURE_CHILD_H

#include <sys/types.h>

#include "descendants.h"
#include "recorder/reader.h"

/* The ring size a launched command gets unless told otherwise: 64 MiB
 * (4 M entries) per thread rides out the pauses a shared machine gives a
 * consumer while one thread writes at full speed (docs/performance/
 * capture.md); a 1 MiB ring lasts about a millisecond. */
#define CAPTURE_CHILD_RING_KB "65536"

struct capture_child {
    pid_t pid;
    int remove_segments;      /* we set RECORDER_KEEP: the segments are ours to remove */
    struct descendants d;     /* its segment and those of the processes it starts */
};

/* Start cmd with RECORDER_RING_KB = ring_kb (NULL: the environment's, or
 * CAPTURE_CHILD_RING_KB) and RECORDER_KEEP=pid:<its pid> (so that a
 * command that exits before we attach still leaves its events), or, with
 * keep_all (`recorder run`, which writes every segment of the tree and
 * removes it itself), RECORDER_KEEP=1.  Returns 0, or the exit status to
 * end with (the reason printed). */
int capture_child_start(struct capture_child *c, char **cmd, const char *ring_kb, int keep_all);

/* Wait until the command's segment exists and open it: for streaming
 * while it runs (*live = 1), or, if it has already exited, as it left it
 * (*live = 0).  Returns REC_OK, or REC_ERR_NOTFOUND, printing nothing:
 * the command exited without ever recording (it may have run programs
 * that did, which descendants.c found). */
int capture_child_attach(struct capture_child *c, rec_seg **seg, int *live);

/* Has the command exited?  Cheap: called on every capture pass, so that
 * the segments of short-lived processes it starts are seen in time. */
int capture_child_exited(struct capture_child *c);

/* Wait for the command to exit; returns its exit status. */
int capture_child_wait(struct capture_child *c);

/* After the command exited: remove the segments that it and the
 * processes it started left (the command's own was kept for us; a child
 * that ended with _exit or crashed keeps its own), unless the user asked
 * for RECORDER_KEEP.  Frees what capture_child_start took. */
void capture_child_cleanup(struct capture_child *c);

#endif
