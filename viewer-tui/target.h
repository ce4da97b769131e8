/*
 * target.h -- which program to watch: a pid, a process name, a segment
 * name or path, or one picked from the segments in /dev/shm.
 */
#ifndef TUI_TARGET_H
#define TUI_TARGET_H

#include <stddef.h>

struct seg_entry {
    char path[256];
    char name[64];      /* process name */
    int pid;
    int alive;
    int threads;        /* live threads */
    int status;         /* REC_OK, or why it could not be opened */
};

/* The segments in /dev/shm (recorder.*) that we can open, live ones first,
 * then by pid.  Returns the count (at most cap). */
size_t target_list(struct seg_entry *out, size_t cap);

/* Turns the command-line argument into something rec_seg_open accepts.
 * A number is a pid; a path, "recorder.X" or an existing
 * /dev/shm/recorder.ARG is a segment; anything else is a process name,
 * which must match exactly one live segment.
 * Returns REC_OK with out filled, or a status and a one-line message. */
int target_resolve(const char *arg, char *out, size_t cap, char *err, size_t errlen);

#endif
