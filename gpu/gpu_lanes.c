/*
 * gpu_lanes.c -- where converted records land (docs/gpu.md, "The lanes").
 * A family is a lane and its overflow sub-lanes: "GPU<d> stream <s>" and
 * "#2".."#8" (GPU_SUBLANES) for work that overlaps the lane's last slice
 * (CUPTI's batches are not in time order, and a stream's records can
 * overlap: a sync waits while a copy runs); "GPU<d>" per device holding
 * the busy and copy-rate counters and the lost count; "thread <tid>" per
 * replayed CPU thread, where API calls and NVTX ranges nest; and
 * "NVTX <domain>" for ranges that do not nest on their thread.  Lanes
 * open on first use; every table here is bounded.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert_int.h"

static uint64_t mix(uint64_t x) {
    x ^= x >> 33;
    x *= UINT64_C(0xff51afd7ed558ccd);
    x ^= x >> 33;
    x *= UINT64_C(0xc4ceb9fe1a85ec53);
    return x ^ (x >> 33);
}

static uint64_t str_hash(const char *s) {
    uint64_t h = UINT64_C(1469598103934665603);
    for (; *s; s++) h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h;
}

#define IX_SLOTS (2u * GPU_MAX_FAMILIES)

/* A family's lane name, from what it is. */
static void name_family(struct gpu_family *f) {
    switch (f->kind) {
    case REC_LANE_GPU_STREAM:
        if (f->stream == UINT64_MAX) snprintf(f->name, sizeof f->name, "GPU%u sync", f->device);
        else snprintf(f->name, sizeof f->name, "GPU%u stream %llu", f->device, (unsigned long long)f->stream);
        break;
    case REC_LANE_GPU_DEVICE: snprintf(f->name, sizeof f->name, "GPU%u", f->device); break;
    case REC_LANE_THREAD: snprintf(f->name, sizeof f->name, "thread %d", (int)f->tid); break;
    default: snprintf(f->name, sizeof f->name, "NVTX %s", f->domain); break;
    }
}

/* The family (kind, device, stream, tid; ranges: domain) is looked up
 * first; its name is formatted only when it is new. */
static struct gpu_family *family(struct gpu_conv *c, unsigned kind, uint32_t dev, uint32_t ctx, uint64_t stream,
                                 int32_t tid, const char *domain) {
    uint64_t key = mix(((uint64_t)kind << 56) ^ ((uint64_t)dev << 24) ^ mix(stream) ^ (uint64_t)(uint32_t)tid ^
                       (domain ? str_hash(domain) : 0));
    if (!c->fam_ix) {
        c->fam_ix = calloc(IX_SLOTS, sizeof *c->fam_ix);
        c->fam = calloc(GPU_MAX_FAMILIES, sizeof *c->fam);
        if (!c->fam_ix || !c->fam) return NULL;
    }
    uint32_t i = (uint32_t)key & (IX_SLOTS - 1);
    for (;; i = (i + 1) & (IX_SLOTS - 1)) {
        uint32_t v = c->fam_ix[i];
        if (!v) break;
        struct gpu_family *f = c->fam[v - 1];
        if (f->key == key && f->kind == kind && f->device == dev && f->stream == stream && f->tid == tid &&
            (!domain || !strcmp(f->domain, domain)))
            return f;
    }
    if (c->nfam >= GPU_MAX_FAMILIES) return NULL;
    struct gpu_family *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->key = key;
    f->kind = kind;
    f->device = dev;
    f->context = ctx;
    f->stream = stream;
    f->tid = tid;
    if (domain) snprintf(f->domain, sizeof f->domain, "%s", domain);
    name_family(f);
    c->fam[c->nfam++] = f;
    c->fam_ix[i] = (uint32_t)c->nfam;
    return f;
}

struct gpu_family *gpu_fam_stream(struct gpu_conv *c, uint32_t dev, uint32_t ctx, uint64_t stream) {
    if (dev >= (1u << 24)) return NULL;
    if (c->last_stream && c->last_stream->device == dev && c->last_stream->stream == stream) return c->last_stream;
    struct gpu_family *f = family(c, REC_LANE_GPU_STREAM, dev, ctx, stream, 0, NULL);
    if (f) c->last_stream = f;
    return f;
}

