/*
 * conv_stub.c -- a stand-in for the conversion (gpu/convert.h) for the
 * injection library's tests, until the real one is in the library: the
 * test programs export these, and librecorder-cuda.so binds to them only
 * while it has none of its own.  Deliberately small: kernels only, one
 * lane per (device, stream), each kernel a slice with its flow's end;
 * CUPTI's dropped records on the device's lane.  The conversion itself is
 * tested by cupti_replay, not here.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti.h>

#include "recorder.h"
#include "recorder/writer/lanes.h"
#include "../../gpu/convert.h"

#define MAX_LANES 16

struct gpu_conv {
    struct gpu_conv_stats st;
    int64_t offset;                    /* cupti_ns - mono_ns of the latest pair */
    int have_pair;
    struct rec_lane dev;
    int dev_open;
    struct {
        uint32_t device, stream;
        struct rec_lane lane;
    } lanes[MAX_LANES];
    int nlanes;
};

struct gpu_conv *gpu_conv_new(const struct gpu_conv_opts *o, const struct gpu_names *names) {
    (void)o;
    (void)names;
    return calloc(1, sizeof(struct gpu_conv));
}

void gpu_conv_free(struct gpu_conv *c) {
    if (!c) return;
    for (int i = 0; i < c->nlanes; i++) rec_lane_close(&c->lanes[i].lane, 0);
    if (c->dev_open) rec_lane_close(&c->dev, 0);
    free(c);
}

void gpu_conv_clock_pair(struct gpu_conv *c, uint64_t cupti_ns, uint64_t mono_ns) {
    c->offset = (int64_t)(cupti_ns - mono_ns);
    c->have_pair = 1;
}

static struct rec_lane *lane_of(struct gpu_conv *c, uint32_t device, uint32_t stream) {
    for (int i = 0; i < c->nlanes; i++)
        if (c->lanes[i].device == device && c->lanes[i].stream == stream) return &c->lanes[i].lane;
    if (c->nlanes == MAX_LANES) return NULL;
    char name[64];
    snprintf(name, sizeof name, "GPU%u stream %u", device, stream);
    struct rec_lane_desc d = {REC_LANE_GPU_STREAM, device, 1, stream, 0, name};
    if (rec_lane_open(&c->lanes[c->nlanes].lane, &d) != 0) return NULL;
    c->lanes[c->nlanes].device = device;
    c->lanes[c->nlanes].stream = stream;
    c->st.lanes++;
    return &c->lanes[c->nlanes++].lane;
}

int gpu_conv_buffer(struct gpu_conv *c, const uint8_t *buf, size_t valid) {
    for (size_t off = 0; off + 4 <= valid;) {
        uint32_t kind;
        memcpy(&kind, buf + off, 4);
        size_t sz = kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL ? sizeof(CUpti_ActivityKernel10)
                    : kind == CUPTI_ACTIVITY_KIND_MEMCPY          ? sizeof(CUpti_ActivityMemcpy6)
                    : kind == CUPTI_ACTIVITY_KIND_MEMSET          ? sizeof(CUpti_ActivityMemset4)
                    : kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION ? sizeof(CUpti_ActivitySynchronization2)
                                                                  : 0;
        if (!sz || off + sz > valid) {
            c->st.malformed++;
            return -1;
        }
        c->st.records++;
        if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
            CUpti_ActivityKernel10 k;
            memcpy(&k, buf + off, sizeof k);
            struct rec_lane *l = lane_of(c, k.deviceId, k.streamId);
            uint32_t id = k.name ? rec_lane_name(k.name, strnlen(k.name, 256)) : 0;
            uint64_t b = rec_ticks_of_mono_ns(k.start - (uint64_t)c->offset);
            uint64_t e = rec_ticks_of_mono_ns(k.end - (uint64_t)c->offset);
            if (l && rec_lane_begin(l, b, id) == REC_LANE_OK) {
                rec_lane_flow(l, b, REC_EV_FLOW_END, GPU_FLOW_ID(k.correlationId));
                rec_lane_end(l, e, id);
                c->st.kernels++;
            } else {
                c->st.lost++;
            }
        } else {
            c->st.other++;
        }
        off += sz;
    }
    return 0;
}

void gpu_conv_dropped(struct gpu_conv *c, uint32_t device, uint64_t n) {
    c->st.cupti_dropped += n;
    if (!c->dev_open) {
        char name[32];
        snprintf(name, sizeof name, "GPU%u", device);
        struct rec_lane_desc d = {REC_LANE_GPU_DEVICE, device, 0, 0, 0, name};
        c->dev_open = rec_lane_open(&c->dev, &d) == 0;
    }
    if (c->dev_open) rec_lane_lost(&c->dev, n);
}

void gpu_conv_delivered(struct gpu_conv *c, uint64_t cupti_ns) {
    for (int i = 0; i < c->nlanes; i++)
        rec_lane_delivered(&c->lanes[i].lane, rec_ticks_of_mono_ns(cupti_ns - (uint64_t)c->offset));
}

void gpu_conv_get_stats(const struct gpu_conv *c, struct gpu_conv_stats *out) { *out = c->st; }
