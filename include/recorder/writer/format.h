/*
 * format.h -- the segment format: the structures a traced process shares
 * with every reader (docs/format.md).  Part of the writer, included by
 * recorder.h; kept apart so recorder.h holds the API and the hot path.
 * These C structures are the normative layout.
 */
#ifndef RECORDER_WRITER_FORMAT_H
#define RECORDER_WRITER_FORMAT_H

#include <stdint.h>
#include <stddef.h>

/* ------------------------------------------------------------------------ */
/* The segment format.  Shared by the writer (recorder.h) and every reader. */
/* All integers are little-endian host order; readers reject other hosts.   */
/* ------------------------------------------------------------------------ */

#define REC_SEG_MAGIC    UINT64_C(0x3147455344524352) /* "RCRDSEG1" */
#define REC_SEG_VERSION  1u
#define REC_SEG_PREFIX   "recorder."  /* file name in /dev/shm */
#define REC_CACHELINE    64u
#define REC_PAGE         4096u

/* A ring entry is 16 bytes: w0 is the timestamp in counter ticks (or the
 * payload of a continuation entry), w1 holds the type in its top byte. */
struct rec_entry {
    uint64_t w0;
    uint64_t w1;
};

enum rec_ev_type {
    REC_EV_NONE = 0,          /* never written */
    REC_EV_BEGIN = 1,         /* w1 low 32: name id; bit 32: REC_EV_WAIT */
    REC_EV_END = 2,           /* w1 low 32: name id, 0 = innermost; bit 32: REC_EV_WAIT */
    REC_EV_INSTANT = 3,       /* low 32: name id; bits 32-39: message length;
                                 followed by ceil(len/15) CONT entries */
    REC_EV_COUNTER = 4,       /* low 32: name id; one CONT: w0 = double bits */
    REC_EV_FLOW_BEGIN = 5,    /* low 56 bits: flow id */
    REC_EV_FLOW_STEP = 6,
    REC_EV_FLOW_END = 7,
    REC_EV_THREAD_START = 8,  /* low 32: tid; bits 32-55: slot generation */
    REC_EV_THREAD_NAME = 9,   /* low 32: name id */
    REC_EV_ARG = 10,          /* an argument of the thread's innermost open scope:
                                 low 32: the key's name id; bits 32-39: value
                                 length; followed by ceil(len/15) CONT entries */
    REC_EV_CONT = 15          /* continuation: w0 and w1's low 7 bytes */
};

#define REC_EV_TYPE(w1)       ((unsigned)((w1) >> 56))
#define REC_EV_ID(w1)         ((uint32_t)(w1))
#define REC_EV_ARG8(w1)       ((unsigned)(((w1) >> 32) & 0xffu))
#define REC_FLOW_ID_MASK      UINT64_C(0x00ffffffffffffff)
/* BEGIN and END of a wait scope (REC_SCOPE_WAIT): time inside it is
 * waiting, not work.  Written as 0 before; readers that ignore it see an
 * ordinary scope (docs/format.md). */
#define REC_EV_WAIT           (UINT64_C(1) << 32)
#define REC_MSG_MAX           45u   /* 3 continuation entries of 15 bytes */
#define REC_MAX_ENTRIES_PER_EVENT 4u

/* String ids: 0 = none, 1 = filtered out (call-site cache only), 2 = the
 * placeholder used when the string table is full.  A real id is the byte
 * offset of the string's record in the string region divided by 8. */
#define REC_ID_NONE      0u
#define REC_ID_FILTERED  1u
#define REC_ID_OVERFLOW  2u

/* Subtree filters (RECORDER_FILTER items ending in '/', or
 * RECORDER_FILTER_MODE=subtree; docs/configuration.md): a call site or a
 * thread's name cache may hold a real id with one of these flags.  Never
 * in the segment: real ids stay below 2^27 (a string table of at most
 * 1 GiB).  COND: record only inside a kept subtree of this thread.  ROOT:
 * record, and a scope of this name keeps everything nested in it. */
#define REC__ID_COND     0x80000000u
#define REC__ID_ROOT     0x40000000u
#define REC__ID_MASK     0x3fffffffu
/* What a scope of a ROOT name holds when it opened its thread's subtree:
 * its end closes it (a scope's id is never 1, which is REC_ID_FILTERED). */
#define REC__SCOPE_SUB   1u

