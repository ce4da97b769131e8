/*
 * recorder/reader.h -- librecorder's reading layer: attach to a segment,
 * enumerate its threads, copy new ring entries with exact loss counts, and
 * decode them into events.
 *
 * A reader never trusts a segment.  Every offset, size and id is checked
 * before use; a bad segment yields an error code and a message, never a
 * crash.  The segment is mapped read-only; only a stream-mode consumer maps
 * the one consumer region writable (REC_OPEN_STREAM).
 */
#ifndef RECORDER_READER_H
#define RECORDER_READER_H

#include <signal.h>
#include <stddef.h>
#include <stdint.h>

#include "recorder.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Error codes; also the CLI's exit codes (docs/cli.md). */
enum rec_status {
    REC_OK = 0,
    REC_ERR_USAGE = 2,        /* bad arguments */
    REC_ERR_NOTFOUND = 3,     /* no such segment, pid or file */
    REC_ERR_ACCESS = 4,       /* permission denied */
    REC_ERR_FORMAT = 5,       /* not a recorder segment/capture, or corrupt */
    REC_ERR_VERSION = 6,      /* a recorder format of another version */
    REC_ERR_TRUNCATED = 7,    /* shorter than its header says */
    REC_ERR_IO = 8,           /* read/write/mmap failed */
    REC_ERR_NOMEM = 9,
    REC_ERR_BUSY = 10,        /* another capture consumer owns the segment */
    REC_ERR_STARTING = 11,    /* the segment is being created: try again */
    REC_ERR_EXITED = 12,      /* rec_seg_wait: the process exited without recording */
    REC_ERR_TIMEOUT = 13      /* rec_seg_wait: still no segment when the time was up */
};

typedef struct rec_seg rec_seg;

#define REC_OPEN_STREAM 1     /* become the capture consumer (stream mode) */

/* target: a pid ("1234"), a segment name ("recorder.1234" or the value of
 * RECORDER_NAME) or a path to a segment file.  On error returns a status and
 * writes a one-line message to err (control characters shown as '?').
 *
 * Nothing in /dev/shm is trusted (docs/security.md): the file is opened
 * without following a symlink or blocking on a FIFO, and must be a regular
 * file owned by the caller (root may open anyone's; rec_seg_info says
 * whose).  A pid finds its process's segment by the header's pid and start
 * time, also under the name a writer falls back to when its own is taken
 * (recorder.<pid>.<suffix>, docs/format.md).  A segment whose header is
 * not written yet is waited for briefly, then REC_ERR_STARTING.
 *
 * The owner may truncate the file while it is mapped: librecorder installs
 * a SIGBUS handler (once) that turns a fault inside a segment's mapping
 * into a truncated segment (rec_seg_status), and passes every other
 * SIGBUS on to the handler before it, or to the default action. */
int rec_seg_open(const char *target, int flags, rec_seg **out, char *err, size_t errlen);
void rec_seg_close(rec_seg *s);
/* Resolve a target to a path without opening it. */
int rec_seg_resolve(const char *target, char *path, size_t cap);

/* Waiting for a program that has not recorded yet (the tools' --wait): a
 * segment appears only with a program's first event, so a viewer started
 * right after the program would find nothing. */
struct rec_wait_opts {
    double timeout_s;         /* > 0: give up after this long (REC_ERR_TIMEOUT); else no limit */
    const char *prog;         /* prefix of the notice ("recorder-top"); NULL: none */
    int quiet;                /* no notice */
    /* A target that is not a pid nor a path is also ready when this says
     * so (a viewer's process names; asked every 500 ms); may be NULL. */
    int (*ready)(const char *target, void *arg);
    void *arg;
    /* A caller that catches SIGINT: its flag; the wait returns -1 once it
     * is set.  NULL: Ctrl-C (SIGINT's default action) ends the program. */
    const volatile sig_atomic_t *stop;
};
/* Returns REC_OK once target can be opened: for a pid, when the running
 * process's own segment (its pid, its start time, its user) is there; for
 * a segment name or path, when the file exists and is not still being
 * created (or o->ready says so).  The caller then opens it as usual.
 * While waiting, polls every 50 ms (creating, opening, following nothing:
 * only what rec_seg_open would look at) and says so once on stderr.
 * A pid that is not there at all, or whose process is gone but left a
 * segment, or another user's (unless we are root), is ready at once:
 * rec_seg_open tells what there is.  Fails with
 * REC_ERR_EXITED when the process exits without recording, REC_ERR_TIMEOUT
 * when the time is up, with a one-line message in err; returns -1 when
 * o->stop is set. */
