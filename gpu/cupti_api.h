/*
 * cupti_api.h -- the CUPTI functions the library calls, bound at run time
 * (cupti_api.c).  The library never links libcupti: a program without
 * CUDA, or with its own CUPTI (a PyTorch wheel's), loads it unchanged,
 * and the libcupti the library uses is the one that matches the program's
 * CUDA.  The types come from CUDA's headers; only the calls are looked up.
 */
#ifndef RECORDER_GPU_CUPTI_API_H
#define RECORDER_GPU_CUPTI_API_H

#include <stddef.h>

#include <cupti.h>

struct gpu_cupti {
    void *handle;                       /* dlopen handle (never closed) */
    char path[512];                     /* where it was found, for the messages */
    uint32_t version;                   /* cuptiGetVersion */
    __typeof__(&cuptiSubscribe) Subscribe;
    __typeof__(&cuptiUnsubscribe) Unsubscribe;
    __typeof__(&cuptiEnableCallback) EnableCallback;
    __typeof__(&cuptiEnableDomain) EnableDomain;
    __typeof__(&cuptiActivityEnable) ActivityEnable;
    __typeof__(&cuptiActivityDisable) ActivityDisable;
    __typeof__(&cuptiActivityRegisterCallbacks) ActivityRegisterCallbacks;
    __typeof__(&cuptiActivityFlushAll) ActivityFlushAll;
    __typeof__(&cuptiActivityGetNumDroppedRecords) ActivityGetNumDroppedRecords;
    __typeof__(&cuptiGetTimestamp) GetTimestamp;
    __typeof__(&cuptiGetResultString) GetResultString;
    __typeof__(&cuptiGetVersion) GetVersion;
    __typeof__(&cuptiGetDeviceId) GetDeviceId;
};

/* The CUPTI versions whose activity records the conversion reads: CUDA
 * 13's (cuptiGetVersion xxyyzz, 13yyzz).  Another major version lays its
 * records out differently, and is refused rather than misread. */
#define GPU_CUPTI_VERSION_MIN 130000u
#define GPU_CUPTI_VERSION_END 140000u

/* Finds and binds libcupti: one already loaded in the process, else one
 * beside the loaded libcudart (a toolkit's or a wheel's layout), else
 * libcupti.so.13, .so.12, .so by the loader's search.  Returns 0, or -1
 * with the reason in why (one line, no newline). */
int gpu_cupti_bind(struct gpu_cupti *api, char *why, size_t whylen);

/* CUPTI's text for a result ("CUPTI_ERROR_..."), never NULL. */
const char *gpu_cupti_error(const struct gpu_cupti *api, CUptiResult r);

/* Gives up on CUDA tracing: one line on stderr, "recorder: CUDA tracing
 * off: <why>", and the segment's gpu_state says REFUSED.  The program
 * runs on unaffected. */
void gpu_cupti_refuse(const char *why);

#endif
