/*
 * inject.c -- the CUDA injection entry point of librecorder-cuda.so.
 *
 * CUDA_INJECTION64_PATH=/path/librecorder-cuda.so makes the CUDA driver
 * load this library at cuInit and call InitializeInjection().  It binds
 * CUPTI (cupti_api.c), turns on the activity kinds RECORDER_CUDA asks for
 * (config.c) and the launch callbacks (callbacks.c), and hands every
 * buffer CUPTI completes to the conversion (convert.h), which writes the
 * GPU's lanes.  A flusher thread asks CUPTI for what it holds every
 * FLUSH_MS, so GPU slices reach live viewers within a second; at exit a
 * forced flush delivers the rest.  Nothing here may stop the program: a
 * CUPTI that refuses is one line on stderr and tracing stays off.
 */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder.h"
#include "recorder/writer/lanes.h"

#include "callbacks.h"
#include "config.h"
#include "convert.h"
#include "cupti_api.h"

/* The conversion (convert.h) is another part of the library, built from
 * its own sources.  Weak: a library built without them still links (CI
 * links with --no-undefined) and refuses at run time; the tests bind
 * these to a stand-in (tests/gpu/conv_stub.c) exported by the program. */
#pragma weak gpu_conv_new
#pragma weak gpu_conv_free
#pragma weak gpu_conv_clock_pair
#pragma weak gpu_conv_buffer
#pragma weak gpu_conv_dropped
#pragma weak gpu_conv_delivered

#define FLUSH_MS 250
/* CUPTI's timer flush returns a buffer once every record in it is
 * complete: small buffers keep a GPU that is never idle fresh (1 MiB holds
 * about 4,800 kernel records; the H100 fixture was recorded with 1 MiB). */
#define BUF_SIZE (1u << 20)     /* one activity buffer */
#define BUF_MAX 64              /* buffers CUPTI may hold at once: 64 MiB at most */
#define EXIT_WAIT_SEC 10        /* how long exit waits for a flush under way */

static struct gpu_cupti api;
static struct gpu_conv *conv;           /* NULL once closed */
static pthread_mutex_t conv_mu = PTHREAD_MUTEX_INITIALIZER;
static atomic_int bufs_out;             /* buffers handed to CUPTI, not yet back */
static atomic_ullong bufs_refused;      /* requests refused (BUF_MAX reached, no memory) */

static pthread_t flusher;
static int flusher_on;
/* Held around each flush, so that exit's forced flush never overlaps the
 * timer's, without waiting for the flusher thread to be scheduled. */
static pthread_mutex_t flush_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_mutex_t stop_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t stop_cv;
static int stopping;
static atomic_int flush_closed;         /* exit's flush was made: no more */
static int forked;                      /* in a child of fork(): CUPTI and the flusher are the parent's */

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* cuptiGetTimestamp between two CLOCK_MONOTONIC reads: the pair's
 * monotonic time is their middle.  Returns CUPTI's time, 0 if it failed. */
static uint64_t clock_pair(uint64_t *mono) {
    uint64_t a = mono_ns(), t = 0;
    if (api.GetTimestamp(&t) != CUPTI_SUCCESS) return 0;
    uint64_t b = mono_ns();
    *mono = a + (b - a) / 2;
    return t;
}

/* Kernel names are pointers into CUPTI's memory, valid for the process's
 * life.  The conversion reads what this returns as a C string, so it gets
 * a bounded copy: a mangled C++ name of many templates runs to kilobytes,
 * and is cut past NAME_MAX_LIVE.  A buffer per field (a name and its
 * domain may be asked for together) is enough: the conversion runs under
 * conv_mu and is done with a record's names before the next record. */
#define NAME_MAX_LIVE 4096
static char name_buf[2][NAME_MAX_LIVE];

