/*
 * convert_int.h -- the conversion's insides, shared by its files (not a
 * contract: convert.h is).  convert.c walks a buffer and sorts what it
 * read, convert_records.c turns each record kind into items,
 * gpu_lanes.c owns the lanes (streams with their sub-lanes, devices with
 * their counters, replayed threads), clock.c maps CUPTI's time.
 */
#ifndef RECORDER_GPU_CONVERT_INT_H
#define RECORDER_GPU_CONVERT_INT_H

#include <stddef.h>
#include <stdint.h>

#include "recorder.h"
#include "recorder/writer/lanes.h"
#include "convert.h"

/* ---- clock.c: CUPTI ns -> CLOCK_MONOTONIC ns -> ticks ---------------- */
#define GPU_CLOCK_PAIRS 1024   /* kept pairs; the oldest but the first go when full */

struct gpu_clock {
    uint64_t cupti[GPU_CLOCK_PAIRS], mono[GPU_CLOCK_PAIRS];  /* sorted by cupti */
    unsigned n;
    int64_t fallback;          /* mono - realtime when no pair is known */
    uint64_t mono_lo, mono_hi; /* results are clamped here (the writer's ticks must not overflow) */
};
void gpu_clock_init(struct gpu_clock *k);
void gpu_clock_add(struct gpu_clock *k, uint64_t cupti_ns, uint64_t mono_ns);
uint64_t gpu_clock_mono(const struct gpu_clock *k, uint64_t cupti_ns);
uint64_t gpu_clock_ticks(const struct gpu_clock *k, uint64_t cupti_ns);

/* ---- demangle.cpp ----------------------------------------------------- */
/* The demangled name of `mangled` in out (NUL-terminated, cut to cap), or
 * the mangled name itself when it is not a C++ name. */
void gpu_demangle(const char *mangled, char *out, size_t cap);

/* ---- items: what one buffer's records become, before placing ---------- */
enum gpu_item_kind { IT_KERNEL, IT_COPY, IT_MEMSET, IT_SYNC, IT_API, IT_RANGE, IT_MARK };

struct gpu_family;

struct gpu_item {
    struct gpu_family *fam;
    uint64_t start, end;      /* ticks (thread items: CUPTI ns until delivery) */
    uint64_t seq;             /* read order: sorts are stable */
    uint64_t dur_ns;          /* CUPTI's duration, for the busy counter */
    uint64_t bytes;           /* copies: for the copy-rate counter */
    uint32_t name;            /* string id (0: filtered out) */
    uint32_t corr;            /* correlationId (0: none) */
    uint8_t kind;             /* enum gpu_item_kind */
    uint8_t launch_only;      /* API call shown only if it launched or waited (no `api` item) */
    uint8_t wait;             /* thread items: an API call that waited on GPU work (a wait scope) */
    char args[48];            /* the "args" instant's message ("" none) */
};

/* ---- gpu_lanes.c: lane families --------------------------------------- */
/* A family: one lane and its overflow sub-lanes ("#2".."#8").  Stream and
 * range families place slices that never overlap on one sub-lane; a
 * thread family nests (API calls and NVTX ranges) on one lane, holding its
 * items until delivery, when it sorts and writes them. */
struct gpu_family {
    uint64_t key;
    unsigned kind;            /* REC_LANE_* */
    uint32_t device, context;
    uint64_t stream;
    int32_t tid;
    char name[64];
    char domain[48];          /* range families: the NVTX domain */
    struct rec_lane lanes[GPU_SUBLANES];
    uint8_t open[GPU_SUBLANES];   /* 1 open, 2 open failed */
    /* device families: the counters' interval */
    uint64_t busy_ns, copy_bytes;
    /* thread families: items waiting for delivery, and the open slices */
    struct gpu_item *pend;
    size_t npend, cappend;
    struct gpu_item *stack;
    size_t nstack;
};

#define GPU_MAX_FAMILIES 4096     /* distinct lanes a conversion opens at most */
#define GPU_THREAD_DEPTH 256      /* nesting kept on a replayed thread */
#define GPU_PENDING_MAX (1u << 22) /* items a thread family holds at most */

