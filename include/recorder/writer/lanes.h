/*
 * lanes.h -- rings that no thread owns: a GPU's streams and counters, NVTX
 * ranges that end on another thread, a replayed thread.  For code that
 * records on behalf of something else (the GPU library in gpu/, the
 * cupti_replay tool), not for programs: include it after recorder.h.
 *
 * A lane is a thread slot (docs/format.md, "Lanes") whose rec_slot.lane
 * says what it is, and whose events carry their own timestamps: they
 * arrive late (CUPTI delivers activity in batches, seconds after the work)
 * and are written by whoever holds the lane.  The rules:
 *   - one writer at a time: the caller serialises every call on a lane
 *     (a mutex is enough: the ring protocol itself is unchanged);
 *   - timestamps never go back on a lane: an event earlier than the
 *     lane's last one is refused (REC_LANE_LATE), so a reader's rules
 *     (begin before end, slices in time order) hold; the caller puts it on
 *     another lane or counts it as lost;
 *   - rec_lane_delivered(l, t) promises that every event up to t is in
 *     the ring: a live viewer shows the lane complete only up to there.
 * Nothing here is on a program's hot path.
 */
/* Before the guard: recorder.h's implementation includes this file, and
 * must find its declarations even when this file was included first. */
#include "../../recorder.h"

#ifndef RECORDER_LANES_H
#define RECORDER_LANES_H

#ifdef __cplusplus
extern "C" {
#endif

struct rec_lane_desc {
    unsigned kind;            /* enum rec_lane_kind */
    uint32_t device;          /* GPU lanes: the device (< 2^24) */
    uint32_t context;         /* GPU lanes: the context id */
    uint64_t stream;          /* GPU stream lanes: the stream id */
    int32_t tid;              /* REC_LANE_THREAD (a replay): the thread's tid (> 0) */
    const char *name;         /* the lane's name, e.g. "GPU0 stream 7" */
};

struct rec_lane {
    struct rec__tls t;        /* the ring, as a thread's: the same write protocol */
    uint64_t last_ticks;      /* the latest event's time: no event may be earlier */
    uint64_t late;            /* events refused as earlier than last_ticks */
};

/* Results of the event calls. */
#define REC_LANE_OK      0
#define REC_LANE_DROPPED (-1)  /* not recorded: stream-mode ring full (counted in the slot) */
#define REC_LANE_LATE    (-2)  /* earlier than the lane's last event: not written */
#define REC_LANE_CLOSED  (-3)  /* the lane is not open (no slot, or recording is off) */

/* Claims a slot for the lane and writes its THREAD_START and name.
 * Returns 0, or -1 when it gets none (recording off, every slot live, a
 * full /dev/shm: counted as a thread not recorded). */
int rec_lane_open(struct rec_lane *l, const struct rec_lane_desc *d);
/* Marks the lane exited at `ticks` (0: now); its ring stays readable. */
void rec_lane_close(struct rec_lane *l, uint64_t ticks);

/* A name's string id for lane events: 0 when the name is filtered out
 * (RECORDER_FILTER / RECORDER_FILTER_OUT) or recording is off. */
uint32_t rec_lane_name(const char *name, size_t len);

int rec_lane_begin(struct rec_lane *l, uint64_t ticks, uint32_t name_id);
int rec_lane_end(struct rec_lane *l, uint64_t ticks, uint32_t name_id);
/* A wait scope's begin and end (REC_EV_WAIT: a sync call, a wait). */
int rec_lane_begin_wait(struct rec_lane *l, uint64_t ticks, uint32_t name_id);
int rec_lane_end_wait(struct rec_lane *l, uint64_t ticks, uint32_t name_id);
/* msg may be NULL; at most REC_MSG_MAX bytes of it are kept. */
int rec_lane_instant(struct rec_lane *l, uint64_t ticks, uint32_t name_id, const char *msg);
int rec_lane_counter(struct rec_lane *l, uint64_t ticks, uint32_t name_id, double value);
/* type: REC_EV_FLOW_BEGIN, _STEP or _END; the flow belongs to the slice
 * open on the lane at ticks. */
int rec_lane_flow(struct rec_lane *l, uint64_t ticks, unsigned type, uint64_t flow_id);
/* Every event up to `ticks` is written (monotonic: a smaller value is ignored). */
void rec_lane_delivered(struct rec_lane *l, uint64_t ticks);
/* Adds records the lane's source lost (CUPTI's dropped records, a buffer
 * that could not be placed) to the slot's dropped count, which every
 * reader reports as "dropped". */
void rec_lane_lost(struct rec_lane *l, uint64_t n);

/* CLOCK_MONOTONIC nanoseconds to the segment's counter ticks, by the
 * header's calibration (0 if recording is off). */
uint64_t rec_ticks_of_mono_ns(uint64_t mono_ns);
/* Sets rec_header.gpu_state (enum rec_gpu_state). */
void rec_gpu_state_set(unsigned state);
/* Sets it to state only if it is still `expect` (NVTX says "NVTX only"
 * unless the CUDA part said more first); returns 1 if it did. */
int rec_gpu_state_set_if(unsigned expect, unsigned state);

#ifdef __cplusplus
}
#endif
#endif