static const char *live_name(void *ctx, size_t rec_off, int field, uint64_t ptr) {
    (void)ctx;
    (void)rec_off;
    const char *s = (const char *)(uintptr_t)ptr;
    if (!s) return NULL;
    char *b = name_buf[field & 1];
    size_t n = strnlen(s, NAME_MAX_LIVE - 1);
    memcpy(b, s, n);
    b[n] = '\0';
    return b;
}

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size, size_t *max_records) {
    *buffer = NULL;
    *size = 0;
    *max_records = 0;
    /* Bounded: a GPU that outruns the conversion costs records (CUPTI
     * counts them dropped), never the program's memory. */
    if (atomic_fetch_add(&bufs_out, 1) >= BUF_MAX) {
        atomic_fetch_sub(&bufs_out, 1);
        atomic_fetch_add(&bufs_refused, 1);
        return;
    }
    void *p = NULL;
    if (posix_memalign(&p, 64, BUF_SIZE) != 0) {
        atomic_fetch_sub(&bufs_out, 1);
        atomic_fetch_add(&bufs_refused, 1);
        return;
    }
    *buffer = p;
    *size = BUF_SIZE;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream, uint8_t *buffer, size_t size, size_t valid) {
    (void)size;
    pthread_mutex_lock(&conv_mu);
    if (conv) {
        if (buffer && valid) gpu_conv_buffer(conv, buffer, valid);
        size_t dropped = 0;
        if (api.ActivityGetNumDroppedRecords(ctx, stream, &dropped) == CUPTI_SUCCESS && dropped) {
            uint32_t dev = 0;
            if (ctx && api.GetDeviceId(ctx, &dev) != CUPTI_SUCCESS) dev = 0;
            gpu_conv_dropped(conv, dev, dropped);
        }
    }
    pthread_mutex_unlock(&conv_mu);
    if (buffer) {
        free(buffer);
        atomic_fetch_sub(&bufs_out, 1);
    }
}

/* After a flush: every record CUPTI had completed by `upto` is written. */
static void delivered(uint64_t upto) {
    uint64_t mono;
    uint64_t t = clock_pair(&mono);
    /* Records dropped for want of a buffer, in the global queue (CUDA 13
     * keeps one; the count resets when read). */
    size_t dropped = 0;
    if (api.ActivityGetNumDroppedRecords(NULL, 0, &dropped) != CUPTI_SUCCESS) dropped = 0;
    pthread_mutex_lock(&conv_mu);
    if (conv) {
        if (dropped) gpu_conv_dropped(conv, 0, dropped);
        if (t) gpu_conv_clock_pair(conv, t, mono);
        if (upto) gpu_conv_delivered(conv, upto);
    }
    pthread_mutex_unlock(&conv_mu);
}

static void *flush_loop(void *arg) {
    (void)arg;
    pthread_mutex_lock(&stop_mu);
    while (!stopping) {
        struct timespec until;
        clock_gettime(CLOCK_MONOTONIC, &until);
        until.tv_nsec += FLUSH_MS * 1000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        while (!stopping && pthread_cond_timedwait(&stop_cv, &stop_mu, &until) != ETIMEDOUT) {
        }
        if (stopping) break;
        pthread_mutex_unlock(&stop_mu);
        pthread_mutex_lock(&flush_mu);
        if (!atomic_load(&flush_closed)) {
            uint64_t upto = 0;
            if (api.GetTimestamp(&upto) != CUPTI_SUCCESS) upto = 0;
            api.ActivityFlushAll(0);
            delivered(upto);
        }
        pthread_mutex_unlock(&flush_mu);
        pthread_mutex_lock(&stop_mu);
    }
    pthread_mutex_unlock(&stop_mu);
    return NULL;
}

/* At exit: stop the flusher, then a forced flush delivers the buffers
 * still partly filled.  Registered after the writer's own exit handler
 * (rec_init ran first), so it runs before the segment is marked closed;
 * the probe that recorded the H100 fixture flushed CUPTI from an exit
 * handler registered at injection too, and got every buffer. */
static void at_exit(void) {
    if (forked) return;
    if (flusher_on) {
        pthread_mutex_lock(&stop_mu);
        stopping = 1;
        pthread_cond_broadcast(&stop_cv);
        pthread_mutex_unlock(&stop_mu);
    }
    /* Wait for a timer flush under way, not for the flusher thread: it may
     * not run again before the process ends.  A flush stuck in CUPTI (exit
     * called while CUDA holds its own locks) leaves the final flush out. */
    struct timespec until;
    clock_gettime(CLOCK_REALTIME, &until);
    until.tv_sec += EXIT_WAIT_SEC;
    if (pthread_mutex_timedlock(&flush_mu, &until) != 0) return;
    atomic_store(&flush_closed, 1);
    uint64_t upto = 0;
    if (api.GetTimestamp(&upto) != CUPTI_SUCCESS) upto = 0;
    api.ActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
    delivered(upto);
    pthread_mutex_lock(&conv_mu);
    struct gpu_conv *c = conv;
    conv = NULL;    /* a buffer CUPTI completes later is freed, not converted */
    if (c) gpu_conv_free(c);
    pthread_mutex_unlock(&conv_mu);
    pthread_mutex_unlock(&flush_mu);
}

static void at_fork_child(void) {
    forked = 1;
    gpu_callbacks_forget();
    flusher_on = 0;
}

