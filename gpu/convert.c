/*
 * convert.c -- a CUPTI buffer's records onto lanes (convert.h is the
 * contract).  CUPTI writes records back to back, each starting with its
 * CUpti_ActivityKind; the walk reads the kind with memcpy, looks up its
 * struct's size, and reads nothing of a record the buffer does not hold
 * whole: an unknown kind or a cut record is malformed, and the buffer's
 * rest is skipped (sizes are the only way to the next record).  The
 * buffer's GPU work is then sorted per lane by start and placed
 * (gpu_lanes.c): CUPTI's batches are not in time order across streams.
 */
#include <stdlib.h>
#include <string.h>

#include "convert_int.h"

struct gpu_conv *gpu_conv_new(const struct gpu_conv_opts *o, const struct gpu_names *names) {
    struct gpu_conv *c = calloc(1, sizeof *c);
    if (!c) return NULL;
    if (o) c->opts = *o;
    else c->opts.items = GPU_ITEMS_DEFAULT;
    if (names) c->names = *names;
    c->strs = calloc(GPU_STRCACHE, sizeof *c->strs);
    if (!c->strs) {
        free(c);
        return NULL;
    }
    gpu_clock_init(&c->clock);
    c->id_args = rec_lane_name("args", 4);
    return c;
}

void gpu_conv_free(struct gpu_conv *c) {
    if (!c) return;
    gpu_lanes_free(c);
    for (size_t i = 0; i < GPU_STRCACHE; i++) free(c->strs[i].key);
    free(c->strs);
    free(c->items);
    free(c->markers);
    free(c->work);
    free(c->ix);
    free(c);
}

void gpu_conv_clock_pair(struct gpu_conv *c, uint64_t cupti_ns, uint64_t mono_ns) {
    if (c) gpu_clock_add(&c->clock, cupti_ns, mono_ns);
}

/* Lane order, then start: each lane's slices are placed in time order. */
static int by_lane_start(const void *a, const void *b) {
    const struct gpu_item *x = a, *y = b;
    if (x->fam != y->fam) return (uintptr_t)x->fam < (uintptr_t)y->fam ? -1 : 1;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

int gpu_conv_buffer(struct gpu_conv *c, const uint8_t *buf, size_t valid) {
    if (!c || (!buf && valid)) return -1;
    int bad = 0;
    size_t off = 0;
    c->nitems = 0;
    while (off < valid) {
        uint32_t kind;
        size_t size;
        if (valid - off < sizeof kind) {
            c->st.malformed++;
            bad = 1;
            break;
        }
        memcpy(&kind, buf + off, sizeof kind);
        size = gpu_rec_size(kind);
        if (size == 0 || size > valid - off) {
            c->st.malformed++;   /* unknown kind or cut: no way to the next record */
            bad = 1;
            break;
        }
        c->st.records++;
        if (gpu_rec_convert(c, kind, buf + off, off) != 0) {
            c->st.malformed++;   /* ends before it starts: this record only */
            bad = 1;
        }
        off += size;
    }
    if (c->nitems > 1) qsort(c->items, c->nitems, sizeof *c->items, by_lane_start);
    for (size_t i = 0; i < c->nitems; i++) gpu_place(c, &c->items[i]);
    c->nitems = 0;
    return bad ? -1 : 0;
}

void gpu_conv_dropped(struct gpu_conv *c, uint32_t device, uint64_t n) {
    if (!c || !n) return;
    c->st.cupti_dropped += n;
    struct gpu_family *d = gpu_fam_device(c, device);
    if (d) {
        /* On the device lane's dropped count; in the stats as CUPTI's, not ours. */
        uint64_t keep = c->st.lost;
        gpu_lost_on(c, d, n);
        c->st.lost = keep;
    }
}

void gpu_conv_delivered(struct gpu_conv *c, uint64_t cupti_ns) {
    if (c) gpu_lanes_deliver(c, cupti_ns, 0);
}

void gpu_conv_get_stats(const struct gpu_conv *c, struct gpu_conv_stats *out) {
    if (!c || !out) return;
    *out = c->st;
}
