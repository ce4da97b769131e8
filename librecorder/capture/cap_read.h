/*
 * cap_read.h -- the capture reader's state, shared by cap_read.c (records,
 * strings, iteration) and cap_procs.c (several processes in one file).
 * Internal to librecorder.
 */
#ifndef REC_CAP_READ_H
#define REC_CAP_READ_H

#include <stdint.h>
#include <stdio.h>

#include "recorder/capture.h"

#pragma GCC visibility push(hidden)

struct str_ent {
    uint32_t id;
    uint32_t order;           /* first occurrence wins among duplicates */
    size_t off;               /* in blob */
};

struct rec_cap {
    FILE *f;
    char path[256];
    struct rec_cap_info info;
    uint64_t first_record;    /* file offset of the first record */
    struct str_ent *str;
    size_t n_str, cap_str;
    char *blob;
    size_t blob_len, blob_cap;
    /* iteration */
    uint64_t pos;
    uint32_t seq;
    unsigned char *rec;
    size_t rec_cap;
    struct rec_entry *ents;   /* a PACKED record, unpacked */
    size_t ents_cap;
    uint8_t *chunk_seen;      /* by slot: a chunk of it was read (this pass) */
    /* several processes: */
    struct cproc *procs;      /* by index; procs[cur] is stale (its fields are above) */
    size_t nproc, cur, sel;
    uint32_t tag;             /* iteration: the process the latest PROCESS record named */
};

/* A process's own part of the reader's state (see the top). */
struct cproc {
    struct rec_cap_info info;
    struct str_ent *str;
    size_t n_str, cap_str;
    char *blob;
    size_t blob_len, blob_cap;
    uint8_t *chunk_seen;
};

/* cap_procs.c */
void cap_switch_to(rec_cap *c, size_t k);
/* A PROCESS record (in c->rec, size bytes): its index, -1 invalid, -2
 * out of memory. */
int cap_add_process(rec_cap *c, uint32_t size);
/* After the scan: strings indexed, the file's own facts given to every
 * process, process 0 in hand. */
void cap_procs_finish(rec_cap *c);
/* cap_read.c */
int cap_check_source(rec_cap *c, const unsigned char *p, uint32_t size);
void cap_index_strings(rec_cap *c);

#pragma GCC visibility pop

#endif