static const struct {
    unsigned item;
    CUpti_ActivityKind kind;
    const char *name;
} kinds[] = {
    {GPU_ITEM_KERNELS, CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL, "CONCURRENT_KERNEL"},
    {GPU_ITEM_COPIES, CUPTI_ACTIVITY_KIND_MEMCPY, "MEMCPY"},
    {GPU_ITEM_COPIES, CUPTI_ACTIVITY_KIND_MEMSET, "MEMSET"},
    {GPU_ITEM_SYNC, CUPTI_ACTIVITY_KIND_SYNCHRONIZATION, "SYNCHRONIZATION"},
};
#define NKINDS (sizeof kinds / sizeof kinds[0])

/* Turns on the activity kinds of the items; on failure turns off those
 * it turned on and says why. */
static int enable_activity(unsigned items, char *why, size_t whylen) {
    CUptiResult r = api.ActivityRegisterCallbacks(buffer_requested, buffer_completed);
    if (r != CUPTI_SUCCESS) {
        snprintf(why, whylen, "cuptiActivityRegisterCallbacks: %s", gpu_cupti_error(&api, r));
        return -1;
    }
    for (size_t i = 0; i < NKINDS; i++) {
        if (!(items & kinds[i].item)) continue;
        r = api.ActivityEnable(kinds[i].kind);
        if (r != CUPTI_SUCCESS) {
            snprintf(why, whylen, "cuptiActivityEnable(%s): %s", kinds[i].name, gpu_cupti_error(&api, r));
            for (size_t j = 0; j < i; j++)
                if (items & kinds[j].item) api.ActivityDisable(kinds[j].kind);
            return -1;
        }
    }
    return 0;
}

static int start(unsigned items, char *why, size_t whylen) {
    if (!gpu_conv_new || !gpu_conv_free || !gpu_conv_clock_pair || !gpu_conv_buffer || !gpu_conv_dropped ||
        !gpu_conv_delivered) {
        snprintf(why, whylen, "this librecorder-cuda.so was built without the CUPTI conversion");
        return -1;
    }
    if (gpu_cupti_bind(&api, why, whylen) != 0) return -1;
    struct gpu_conv_opts o = {items, 0};
    struct gpu_names names = {live_name, NULL};
    conv = gpu_conv_new(&o, &names);
    if (!conv) {
        snprintf(why, whylen, "out of memory for the conversion");
        return -1;
    }
    uint64_t mono, t = clock_pair(&mono);
    if (!t) {
        snprintf(why, whylen, "cuptiGetTimestamp failed in %s", api.path);
        goto fail;
    }
    gpu_conv_clock_pair(conv, t, mono);
    unsigned activity = items & (GPU_ITEM_KERNELS | GPU_ITEM_COPIES | GPU_ITEM_SYNC);
    if (gpu_callbacks_start(&api, items, why, whylen) != 0) goto fail;
    if (activity && enable_activity(items, why, whylen) != 0) {
        gpu_callbacks_stop(&api);
        goto fail;
    }
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    pthread_cond_init(&stop_cv, &ca);
    pthread_condattr_destroy(&ca);
    if (activity) {
        /* Detached: exit waits for a flush under way (flush_mu), never
         * for the thread, which may sleep on till the process ends. */
        flusher_on = pthread_create(&flusher, NULL, flush_loop, NULL) == 0;
        if (flusher_on) pthread_detach(flusher);
    }
    pthread_atfork(NULL, NULL, at_fork_child);
    atexit(at_exit);
    return 0;
fail:
    gpu_conv_free(conv);
    conv = NULL;
    return -1;
}

/* Called by the CUDA driver at cuInit (CUDA_INJECTION64_PATH).  Returns 1
 * whatever happens: the program runs on, traced or not. */
__attribute__((visibility("default"))) int InitializeInjection(void) {
    static atomic_int once;
    if (atomic_exchange(&once, 1)) return 1;
    if (rec_init() != 0) return 1;   /* recording is off: nothing to trace into */
    unsigned items = gpu_config_items();
    if (!(items & (GPU_ITEM_KERNELS | GPU_ITEM_COPIES | GPU_ITEM_SYNC | GPU_ITEM_API))) {
        rec_gpu_state_set(REC_GPU_NVTX_ONLY);
        return 1;
    }
    char why[768];
    why[0] = '\0';
    if (start(items, why, sizeof why) != 0) {
        /* Which CUPTI said no, if one was found and did not say so itself. */
        size_t n = strlen(why);
        if (api.handle && !strstr(why, api.path) && n < sizeof why)
            snprintf(why + n, sizeof why - n, " (CUPTI %u, %s)", api.version, api.path);
        gpu_cupti_refuse(why);
        return 1;
    }
    rec_gpu_state_set(REC_GPU_ON);
    return 1;
}
