/*
 * descendants.h -- the segments of a command we started and of every
 * process it forks or runs, for `recorder run` (which dumps them all) and
 * `recorder capture -- CMD` (which cleans up after the ones it does not
 * capture).
 */
#ifndef RECORDER_CLI_DESCENDANTS_H
#define RECORDER_CLI_DESCENDANTS_H

#include <limits.h>
#include <stdint.h>
#include <sys/types.h>

#define DESC_MAX_TRACKED 4096   /* segments followed in one run at most */
#define DESC_MAX_OTHER 8         /* processes named that changed user */

struct desc_seg {
    char name[NAME_MAX + 1];  /* file name in /dev/shm */
    int pid;                  /* 0 until the header says (custom names); -1 not ours */
    uint64_t start;           /* the process's start time, read while it lived */
    int tries;                /* custom names: header reads so far, -1: given up */
    int64_t since_ms;         /* custom names: when the first read failed */
};

struct descendants {
    int ino;                  /* inotify on /dev/shm, or -1 */
    int self_pid;
    uint64_t self_start;      /* with self_pid: the RECORDER_LAUNCHER the tree carries */
    char launcher[48];        /* "PID:START", for the command's environment */
    uid_t uid;                /* whose segments count: the command's effective uid */
    pid_t child;
    uint64_t child_start;     /* its start time, read right after it started (0 if missed) */
    int child_done, child_status;   /* the child has exited: its wait status */
    struct desc_seg *segs;
    int n;
    int untracked;            /* segments of ours past MAX_TRACKED at the last look: not followed (desc_free warns) */
    struct { int pid; uid_t uid; } other[DESC_MAX_OTHER];   /* processes of the tree that became another user */
    int n_other;              /* how many (the first DESC_MAX_OTHER in other[]) */
};

/* Before starting the command: become a child subreaper and watch
 * /dev/shm.  If /dev/shm cannot be watched, warns with lost_what (what
 * the user loses) and goes on with the command's own segment only. */
void desc_start(struct descendants *d, const char *lost_what);
/* After starting it (with RECORDER_LAUNCHER=d->launcher in its
 * environment): its own segment is recorder.<pid>, or the name it fell
 * back to; segments are recognized by their headers. */
void desc_child(struct descendants *d, pid_t child);
/* Looks at new segments for up to timeout_ms, then reaps exited
 * processes (after looking: a zombie still shows its parent chain).
 * Returns 1 once the command has exited. */
int desc_poll(struct descendants *d, int timeout_ms);
/* A last look, and the watch closed; d->segs stays until desc_free. */
void desc_end(struct descendants *d);
void desc_free(struct descendants *d);

/* The path of a tracked segment in /dev/shm. */
void desc_path(const struct desc_seg *t, char *buf, size_t cap);
struct rec_seg_entry;
/* Is e (as rec_seg_inspect saw it) still the segment t tracks: made by
 * the command's user, with t's pid and start time? */
int desc_is_tracked(const struct descendants *d, const struct desc_seg *t, const struct rec_seg_entry *e);
/* Removes a tracked segment if it is still the one its process made and
 * that process is gone; warns and keeps it if the process still runs. */
void desc_remove(const struct descendants *d, const struct desc_seg *t);

#endif
