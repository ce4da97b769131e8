/*
 * fake_cupti.c -- a libcupti for tests on machines without a GPU, built
 * as libcupti.so so that the library under test finds it "already loaded"
 * (cupti_api.c).  It implements the calls the library binds, and delivers
 * real activity buffers recorded on an H100 (tests/gpu/fixtures) through
 * the buffer callbacks the library registered, as CUPTI would: only the
 * records of the kinds it enabled, kernel names as pointers into its own
 * memory, dropped records counted and reset when read.  CUDA calls are
 * "made" by the test (fake_cupti_call) and reported through the callback
 * only if the library enabled them.
 */
#define _GNU_SOURCE
#include "fake_cupti.h"

#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <cupti.h>

/* 100 us before the fixture's first record (cu_records.jsonl): this fake's
 * cuptiGetTimestamp runs on from there when the library first reads it, so
 * the recorded work (0.4 ms of it) lands just after the injection, in the
 * past by the time a flush delivers it, as real records are. */
#define FIXTURE_CUPTI_T0 (UINT64_C(1795794403994086335) - 100000u)

static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static CUpti_CallbackFunc subscriber_fn;
static void *subscriber_ud;
static int subscribed, subscribe_err;
static uint32_t version = 130001;
static uint8_t enabled_cb[2][1024];     /* [runtime, driver][cbid] */
static int domain_on[2], callbacks_on;
static uint64_t kinds_on;
static CUpti_BuffersCallbackRequestFunc req_fn;
static CUpti_BuffersCallbackCompleteFunc done_fn;
static uint64_t dropped_pending;

/* The records that can be delivered, in order, and where part 2 starts. */
static uint8_t *recs;
static size_t recs_len, split;
static int released, parts;
static uint32_t stream_id;

static size_t kind_size(uint32_t kind) {
    switch (kind) {
    case CUPTI_ACTIVITY_KIND_MEMCPY: return sizeof(CUpti_ActivityMemcpy6);
    case CUPTI_ACTIVITY_KIND_MEMSET: return sizeof(CUpti_ActivityMemset4);
    case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: return sizeof(CUpti_ActivityKernel10);
    case CUPTI_ACTIVITY_KIND_SYNCHRONIZATION: return sizeof(CUpti_ActivitySynchronization2);
    case CUPTI_ACTIVITY_KIND_DRIVER:
    case CUPTI_ACTIVITY_KIND_RUNTIME: return sizeof(CUpti_ActivityAPI);
    case CUPTI_ACTIVITY_KIND_MARKER: return sizeof(CUpti_ActivityMarker2);
    case CUPTI_ACTIVITY_KIND_MARKER_DATA: return sizeof(CUpti_ActivityMarkerData2);
    case CUPTI_ACTIVITY_KIND_OVERHEAD: return sizeof(CUpti_ActivityOverhead3);
    case CUPTI_ACTIVITY_KIND_CONTEXT: return sizeof(CUpti_ActivityContext3);
    case CUPTI_ACTIVITY_KIND_DEVICE: return sizeof(CUpti_ActivityDevice5);
    case CUPTI_ACTIVITY_KIND_STREAM: return sizeof(CUpti_ActivityStream);
    case CUPTI_ACTIVITY_KIND_NAME: return sizeof(CUpti_ActivityName);
    default: return 0;
    }
}

static int deliverable(uint32_t kind) {
    return kind == CUPTI_ACTIVITY_KIND_MEMCPY || kind == CUPTI_ACTIVITY_KIND_MEMSET ||
           kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL || kind == CUPTI_ACTIVITY_KIND_SYNCHRONIZATION;
}

/* The fixture's kernels, by correlation id (cu_records.jsonl); but the
 * third has a name of 5000 bytes and no NUL: the library must bound what
 * it reads of a name (ASan catches a read past it). */
static const char *kernel_name(uint32_t corr) {
    static char *unended;
    switch (corr) {
    case 140:
        if (!unended && (unended = malloc(5000)) != NULL) memset(unended, 'x', 5000);
        return unended;
    case 131: return "_Z9scale_addPfPKffi";
    case 135:
    case 143: return "_Z6squarePfi";
    default: return "fake_kernel";
    }
}

