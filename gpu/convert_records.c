/*
 * convert_records.c -- each CUPTI record kind as items (docs/gpu.md, "The
 * lanes").  The record's bytes were checked to hold its whole struct
 * (convert.c); here it is copied out into CUDA's own struct type (no
 * unaligned reads) and turned into what the lanes show: kernels, copies,
 * memsets and syncs on their stream's lane; with thread lanes (the
 * replay), API calls and NVTX ranges and marks on their thread's lane.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_activity.h>

#include "convert_int.h"

size_t gpu_rec_size(uint32_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_NAME: return sizeof(CUpti_ActivityName);
    case CUPTI_ACTIVITY_KIND_MARKER: return sizeof(CUpti_ActivityMarker2);
    case CUPTI_ACTIVITY_KIND_MARKER_DATA: return sizeof(CUpti_ActivityMarkerData2);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
    case CUPTI_ACTIVITY_KIND_MEMCPY2: return sizeof(CUpti_ActivityMemcpyPtoP4);
    case CUPTI_ACTIVITY_KIND_CUDA_EVENT: return sizeof(CUpti_ActivityCudaEvent2);
    case CUPTI_ACTIVITY_KIND_STREAM: return sizeof(CUpti_ActivityStream);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION: return sizeof(CUpti_ActivityExternalCorrelation);
    default: return 0;
    }
}

/* ---- names ------------------------------------------------------------ */
static uint64_t fnv(const char *s) {
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++) h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

uint32_t gpu_str_id(struct gpu_conv *c, const char *s, int demangle) {
    uint64_t h = fnv(s) ^ (uint64_t)demangle;
    struct gpu_strcache *e = NULL;
    if (c->strs) {
        e = &c->strs[h & (GPU_STRCACHE - 1)];
        if (e->key && e->hash == h && !strcmp(e->key, s)) return e->id;
    }
    uint32_t id;
    if (demangle) {
        char out[REC_STR_MAXLEN + 1];
        gpu_demangle(s, out, sizeof out);
        id = rec_lane_name(out, strlen(out));
    } else {
        id = rec_lane_name(s, strlen(s));
    }
    if (e) {   /* a direct-mapped cache: a collision replaces the entry */
        char *k = strdup(s);
        if (k) {
            free(e->key);
            e->key = k;
            e->hash = h;
            e->id = id;
        }
    }
    return id;
}

/* A pointer field's string, from the caller's names (bounded there). */
static const char *name_of(struct gpu_conv *c, size_t off, int field, uint64_t ptr) {
    if (!c->names.name) return NULL;
    const char *s = c->names.name(c->names.ctx, off, field, ptr);
    return s && s[0] ? s : NULL;
}

int gpu_item_add(struct gpu_conv *c, const struct gpu_item *it) {
    if (c->nitems == c->capitems) {
        size_t n = c->capitems ? c->capitems * 2 : 1024;
        struct gpu_item *p = realloc(c->items, n * sizeof *p);
        if (!p) return -1;
        c->items = p;
        c->capitems = n;
    }
    c->items[c->nitems++] = *it;
    return 0;
}

static uint32_t ctx_device(struct gpu_conv *c, uint32_t ctx) {
    for (unsigned i = 0; i < c->nctx; i++)
        if (c->ctx[i].ctx == ctx) return c->ctx[i].dev;
    return 0;   /* a context CUPTI never described: device 0 */
}

static void ctx_learn(struct gpu_conv *c, uint32_t ctx, uint32_t dev) {
    for (unsigned i = 0; i < c->nctx; i++)
        if (c->ctx[i].ctx == ctx) {
            c->ctx[i].dev = dev;
            return;
        }
    if (c->nctx < GPU_CTX_MAX) c->ctx[c->nctx++] = (struct gpu_ctxdev){ctx, dev};
}

