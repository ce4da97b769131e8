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
    int add_tree;             /* capture -- CMD: the other processes of the tree go into the capture */
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

/* After the command exited, before the capture's end: every other
 * process of its tree, as its segment holds it now (kept for us however
 * short its life), added to cap (rec_capture_add_process), one line
 * each on stderr unless quiet.  Returns REC_OK or the first error's
 * status (printed). */
struct rec_capture;
int capture_child_add_tree(struct capture_child *c, struct rec_capture *cap, int skip_pid, int quiet);
/* The command exited without recording (a shell running a pipeline of
 * recording programs): a capture of its tree alone into *file (taken
 * over), the first segment found as the capture's source, the others
 * added.  *first gets that process's info, *st its statistics.  REC_OK,
 * REC_ERR_NOTFOUND (nothing in the tree recorded; file given up), or an
 * error's status (printed). */
struct rec_out;
struct rec_seg_info;
struct rec_capture_stats;
int capture_child_tree_only(struct capture_child *c, struct rec_out *file, int raw, struct rec_seg_info *first,
                            struct rec_capture_stats *st);

/* Wait for the command to exit; returns its exit status. */
int capture_child_wait(struct capture_child *c);

/* After the command exited: remove the segments that it and the
 * processes it started left (the command's own was kept for us; a child
 * that ended with _exit or crashed keeps its own), unless the user asked
 * for RECORDER_KEEP.  Frees what capture_child_start took. */
void capture_child_cleanup(struct capture_child *c);

#endif
