/*
 * callbacks.h -- launch scopes on the calling thread (callbacks.c): CUPTI's
 * callback API calls the library on entry to and exit from each CUDA call
 * enabled, on the thread that made it, so the call becomes a scope in that
 * thread's own ring, live, with a flow to the work it launched (the
 * conversion writes the flow's end when the activity record arrives).
 */
#ifndef RECORDER_GPU_CALLBACKS_H
#define RECORDER_GPU_CALLBACKS_H

#include <stddef.h>
#include <stdint.h>

#include "cupti_api.h"

enum gpu_cb_domain { GPU_CB_RT = 0, GPU_CB_DRV = 1 };
enum gpu_cb_class {
    GPU_CB_API = 0,     /* any other call (RECORDER_CUDA=api): a scope, no flow */
    GPU_CB_LAUNCH = 1,  /* launches a kernel or a graph (kernels) */
    GPU_CB_COPY = 2,    /* memcpy, memset (copies) */
    GPU_CB_WAIT = 3,    /* the thread waits for the GPU: a wait scope (sync) */
    GPU_CB_SYNC = 4     /* enqueues a GPU-side wait (sync) */
};

struct gpu_cbid {
    uint8_t domain;     /* enum gpu_cb_domain */
    uint16_t cbid;
    uint8_t cls;        /* enum gpu_cb_class */
};
extern const struct gpu_cbid gpu_cbids[];   /* cbids.c */
extern const size_t gpu_cbids_count;

/* The class of a call (GPU_CB_API for one not in the table). */
unsigned gpu_cb_class_of(unsigned domain, uint32_t cbid);

/* Subscribes to CUPTI's callbacks and enables those the items ask for
 * (GPU_ITEM_*; with GPU_ITEM_API the whole runtime and driver domains).
 * Returns 0 (also when no item needs a callback), or -1 with why. */
int gpu_callbacks_start(const struct gpu_cupti *api, unsigned items, char *why, size_t whylen);
/* Stops the callbacks (CUPTI refused something after they started). */
void gpu_callbacks_stop(const struct gpu_cupti *api);

/* In a child of fork(): the name ids were the parent's segment's. */
void gpu_callbacks_forget(void);

/* The callback itself, for tests that drive it directly. */
void CUPTIAPI gpu_callback(void *userdata, CUpti_CallbackDomain domain, CUpti_CallbackId cbid, const void *data);

#endif