/* A slice of GPU work: onto its stream's lane, counted for the device. */
static int work(struct gpu_conv *c, struct gpu_item *it, uint32_t dev, uint32_t ctx, uint64_t stream,
                uint64_t start, uint64_t end) {
    if (end < start) return -1;
    it->fam = gpu_fam_stream(c, dev, ctx, stream);
    struct gpu_family *d = gpu_fam_device(c, dev);
    if (!it->fam || !d) {
        gpu_lost_on(c, NULL, 1);
        return 0;
    }
    if (!it->name) return 0;   /* filtered out (RECORDER_FILTER) */
    if (it->kind == IT_KERNEL) d->busy_ns += end - start;
    if (it->kind == IT_COPY) d->copy_bytes += it->bytes;
    if (!c->first_start || start < c->first_start) c->first_start = start;
    it->start = gpu_clock_ticks(&c->clock, start);
    it->end = gpu_clock_ticks(&c->clock, end);
    if (it->end < it->start) it->end = it->start;
    it->seq = c->seq++;
    if (c->opts.thread_lanes) gpu_work_add(c, it->corr, it->kind == IT_SYNC ? GPU_WORK_WAIT : GPU_WORK_LAUNCH);
    if (gpu_item_add(c, it) != 0) gpu_lost_on(c, it->fam, 1);
    return 0;
}

static const char *const copy_names[11] = {"memcpy", "memcpy HtoD", "memcpy DtoH", "memcpy HtoA", "memcpy AtoH",
                                           "memcpy AtoA", "memcpy AtoD", "memcpy DtoA", "memcpy DtoD",
                                           "memcpy HtoH", "memcpy PtoP"};
static const char *const sync_names[5] = {"sync", "sync event", "sync stream wait event", "sync stream",
                                          "sync context"};

static uint32_t copy_name(struct gpu_conv *c, unsigned k) {
    if (k > 10) k = 0;
    if (!c->id_copy[k]) c->id_copy[k] = gpu_str_id(c, copy_names[k], 0);
    return c->id_copy[k];
}

static int kernel(struct gpu_conv *c, const uint8_t *rec, size_t off) {
    CUpti_ActivityKernel10 k;
    memcpy(&k, rec, sizeof k);
    struct gpu_item it = {.kind = IT_KERNEL, .corr = k.correlationId};
    const char *n = name_of(c, off, 0, (uint64_t)(uintptr_t)k.name);
    it.name = gpu_str_id(c, n ? n : "kernel", n != NULL);
    snprintf(it.args, sizeof it.args, "grid=(%d,%d,%d) block=(%d,%d,%d)", k.gridX, k.gridY, k.gridZ, k.blockX,
             k.blockY, k.blockZ);
    ctx_learn(c, k.contextId, k.deviceId);
    return work(c, &it, k.deviceId, k.contextId, k.streamId, k.start, k.end);
}

static int copy(struct gpu_conv *c, const uint8_t *rec) {
    CUpti_ActivityMemcpy6 m;
    memcpy(&m, rec, sizeof m);
    struct gpu_item it = {.kind = IT_COPY, .corr = m.correlationId, .bytes = m.bytes};
    it.name = copy_name(c, m.copyKind);
    snprintf(it.args, sizeof it.args, "%llu bytes", (unsigned long long)m.bytes);
    ctx_learn(c, m.contextId, m.deviceId);
    return work(c, &it, m.deviceId, m.contextId, m.streamId, m.start, m.end);
}

static int copy_p2p(struct gpu_conv *c, const uint8_t *rec) {
    CUpti_ActivityMemcpyPtoP4 m;
    memcpy(&m, rec, sizeof m);
    struct gpu_item it = {.kind = IT_COPY, .corr = m.correlationId, .bytes = m.bytes};
    it.name = copy_name(c, m.copyKind);
    snprintf(it.args, sizeof it.args, "%llu bytes", (unsigned long long)m.bytes);
    return work(c, &it, m.deviceId, m.contextId, m.streamId, m.start, m.end);
}