struct gpu_family *gpu_fam_device(struct gpu_conv *c, uint32_t dev) {
    if (dev >= (1u << 24)) return NULL;
    if (c->last_device && c->last_device->device == dev) return c->last_device;
    struct gpu_family *f = family(c, REC_LANE_GPU_DEVICE, dev, 0, 0, 0, NULL);
    if (f) c->last_device = f;
    return f;
}

struct gpu_family *gpu_fam_thread(struct gpu_conv *c, uint32_t thread_id) {
    /* CUPTI's threadId is 32 bits of the pthread id; a lane's tid is a
     * positive int32. */
    int32_t tid = (int32_t)(thread_id & 0x7fffffffu);
    if (tid == 0) tid = 0x7fffffff;
    if (c->last_thread && c->last_thread->tid == tid) return c->last_thread;
    struct gpu_family *f = family(c, REC_LANE_THREAD, 0, 0, 0, tid, NULL);
    if (f) c->last_thread = f;
    return f;
}

struct gpu_family *gpu_fam_ranges(struct gpu_conv *c, const char *domain) {
    return family(c, REC_LANE_RANGES, 0, 0, 0, 0, domain && domain[0] ? domain : "default");
}

/* Sub-lane k of f, opened on first use; NULL if it cannot be. */
static struct rec_lane *sub(struct gpu_conv *c, struct gpu_family *f, unsigned k) {
    if (f->open[k] == 1) return &f->lanes[k];
    if (f->open[k] == 2) return NULL;
    char name[72];
    if (k == 0) snprintf(name, sizeof name, "%s", f->name);
    else snprintf(name, sizeof name, "%s #%u", f->name, k + 1);
    struct rec_lane_desc d = {f->kind, f->device, f->context, f->stream, f->tid, name};
    if (rec_lane_open(&f->lanes[k], &d) != 0) {
        f->open[k] = 2;
        return NULL;
    }
    f->open[k] = 1;
    c->st.lanes++;
    return &f->lanes[k];
}

void gpu_lost_on(struct gpu_conv *c, struct gpu_family *f, uint64_t n) {
    c->st.lost += n;
    struct gpu_family *d = f;
    if (f && (f->kind == REC_LANE_GPU_STREAM || f->kind == REC_LANE_GPU_DEVICE)) d = gpu_fam_device(c, f->device);
    struct rec_lane *l = d ? sub(c, d, 0) : NULL;
    if (l) rec_lane_lost(l, n);
}

static void count(struct gpu_conv *c, unsigned kind) {
    switch (kind) {
    case IT_KERNEL: c->st.kernels++; break;
    case IT_COPY: c->st.copies++; break;
    case IT_MEMSET: c->st.memsets++; break;
    case IT_SYNC: c->st.syncs++; break;
    case IT_API: c->st.api++; break;
    default: c->st.markers++; break;
    }
}

int gpu_place(struct gpu_conv *c, struct gpu_item *it) {
    struct gpu_family *f = it->fam;
    for (unsigned k = 0; k < GPU_SUBLANES; k++) {
        struct rec_lane *l = sub(c, f, k);
        if (!l || l->last_ticks > it->start) continue;
        if (rec_lane_begin(l, it->start, it->name) != REC_LANE_OK) break;
        if (it->kind != IT_RANGE && it->args[0]) rec_lane_instant(l, it->start, c->id_args, it->args);
        if (it->corr && (it->kind == IT_KERNEL || it->kind == IT_COPY || it->kind == IT_MEMSET))
            rec_lane_flow(l, it->start, REC_EV_FLOW_END, GPU_FLOW_ID(it->corr));
        rec_lane_end(l, it->end, it->name);
        count(c, it->kind);
        return 0;
    }
    gpu_lost_on(c, f, 1);
    return -1;
}

int gpu_thread_push(struct gpu_conv *c, const struct gpu_item *it) {
    struct gpu_family *f = it->fam;
    if (f->npend == f->cappend) {
        size_t n = f->cappend ? f->cappend * 2 : 256;
        struct gpu_item *p = n <= GPU_PENDING_MAX ? realloc(f->pend, n * sizeof *p) : NULL;
        if (!p) {
            gpu_lost_on(c, f, 1);
            return -1;
        }
        f->pend = p;
        f->cappend = n;
    }
    f->pend[f->npend++] = *it;
    return 0;
}

/* Nesting order: earlier first; at the same start the longer (the
 * enclosing call) first; then read order. */
static int by_nesting(const void *a, const void *b) {
    const struct gpu_item *x = a, *y = b;
    if (x->start != y->start) return x->start < y->start ? -1 : 1;
    if (x->end != y->end) return x->end > y->end ? -1 : 1;
    return x->seq < y->seq ? -1 : x->seq > y->seq;
}

