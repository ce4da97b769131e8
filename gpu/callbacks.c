/*
 * callbacks.c -- launch scopes on the calling thread (callbacks.h).
 *
 * Each enabled CUDA call gives an ENTER and an EXIT callback on its own
 * thread: ENTER opens a scope named by the call (cbdata->functionName:
 * "cudaLaunchKernel", "cuStreamSynchronize"...) with a FLOW_BEGIN of id
 * GPU_FLOW_ID(correlationId), the id CUPTI also puts in the kernel's or
 * copy's activity record; EXIT closes it.  A runtime call drives a driver
 * call (cudaLaunchKernel calls cuLaunchKernel): only the runtime call is
 * recorded, by skipping driver calls made inside a runtime call on the
 * same thread.  The scopes go through the thread's own ring (the writer's
 * REC_SCOPE_DYN path), so they nest with the program's own scopes.
 */
#include "callbacks.h"

#include <stdio.h>
#include <string.h>

#include "recorder.h"
#include "convert.h"

/* Class of each cbid, per domain, built once at start from gpu_cbids[]
 * (0 = GPU_CB_API).  Written before CUPTI can call back, read-only after. */
static uint8_t rt_class[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint8_t drv_class[CUPTI_DRIVER_TRACE_CBID_SIZE];
static CUpti_SubscriberHandle subscriber;

unsigned gpu_cb_class_of(unsigned domain, uint32_t cbid) {
    if (domain == GPU_CB_RT) return cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE ? rt_class[cbid] : GPU_CB_API;
    return cbid < CUPTI_DRIVER_TRACE_CBID_SIZE ? drv_class[cbid] : GPU_CB_API;
}

/* Open calls on this thread.  An entry per ENTER, popped by its EXIT; a
 * call deeper than the stack is neither recorded nor popped wrongly. */
#define CB_DEPTH 8
struct cb_open {
    uint32_t id;        /* the scope's id to end with, 0 = not recorded */
    uint16_t cbid;
    uint8_t domain;
    uint8_t wait;
};
struct cb_thread {
    unsigned depth;     /* entries in use (may exceed CB_DEPTH: those are not kept) */
    unsigned runtime;   /* runtime calls among the kept entries */
    struct cb_open open[CB_DEPTH];
};
/* Small: the library is dlopen'ed, and the writer's initial-exec TLS puts
 * all of its TLS in glibc's static TLS surplus, shared by every such library
 * (docs/gpu.md, "Tracing a CUDA program").  Initial-exec here too: it is in
 * that block anyway, and it spares a __tls_get_addr per callback. */
static __thread struct cb_thread cb_t __attribute__((tls_model("initial-exec")));

/* Each call's name id, per domain and cbid: a cbid's functionName never
 * changes, so it is interned once (rec__intern_dyn_v's value, subtree
 * flags kept), not on every call.  0: not yet; REC_ID_FILTERED: filtered
 * out.  String ids are the segment's, the same on every thread. */
static uint32_t rt_ids[CUPTI_RUNTIME_TRACE_CBID_SIZE];
static uint32_t drv_ids[CUPTI_DRIVER_TRACE_CBID_SIZE];

static uint32_t name_id(unsigned dom, uint32_t cbid, const char *name) {
    uint32_t *slot = NULL;
    if (dom == GPU_CB_RT && cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE) slot = &rt_ids[cbid];
    if (dom == GPU_CB_DRV && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE) slot = &drv_ids[cbid];
    if (!slot) return rec__intern_dyn_v(name);
    uint32_t id = __atomic_load_n(slot, __ATOMIC_RELAXED);
    if (REC_LIKELY(id)) return id == REC_ID_FILTERED ? 0 : id;
    id = rec__intern_dyn_v(name);
    __atomic_store_n(slot, id ? id : REC_ID_FILTERED, __ATOMIC_RELAXED);
    return id;
}

void gpu_callbacks_forget(void) {
    memset(rt_ids, 0, sizeof rt_ids);
    memset(drv_ids, 0, sizeof drv_ids);
}

/* recorder.h's rec__begin_dyn and rec__begin_wait_dyn, from an id. */
static uint32_t begin_scope(uint32_t id) {
    if (REC_LIKELY(id - 2u < REC__ID_ROOT - 2u)) {
        rec_begin_id(id);
        return id;
    }
    if (id < REC__ID_ROOT) return 0;
    if ((id & REC__ID_COND) && !rec__t.sub_id) return 0;
    return rec__scope_slow(NULL, NULL, id);
}

static uint32_t begin_wait(uint32_t id) {
    if (id >= REC__ID_ROOT) id = (id & REC__ID_COND) && !rec__t.sub_id ? 0 : id & REC__ID_MASK;
    if (id) rec_begin_wait_id(id);
    return id;
}

static void on_enter(unsigned dom, uint32_t cbid, const CUpti_CallbackData *cb) {
    struct cb_thread *t = &cb_t;
    unsigned d = t->depth++;
    if (d >= CB_DEPTH) {
        /* Not recorded, but never silently: an instant marks each one. */
        REC_INSTANT("recorder: CUDA call nested too deep, not recorded");
        return;
    }
    struct cb_open *o = &t->open[d];
    o->cbid = (uint16_t)cbid;
    o->domain = (uint8_t)dom;
    o->id = 0;
    o->wait = 0;
    if (dom == GPU_CB_RT) t->runtime++;
    /* A driver call made by a runtime call: the runtime call is the scope. */
    else if (t->runtime) return;
    const char *name = cb->functionName;
    if (!name || !*name) return;
    unsigned cls = gpu_cb_class_of(dom, cbid);
    uint32_t id = name_id(dom, cbid, name);
    if (cls == GPU_CB_WAIT) {
        o->id = begin_wait(id);
        o->wait = 1;
    } else {
        o->id = begin_scope(id);
    }
    if (o->id && cls != GPU_CB_API) rec__flow(REC_EV_FLOW_BEGIN, GPU_FLOW_ID(cb->correlationId));
}

static void on_exit_cb(unsigned dom, uint32_t cbid) {
    struct cb_thread *t = &cb_t;
    if (!t->depth) return;  /* its ENTER came before the callbacks were on */
    unsigned d = t->depth - 1;
    if (d >= CB_DEPTH) {
        t->depth--;
        return;
    }
    struct cb_open *o = &t->open[d];
    /* Not this call's entry: the ENTER was missed (callbacks enabled
     * inside the call, as during cuInit); leave the stack as it is. */
    if (o->cbid != (uint16_t)cbid || o->domain != dom) return;
    t->depth--;
    if (dom == GPU_CB_RT) t->runtime--;
    if (o->wait) rec__scope_wait_end(&o->id);
    else rec__scope_end(&o->id);
}

void CUPTIAPI gpu_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data) {
    (void)userdata;
    unsigned dom;
    if (domain == CUPTI_CB_DOMAIN_RUNTIME_API) dom = GPU_CB_RT;
    else if (domain == CUPTI_CB_DOMAIN_DRIVER_API) dom = GPU_CB_DRV;
    else return;
    const CUpti_CallbackData *cb = data;
    if (!cb) return;
    if (cb->callbackSite == CUPTI_API_ENTER) on_enter(dom, cbid, cb);
    else on_exit_cb(dom, cbid);
}