static int memset_(struct gpu_conv *c, const uint8_t *rec) {
    CUpti_ActivityMemset4 m;
    memcpy(&m, rec, sizeof m);
    struct gpu_item it = {.kind = IT_MEMSET, .corr = m.correlationId};
    if (!c->id_memset) c->id_memset = gpu_str_id(c, "memset", 0);
    it.name = c->id_memset;
    snprintf(it.args, sizeof it.args, "%llu bytes", (unsigned long long)m.bytes);
    ctx_learn(c, m.contextId, m.deviceId);
    return work(c, &it, m.deviceId, m.contextId, m.streamId, m.start, m.end);
}

static int sync_(struct gpu_conv *c, const uint8_t *rec) {
    CUpti_ActivitySynchronization2 s;
    memcpy(&s, rec, sizeof s);
    unsigned t = (unsigned)s.type <= 4 ? (unsigned)s.type : 0;
    struct gpu_item it = {.kind = IT_SYNC, .corr = s.correlationId};
    if (!c->id_sync[t]) c->id_sync[t] = gpu_str_id(c, sync_names[t], 0);
    it.name = c->id_sync[t];
    /* A context or event sync waits on no one stream: the device's
     * "GPU<d> sync" lane (stream UINT64_MAX). */
    uint64_t stream = s.streamId == CUPTI_SYNCHRONIZATION_INVALID_VALUE ? UINT64_MAX : s.streamId;
    return work(c, &it, ctx_device(c, s.contextId), s.contextId, stream, s.start, s.end);
}

/* "cudaLaunchKernel_v7000" -> "cudaLaunchKernel": CUPTI's names carry the
 * API version the call entered by. */
static void api_name(char *out, size_t cap, const char *n) {
    size_t len = strnlen(n, cap - 1);
    memcpy(out, n, len);
    out[len] = 0;
    char *v = strrchr(out, '_');
    if (v && v[1] == 'v' && v[2]) {
        char *d = v + 2;
        while (*d >= '0' && *d <= '9') d++;
        if (!*d) *v = 0;
    }
}

static int api(struct gpu_conv *c, uint32_t kind, const uint8_t *rec, size_t off) {
    CUpti_ActivityAPI a;
    memcpy(&a, rec, sizeof a);
    if (a.end < a.start) return -1;
    int rt = kind == CUPTI_ACTIVITY_KIND_RUNTIME;
    /* A cbid names one function: its name's id is looked up once. */
    uint32_t *cached = a.cbid < 1024 ? &c->api_ids[rt][a.cbid] : NULL;
    /* Without the api item, a call is shown only if it launched GPU work
     * or waited for it (known at delivery): the live library's launch
     * and wait scopes. */
    struct gpu_item it;   /* every field set: this is the replay's hottest path */
    it.kind = IT_API;
    it.corr = a.correlationId;
    it.launch_only = !(c->opts.items & GPU_ITEM_API);
    it.wait = 0;   /* known at delivery (gpu_lanes.c) */
    it.dur_ns = it.bytes = 0;
    it.args[0] = 0;
    if (cached && *cached) {
        it.name = *cached - 1;
    } else {
        const char *n = name_of(c, off, rt ? GPU_NAME_RUNTIME_CBID : GPU_NAME_DRIVER_CBID, a.cbid);
        char buf[128];
        if (n) api_name(buf, sizeof buf, n);
        else snprintf(buf, sizeof buf, "%s cbid %u", rt ? "cudart" : "cuda driver", (unsigned)a.cbid);
        it.name = gpu_str_id(c, buf, 0);
        if (cached) *cached = it.name + 1;
    }
    it.fam = gpu_fam_thread(c, a.threadId);
    if (!it.fam) {
        gpu_lost_on(c, NULL, 1);
        return 0;
    }
    if (!it.name) return 0;
    it.start = a.start;   /* CUPTI's times until delivery (gpu_lanes.c) */
    it.end = a.end;
    it.seq = c->seq++;
    gpu_thread_push(c, &it);
    return 0;
}

