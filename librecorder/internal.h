/*
 * internal.h -- librecorder's private state for an attached segment.
 */
#ifndef RECORDER_INTERNAL_H
#define RECORDER_INTERNAL_H

#include <time.h>

#include "recorder/reader.h"

struct rec_cursor {
    uint64_t pos;             /* next ring index to read */
    uint64_t dropped_seen;    /* slot->dropped already reported */
    uint64_t stream_from;     /* stream mode: the writer cannot overwrite from here on */
};

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
    char **strcache;          /* by id, lazily */
    size_t strcache_n;
};

/* The text and length of string id in the segment's table, in place (the
 * writer may still be filling the page around it); returns 0 if id is not
 * a valid, published string. */
int rec__seg_string_raw(const struct rec_seg *s, uint32_t id, const char **text, size_t *len);

/* A name from an untrusted source into dst (cap bytes, always terminated):
 * src up to its NUL or src_max bytes, control bytes shown as '?', so that
 * no name can move a terminal's cursor.  Returns dst. */
char *rec__copy_printable(char *dst, size_t cap, const char *src, size_t src_max);

/* Write a one-line message to err (if any) and return status. */
int rec__fail(char *err, size_t cap, int status, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
/* clock_gettime(c) in nanoseconds. */
uint64_t rec__clock_ns(clockid_t c);

/* Start time of process pid (field 22 of /proc/<pid>/stat): 0 if unknown,
 * UINT64_MAX for a zombie.  With the pid it names a process for good. */
uint64_t rec__proc_start_of(int pid);

#endif