/* A string record, 8-byte aligned, at offset id*8 of the string region.
 * tag = hash32 << 32 | len << 8 | REC_STR_READY, published last. */
#define REC_STR_READY    1u
#define REC_STR_MAXLEN   1024u
struct rec_str {
    uint64_t tag;
    /* then len bytes and a NUL: rec_str_text().  (Not a flexible array
     * member: ISO C++ has none, and the header compiles as C++ too.) */
};
static inline const char *rec_str_text(const struct rec_str *r) {
    return (const char *)(const void *)(r + 1);
}

enum rec_slot_state {
    REC_SLOT_FREE = 0,
    REC_SLOT_CLAIMING = 1,
    REC_SLOT_LIVE = 2,
    REC_SLOT_EXITED = 3
};
#define REC_SLOT_STATE(sg) ((unsigned)((sg) & 0xffu))
#define REC_SLOT_GEN(sg)   ((uint32_t)((sg) >> 8))

/* What a slot's ring records (rec_slot.lane bits 0-7).  Lanes other than
 * threads are written by the GPU library or a replay, with their events'
 * own timestamps (include/recorder/writer/lanes.h, docs/format.md "Lanes"). */
enum rec_lane_kind {
    REC_LANE_THREAD = 0,      /* a thread of the process (tid is its tid) */
    REC_LANE_GPU_STREAM = 1,  /* a device's stream: kernels, copies, memsets, syncs */
    REC_LANE_GPU_DEVICE = 2,  /* a device: its counters (busy %, bytes/s) */
    REC_LANE_RANGES = 3       /* ranges that may end on another thread (NVTX start/end) */
};
#define REC_LANE_KINDS 4u
#define REC_LANE_KIND(lane)   ((unsigned)((lane) & 0xffu))
#define REC_LANE_DEVICE(lane) ((uint32_t)((lane) >> 8))
/* The GPU library's state (rec_header.gpu_state bits 0-7). */
enum rec_gpu_state {
    REC_GPU_NONE = 0,         /* never loaded */
    REC_GPU_ON = 1,           /* CUPTI is delivering activity */
    REC_GPU_NVTX_ONLY = 2,    /* NVTX only: CUDA never initialised, or not asked */
    REC_GPU_REFUSED = 3       /* CUPTI refused (its message went to stderr) */
};

/* One per thread slot, 128 bytes.  Metadata fields are written with release
 * stores before state_gen says LIVE; a reader loads state_gen, the fields
 * (acquire), then state_gen again, and retries if it changed. */
struct rec_slot {
    /* Line 0: written only by the owning thread, on every event. */
    uint64_t head;            /* next ring index; monotonic for the slot's life */
    uint64_t dropped;         /* entries dropped in stream mode (ring full);
                                 a device lane adds the records its source lost */
    uint64_t delivered_ticks; /* lanes fed late (a GPU's): every event up to here
                                 is in the ring; 0 for a thread (docs/format.md) */
    uint64_t pad0[5];
    /* Line 1: claim and metadata, written at attach, rename and exit. */
    uint64_t state_gen;       /* generation << 8 | state */
    int32_t tid;
    uint32_t name_id;         /* string id of the thread name, 0 if none */
    uint64_t start_head;      /* head when this generation began */
    uint64_t start_ticks;
    uint64_t exit_ticks;      /* 0 while live */
    uint32_t attach_count;    /* implementation copies in the process using it */
    /* What the ring records (include/recorder/writer/lanes.h).  0 for a thread;
     * these were padding before, so older writers' slots read 0. */
    uint32_t lane;            /* kind (REC_LANE_*) in bits 0-7, device in bits 8-31 */
    uint64_t lane_context;    /* a GPU lane's context id */
    uint64_t lane_stream;     /* a GPU lane's stream id */
};

/* The consumer page(s): the only part a capture consumer maps writable.
 * limit[i] is the first ring index that slot i's writer may not write:
 * UINT64_MAX in flight-recorder mode, tail + ring entries in stream mode. */
struct rec_consumer {
    int32_t pid;              /* capture consumer, 0 if none */
    uint32_t mode;            /* REC_MODE_* currently in force */
    uint64_t heartbeat_ticks; /* counter value at the consumer's last poll */
    uint64_t pad[6];
    /* then uint64_t limit[max_threads]: rec_consumer_limit() */
};
static inline uint64_t *rec_consumer_limit(struct rec_consumer *c) {
    return (uint64_t *)(void *)(c + 1);
}
#define REC_MODE_FLIGHT 0u
#define REC_MODE_STREAM 1u
#define REC_STREAM_STALE_SEC 2u /* a silent consumer is dropped after this */

