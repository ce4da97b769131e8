/*
 * cap_read.h -- the capture reader's state, shared by cap_read.c (records,
 * strings, iteration) and cap_procs.c (several processes in one file).
 * Internal to librecorder.
 */
#ifndef REC_CAP_READ_H
#define REC_CAP_READ_H

#include <stdint.h>
#include <stdio.h>

#include "cap_format.h"
#include "recorder/capture.h"

#pragma GCC visibility push(hidden)

/* The slots a pass has seen a chunk of: sorted, 4 bytes a slot that has
 * one (the file's chunks back every one), not a byte for every slot a
 * source declares (docs/capture-format.md, "Memory"). */
struct slotset {
    uint32_t *v;
    size_t n, cap;
};
/* 1 if slot was not in s (it is now), 0 if it was or memory ran out. */
int cap_seen_first(struct slotset *s, uint32_t slot);

/* 8 bytes a string (docs/capture-format.md, "Memory"). */
struct str_ent {
    uint32_t id;
    uint32_t off;             /* in blob (at most 4 GiB of strings a process): the first occurrence (lowest) wins */
};

/* Where each STRINGS record's strings begin in blob: a lazily opened file
 * may turn out to end before the record that defined a string, which is
 * then hidden (blob offsets grow in file order). */
struct str_rec {
    uint64_t at;              /* file offset of the record */
    uint64_t blob;            /* blob_len before its strings */
};
struct str_recs {
    struct str_rec *v;
    size_t n, cap;
};

/* A PROCESS record naming process index (>= 1): the records of that
 * process follow it, up to the next PROCESS record.  A reader of such a
 * process steps from one of its runs to the next, not through every
 * other process's records (cap_procs.c). */
struct cap_run {
    uint64_t at;              /* file offset of the PROCESS record */
    uint32_t seq, index;
};

/* What a lazily opened capture's read from the start has counted so far
 * (the selected process's records; records: every record of the file for
 * process 0, as the open counts them). */
struct cap_tally {
    uint64_t records, chunks, entries, events, strings, thread_records;
    uint64_t overwritten, dropped, history, bad;
};

struct rec_cap {
    FILE *f;
    unsigned *f_refs;         /* handles sharing f (rec_cap_open_process): each seeks before it reads */
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
    struct slotset chunk_seen;   /* slots a chunk of was read (this pass) */
    struct str_recs srec;     /* of the STRINGS records read */
    /* several processes: */
    struct cproc *procs;      /* by index; procs[cur] is stale (its fields are above) */
    size_t nproc, cur, sel;
    size_t nfile;             /* processes in the file (nproc, or more for a handle of one) */
    struct cap_run *runs;     /* by offset: every PROCESS record (a handle of one: its process's) */
    size_t nruns, runs_cap, run_i;   /* run_i: where rec_cap_next looks from */
    int one;                  /* a handle of process sel only (rec_cap_open_process): no procs */
    uint32_t tag;             /* iteration: the process the latest PROCESS record named */
    /* lazy opening (cap_lazy.c): */
    int lazy;                 /* opened with rec_cap_open_lazy */
    int walking;              /* the open's walk: large chunks are stepped over */
    uint64_t checked;         /* every record before this offset passed every check once */
    uint64_t rec_at;          /* offset of the record in c->rec */
    struct cap_tally tally;   /* this pass's counts, until info.counted */
    uint64_t impossible;      /* records with impossible counts (cap_format.h): counted by the open, or
                                 lazily as each record is first read */
    int noted;                /* the warning says how many (once: it is the file's) */
    struct slotset tally_seen;   /* slots of the selected process whose first chunk was counted (this pass) */
};

/* A process's own part of the reader's state (see the top). */
struct cproc {
    struct rec_cap_info info;
    struct str_ent *str;
    size_t n_str, cap_str;
    char *blob;
    size_t blob_len, blob_cap;
    struct slotset chunk_seen;
    struct str_recs srec;
};

/* cap_procs.c */
void cap_switch_to(rec_cap *c, size_t k);
/* The PROCESS record at `at` (sequence number seq) names process k: 0 or
 * -2 out of memory. */
int cap_add_run(rec_cap *c, uint64_t at, uint32_t seq, uint32_t k);
/* rec_cap_next read a PROCESS record at `at` naming another process than
 * the selected one (not 0): move to the selected one's next run (or to
 * the end of the valid part) and return 1, or 0 if what lies between has
 * not been checked yet (lazily opened). */
int cap_next_run(rec_cap *c, uint64_t at);
/* A PROCESS record (in c->rec, size bytes): its index, -1 invalid, -2
 * out of memory. */
int cap_add_process(rec_cap *c, uint32_t size);
/* After the scan: strings indexed, the file's own facts given to every
 * process, process 0 in hand. */
void cap_procs_finish(rec_cap *c);
/* The file's own facts (valid part, warning, completeness) given to
 * every process. */
void cap_procs_share(rec_cap *c);
/* cap_read.c */
enum { CAP_GOT = 1, CAP_END_OF_DATA = 0, CAP_CUT = -1, CAP_BAD = -2, CAP_IOERR = -3, CAP_SKIPPED = 2 };
int cap_check_source(rec_cap *c, const unsigned char *p, uint32_t size);
void cap_index_strings(rec_cap *c);
int cap_read_record(rec_cap *c, uint64_t limit, uint32_t *type, uint32_t *size);
/* Returns 0, -1 malformed, -2 out of memory; load 0: only check and count items. */
int cap_strings(rec_cap *c, const unsigned char *p, uint32_t size, int load, uint64_t *items);
int cap_check_thread(const rec_cap *c, uint32_t size, const unsigned char *p);
/* A LOSS record in c->rec, checked: 0, -1 if malformed, or 1 if its
 * count is impossible (then l->bad is 1: cap_format.h). */
int cap_loss(const rec_cap *c, uint32_t size, struct rec_cap_loss *l);
/* A decoded chunk's loss counts, checked: 1 if impossible (then 0). */
uint64_t cap_chunk_sane(struct rec_cap_chunk *ch);
/* The warning says how many records had impossible counts, if any. */
void cap_note_impossible(rec_cap *c);
const struct rec_entry *cap_any_chunk(rec_cap *c, uint32_t type, uint32_t size, struct rec_cap_chunk *ch, size_t *n);
uint64_t cap_split_history(rec_cap *c, struct slotset *seen, uint32_t slot, uint64_t *overwritten);
void cap_warn(struct rec_cap_info *in, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* The one-line warning for where the valid part ends: at (a record that
 * is cut (r CAP_CUT) or fails a check (CAP_BAD)) after `records` records. */
void cap_warn_stop(rec_cap *c, int r, uint64_t at, uint64_t records);
/* cap_lazy.c: a lazily opened capture's pass (counts) and the end of its
 * valid part found on the way (info updated). */
void cap_lazy_count(rec_cap *c, uint32_t owner, uint32_t btype, uint32_t size, const struct rec_entry *e,
                    size_t n, const struct rec_cap_chunk *ch, uint64_t bad);
void cap_lazy_end(rec_cap *c);
void cap_lazy_stop(rec_cap *c, int r, uint64_t at, uint32_t records);
int cap_open(const char *path, int lazy, rec_cap **out, char *err, size_t errlen);

#pragma GCC visibility pop

#endif