int rec_seg_wait(const char *target, const struct rec_wait_opts *o, char *err, size_t errlen);

struct rec_seg_info {
    char path[256];
    int pid;
    char process_name[64];
    int alive;                /* the process (same pid and start time) runs */
    int closed;               /* it exited cleanly or called rec_shutdown */
    unsigned mode;            /* REC_MODE_* in force */
    uint32_t max_threads;
    uint64_t ring_entries;
    uint64_t segment_size;
    unsigned clock_source;
    double ticks_per_sec;     /* the header's, as written: every read converts the same way */
    uint64_t ticks0, mono_ns0, real_ns0;
    uint64_t strings_used, strings_size, strings_dropped;
    uint64_t threads_no_slot, threads_attached;
    uint64_t proc_start;      /* the writer's start time (/proc/<pid>/stat field 22) */
    int launcher_pid;         /* RECORDER_LAUNCHER of its tree (0 if none) */
    uint64_t launcher_start;
    int parent_pid;           /* its parent when the segment was made (0 if unknown) */
    uint64_t parent_start;
    uint32_t owner_uid;       /* who owns the file */
    int foreign_owner;        /* not the caller (only root opens those): say so */
    int truncated;            /* the file shrank: nothing more can be read */
    int stopped;              /* alive, but stopped (SIGSTOP, a debugger): it records
                                 nothing until it goes on, so a snapshot of it
                                 ends at its newest event, the same at every read */
    unsigned gpu_state;       /* enum rec_gpu_state: what the GPU library did (0: not loaded) */
};
/* Fills info; counters are read fresh at each call. */
void rec_seg_get_info(rec_seg *s, struct rec_seg_info *info);

/* REC_OK, or REC_ERR_TRUNCATED once the file is shorter than its header
 * says (checked now, with fstat) or a read faulted on it.  A truncated
 * segment reads as empty from then on; what was read before stays valid. */
int rec_seg_status(rec_seg *s);

/* Ticks to nanoseconds since the segment's calibration point (ticks0);
 * may be negative for a counter read earlier. */
double rec_seg_ticks_to_ns(const rec_seg *s, uint64_t ticks);

struct rec_thread_info {
    uint32_t slot;
    uint32_t gen;
    unsigned state;           /* REC_SLOT_LIVE or REC_SLOT_EXITED */
    int tid;
    uint32_t name_id;
    char name[64];            /* resolved, sanitized; "" if none */
    uint64_t head, start_head;
    uint64_t start_ticks, exit_ticks;
    uint64_t dropped;         /* stream mode: entries the writer dropped */
    int bad_counts;           /* head or dropped cannot be right (hostile or corrupt
                                 slot): they read as 0 here, rec_seg_read counts bad */
    /* What the ring records (docs/format.md, "Lanes"): REC_LANE_THREAD for
     * a thread; a GPU stream or device, or NVTX ranges, written late by
     * the GPU library, with the device, context and stream it names.  An
     * unknown kind reads as a thread. */
    unsigned lane_kind;
    uint32_t lane_device;
    uint64_t lane_context, lane_stream;
    uint64_t delivered_ticks; /* late lanes: every event up to here is written; 0 if not said */
};
/* The slots that are live or exited, in slot order; returns the count
 * (at most max), or -1. */
int rec_seg_threads(rec_seg *s, struct rec_thread_info *out, int max);
/* One slot; returns 0 if it is live or exited, -1 if free or torn. */
int rec_seg_thread(rec_seg *s, uint32_t slot, struct rec_thread_info *out);

/* A string by id: a reader-owned, NUL-terminated copy, valid until
 * rec_seg_close.  Returns NULL for an id that is not a valid string. */
const char *rec_seg_string(rec_seg *s, uint32_t id);

/* Entries a read did not return, by cause (docs/format.md, "Loss").  The
 * same words in every tool:
 *   not kept (history): older entries the ring had already overwritten
 *       when this reader first looked at it -- a flight recorder keeps the
 *       last ring's worth; this is not a loss of this reader's;
 *   lost: entries written since, that this reader never got --
 *       overwritten (the writer lapped the reader), dropped (stream mode,
 *       the ring was full), or bad (they cannot be right). */
