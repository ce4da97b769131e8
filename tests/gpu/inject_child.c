/*
 * inject_child.c -- a "CUDA program" for test_inject.c: it records its own
 * scopes, loads librecorder-cuda.so and calls InitializeInjection() as
 * the CUDA driver would at cuInit, then makes CUDA calls.  Built twice:
 * with -DWITH_FAKE it links the fake libcupti (fake_cupti.c), which the
 * library then finds already loaded, and its calls and buffers are the
 * H100 fixture's; without, the library meets whatever libcupti the
 * loader finds (the toolkit's, with no GPU and no driver: it refuses).
 *
 *   inject_child trace LIB FIXTURE   calls, then waits for the timer's flush
 *   inject_child busy LIB FIXTURE    another profiler holds CUPTI
 *   inject_child old LIB FIXTURE     a CUPTI of CUDA 12.8 (version 26)
 *   inject_child calls LIB FIXTURE   the calls, nothing delivered
 *   inject_child bench LIB FIXTURE   the cost of a launch's callbacks (a
 *                                    benchmark, run by hand: docs/gpu.md)
 *   inject_child plain LIB           no fake: scopes around the injection
 *   inject_child cudart LIB RT       the same, a libcudart loaded first (RT)
 * Prints "segment=PATH" first, "init=N kinds=0x.. callbacks=N domains=N"
 * after the injection.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "recorder/writer/lanes.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifdef WITH_FAKE
#include <cupti.h>

#include "fake_cupti.h"
#endif

static int inject(const char *lib) {
    void *h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "inject_child: %s\n", dlerror());
        return -1;
    }
    int (*init)(void);
    *(void **)&init = dlsym(h, "InitializeInjection");
    return init ? init() : -1;
}

#ifdef WITH_FAKE
#define RT CUPTI_CB_DOMAIN_RUNTIME_API
#define DRV CUPTI_CB_DOMAIN_DRIVER_API

/* What the runtime calls drive in the driver: recorded only as the
 * runtime call (callbacks.c). */
static void drv_memcpy(void) {
    fake_cupti_call(DRV, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoDAsync_v2, "cuMemcpyHtoDAsync_v2", 126, NULL);
}
static void drv_launch(void) {
    fake_cupti_call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", 0, NULL);
}

static void launch(uint32_t corr) {
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, "cudaLaunchKernel", corr, drv_launch);
}

/* A thread that calls the driver directly: its call is a scope there. */
static void *worker(void *arg) {
    (void)arg;
    REC_THREAD_NAME("worker");
    fake_cupti_call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", 900, NULL);
    return NULL;
}

/* Driver calls nested ten deep on one thread (no CUDA call nests so; a
 * test of the bound): the library keeps eight and marks the other two. */
static int deep_left;
static void deep(void) {
    if (deep_left-- > 0)
        fake_cupti_call(DRV, CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel, "cuLaunchKernel", 1000u + (uint32_t)deep_left, deep);
}

/* The plain CUDA program of the fixture's cu_records.jsonl, call by call,
 * with its correlation ids. */
static void cuda_program(void) {
    REC_SCOPE("step");
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", 126, drv_memcpy);
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemsetAsync_v3020, "cudaMemsetAsync", 127, NULL);
    launch(131);
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaGetLastError_v3020, "cudaGetLastError", 132, NULL);
    launch(135);
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamWaitEvent_v3020, "cudaStreamWaitEvent", 138, NULL);
    launch(140);
    launch(143);
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaMemcpyAsync_v3020, "cudaMemcpyAsync", 145, NULL);
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaEventSynchronize_v3020, "cudaEventSynchronize", 146, NULL);
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaStreamSynchronize_v3020, "cudaStreamSynchronize", 147, NULL);
    fake_cupti_call(RT, CUPTI_RUNTIME_TRACE_CBID_cudaDeviceSynchronize_v3020, "cudaDeviceSynchronize", 148, NULL);
}
#endif

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: inject_child trace|busy|old|calls|plain|cudart LIB [FIXTURE|RT]\n");
        return 2;
    }
    const char *mode = argv[1], *lib = argv[2];
    if (rec_init() != 0) return 3;
    REC_THREAD_NAME("host");
    /* The parent reads this very file: a stale segment of an earlier
     * process with the same pid may hold the plain name. */
    printf("segment=%s\n", rec_segment_path());
#ifdef WITH_FAKE
    if (argc < 4 || fake_cupti_load(argv[3]) <= 0) {
        fprintf(stderr, "inject_child: cannot load the fixture\n");
        return 4;
    }
    fake_cupti_set_dropped(5);
    if (!strcmp(mode, "busy")) fake_cupti_fail_subscribe(CUPTI_ERROR_MULTIPLE_SUBSCRIBERS_NOT_SUPPORTED);
    if (!strcmp(mode, "old")) fake_cupti_set_version(26);
    int rc = inject(lib);
    printf("init=%d kinds=%#llx callbacks=%d domains=%d\n", rc, (unsigned long long)fake_cupti_kinds(),
           fake_cupti_callbacks_enabled(), fake_cupti_domains_enabled());
    fflush(stdout);
    if (!strcmp(mode, "deep")) {
        REC_SCOPE("deep");
        deep_left = 10;
        deep();
    }
    cuda_program();
    pthread_t th;
    if (pthread_create(&th, NULL, worker, NULL) != 0 || pthread_join(th, NULL) != 0) return 5;
    if (!strcmp(mode, "bench")) {
        /* cudaLaunchKernel with its nested cuLaunchKernel, as CUPTI calls
         * back: 4 callbacks, one scope and one flow recorded. */
        enum { N = 1000000 };
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        for (uint32_t i = 0; i < N; i++) launch(i);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double ns = ((double)(b.tv_sec - a.tv_sec) * 1e9 + (double)(b.tv_nsec - a.tv_nsec)) / N;
        printf("bench: %.1f ns per cudaLaunchKernel (RECORDER_CUDA=%s)\n", ns,
               getenv("RECORDER_CUDA") ? getenv("RECORDER_CUDA") : "default");
    }
    if (!strcmp(mode, "trace")) {
        printf("granted=%d\n", fake_cupti_hoard(100));
        /* The timer's flush delivers the completed buffers; the rest
         * comes with the forced flush at exit. */
        fake_cupti_release();
        struct timespec ms = {0, 1000000};
        while (fake_cupti_parts_delivered() < 1) nanosleep(&ms, NULL);
        printf("flushed\n");
    }
#else
    /* A program whose CUDA runtime was loaded first, from its own folder. */
    if (!strcmp(mode, "cudart") && (argc < 4 || !dlopen(argv[3], RTLD_NOW | RTLD_GLOBAL))) {
        fprintf(stderr, "inject_child: cannot load %s\n", argc < 4 ? "libcudart" : argv[3]);
        return 4;
    }
    {
        REC_SCOPE("before");
    }
    int rc = inject(lib);
    {
        REC_SCOPE("after");
    }
    printf("init=%d\n", rc);
#endif
    return 0;
}