static int marker(struct gpu_conv *c, const uint8_t *rec, size_t off) {
    CUpti_ActivityMarker2 m;
    memcpy(&m, rec, sizeof m);
    uint32_t thread = m.objectId.pt.threadId;
    uint64_t t = m.timestamp;   /* CUPTI's time until delivery (gpu_lanes.c) */
    if (!c->markers) c->markers = calloc(GPU_MARKERS, sizeof *c->markers);
    if (!c->markers) {
        gpu_lost_on(c, NULL, 1);
        return 0;
    }
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_END) {
        struct gpu_marker *s = &c->markers[m.id & (GPU_MARKERS - 1)];
        if (!s->used || s->id != m.id) {
            gpu_lost_on(c, NULL, 1);   /* an end whose start was lost or never came */
            return 0;
        }
        s->used = 0;
        if (t < s->start) return -1;
        struct gpu_item it = {.kind = IT_RANGE, .name = s->name, .start = s->start, .end = t, .seq = c->seq++};
        memcpy(it.args, s->domain_name, sizeof it.args < sizeof s->domain_name ? sizeof it.args
                                                                                 : sizeof s->domain_name);
        it.args[sizeof it.args - 1] = 0;
        it.fam = gpu_fam_thread(c, (uint32_t)s->tid);
        if (!it.fam) gpu_lost_on(c, NULL, 1);
        else if (it.name) gpu_thread_push(c, &it);
        return 0;
    }
    const char *n = name_of(c, off, 0, (uint64_t)(uintptr_t)m.name);
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_START) {
        struct gpu_marker *s = &c->markers[m.id & (GPU_MARKERS - 1)];
        if (s->used) gpu_lost_on(c, NULL, 1);   /* the older open range is given up */
        const char *d = name_of(c, off, 1, (uint64_t)(uintptr_t)m.domain);
        *s = (struct gpu_marker){.id = m.id, .used = 1, .tid = (int32_t)thread, .start = t,
                                 .name = gpu_str_id(c, n ? n : "range", 0)};
        snprintf(s->domain_name, sizeof s->domain_name, "%s", d ? d : "default");
        return 0;
    }
    if (m.flags & CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS) {
        struct gpu_item it = {.kind = IT_MARK, .name = gpu_str_id(c, n ? n : "mark", 0), .start = t, .end = t,
                              .seq = c->seq++};
        it.fam = gpu_fam_thread(c, thread);
        if (!it.fam) gpu_lost_on(c, NULL, 1);
        else if (it.name) gpu_thread_push(c, &it);
        return 0;
    }
    c->st.other++;
    return 0;
}

int gpu_rec_convert(struct gpu_conv *c, uint32_t kind, const uint8_t *rec, size_t off) {
    unsigned items = c->opts.items;
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_KERNEL:
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
        if (items & GPU_ITEM_KERNELS) return kernel(c, rec, off);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY:
        if (items & GPU_ITEM_COPIES) return copy(c, rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMCPY2:
        if (items & GPU_ITEM_COPIES) return copy_p2p(c, rec);
        break;
    case CUPTI_ACTIVITY_KIND_MEMSET:
        if (items & GPU_ITEM_COPIES) return memset_(c, rec);
        break;
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION:
        if (items & GPU_ITEM_SYNC) return sync_(c, rec);
        break;
    case CUPTI_ACTIVITY_KIND_RUNTIME:
    case CUPTI_ACTIVITY_KIND_DRIVER:
        if (c->opts.thread_lanes && (items & (GPU_ITEM_API | GPU_ITEM_KERNELS | GPU_ITEM_COPIES | GPU_ITEM_SYNC)))
            return api(c, kind, rec, off);
        break;
    case CUPTI_ACTIVITY_KIND_MARKER:
        if ((items & GPU_ITEM_NVTX) && c->opts.thread_lanes) return marker(c, rec, off);
        break;
    case CUPTI_ACTIVITY_KIND_CONTEXT: {
        CUpti_ActivityContext3 x;
        memcpy(&x, rec, sizeof x);
        ctx_learn(c, x.contextId, x.deviceId);
        break;
    }
    default: break;
    }
    c->st.other++;
    return 0;
}
