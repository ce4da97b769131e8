/*
 * convert.h -- CUPTI activity records to lanes: the one conversion that
 * both the injection library (librecorder-cuda.so, inject.c) and
 * cupti_replay use, so what the tests replay is what a GPU run records.
 *
 * Input: a buffer as CUPTI filled it (records of CUpti_Activity* structs
 * from CUDA's own cupti_activity.h), which is hostile when it comes from a
 * file: every record's kind and size are checked against the buffer's end
 * before a field is read.  Output: events on lanes of the process's
 * segment (include/recorder/writer/lanes.h):
 *   - a lane per (device, stream): kernels (demangled names; an "args"
 *     instant with grid and block at the kernel's start), memcpy ("memcpy
 *     HtoD", an "args" instant with the bytes), memset, synchronization;
 *     a record that overlaps or precedes the lane's last one goes to a
 *     sub-lane ("GPU0 stream 7 #2", at most GPU_SUBLANES), else it is
 *     counted lost on the lane;
 *   - a lane per device: counters "GPU<d> busy %" and "GPU<d> copy bytes/s"
 *     over each flush interval;
 *   - with thread_lanes (the replay): RUNTIME/DRIVER records as scopes on a
 *     REC_LANE_THREAD lane of their threadId, and MARKER (NVTX) records as
 *     scopes and instants there; the live library records those on the
 *     calling thread itself (inject.c callbacks, nvtx.c);
 *   - a launch and its work are tied by a flow whose id is
 *     GPU_FLOW_ID(correlationId): FLOW_BEGIN inside the launch's scope,
 *     FLOW_END inside the kernel's, copy's or memset's slice.
 * Times: CUPTI's nanoseconds (close to CLOCK_REALTIME) become
 * CLOCK_MONOTONIC through the clock pairs given (linear between them, so
 * drift over a run is corrected), then the segment's ticks.
 */
#ifndef RECORDER_GPU_CONVERT_H
#define RECORDER_GPU_CONVERT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/writer/lanes.h"

/* RECORDER_CUDA items (config.c parses the variable). */
#define GPU_ITEM_KERNELS 1u
#define GPU_ITEM_COPIES  2u   /* memcpy and memset */
#define GPU_ITEM_SYNC    4u
#define GPU_ITEM_API     8u   /* every runtime and driver call (costly) */
#define GPU_ITEM_NVTX    16u
#define GPU_ITEMS_DEFAULT (GPU_ITEM_KERNELS | GPU_ITEM_COPIES | GPU_ITEM_SYNC | GPU_ITEM_NVTX)

/* Flow ids of launch -> work links: bit 55 set, so they never meet the
 * small ids programs give their own flows. */
#define GPU_FLOW_ID(corr) ((UINT64_C(1) << 55) | (uint64_t)(uint32_t)(corr))

#define GPU_SUBLANES 8

struct gpu_conv;

#define GPU_NAME_RUNTIME_CBID 2
#define GPU_NAME_DRIVER_CBID  3

/* Names that a raw record holds as pointers (kernel names, NVTX
 * messages and domains): the live library reads the pointer (bounded);
 * the replay looks the record up in records.jsonl by its offset. */
struct gpu_names {
    /* rec_off: the record's offset in the buffer; field: 0 name, 1 domain;
     * ptr: the pointer as the record holds it.  NULL if none.  For
     * RUNTIME and DRIVER records (read only with thread_lanes) field is
     * GPU_NAME_RUNTIME_CBID or GPU_NAME_DRIVER_CBID and ptr the cbid: the
     * API function's name (a "_v<N>" suffix is cut). */
    const char *(*name)(void *ctx, size_t rec_off, int field, uint64_t ptr);
    void *ctx;
};

struct gpu_conv_opts {
    unsigned items;           /* GPU_ITEM_* */
    int thread_lanes;         /* replay: API and marker records onto lanes of their threads
                               * (without GPU_ITEM_API, only the calls that launched
                               * GPU work or waited for it) */
};

/* What a conversion did, for the loss line and the tests. */
struct gpu_conv_stats {
    uint64_t records;         /* records read */
    uint64_t kernels, copies, memsets, syncs, markers, api;  /* slices/instants written */
    uint64_t other;           /* records of kinds not shown (OVERHEAD, NAME, ...) */
    uint64_t malformed;       /* records cut, or of impossible size: the buffer's rest is skipped */
    uint64_t lost;            /* records not written: late on every sub-lane, no lane, ring full */
    uint64_t cupti_dropped;   /* CUPTI's own count of records it dropped (gpu_conv_dropped) */
    uint64_t lanes;           /* lanes opened */
};

/* Calls on one conversion come one at a time (the caller serialises them:
 * CUPTI's buffer-completion thread and a flush timer take one lock). */
struct gpu_conv *gpu_conv_new(const struct gpu_conv_opts *o, const struct gpu_names *names);
void gpu_conv_free(struct gpu_conv *c);    /* closes its lanes */
/* A clock pair: cuptiGetTimestamp() read between two CLOCK_MONOTONIC reads. */
void gpu_conv_clock_pair(struct gpu_conv *c, uint64_t cupti_ns, uint64_t mono_ns);
/* Converts one buffer's valid bytes.  Returns 0, or -1 if part of it was
 * malformed (counted; what came before is kept). */
int gpu_conv_buffer(struct gpu_conv *c, const uint8_t *buf, size_t valid);
/* CUPTI dropped n records (cuptiActivityGetNumDroppedRecords): counted
 * on the device's lane as dropped, as readers report for any lane. */
void gpu_conv_dropped(struct gpu_conv *c, uint32_t device, uint64_t n);
/* After a flush: every record up to cupti_ns is delivered; writes the
 * device counters for the interval and the lanes' watermarks. */
void gpu_conv_delivered(struct gpu_conv *c, uint64_t cupti_ns);
void gpu_conv_get_stats(const struct gpu_conv *c, struct gpu_conv_stats *out);

#endif