struct rec_loss {
    uint64_t overwritten;     /* lost: the writer overwrote them before we copied them */
    uint64_t dropped;         /* lost: the writer dropped them (stream mode, ring full) */
    uint64_t history;         /* not kept: overwritten before we attached */
    uint64_t bad;             /* implausible heads or counters seen (each counted once) */
};

/* a + b, or UINT64_MAX if that does not fit: every sum of counts that come
 * from a segment or a capture file (which may be hostile) goes through it,
 * so a total sticks at the top instead of wrapping back to small numbers.
 * The one such helper of the project (viewer-web's clamp.h uses it too). */
static inline uint64_t rec_sat_add(uint64_t a, uint64_t b) { return a > UINT64_MAX - b ? UINT64_MAX : a + b; }

/* Copy the slot's entries that are new since the last call, at most cap,
 * oldest first.  *first is the ring index of out[0].  Entries lost since
 * the last call are added to *loss.  Never returns part of an event.
 * Returns the number of entries copied.  With cap 0, copies nothing and
 * only counts what was lost (and moves past what is gone). */
size_t rec_seg_read(rec_seg *s, uint32_t slot, struct rec_entry *out, size_t cap, uint64_t *first,
                    struct rec_loss *loss);
/* Where the next rec_seg_read of the slot starts, and moving it (for
 * example to the current head, to skip history). */
uint64_t rec_seg_cursor(const rec_seg *s, uint32_t slot);
void rec_seg_set_cursor(rec_seg *s, uint32_t slot, uint64_t pos);

/* Stream mode (opened with REC_OPEN_STREAM): publish a heartbeat; call at
 * least every REC_STREAM_STALE_SEC / 2 seconds.  rec_seg_close gives the
 * rings back to flight mode. */
void rec_seg_heartbeat(rec_seg *s);

/* A decoded event. */
struct rec_event {
    unsigned type;            /* enum rec_ev_type */
    uint64_t ticks;
    uint64_t index;           /* ring index of its first entry */
    uint32_t name_id;         /* BEGIN, END, INSTANT, COUNTER, THREAD_NAME; ARG: its key */
    uint64_t flow_id;         /* FLOW_* */
    double value;             /* COUNTER */
    int tid;                  /* THREAD_START */
    uint32_t gen;             /* THREAD_START */
    int wait;                 /* BEGIN, END: of a wait scope (REC_EV_WAIT) */
    unsigned msg_len;         /* INSTANT; ARG: its value */
    char msg[REC_MSG_MAX + 1];
};

/* Decode entries (as rec_seg_read returned them) into events.  Stray
 * continuation entries and malformed events are skipped and counted in
 * *bad (may be NULL).  Returns the number of events written (at most cap);
 * *used says how many entries they took. */
size_t rec_decode(const struct rec_entry *in, size_t n, uint64_t first, struct rec_event *out, size_t cap,
                  size_t *used, uint64_t *bad);

/* How many entries the event starting with this entry occupies, or 0 if
 * the entry cannot start an event. */
unsigned rec_entry_span(const struct rec_entry *e);

const char *rec_status_str(int status);

/* Counts a segment holds are the program's to write, so any value may
 * come: shown at most as REC_COUNT_MAX (exact in a double, so a page or
 * a JSON reader gets the same number).  rec_count_sat(a, b): a + b, both
 * bounded, saturating. */
#define REC_COUNT_MAX ((UINT64_C(1) << 53) - 1)
uint64_t rec_count_sat(uint64_t a, uint64_t b);
/* The same words in every tool: "N threads not recorded" (threads that
 * got no ring: every slot live, or /dev/shm full; rec_seg_info's
 * threads_no_slot), "" for 0; and "owned by uid N" for a segment of
 * another user (only root reads those). */
const char *rec_not_recorded_str(uint64_t n, char *buf, size_t cap);
/* "N names recorded as <strings full>": names that found the string table
 * at its limit (rec_seg_info's strings_dropped, docs/format.md), "" for 0. */
const char *rec_names_full_str(uint64_t n, char *buf, size_t cap);
const char *rec_owner_str(uint32_t uid, char *buf, size_t cap);

#ifdef __cplusplus
}
#endif

#endif