/* The held items' nesting order, as indices (NULL: the items themselves
 * were sorted).  A thread's calls arrive nearly in order (an enclosing
 * call just after what it encloses), so an insertion sort of indices
 * does little work; past 16 moves per item it gives way to qsort. */
static const uint32_t *nesting_order(struct gpu_conv *c, struct gpu_family *f) {
    size_t n = f->npend, moves = 0;
    if (n > c->capix) {
        uint32_t *p = realloc(c->ix, n * sizeof *p);
        if (!p) goto sort;
        c->ix = p;
        c->capix = n;
    }
    for (size_t i = 0; i < n; i++) {
        uint32_t v = (uint32_t)i;
        size_t j = i;
        while (j > 0 && by_nesting(&f->pend[c->ix[j - 1]], &f->pend[v]) > 0) {
            c->ix[j] = c->ix[j - 1];
            j--;
            if (++moves > 16 * n) goto sort;
        }
        c->ix[j] = v;
    }
    return c->ix;
sort:
    qsort(f->pend, n, sizeof *f->pend, by_nesting);
    return NULL;
}

static void pop(struct rec_lane *l, struct gpu_family *f) {
    struct gpu_item *t = &f->stack[--f->nstack];
    if (t->wait) rec_lane_end_wait(l, t->end, t->name);
    else rec_lane_end(l, t->end, t->name);
}

/* Writes a thread family's held items, nested.  Slices still open at the
 * delivered time `upto` (ticks) stay on the stack, their ends unwritten,
 * so later items may still nest in them; one that ended by then cannot
 * get a child any more (a child ends before its parent: delivered). */
static void thread_flush(struct gpu_conv *c, struct gpu_family *f, int final, uint64_t upto) {
    struct rec_lane *l = sub(c, f, 0);
    if (f->npend && !f->stack && l) f->stack = malloc(GPU_THREAD_DEPTH * sizeof *f->stack);
    if (f->npend && (!l || !f->stack)) {
        c->st.lost += f->npend;
        f->npend = 0;
    }
    /* Held items carry CUPTI's times: only those kept are mapped to ticks. */
    size_t kept = 0;
    for (size_t i = 0; i < f->npend; i++) {
        struct gpu_item *it = &f->pend[i];
        if (it->launch_only && !gpu_work_has(c, it->corr)) {
            c->st.other++;   /* an API call that launched nothing and waited on nothing */
            continue;
        }
        it->start = gpu_clock_ticks(&c->clock, it->start);
        it->end = it->kind == IT_MARK ? it->start : gpu_clock_ticks(&c->clock, it->end);
        f->pend[kept++] = *it;
    }
    f->npend = kept;
    const uint32_t *order = nesting_order(c, f);
    for (size_t i = 0; i < f->npend; i++) {
        struct gpu_item *it = &f->pend[order ? order[i] : i];
        while (f->nstack && f->stack[f->nstack - 1].end <= it->start) pop(l, f);
        if (it->kind == IT_MARK) {
            if (rec_lane_instant(l, it->start, it->name, NULL) == REC_LANE_OK) count(c, it->kind);
            else gpu_lost_on(c, f, 1);
            continue;
        }
        if ((f->nstack && it->end > f->stack[f->nstack - 1].end) || f->nstack == GPU_THREAD_DEPTH) {
            /* Does not nest: an NVTX start/end range crossing others goes
             * to its domain's range lane; an API call cannot cross. */
            if (it->kind == IT_RANGE && (it->fam = gpu_fam_ranges(c, it->args)) != NULL) gpu_place(c, it);
            else gpu_lost_on(c, f, 1);
            continue;
        }
        /* A call that waited on GPU work (a sync) is a wait scope, as the
         * live library's sync callbacks are (callbacks.c). */
        it->wait = it->kind == IT_API && (gpu_work_has(c, it->corr) & GPU_WORK_WAIT) != 0;
        int rc = it->wait ? rec_lane_begin_wait(l, it->start, it->name) : rec_lane_begin(l, it->start, it->name);
        if (rc != REC_LANE_OK) {
            gpu_lost_on(c, f, 1);
            continue;
        }
        if (it->kind == IT_API && (gpu_work_has(c, it->corr) & GPU_WORK_LAUNCH))
            rec_lane_flow(l, it->start, REC_EV_FLOW_BEGIN, GPU_FLOW_ID(it->corr));
        f->stack[f->nstack++] = *it;
        count(c, it->kind);
    }
    f->npend = 0;
    while (f->nstack && (final || f->stack[f->nstack - 1].end <= upto)) pop(l, f);
}