int fake_cupti_load(const char *path) {
    FILE *f = fopen(path, "rb");
    if (!f) return -1;
    uint8_t hdr[64], fh[48];
    if (fread(hdr, 1, 64, f) != 64 || memcmp(hdr, "CUPTIBUF", 8) != 0) {
        fclose(f);
        return -1;
    }
    size_t n = 0, cap = 0, count = 0, kernels = 0, split_at = 0;
    while (fread(fh, 1, 48, f) == 48) {
        uint64_t valid;
        memcpy(&valid, fh + 8, 8);
        memcpy(&stream_id, fh + 24, 4);
        if (valid > (64u << 20)) break;
        uint8_t *b = malloc(valid ? valid : 1);
        if (!b || fread(b, 1, valid, f) != valid) {
            free(b);
            break;
        }
        for (size_t off = 0; off + 4 <= valid;) {
            uint32_t kind;
            memcpy(&kind, b + off, 4);
            size_t sz = kind_size(kind);
            if (!sz || off + sz > valid) break;
            if (deliverable(kind)) {
                if (n + sz > cap) {
                    cap = (n + sz) * 2;
                    recs = realloc(recs, cap);
                }
                memcpy(recs + n, b + off, sz);
                if (kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
                    CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)(void *)(recs + n);
                    k->name = kernel_name(k->correlationId);
                    k->pAccessPolicyWindow = NULL;
                    /* Part 2 (forced flush only) starts at the last kernel. */
                    if (++kernels == 4) split_at = n;
                }
                n += sz;
                count++;
            }
            off += sz;
        }
        free(b);
    }
    fclose(f);
    recs_len = n;
    split = split_at ? split_at : n;
    return (int)count;
}

void fake_cupti_release(void) {
    pthread_mutex_lock(&mu);
    released = 1;
    pthread_mutex_unlock(&mu);
}

int fake_cupti_parts_delivered(void) {
    pthread_mutex_lock(&mu);
    int p = parts;
    pthread_mutex_unlock(&mu);
    return p;
}

void fake_cupti_set_dropped(uint64_t n) {
    pthread_mutex_lock(&mu);
    dropped_pending = n;
    pthread_mutex_unlock(&mu);
}

void fake_cupti_fail_subscribe(int r) { subscribe_err = r; }
void fake_cupti_set_version(uint32_t v) { version = v; }
uint64_t fake_cupti_kinds(void) { return kinds_on; }
int fake_cupti_callbacks_enabled(void) { return callbacks_on; }
int fake_cupti_domains_enabled(void) { return domain_on[0] + domain_on[1]; }

static int dom_index(CUpti_CallbackDomain d) {
    return d == CUPTI_CB_DOMAIN_RUNTIME_API ? 0 : d == CUPTI_CB_DOMAIN_DRIVER_API ? 1 : -1;
}

void fake_cupti_call(int domain, uint32_t cbid, const char *name, uint32_t corr, void (*inner)(void)) {
    int d = dom_index((CUpti_CallbackDomain)domain);
    int on = subscribed && d >= 0 && cbid < 1024 && (domain_on[d] || enabled_cb[d][cbid]);
    CUpti_CallbackData cb;
    memset(&cb, 0, sizeof cb);
    cb.functionName = name;
    cb.correlationId = corr;
    cb.callbackSite = CUPTI_API_ENTER;
    if (on) subscriber_fn(subscriber_ud, (CUpti_CallbackDomain)domain, cbid, &cb);
    if (inner) inner();
    cb.callbackSite = CUPTI_API_EXIT;
    if (on) subscriber_fn(subscriber_ud, (CUpti_CallbackDomain)domain, cbid, &cb);
}

/* ---- the CUPTI calls ---------------------------------------------------- */

