/*
 * fake_gpu.c -- a program that records what the GPU library records, with
 * no GPU and no CUDA: launch scopes on its main thread, each with a flow
 * to the kernel or copy it launched, and, written late as CUPTI delivers
 * them, the work on lanes of two devices (lanes.h): kernels with their
 * grid and block, copies with their bytes, a sync, and each device's busy
 * and copy-rate counters.  The readers' GPU views are tested on it
 * (tests/gpu/meson.build); the conversion of real CUPTI records is
 * tested by cupti_replay on the H100 fixtures.
 *
 *   fake_gpu [--iters N] [--live]
 * --live: runs until SIGTERM/SIGINT, printing "ready" once the first
 * batch is delivered; otherwise N iterations (default 20), then exits.
 *
 * Per iteration, exactly: 3 launches on the main thread ("cudaLaunchKernel"
 * twice, "cudaMemcpyAsync" once, inside "step"), then on device 0 stream 7
 * the kernel "gemm_f16(int, float)" and "memcpy HtoD" (4096 bytes), on
 * device 1 stream 13 the kernel "softmax_kernel", and a
 * "cudaStreamSynchronize" wait scope on the main thread with a "sync"
 * slice on device 1 stream 13.  Kernel slices last 20 us, copies 8 us.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "recorder/writer/lanes.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../../gpu/convert.h"

static volatile sig_atomic_t stop;
static void on_signal(int sig) { (void)sig; stop = 1; }

static uint64_t us_ticks(double us) {
    return (uint64_t)(us * (double)rec_ticks_of_mono_ns(2000000000ull) / 1e6 -
                      us * (double)rec_ticks_of_mono_ns(1000000000ull) / 1e6);
}

struct gpu_slice {
    struct rec_lane *lane;
    uint32_t name, args_name;
    const char *args;
    uint64_t flow, after;
    double dur_us;
};

static void put_slice(const struct gpu_slice *s, uint64_t *lane_end) {
    uint64_t b = s->after + us_ticks(5);
    if (b < *lane_end) b = *lane_end;
    uint64_t e = b + us_ticks(s->dur_us);
    rec_lane_begin(s->lane, b, s->name);
    if (s->args) rec_lane_instant(s->lane, b, s->args_name, s->args);
    if (s->flow) rec_lane_flow(s->lane, b, REC_EV_FLOW_END, s->flow);
    rec_lane_end(s->lane, e, s->name);
    *lane_end = e;
}

int main(int argc, char **argv) {
    long iters = 20;
    int live = 0;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--live")) live = 1;
        else if (!strcmp(argv[i], "--iters") && i + 1 < argc) iters = atol(argv[++i]);
        else {
            fprintf(stderr, "usage: fake_gpu [--iters N] [--live]\n");
            return 2;
        }
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    if (rec_init() != 0) return 1;
    REC_THREAD_NAME("host");
    struct rec_lane s0, s1, d0, d1;
    struct rec_lane_desc ds0 = {REC_LANE_GPU_STREAM, 0, 1, 7, 0, "GPU0 stream 7"};
    struct rec_lane_desc ds1 = {REC_LANE_GPU_STREAM, 1, 2, 13, 0, "GPU1 stream 13"};
    struct rec_lane_desc dd0 = {REC_LANE_GPU_DEVICE, 0, 0, 0, 0, "GPU0"};
    struct rec_lane_desc dd1 = {REC_LANE_GPU_DEVICE, 1, 0, 0, 0, "GPU1"};
    if (rec_lane_open(&s0, &ds0) || rec_lane_open(&s1, &ds1) || rec_lane_open(&d0, &dd0) || rec_lane_open(&d1, &dd1))
        return 1;
    uint32_t gemm = rec_lane_name("gemm_f16(int, float)", 20), copy = rec_lane_name("memcpy HtoD", 11);
    uint32_t soft = rec_lane_name("softmax_kernel", 14), sync = rec_lane_name("sync", 4);
    uint32_t args = rec_lane_name("args", 4);
    uint32_t busy0 = rec_lane_name("GPU0 busy %", 11), busy1 = rec_lane_name("GPU1 busy %", 11);
    uint32_t bps0 = rec_lane_name("GPU0 copy bytes/s", 17);
    uint64_t end0 = 0, end1 = 0, corr = 0;
    for (long it = 0; live ? !stop : it < iters; it++) {
        uint64_t t[3], f[3];
        {
            REC_SCOPE("step");
            const char *api[3] = {"cudaLaunchKernel", "cudaMemcpyAsync", "cudaLaunchKernel"};
            for (int k = 0; k < 3; k++) {
                f[k] = GPU_FLOW_ID(++corr);
                REC_SCOPE_DYN(api[k]);
                t[k] = rec_now();
                REC_FLOW_BEGIN(f[k]);
            }
        }
        uint64_t ws = rec_now();
        REC_SCOPE_WAIT("cudaStreamSynchronize");
        /* The work, delivered after the launches, as CUPTI delivers it. */
        struct gpu_slice w[3] = {
            {&s0, gemm, args, "grid=(128,1,1) block=(256,1,1)", f[0], t[0], 20},
            {&s0, copy, args, "4096 bytes", f[1], t[1], 8},
            {&s1, soft, args, "grid=(64,1,1) block=(128,1,1)", f[2], t[2], 20},
        };
        put_slice(&w[0], &end0);
        put_slice(&w[1], &end0);
        put_slice(&w[2], &end1);
        struct gpu_slice sy = {&s1, sync, 0, NULL, 0, ws, 2};
        put_slice(&sy, &end1);
        uint64_t upto = end0 > end1 ? end0 : end1;
        rec_lane_counter(&d0, upto, busy0, 50.0);
        rec_lane_counter(&d0, upto, bps0, 4096.0 * 1000);
        rec_lane_counter(&d1, upto, busy1, 25.0);
        rec_lane_delivered(&s0, upto);
        rec_lane_delivered(&s1, upto);
        if (live && it == 0) {
            printf("ready\n");
            fflush(stdout);
        }
        if (live) {
            struct timespec d = {0, 20 * 1000 * 1000};
            nanosleep(&d, NULL);
        }
    }
    /* As the GPU library does at exit: the lanes are done. */
    rec_lane_close(&s0, 0);
    rec_lane_close(&s1, 0);
    rec_lane_close(&d0, 0);
    rec_lane_close(&d1, 0);
    return 0;
}