void gpu_lanes_deliver(struct gpu_conv *c, uint64_t cupti_ns, int final) {
    uint64_t t = gpu_clock_ticks(&c->clock, cupti_ns);
    uint64_t from = c->last_delivered ? c->last_delivered : c->first_start;
    uint64_t span = from && cupti_ns > from ? cupti_ns - from : 0;
    for (size_t i = 0; i < c->nfam; i++) {
        struct gpu_family *f = c->fam[i];
        if (f->kind == REC_LANE_THREAD) thread_flush(c, f, final, t);
        if (f->kind == REC_LANE_GPU_DEVICE && span && !final) {
            struct rec_lane *l = sub(c, f, 0);
            char name[64];
            double busy = (double)f->busy_ns * 100.0 / (double)span;
            if (busy > 100.0) busy = 100.0;
            if (l) {
                snprintf(name, sizeof name, "GPU%u busy %%", f->device);
                rec_lane_counter(l, t, rec_lane_name(name, strlen(name)), busy);
                snprintf(name, sizeof name, "GPU%u copy bytes/s", f->device);
                rec_lane_counter(l, t, rec_lane_name(name, strlen(name)), (double)f->copy_bytes * 1e9 / (double)span);
            }
            f->busy_ns = f->copy_bytes = 0;
        }
    }
    if (final) return;
    for (size_t i = 0; i < c->nfam; i++)
        for (unsigned k = 0; k < GPU_SUBLANES; k++)
            if (c->fam[i]->open[k] == 1) rec_lane_delivered(&c->fam[i]->lanes[k], t);
    if (cupti_ns > c->last_delivered) c->last_delivered = cupti_ns;
}

void gpu_lanes_free(struct gpu_conv *c) {
    gpu_lanes_deliver(c, c->last_delivered, 1);
    uint64_t now = rec_now();
    for (size_t i = 0; i < c->nfam; i++) {
        struct gpu_family *f = c->fam[i];
        for (unsigned k = 0; k < GPU_SUBLANES; k++)
            if (f->open[k] == 1) {
                uint64_t last = f->lanes[k].last_ticks;
                rec_lane_close(&f->lanes[k], last > now ? last : 0);
            }
        free(f->pend);
        free(f->stack);
        free(f);
    }
    free(c->fam);
    free(c->fam_ix);
    c->fam = NULL;
    c->fam_ix = NULL;
    c->nfam = 0;
}

/* ---- correlation ids with GPU work: which calls are launches or waits ---
 * Entries: the id in the low 32 bits, GPU_WORK_* flags above. */
#define WORK_MAX (1u << 22)

static size_t work_slot(const uint64_t *w, size_t cap, uint32_t corr) {
    size_t i = (size_t)mix(corr) & (cap - 1);
    while (w[i] && (uint32_t)w[i] != corr) i = (i + 1) & (cap - 1);
    return i;
}

unsigned gpu_work_has(const struct gpu_conv *c, uint32_t corr) {
    if (!c->work || !corr) return 0;
    return (unsigned)(c->work[work_slot(c->work, c->work_cap, corr)] >> 32);
}

void gpu_work_add(struct gpu_conv *c, uint32_t corr, unsigned flag) {
    if (!corr) return;
    if ((c->work_n + 1) * 2 > c->work_cap) {
        size_t n = c->work_cap ? c->work_cap * 2 : 1024;
        uint64_t *w = n <= WORK_MAX ? calloc(n, sizeof *w) : NULL;
        if (!w) {
            /* Full: later calls are not known as launches (no flow; shown with --api only). */
            if (c->work && c->work[work_slot(c->work, c->work_cap, corr)]) goto add;
            return;
        }
        for (size_t i = 0; i < c->work_cap; i++)
            if (c->work[i]) w[work_slot(w, n, (uint32_t)c->work[i])] = c->work[i];
        free(c->work);
        c->work = w;
        c->work_cap = n;
    }
add:;
    size_t j = work_slot(c->work, c->work_cap, corr);
    if (!c->work[j]) c->work_n++;
    c->work[j] |= (uint64_t)corr | ((uint64_t)flag << 32);
}