#define REC_CLOCK_TSC       1u  /* x86 rdtsc */
#define REC_CLOCK_CNTVCT    2u  /* aarch64 virtual counter */
#define REC_CLOCK_MONOTONIC 3u  /* CLOCK_MONOTONIC ns, ticks_per_sec = 1e9 */

#define REC_FLAG_KEEP    1u   /* RECORDER_KEEP=1: not removed at exit */
#define REC_FLAG_CLOSED  2u   /* the process exited cleanly or called rec_shutdown */

/* Page 0 of the segment. */
struct rec_header {
    uint64_t magic;           /* stored last, with release, at creation */
    uint32_t version;
    uint32_t header_size;     /* sizeof(struct rec_header) */
    uint64_t segment_size;
    int32_t pid;
    uint32_t flags;           /* REC_FLAG_* (atomic) */
    uint64_t proc_start;      /* /proc/<pid>/stat starttime: detects pid reuse */
    char process_name[64];
    /* clock calibration */
    uint32_t clock_source;    /* REC_CLOCK_* */
    uint32_t pad0;
    uint64_t ticks0;          /* counter read next to the two clocks below */
    uint64_t mono_ns0;        /* CLOCK_MONOTONIC */
    uint64_t real_ns0;        /* CLOCK_REALTIME */
    uint64_t ticks_per_sec;   /* calibrated at creation */
    /* layout; every offset is from the start of the segment */
    uint32_t max_threads;
    uint32_t slot_size;       /* sizeof(struct rec_slot) */
    uint64_t consumer_off, consumer_size;
    uint64_t slots_off;
    uint64_t index_off;
    uint32_t index_entries;   /* power of two; uint32_t string ids */
    uint32_t entry_size;      /* sizeof(struct rec_entry) */
    uint64_t strings_off, strings_size;
    uint64_t rings_off;
    uint64_t ring_entries;    /* per thread, power of two */
    /* RECORDER_LAUNCHER: the `recorder run` / `capture -- CMD` that
     * started this process's tree (0 if none), so it finds the segment by
     * its header even after the process is gone.  Was padding: 0 in
     * segments of older writers. */
    int32_t launcher_pid;
    /* The parent process when the segment was made, and its start time,
     * so that a process tree is found from the segments even after its
     * processes are gone (rec_seg_tree).  Was padding: 0 in segments of
     * older writers. */
    int32_t parent_pid;
    uint64_t launcher_start;  /* its start time, as proc_start */
    uint64_t parent_start;
    /* The GPU library (gpu/): REC_GPU_* in bits 0-7 (0: never loaded),
     * set on its slow paths.  Was padding: 0 in older segments. */
    uint64_t gpu_state;
    /* Line 3 on: process-wide counters, written only on slow paths. */
    uint64_t strings_used;    /* bump allocator of the string region (bytes) */
    uint64_t strings_dropped; /* names that found the string table full */
    uint64_t threads_no_slot; /* threads that found every slot live */
    uint64_t threads_attached;/* claims of a slot, ever */
    /* The string table grows on demand inside its reserve (docs/format.md,
     * "Strings"); writers only.  Were padding: 0 in older segments, whose
     * tables were committed whole, with a one-level index. */
    uint64_t strings_committed; /* bytes of the string region committed */
    uint64_t index_names;     /* names indexed: picks the level new names go to */
    uint32_t index_base;      /* entries of the index's level 0; 0: one level */
    uint32_t index_levels;    /* levels committed */
    uint64_t pad2[1];
};

#ifdef __cplusplus
#define REC__STATIC_ASSERT(c, m) static_assert(c, m)
#else
#define REC__STATIC_ASSERT(c, m) _Static_assert(c, m)
#endif
REC__STATIC_ASSERT(sizeof(struct rec_entry) == 16, "a ring entry is 16 bytes");
REC__STATIC_ASSERT(sizeof(struct rec_slot) == 128, "a slot is two cache lines");
REC__STATIC_ASSERT(sizeof(struct rec_header) == 320, "the header layout is fixed");
REC__STATIC_ASSERT(sizeof(struct rec_consumer) == 64, "limits start at byte 64");

#endif /* RECORDER_WRITER_FORMAT_H */