static unsigned item_of(unsigned cls) {
    switch (cls) {
        case GPU_CB_LAUNCH: return GPU_ITEM_KERNELS;
        case GPU_CB_COPY: return GPU_ITEM_COPIES;
        case GPU_CB_WAIT:
        case GPU_CB_SYNC: return GPU_ITEM_SYNC;
        default: return GPU_ITEM_API;
    }
}

int gpu_callbacks_start(const struct gpu_cupti *api, unsigned items, char *why, size_t whylen) {
    int want = (items & GPU_ITEM_API) != 0;
    for (size_t i = 0; i < gpu_cbids_count; i++) {
        const struct gpu_cbid *c = &gpu_cbids[i];
        if (c->domain == GPU_CB_RT && c->cbid < CUPTI_RUNTIME_TRACE_CBID_SIZE) rt_class[c->cbid] = c->cls;
        if (c->domain == GPU_CB_DRV && c->cbid < CUPTI_DRIVER_TRACE_CBID_SIZE) drv_class[c->cbid] = c->cls;
        if (items & item_of(c->cls)) want = 1;
    }
    if (!want) return 0;
    CUptiResult r = api->Subscribe(&subscriber, gpu_callback, NULL);
    if (r != CUPTI_SUCCESS) {
        if (r == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED)
            snprintf(why, whylen, "another CUDA profiler or tracer holds CUPTI (%s)", gpu_cupti_error(api, r));
        else
            snprintf(why, whylen, "cuptiSubscribe: %s", gpu_cupti_error(api, r));
        return -1;
    }
    if (items & GPU_ITEM_API) {
        static const CUpti_CallbackDomain doms[2] = {CUPTI_CB_DOMAIN_RUNTIME_API, CUPTI_CB_DOMAIN_DRIVER_API};
        for (int k = 0; k < 2; k++) {
            r = api->EnableDomain(1, subscriber, doms[k]);
            if (r != CUPTI_SUCCESS) {
                snprintf(why, whylen, "cuptiEnableDomain: %s", gpu_cupti_error(api, r));
                gpu_callbacks_stop(api);
                return -1;
            }
        }
        return 0;
    }
    /* One by one: an id this CUPTI does not know is skipped; nothing
     * enabled at all is CUPTI refusing. */
    size_t on = 0;
    CUptiResult first = CUPTI_SUCCESS;
    for (size_t i = 0; i < gpu_cbids_count; i++) {
        const struct gpu_cbid *c = &gpu_cbids[i];
        if (!(items & item_of(c->cls))) continue;
        CUpti_CallbackDomain d = c->domain == GPU_CB_RT ? CUPTI_CB_DOMAIN_RUNTIME_API : CUPTI_CB_DOMAIN_DRIVER_API;
        r = api->EnableCallback(1, subscriber, d, c->cbid);
        if (r == CUPTI_SUCCESS) on++;
        else if (first == CUPTI_SUCCESS) first = r;
    }
    if (!on) {
        snprintf(why, whylen, "cuptiEnableCallback: %s", gpu_cupti_error(api, first));
        gpu_callbacks_stop(api);
        return -1;
    }
    return 0;
}

void gpu_callbacks_stop(const struct gpu_cupti *api) {
    if (!subscriber) return;
    api->Unsubscribe(subscriber);
    subscriber = NULL;
}
