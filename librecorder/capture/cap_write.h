/*
 * cap_write.h -- the capture consumer's state, shared by cap_write.c (one
 * segment drained into a file) and cap_write_procs.c (the other processes
 * of a tree in the same file: followed live, or added once).  Internal to
 * librecorder.
 */
#ifndef RECORDER_CAP_WRITE_H
#define RECORDER_CAP_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "cap_format.h"
#include "recorder/capture.h"
#include "recorder/outfile.h"

#define CAPW_SCRATCH_ENTRIES 16384u   /* per ring read when packing: stays in L2 */

struct slot_seen {
    int active;               /* has been live: read its ring every pass */
    int read_once;            /* its first read made a chunk (cap_read.c relies on it) */
    int known;                /* a THREAD record for (gen, ...) is written */
    uint32_t gen, state, name_id;
    int32_t tid;
    uint64_t exit_ticks;
};

/* What a pass reads from one process: the capture's own (the SOURCE's),
 * or another process's swapped in while its records are written. */
struct capw_proc {
    rec_seg *seg;
    struct slot_seen *slots;
    uint32_t max_threads;
    uint64_t str_pos;         /* next string record to look at (byte offset) */
    struct rec_capture_stats st;
    struct rec_cap_unrecorded unrec;   /* the counts the last UNRECORDED record said */
};

/* A process followed live (rec_capture_add_live), until it ends. */
struct capw_live {
    struct capw_proc p;
    struct rec_cap_process rec;   /* its PROCESS record, repeated to switch to it */
    int ended;
};

struct rec_capture {
    rec_seg *seg;
    struct rec_out out;       /* the file (recorder/outfile.h): fd, path for messages */
    unsigned char *buf;
    size_t cap, len;
    size_t strings_rec;       /* offset of the open STRINGS record, or SIZE_MAX */
    uint32_t seq;
    uint32_t max_threads;
    uint64_t str_pos;         /* next string record to look at (byte offset) */
    int raw;                  /* CHUNK records instead of PACKED */
    struct rec_entry *scratch;
    struct slot_seen *slots;
    struct rec_capture_stats st;
    struct rec_cap_unrecorded unrec;   /* the counts the last UNRECORDED record said */
    int failed;
    uint64_t flushes;         /* write(2) rounds so far */
    uint32_t type_bits;       /* REC_CAP_REC_OF_PROCESS while another process is written */
    uint32_t processes;       /* written so far, the SOURCE's included */
    struct capw_live *live;   /* the processes followed live, by index - 1 (ended ones too) */
    uint32_t n_live;
    /* Several consumer threads (cap_workers.c): the pool, on the capture;
     * on a worker's copy of it, the capture its records go into (their
     * sequence numbers are given as they are written there). */
    struct capw_pool *pool;
    rec_capture *parent;
};

/* REC_OK, or the error of a write to the file that failed earlier. */
int capw_failed(const rec_capture *c, char *err, size_t errlen);
int capw_flush(rec_capture *c, char *err, size_t errlen);
/* Drain one ring into c's buffer (cap_write.c). */
int capw_drain_slot(rec_capture *c, uint32_t slot, size_t *moved, char *err, size_t errlen);
int capw_reserve(rec_capture *c, size_t payload, char *err, size_t errlen);
int capw_put_record(rec_capture *c, uint32_t type, const void *payload, size_t size, char *err, size_t errlen);
int capw_sweep_strings(rec_capture *c, char *err, size_t errlen);
/* Threads, rings and strings of the process in hand, into the buffer. */
int capw_pass(rec_capture *c, size_t *moved, char *err, size_t errlen);
/* An END record of the process in hand (its stats in c->st), flushed. */
int capw_put_end(rec_capture *c, enum rec_capture_end reason, char *err, size_t errlen);
void capw_fill_source(rec_seg *s, struct rec_cap_source *src);

/* cap_write_procs.c: a pass over every process followed live; their
 * ends (before the file's own); freeing them. */
int capw_poll_live(rec_capture *c, size_t *moved, char *err, size_t errlen);
int capw_end_live(rec_capture *c, char *err, size_t errlen);
void capw_free_live(rec_capture *c);

/* cap_workers.c: the rings of a pass drained by n threads (the caller's
 * included), each into its own buffer, written whole records at a time. */
int capw_pool_start(rec_capture *c, unsigned n);
/* 1 if the pool drained the pass's rings (*rc its status), 0 if the caller
 * should (no pool, or fewer than two rings to share). */
int capw_pool_drain(rec_capture *c, size_t *moved, int *rc, char *err, size_t errlen);
/* A worker copy's buffer written into the capture's file (c->parent). */
int capw_pool_write(rec_capture *c, char *err, size_t errlen);
void capw_pool_free(rec_capture *c);

#endif