CUptiResult cuptiGetVersion(uint32_t *v) {
    *v = version;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetResultString(CUptiResult result, const char **str) {
    *str = result == CUPTI_SUCCESS ? "CUPTI_SUCCESS"
           : result == CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED ? "CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED"
                                                                       : "CUPTI_ERROR_UNKNOWN";
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetTimestamp(uint64_t *timestamp) {
    static uint64_t mono0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    pthread_mutex_lock(&mu);
    if (!mono0) mono0 = now;
    *timestamp = FIXTURE_CUPTI_T0 + (now - mono0);
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiGetDeviceId(CUcontext context, uint32_t *deviceId) {
    (void)context;
    *deviceId = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiSubscribe(CUpti_SubscriberHandle *subscriber, CUpti_CallbackFunc callback, void *userdata) {
    if (subscribe_err) return (CUptiResult)subscribe_err;
    if (subscribed) return CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED;
    subscriber_fn = callback;
    subscriber_ud = userdata;
    subscribed = 1;
    *subscriber = (CUpti_SubscriberHandle)(void *)&subscriber_fn;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiUnsubscribe(CUpti_SubscriberHandle subscriber) {
    (void)subscriber;
    subscribed = 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableCallback(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain,
                                CUpti_CallbackId cbid) {
    int d = dom_index(domain);
    if (!subscriber || d < 0 || cbid >= 1024) return CUPTI_ERROR_INVALID_PARAMETER;
    if (enable && !enabled_cb[d][cbid]) callbacks_on++;
    enabled_cb[d][cbid] = enable != 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiEnableDomain(uint32_t enable, CUpti_SubscriberHandle subscriber, CUpti_CallbackDomain domain) {
    int d = dom_index(domain);
    if (!subscriber || d < 0) return CUPTI_ERROR_INVALID_PARAMETER;
    domain_on[d] = enable != 0;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityEnable(CUpti_ActivityKind kind) {
    if ((unsigned)kind >= 64) return CUPTI_ERROR_INVALID_KIND;
    kinds_on |= UINT64_C(1) << kind;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityDisable(CUpti_ActivityKind kind) {
    if ((unsigned)kind >= 64) return CUPTI_ERROR_INVALID_KIND;
    kinds_on &= ~(UINT64_C(1) << kind);
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityRegisterCallbacks(CUpti_BuffersCallbackRequestFunc funcBufferRequested,
                                           CUpti_BuffersCallbackCompleteFunc funcBufferCompleted) {
    req_fn = funcBufferRequested;
    done_fn = funcBufferCompleted;
    return CUPTI_SUCCESS;
}

CUptiResult cuptiActivityGetNumDroppedRecords(CUcontext context, uint32_t streamId, size_t *dropped) {
    (void)context;
    (void)streamId;
    pthread_mutex_lock(&mu);
    *dropped = (size_t)dropped_pending;
    dropped_pending = 0;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}

int fake_cupti_hoard(int n) {
    static uint8_t *held[256];
    static size_t sizes[256];
    int k = 0;
    for (int i = 0; i < n && i < 256 && req_fn; i++) {
        size_t maxrec = 0;
        req_fn(&held[k], &sizes[k], &maxrec);
        if (held[k]) k++;
    }
    for (int i = 0; i < k; i++) done_fn(NULL, stream_id, held[i], sizes[i], 0);
    return k;
}

/* One buffer of the records in [from, to) of the kinds enabled. */
static void deliver(size_t from, size_t to) {
    uint8_t *buf = NULL;
    size_t size = 0, maxrec = 0;
    req_fn(&buf, &size, &maxrec);
    size_t valid = 0, skipped = 0;
    for (size_t off = from; off < to;) {
        uint32_t kind;
        memcpy(&kind, recs + off, 4);
        size_t sz = kind_size(kind);
        if ((kinds_on >> kind) & 1) {
            if (buf && valid + sz <= size) {
                memcpy(buf + valid, recs + off, sz);
                valid += sz;
            } else {
                skipped++;
            }
        }
        off += sz;
    }
    if (skipped) {  /* no room: CUPTI counts them dropped */
        pthread_mutex_lock(&mu);
        dropped_pending += skipped;
        pthread_mutex_unlock(&mu);
    }
    if (buf) done_fn(NULL, stream_id, buf, size, valid);
}

CUptiResult cuptiActivityFlushAll(uint32_t flag) {
    pthread_mutex_lock(&mu);
    int part = released ? parts : 2;
    int forced = (flag & CUPTI_ACTIVITY_FLAG_FLUSH_FORCED) != 0;
    pthread_mutex_unlock(&mu);
    if (!req_fn || !done_fn) return CUPTI_SUCCESS;
    if (part == 0) deliver(0, split);
    if (part <= 1 && forced) {
        deliver(split, recs_len);
        fprintf(stderr, "fake_cupti: forced flush delivered the last part\n");
    }
    pthread_mutex_lock(&mu);
    if (part == 0) parts = 1;
    if (part <= 1 && forced) parts = 2;
    pthread_mutex_unlock(&mu);
    return CUPTI_SUCCESS;
}
