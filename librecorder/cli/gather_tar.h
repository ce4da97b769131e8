/*
 * gather_tar.h -- the two halves of `recorder gather` that know formats:
 * a POSIX ustar archive written member by member (what Perfetto's trace
 * processor and the UI open as one merged trace), and a bounded scan of a
 * Perfetto protobuf trace for the machines its packets name.
 */
#ifndef RECORDER_CLI_GATHER_TAR_H
#define RECORDER_CLI_GATHER_TAR_H

#include <stdint.h>
#include <stdio.h>

/* ustar holds a member's size in 11 octal digits: at most 8 GiB - 1. */
#define GT_MAX_MEMBER ((UINT64_C(1) << 33) - 1)
/* Member names: the ustar name field without prefix, and the Perfetto
 * UI's own limit (99 bytes). */
#define GT_MAX_NAME 99
#define GT_MAX_MACHINES 64    /* distinct machine ids one file may name */
#define GT_MAX_PACKET (16u << 20)

/* 1 if name may be a member: 1..99 bytes of [A-Za-z0-9._+,=@-], not
 * starting with '.' (trace processor skips hidden members). */
int gt_name_ok(const char *name);
/* A member's header and data: size bytes from in (read from its start;
 * fewer is an error: the file shrank), padded to 512.  0, or -1 with
 * err filled (errno-style message of a read or a write). */
int gt_member_file(FILE *out, const char *name, FILE *in, uint64_t size, int64_t mtime, char *err, size_t errlen);
int gt_member_mem(FILE *out, const char *name, const void *data, size_t size, int64_t mtime, char *err,
                  size_t errlen);
/* The two zero blocks that end an archive. */
int gt_end(FILE *out, char *err, size_t errlen);

/* What a protobuf trace's top-level packets say of machines. */
struct gt_scan {
    uint64_t packets;         /* TracePackets */
    uint64_t untagged;        /* packets without machine_id */
    uint64_t compressed;      /* packets holding compressed packets (not looked into) */
    uint32_t ids[GT_MAX_MACHINES];
    unsigned n_ids;           /* distinct machine_id values, in order of appearance */
};
/* Scan in (size bytes, from its start) as a Perfetto Trace: every field's
 * bounds are checked against what the file holds.  0, or -1 with err
 * saying where it stops being one. */
int gt_scan_trace(FILE *in, uint64_t size, struct gt_scan *s, char *err, size_t errlen);

#endif
