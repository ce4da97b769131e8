/*
 * target.h -- which program to watch: a pid, a process name, a segment
 * name or path, or one picked from the segments in /dev/shm.
 */
#ifndef TUI_TARGET_H
#define TUI_TARGET_H

#include <stddef.h>

/* A file named recorder.* in /dev/shm, as librecorder's rec_seg_list
 * judged it; every text is printable (it came from the file). */
struct seg_entry {
    char path[256];
    char file[256];     /* its name in /dev/shm */
    char name[64];      /* process name ("" if unknown) */
    char state[16];     /* running, exited, closed, starting, incomplete, corrupt, version, skipped, refused... */
    char note[256];     /* why it cannot be watched, or whose it is ("owned by uid N") */
    int pid;            /* 0 if unknown */
    int alive;
    int threads;        /* live threads */
    int viewable;       /* recorder-top can attach to it */
    int status;         /* REC_OK, or why it could not be opened */
};

/* The files in /dev/shm named recorder.*: those that can be watched
 * first (running ones first, then by pid), then the others with the
 * reason.  Nothing is opened that could block or follow a link
 * (rec_seg_list).  Returns the count (at most cap). */
size_t target_list(struct seg_entry *out, size_t cap);

/* Turns the command-line argument into something rec_seg_open accepts.
 * A number is a pid; a path, "recorder.X" or an existing
 * /dev/shm/recorder.ARG is a segment; anything else is a process name,
 * which must match exactly one live segment.
 * Returns REC_OK with out filled, or a status and a one-line message. */
int target_resolve(const char *arg, char *out, size_t cap, char *err, size_t errlen);

/* Is the argument a capture file (recorder-top run.rec)?  The CLI's rule
 * (librecorder/cli/source.c): not all digits, a regular file, starting
 * with the capture magic.  1 yes, 0 no (a segment, a pid, a name...), or
 * a negative rec_status with a message when it cannot be read. */
int target_is_capture(const char *arg, char *err, size_t errlen);

#endif
