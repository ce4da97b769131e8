/*
 * internal.h -- librecorder's private state for an attached segment.
 */
#ifndef RECORDER_INTERNAL_H
#define RECORDER_INTERNAL_H

#include <setjmp.h>
#include <sys/stat.h>
#include <time.h>

#include "recorder/reader.h"

struct rec_cursor {
    uint64_t pos;             /* next ring index to read */
    uint64_t dropped_seen;    /* slot->dropped already reported */
    uint64_t stream_from;     /* stream mode: the writer cannot overwrite from here on */
    uint64_t bad_head;        /* the last implausible head counted (counted once) */
    uint64_t kept_from;       /* the oldest entry the ring held when we first looked at it
                                 (at open, then at the first read): what is gone below it
                                 is history (not kept), above it lost */
    int read_once;            /* rec_seg_read has looked at this ring: kept_from is set */
};

#define REC__STRPAGE 1024u  /* ids per page of a reader's name cache (rec_seg_string) */

struct rec_seg {
    char path[256];
    int fd;
    int stream;               /* we own the consumer region */
    const unsigned char *base;
    size_t size;
    const struct rec_header *hdr;
    struct rec_header hcopy;  /* validated copy of the layout fields */
    const struct rec_slot *slots;
    const uint32_t *index;
    const unsigned char *strings;
    const unsigned char *rings;
    struct rec_consumer *cons; /* read-only unless stream; separate mapping */
    size_t cons_map_size;
    double ticks_per_sec;
    double ns_per_tick;
    struct rec_cursor *cursors;
    /* Names by id, copied lazily, in pages of REC__STRPAGE ids allocated
     * only where an id was asked for: the table's reserve may be 2^32 ids,
     * but a reader's memory follows the strings it shows. */
    char ***strcache;
    size_t strcache_n;        /* pages */
    uid_t owner;              /* the file's owner */
    dev_t dev;                /* which file was validated */
    ino_t ino;
    volatile int truncated;   /* the file shrank under the mapping (guard.c) */
};

/* ---- guarding accesses to a mapping (guard.c) --------------------------- */

struct rec__guard {
    sigjmp_buf jb;
    const struct rec_seg *seg;
};
extern __thread struct rec__guard *rec__guard_cur;
void rec__guard_install(void);
void rec__guard_fault(struct rec_seg *s);

/* The body of a public function that reads a mapping: evaluates expr (a
 * call to the unguarded version) under a guard and returns its value, or
 * fail_value if the segment is, or turns out to be, truncated.  Guards
 * nest: the innermost one catches. */
#define REC__GUARDED(s, fail_value, expr)                                     \
    do {                                                                      \
        struct rec__guard g_;                                                 \
        struct rec__guard *outer_ = rec__guard_cur;                           \
        if ((s)->truncated) return fail_value;                                \
        if (sigsetjmp(g_.jb, 0)) {                                            \
            rec__guard_cur = outer_;                                          \
            rec__guard_fault(s);                                              \
            return fail_value;                                                \
        }                                                                     \
        g_.seg = (s);                                                         \
        rec__guard_cur = &g_;                                                 \
        __typeof__(expr) r_ = (expr);                                         \
        rec__guard_cur = outer_;                                              \
        return r_;                                                            \
    } while (0)
#define REC__GUARDED_VOID(s, stmt)                                            \
    do {                                                                      \
        struct rec__guard g_;                                                 \
        struct rec__guard *outer_ = rec__guard_cur;                           \
        if ((s)->truncated) return;                                           \
        if (sigsetjmp(g_.jb, 0)) {                                            \
            rec__guard_cur = outer_;                                          \
            rec__guard_fault(s);                                              \
            return;                                                           \
        }                                                                     \
        g_.seg = (s);                                                         \
        rec__guard_cur = &g_;                                                 \
        stmt;                                                                 \
        rec__guard_cur = outer_;                                              \
    } while (0)

/* ---- finding and opening files safely (segment_find.c) ------------------ */

/* Opens path read-only (or read-write) without blocking on a FIFO and
 * without following a final symlink, and accepts only a regular file that
 * we own, or, for root, anyone's (*st tells whose).  Returns the fd, or
 * -status with a one-line message naming path. */
int rec__open_regular(const char *path, int rdwr, struct stat *st, char *err, size_t errlen);
/* Opens a file a user named (a capture, say) for reading: symlinks are
 * followed, but only a regular file is ever opened -- a FIFO would block,
 * a device could act.  Returns the fd, or -status with a message. */
int rec__open_user_file(const char *path, struct stat *st, char *err, size_t errlen);
/* The segment of process pid into path: /dev/shm/recorder.<pid> or the
 * name its writer fell back to (recorder.<pid>.<suffix>), preferring the
 * one whose header has the process's start time.  Returns 0, or -1 if
 * there is no candidate at all (path then holds the plain name), or -2 if
 * the process runs and only segments of earlier processes with its pid
 * are there (path then holds the newest of them). */
int rec__find_pid_segment(int pid, char *path, size_t cap);
/* Whether process pid's own segment is published: a file of pid's, under
 * either name, whose header names pid and start (any start if 0), owned
 * by euid (by us if euid < 0).  Opens nothing it should not (as above). */
int rec__pid_segment_exists(int pid, uint64_t start, long euid);
/* The effective uid of a running process, -1 if it is gone. */
long rec__proc_euid(int pid);
/* /proc/<pid>/<file> read into buf (at most cap - 1 bytes, NUL-terminated);
 * the bytes read, or -1 if it cannot be read (no such process). */
long rec__read_proc(int pid, const char *file, char *buf, size_t cap);

/* The text and length of string id in the segment's table, in place (the
 * writer may still be filling the page around it); returns 0 if id is not
 * a valid, published string. */
int rec__seg_string_raw(const struct rec_seg *s, uint32_t id, const char **text, size_t *len);

/* At attach: where each ring's kept history begins (rec_cursor.kept_from).
 * Unguarded: call through REC__GUARDED. */
int rec__seg_attach_heads(struct rec_seg *s);

/* Guarded copies out of the string table: string id and the byte after
 * it into buf (REC_STR_MAXLEN + 1 bytes), returning its length or -1 (not
 * a published string, or the segment is truncated); and the table's bump
 * pointer, clamped to its size (0 if truncated). */
long rec__seg_string_copy(struct rec_seg *s, uint32_t id, char *buf);
uint64_t rec__seg_strings_used(struct rec_seg *s);

/* A name from an untrusted source into dst (cap bytes, always terminated):
 * src up to its NUL or src_max bytes; valid UTF-8 is kept whole (never cut
 * in two), control bytes, C1 controls and invalid UTF-8 are shown as '?',
 * so that no name can move a terminal's cursor.  Returns dst. */
char *rec__copy_printable(char *dst, size_t cap, const char *src, size_t src_max);

/* Write a one-line message to err (if any) and return status. */
int rec__fail(char *err, size_t cap, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* clock_gettime(c) in nanoseconds. */
uint64_t rec__clock_ns(clockid_t c);

/* Start time of process pid (field 22 of /proc/<pid>/stat): 0 if unknown,
 * UINT64_MAX for a zombie.  With the pid it names a process for good. */
uint64_t rec__proc_start_of(int pid);
uint64_t rec__proc_stat_of(int pid, char *state);

#endif