struct gpu_ctxdev { uint32_t ctx, dev; };
#define GPU_CTX_MAX 1024

struct gpu_marker {        /* an NVTX start waiting for its end */
    uint32_t id, used;
    int32_t tid;
    uint32_t name, domain;
    uint64_t start;           /* CUPTI ns */
    char domain_name[48];
};
#define GPU_MARKERS (1u << 14)    /* open NVTX ranges at once; more are lost */

struct gpu_strcache {      /* name (mangled) -> string id of what is shown */
    uint64_t hash;
    char *key;
    uint32_t id;
};
#define GPU_STRCACHE (1u << 13)

struct gpu_conv {
    struct gpu_conv_opts opts;
    struct gpu_names names;
    struct gpu_clock clock;
    struct gpu_conv_stats st;
    uint64_t seq;
    /* families: table of pointers and an open-addressed index */
    struct gpu_family **fam;
    size_t nfam;
    uint32_t *fam_ix;          /* 2*GPU_MAX_FAMILIES slots, index+1 (0 empty) */
    /* one buffer's items */
    struct gpu_item *items;
    size_t nitems, capitems;
    uint32_t *ix;                  /* a thread's held items in nesting order */
    size_t capix;
    struct gpu_ctxdev ctx[GPU_CTX_MAX];
    unsigned nctx;
    struct gpu_marker *markers;    /* GPU_MARKERS, by id */
    uint64_t *work;                /* correlation ids that have GPU work (thread_lanes) */
    size_t work_cap, work_n;
    struct gpu_strcache *strs;
    uint32_t id_args, id_copy[11], id_memset, id_sync[5];
    struct gpu_family *last_stream, *last_device, *last_thread;  /* the last lookups */
    uint32_t api_ids[2][1024];     /* API names' string ids by cbid (+1; 0 not yet) */
    uint64_t last_delivered;       /* cupti ns */
    uint64_t first_start;          /* cupti ns of the first work since the last delivery */
};

/* gpu_lanes.c */
struct gpu_family *gpu_fam_stream(struct gpu_conv *c, uint32_t dev, uint32_t ctx, uint64_t stream);
struct gpu_family *gpu_fam_device(struct gpu_conv *c, uint32_t dev);
struct gpu_family *gpu_fam_thread(struct gpu_conv *c, uint32_t thread_id);
struct gpu_family *gpu_fam_ranges(struct gpu_conv *c, const char *domain);
/* Places a non-nesting slice (stream and range families); 0, or -1 lost. */
int gpu_place(struct gpu_conv *c, struct gpu_item *it);
/* Queues a thread item (times in CUPTI ns) for delivery; 0, or -1 lost. */
int gpu_thread_push(struct gpu_conv *c, const struct gpu_item *it);
/* Writes what thread families hold (all of it when final), the device
 * counters, and every lane's delivered mark. */
void gpu_lanes_deliver(struct gpu_conv *c, uint64_t cupti_ns, int final);
void gpu_lanes_free(struct gpu_conv *c);
void gpu_lost_on(struct gpu_conv *c, struct gpu_family *f, uint64_t n);
#define GPU_WORK_LAUNCH 1u   /* a kernel, copy or memset has the id: a flow */
#define GPU_WORK_WAIT   2u   /* a sync has it: the call waited */
unsigned gpu_work_has(const struct gpu_conv *c, uint32_t corr);
void gpu_work_add(struct gpu_conv *c, uint32_t corr, unsigned flag);

/* convert_records.c: one record (its struct copied out) into items.
 * Returns 0, or -1 malformed (end before start). */
int gpu_rec_convert(struct gpu_conv *c, uint32_t kind, const uint8_t *rec, size_t off);
/* The struct size of a record kind, 0 if unknown. */
size_t gpu_rec_size(uint32_t kind);
/* String id of `s`, interned once per conversion (demangle: shown demangled). */
uint32_t gpu_str_id(struct gpu_conv *c, const char *s, int demangle);
/* Appends an item to the current buffer's list; -1 when out of memory. */
int gpu_item_add(struct gpu_conv *c, const struct gpu_item *it);

#endif
