/*
 * recorder/capture.h -- capture files (recorder capture's stream to disk)
 * and the list of segments on this machine.
 *
 * A capture is written by a stream-mode consumer: it drains a live
 * segment's rings into a file of records (docs/capture-format.md): the
 * source's identity and clock calibration, string table increments, thread
 * records, and chunks of raw ring entries with their first ring index and
 * loss counts.  The reader never trusts a file: a capture cut at any byte
 * is readable up to its last whole record, with a warning.
 */
#ifndef RECORDER_CAPTURE_H
#define RECORDER_CAPTURE_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>
#include <time.h>

#include "outfile.h"
#include "reader.h"

#ifdef __cplusplus
extern "C" {
#endif

/* ---- writing: a stream-mode consumer of a segment ----------------------- */

typedef struct rec_capture rec_capture;

struct rec_capture_opts {
    int from_now;             /* skip what the rings already hold */
    int raw;                  /* 16-byte entries as in the ring, not packed */
    size_t buffer_bytes;      /* output buffer; 0 = 8 MiB (each consumer thread has one) */
};

struct rec_capture_stats {
    uint64_t entries;         /* ring entries written to the file */
    uint64_t events;          /* of which first entries of events */
    uint64_t history;         /* not kept: overwritten before our first read of the ring */
    uint64_t overwritten;     /* lost: overwritten after it (we read as a flight reader) */
    uint64_t dropped;         /* lost: the writer dropped them (we fell behind) */
    uint64_t bad;             /* implausible heads or counters seen */
    uint64_t bytes;           /* file size so far */
    uint64_t chunks, strings, thread_records;
};

/* Why a capture ended (recorded in its END record). */
enum rec_capture_end {
    REC_CAPTURE_END_EXITED = 1,   /* the program exited */
    REC_CAPTURE_END_STOPPED = 2,  /* Ctrl-C, SIGTERM or the caller */
    REC_CAPTURE_END_ERROR = 3,    /* a write failed */
    REC_CAPTURE_END_DETACHED = 4, /* the program dropped us (stale heartbeat) */
    REC_CAPTURE_END_TRUNCATED = 5 /* the segment shrank under us: nothing more could be read */
};

/* Start capturing the segment s (opened with REC_OPEN_STREAM, or not: then
 * it is a flight-mode reader and may lose entries to overwrites) into the
 * file at path, opened by the output-file rule (recorder/outfile.h).
 * Writes the header and the source record; a new or regular file then
 * takes its final name at once (the temporary file is renamed onto path),
 * so a capture that is killed later is found there, readable up to its
 * last whole record.  A capture that fails to start leaves path as it
 * was. */
int rec_capture_start(rec_seg *s, const char *path, const struct rec_capture_opts *o, rec_capture **out,
                      char *err, size_t errlen);
/* The same into a file the caller opened with rec_out_open (to find out
 * before anything else whether it can be written).  *file is taken over
 * in every case: committed by rec_capture_finish, given up on failure. */
int rec_capture_start_out(rec_seg *s, struct rec_out *file, const struct rec_capture_opts *o, rec_capture **out,
                          char *err, size_t errlen);
/* Drain the rings with n threads from now on, the caller's included
 * (recorder capture --consumers; 1: the caller's alone, as at the start;
 * at most 64).  Each pass, each thread takes the next live ring not yet
 * taken and packs it into a buffer of its own; the file is the same.
 * Returns REC_OK, or REC_ERR_NOMEM with nothing changed (err filled). */
int rec_capture_set_consumers(rec_capture *c, unsigned n, char *err, size_t errlen);
/* One pass over the segment: new thread records, new strings, and the new
 * entries of every ring, written out.  *moved (may be NULL) gets the number
 * of entries copied.  Also publishes the consumer heartbeat.  Returns
 * REC_OK or an error status (err filled). */
int rec_capture_poll(rec_capture *c, size_t *moved, char *err, size_t errlen);
void rec_capture_get_stats(const rec_capture *c, struct rec_capture_stats *st);
/* Drain once more, write the END record, close the file and free c;
 * *final (may be NULL) gets the last statistics.  The segment stays open
 * (rec_seg_close gives the rings back to flight mode). */
int rec_capture_finish(rec_capture *c, enum rec_capture_end reason, struct rec_capture_stats *final, char *err,
                       size_t errlen);
/* Several processes in one capture (a process tree, docs/capture-format.md,
 * "Several processes"): write what segment s holds now, in one pass (as a
 * flight-mode reader: what it overwrote is counted), as the file's next
 * process, with its own source, strings, threads and end.  The capture's
 * own process and statistics are unchanged; *st (may be NULL) gets those
 * of s.  Call it before rec_capture_finish; s stays the caller's.  Returns
 * REC_OK or an error status (err filled). */
int rec_capture_add_process(rec_capture *c, rec_seg *s, struct rec_capture_stats *st, char *err, size_t errlen);

/* A process of the tree followed live: s (opened with REC_OPEN_STREAM, as
 * the capture's own) is drained at every rec_capture_poll from now on, as
 * the capture's own segment is, into the same file as its next process
 * (*index: 1, 2, ...), until rec_capture_end_process or
 * rec_capture_finish.  s stays the caller's, open until then.  Returns
 * REC_OK or an error status (err filled). */
int rec_capture_add_live(rec_capture *c, rec_seg *s, uint32_t *index, char *err, size_t errlen);
/* Its process exited (or is given up): drain it once more and write its
 * END; its segment may be closed afterwards.  *st (may be NULL) gets its
 * statistics.  Ending a process twice is harmless. */
int rec_capture_end_process(rec_capture *c, uint32_t index, struct rec_capture_stats *st, char *err, size_t errlen);
/* Its statistics so far (REC_ERR_NOTFOUND: no such live process). */
int rec_capture_process_stats(const rec_capture *c, uint32_t index, struct rec_capture_stats *st);

/* ---- reading ---------------------------------------------------------- */

typedef struct rec_cap rec_cap;

struct rec_cap_info {
    /* the source (its SOURCE record) */
    int pid;
    uint64_t proc_start;
    char process_name[64];
    char segment_path[256];
    unsigned clock_source;
    double ticks_per_sec;     /* refined at the capture's end when possible */
    uint64_t ticks0, mono_ns0, real_ns0;
    uint32_t max_threads;
    uint64_t ring_entries;
    uint64_t start_ticks, start_real_ns;   /* when the capture began */
    uint64_t end_ticks;       /* 0 without an END record */
    /* what the file holds, counted at open */
    uint64_t records, chunks, entries, events, strings, thread_records;
    uint64_t overwritten, dropped;         /* lost while capturing, in entries */
    uint64_t bad;                          /* impossible heads the capture saw (LOSS records): bad data */
    uint64_t history;                      /* not kept: overwritten before the capture began */
    /* What the segment could not record, as its header counted it
     * (UNRECORDED records; 0 in older files): names recorded as "<strings
     * full>" (rec_names_full_str) and threads that got no ring
     * (rec_not_recorded_str).  Known at open, by both opens. */
    uint64_t strings_dropped, threads_no_slot;
    uint64_t file_size, valid_size;        /* bytes; valid_size = end of the last whole record */
    int complete;             /* an END record closes the file */
    unsigned end_reason;      /* enum rec_capture_end, 0 if none */
    int truncated;            /* stopped at a cut or corrupt record */
    char warning[320];        /* one line, "" if none */
    /* 1 once the counts above (records, chunks, entries, events, strings,
     * thread_records, overwritten, dropped, history) and valid_size,
     * complete, truncated and warning are final: at once after
     * rec_cap_open; after rec_cap_open_lazy, when rec_cap_next has read
     * to the end of the valid part once (see there). */
    int counted;
    /* The machine the capture was recorded on (its SOURCE record's
     * extension, docs/capture-format.md; recorder/machine.h): the same
     * for every process of the file; all 0 in files written before it. */
    uint32_t machine_id, machine_from;
    uint64_t machine_hash;
};

/* 1 if the file at path starts with a capture's magic, 0 if not, -1 if it
 * cannot be read. */
int rec_cap_probe(const char *path);
/* Open and check a capture: every record is validated once, strings are
 * loaded.  A file cut short opens fine with info.truncated and a warning;
 * one that is not a capture, of another version, or without a whole
 * source record fails with a status and a one-line message. */
int rec_cap_open(const char *path, rec_cap **out, char *err, size_t errlen);
/* The same checks, but only the cheap ones before it returns, so that a
 * viewer serves a large file at once: the file header, every record's
 * header (sequence number, size, inside the file), and every record but
 * the large chunks whole (source, strings, threads, processes, end).  The
 * large chunks are checked when rec_cap_next first reads them; until it
 * has read to the end, info.counted is 0 and the counts are not known
 * (0 for chunks, entries, events and losses).  What the open found is
 * in info at once (a cut or a missing END record: truncated, warning);
 * a chunk that fails its check is found when it is reached: rec_cap_next
 * then ends the valid part there (returns 0) and sets valid_size,
 * truncated, complete 0, end_ticks 0 and the same warning rec_cap_open
 * gives for that file, and strings defined past that point are no longer
 * resolved.  Only ticks_per_sec differs from rec_cap_open on such a
 * file: the END record's refined rate (its own check passed) is kept. */
int rec_cap_open_lazy(const char *path, rec_cap **out, char *err, size_t errlen);
/* The file offset rec_cap_next reads next (progress: against valid_size). */
uint64_t rec_cap_offset(const rec_cap *c);
/* Where rec_cap_next is (rec_cap_tell), and back there (rec_cap_seek): a
 * time index keeps these to read a stretch of a large file without
 * reading what comes before it (recorder-web, docs/web.md "Saved
 * traces").  A position is only good on the handle that told it, and
 * only where that handle has read (and so checked) the records before
 * it; any other is refused (REC_ERR_USAGE, nothing changed).  Records
 * are checked again as they are read after a seek.  After a seek, a
 * slot's chunks count what they lost as overwritten (gaps), not as
 * history, unless no chunk of that slot was read before. */
struct rec_cap_pos {
    uint64_t off;             /* file offset of the next record */
    uint32_t seq;             /* its sequence number */
    uint32_t tag;             /* the process the records there belong to */
    uint64_t run_i;
};
void rec_cap_tell(const rec_cap *c, struct rec_cap_pos *p);
int rec_cap_seek(rec_cap *c, const struct rec_cap_pos *p);
void rec_cap_close(rec_cap *c);
const struct rec_cap_info *rec_cap_get_info(const rec_cap *c);
/* A string by id (NUL-terminated, valid until rec_cap_close), or NULL. */
const char *rec_cap_string(rec_cap *c, uint32_t id);
/* Ticks to ns since the source's calibration point, as a segment's reader
 * converts them (rec_seg_ticks_to_ns). */
double rec_cap_ticks_to_ns(const rec_cap *c, uint64_t ticks);

/* A capture of a process tree holds several processes: process 0 is the
 * one captured live (the file's SOURCE), the others were added with
 * rec_capture_add_process.  Readers see one process at a time: the
 * selected one is what rec_cap_get_info describes (pid, clock, counts,
 * end), rec_cap_string resolves and rec_cap_next yields.  Process 0 is
 * selected when the file is opened, so a reader that knows one process
 * reads the first, as it always did.  rec_cap_processes: how many (1 for
 * a file of one process); rec_cap_select: make process i the selected
 * one and rewind (REC_ERR_USAGE if there is no such process).  To read
 * several processes at once, open the file once per process. */
size_t rec_cap_processes(const rec_cap *c);
int rec_cap_select(rec_cap *c, size_t i);
/* Another handle of a file c opened with rec_cap_open (not lazily), of
 * process k alone (selected; rec_cap_select of another is REC_ERR_USAGE;
 * rec_cap_processes still counts them all): its own position, a copy of
 * that process's info and strings, and c's file (shared, no second open
 * or check).  To read several processes at once in memory that follows
 * the file's size (docs/capture-format.md, "Memory").  Close each with
 * rec_cap_close, in any order. */
int rec_cap_open_process(rec_cap *c, size_t k, rec_cap **out, char *err, size_t errlen);

enum rec_cap_kind { REC_CAP_ITEM_THREAD = 1, REC_CAP_ITEM_CHUNK = 2 };

struct rec_cap_item {
    unsigned kind;            /* enum rec_cap_kind */
    struct rec_thread_info thread;   /* THREAD: slot, gen, state, tid, name, ... */
    /* CHUNK: entries of one slot, whole events as the ring held them; n
     * may be 0 with only a loss (a LOSS record: loss.bad) */
    uint32_t slot, gen;
    uint64_t first;           /* ring index of entries[0] */
    struct rec_loss loss;     /* lost since the slot's previous chunk */
    const struct rec_entry *entries;  /* valid until the next call */
    size_t n;
};
/* The records in file order, from the start again after rec_cap_rewind.
 * Returns 1 with an item, 0 at the end of the valid part, or a negative
 * rec_status if reading failed (-REC_ERR_FORMAT: a record checked before
 * changed since).  Lazily opened, a record read for the first time that
 * fails its check ends the valid part: 0, with info updated (above). */
int rec_cap_next(rec_cap *c, struct rec_cap_item *it);
int rec_cap_rewind(rec_cap *c);

/* ---- segments on this machine ------------------------------------------ */

enum rec_seg_state {
    REC_SEGST_ALIVE = 1,        /* its process runs (same pid and start time) */
    REC_SEGST_CLOSED,           /* its process runs but called rec_shutdown */
    REC_SEGST_DEAD,             /* no such process */
    REC_SEGST_REUSED,           /* the pid now belongs to another process */
    REC_SEGST_CORRUPT,          /* a recorder segment, but torn or truncated */
    REC_SEGST_VERSION,          /* a recorder segment of another format version */
    REC_SEGST_FOREIGN,          /* not a recorder segment, another user's, or not a file */
    REC_SEGST_UNREADABLE        /* permission denied or I/O error */
};

struct rec_seg_entry {
    char name[256];           /* file name, "recorder.<...>" */
    char path[512];
    enum rec_seg_state state;
    int status;               /* rec_seg_open's status */
    char error[256];          /* why it is corrupt, foreign or unreadable */
    int is_symlink;           /* never followed */
    uid_t uid;
    int foreign_owner;        /* uid is not ours (only root reads those): say "owned by uid N" */
    int pid;                  /* from the header (0 if unknown) */
    uint64_t proc_start;
    int launcher_pid;         /* the header's RECORDER_LAUNCHER (0 if none) */
    uint64_t launcher_start;
    int parent_pid;           /* the header's parent when it was made (0 if unknown: older writers) */
    uint64_t parent_start;
    char process_name[64];
    unsigned mode;            /* REC_MODE_* */
    uint32_t threads_live, threads_exited;   /* live: 0 once the process is gone (dead, pid-reused) */
    uint64_t entries;         /* entries ever written, all threads */
    uint64_t dropped;         /* entries dropped in stream mode */
    uint64_t lost_history;    /* entries overwritten (flight mode keeps the last ring) */
    uint64_t file_size;       /* nominal */
    uint64_t mem_bytes;       /* memory it holds in tmpfs */
    time_t mtime;
    uint64_t dev, ino;        /* which file was judged */
    int all_zero_header;      /* the first page is all zeroes (creation never finished) */
    uint64_t threads_no_slot; /* threads that got no ring (rec_not_recorded_str) */
    uint64_t strings_dropped; /* names at the table's limit (rec_names_full_str) */
    int keep;                 /* kept on purpose: the writer ran with RECORDER_KEEP (REC_FLAG_KEEP) */
    uint32_t gpu_lanes;       /* lanes that are not threads (GPU streams and devices, NVTX
                                 ranges: docs/gpu.md); not in threads_live / threads_exited */
    unsigned gpu_state;       /* enum rec_gpu_state: what the GPU library did (0: not loaded) */
    uint64_t last_real_ns;    /* its last sign of life (CLOCK_REALTIME): the latest of its last
                                 entries, its threads' exits and its creation; 0 if unknown */
};

/* The files named recorder.* in dir (NULL = /dev/shm), sorted by name.
 * Each is classified; none is ever modified.  Returns REC_OK and a malloc'd
 * array (free it), or a status with a message. */
int rec_seg_list(const char *dir, struct rec_seg_entry **out, size_t *n, char *err, size_t errlen);
/* Classify one file the same way (e->path and e->name are filled from
 * path).  Returns e->status. */
int rec_seg_inspect(const char *path, struct rec_seg_entry *e);
const char *rec_seg_state_str(enum rec_seg_state st);
/* A process tree's segments in dir (NULL = /dev/shm): pid's (first, if it
 * has one: its live one, else its newest) and those of every process it
 * started, directly or not, living or dead, that are ours and readable
 * (alive, closed, dead or pid-reused).  Descent is judged by the parent
 * each segment's header names (pid and start time, recorded when the
 * segment was made), and through /proc for a living process without a
 * segment (a shell) or a segment of an older writer.  Returns REC_OK and a
 * malloc'd array (free it), REC_ERR_NOTFOUND if there is none, or a
 * status with a message. */
int rec_seg_tree(const char *dir, int pid, struct rec_seg_entry **out, size_t *n, char *err, size_t errlen);
/* --tree PID for the viewers: arg parsed as a pid, and the paths of its
 * tree's segments (rec_seg_tree's order: pid's own first) into paths, at
 * most max of them.  REC_ERR_USAGE with a message for a bad pid or a tree
 * of more than max; else rec_seg_tree's status. */
#define REC_SEG_PATH_MAX 512
int rec_seg_tree_paths(const char *arg, size_t max, char (*paths)[REC_SEG_PATH_MAX], size_t *n, char *err,
                       size_t errlen);
/* Is pid running with this start time (field 22 of /proc/<pid>/stat)?
 * proc_start 0 matches any start time. */
int rec_pid_alive(int pid, uint64_t proc_start);
/* Fields 4 (ppid) and 22 (starttime) of /proc/<pid>/stat, parsed within
 * the bytes read (a process name may hold anything); 0, or -1 if there
 * is no such process. */
int rec_proc_parent(int pid, int *ppid, uint64_t *start);

#ifdef __cplusplus
}
#endif

#endif
