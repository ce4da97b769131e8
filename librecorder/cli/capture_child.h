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
    int remove_segments;      /* no RECORDER_KEEP of the user's: the segments are ours to remove */
    int add_tree;             /* the other processes of the tree go into the capture (capture_tree.c) */
    int quiet_tree;           /* no line per process of the tree (run: the trace's summary says it) */
    int tree_rc;              /* run: the capture's error (a process not captured whole), REC_OK if none */
    int source_pid;           /* the process that is the capture's first (the command's, or one it started) */
    struct descendants d;     /* its segment and those of the processes it starts */
    struct capture_follow *fol;   /* capture_tree.c: per tracked segment, how it is followed */
};

/* Start cmd with RECORDER_RING_KB = ring_kb (NULL: the environment's, or
 * CAPTURE_CHILD_RING_KB), the GPU library's variables if cuda_lib (a path
 * from cuda_lib_path; NULL: none) and RECORDER_LAUNCHER naming us, so that every
 * process of its tree keeps its segment for us (however short its life)
 * and we know it as ours.  Returns 0, or the exit status to end with
 * (the reason printed). */
int capture_child_start(struct capture_child *c, char **cmd, const char *ring_kb, const char *cuda_lib);

/* cuda_env.c (--cuda).  The GPU library's absolute path into out:
 * RECORDER_CUDA_LIB, else the build tree's when this recorder is the
 * build tree's, else the installed one.  REC_OK, or REC_ERR_USAGE with
 * the reason printed, `then` after it (the command must not start).  capture_child_start
 * with it sets CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH. */
int cuda_lib_path(char *out, size_t cap, const char *then);
/* After the command ran: one line on stderr saying why, if its segment
 * holds no GPU lane (the GPU library's state in the header). */
void cuda_report(rec_seg *seg);

/* Wait until the command's segment exists (or, while it has none, one of
 * a process it started: c->source_pid says whose) and open it: for
 * streaming while it runs (*live = 1), or, if the command has already
 * exited, as it left it (*live = 0).  Returns REC_OK, or
 * REC_ERR_NOTFOUND, printing nothing: nothing in the tree recorded. */
int capture_child_attach(struct capture_child *c, rec_seg **seg, int *live);

/* Has the command exited?  Cheap: called on every capture pass, so that
 * the segments of short-lived processes it starts are seen in time. */
int capture_child_exited(struct capture_child *c);

/* capture_tree.c: the other processes of its tree, captured into the
 * same file as the command, live.  _source: no segment of the command
 * yet, but one of a process it started: opened as the capture's source
 * (for streaming unless gone), REC_OK, else REC_ERR_NOTFOUND. */
struct rec_capture;
int capture_tree_source(struct capture_child *c, rec_seg **seg, int gone);
/* Every pass of the capture: start following the tree's new segments;
 * with check_ends, end those whose process exited.  REC_OK or the
 * status of an error (printed). */
int capture_tree_follow(struct capture_child *c, struct rec_capture *cap, int check_ends);
/* After the command exited, before the capture's end: a last look, every
 * process still followed ended, and those never followed (exited before
 * we saw them) added as their segments hold them; one line each on stderr
 * unless quiet_tree.  A process that could not be followed and whose ring
 * did not hold all it wrote is an error that names it.  Returns REC_OK
 * or the first error's status (printed). */
int capture_tree_finish(struct capture_child *c, struct rec_capture *cap);
/* Processes of the tree that changed user (descendants.c saw a segment
 * of another user's made by one): each named on stderr; REC_ERR_ACCESS
 * if any, else REC_OK. */
int capture_tree_other_users(struct capture_child *c);
void capture_tree_free(struct capture_child *c);

/* Wait for the command to exit; returns its exit status. */
int capture_child_wait(struct capture_child *c);

/* After the command exited: remove the segments that it and the
 * processes it started left (the command's own was kept for us; a child
 * that ended with _exit or crashed keeps its own), unless the user asked
 * for RECORDER_KEEP.  Frees what capture_child_start took. */
void capture_child_cleanup(struct capture_child *c);

#endif
