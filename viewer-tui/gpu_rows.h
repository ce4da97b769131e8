/*
 * gpu_rows.h -- GPU lanes in recorder-top (docs/tui.md, "GPU lanes"):
 * what each row of Threads records (a thread, a GPU stream or device,
 * NVTX ranges), the order that puts the GPU lanes after the CPU threads,
 * grouped by device, each device's busy share from its stream lanes, the
 * "delivered up to" watermark of lanes written late, and which lanes a
 * scope name of Top ran on.
 */
#ifndef TUI_GPU_ROWS_H
#define TUI_GPU_ROWS_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/analysis.h"

struct app;

/* One row of Threads beyond the model's thread: what its slot records. */
struct lane_meta {
    unsigned kind;            /* enum rec_lane_kind; REC_LANE_THREAD when not known */
    uint32_t device;
    uint64_t stream;
    double delivered_ns;      /* late lanes: every event up to here is read; 0: not said */
    int n_streams;            /* device rows: its stream lanes */
    double busy[60];          /* device rows: busy share per second (util's seconds), from its streams */
};

/* Names of Top that ran on GPU lanes, and where. */
struct gpu_name {
    uint32_t name_id;
    char where[72];           /* "GPU0 stream 7", "GPU0, 2 streams", "GPU, 2 devices" */
};

/* After the snapshot's threads are taken: their lane metadata, then the
 * order (CPU threads in slot order, NVTX range lanes, then each device:
 * its device lane, then its streams), then the names seen on GPU lanes in
 * the window (at most GPU_NAME_LANES stream lanes are asked). */
#define GPU_NAME_LANES 64
void gpu_rows_snapshot(struct app *a);
/* Where a name of Top ran on GPU lanes, or NULL (not on a GPU lane). */
const char *gpu_rows_where(const struct app *a, uint32_t name_id);
/* Messages hides the "args" instants of GPU lanes (a kernel's grid and
 * block: they would fill the view; exports fold them into the slice). */
int gpu_rows_hidden_message(const struct app *a, const struct rec_message *m);
/* Does the snapshot hold a row that is not a thread (Threads' KIND column)? */
int gpu_rows_any(const struct app *a);
/* The KIND column's word: "cpu", "gpu", "gpu dev", "ranges". */
const char *gpu_rows_kind(const struct lane_meta *l);

#endif
