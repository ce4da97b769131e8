/*
 * gpu_edge_prog.c -- the GPU lanes' edge cases for the readers' tests
 * (test_gpu_readers.py), with no GPU: what fake_gpu does not record.
 *
 *   gpu_edge_prog [--refused]
 *
 * On "GPU0 stream 1": a kernel "k_zero" of zero length with args
 * "grid=(1,1,1) block=(32,1,1)", a kernel "k_odd" whose args are not in
 * k=v form ("odd text"), a kernel "k_quote" with args "q\"k=v\\ n=7", a
 * "memset" of 10 us with "512 bytes", 500 us apart; the device lane "GPU0"
 * with 5 records lost (as CUPTI's dropped records are counted).  With
 * --refused, the segment says CUPTI refused (rec_gpu_state_set).
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "recorder/writer/lanes.h"

#include <stdio.h>
#include <string.h>

static uint64_t us_ticks(double us) {
    return (uint64_t)(us * (double)rec_ticks_of_mono_ns(2000000000ull) / 1e6 -
                      us * (double)rec_ticks_of_mono_ns(1000000000ull) / 1e6);
}

int main(int argc, char **argv) {
    int refused = argc > 1 && strcmp(argv[1], "--refused") == 0;
    if (rec_init() != 0) return 1;
    REC_THREAD_NAME("host");
    struct rec_lane s, d;
    struct rec_lane_desc ds = {REC_LANE_GPU_STREAM, 0, 1, 1, 0, "GPU0 stream 1"};
    struct rec_lane_desc dd = {REC_LANE_GPU_DEVICE, 0, 0, 0, 0, "GPU0"};
    if (rec_lane_open(&s, &ds) || rec_lane_open(&d, &dd)) return 1;
    {
        REC_SCOPE("host work");
    }
    uint32_t args = rec_lane_name("args", 4);
    const struct {
        const char *name, *args;
        double dur;
    } w[4] = {{"k_zero", "grid=(1,1,1) block=(32,1,1)", 0},
              {"k_odd", "odd text", 20},
              {"k_quote", "q\"k=v\\ n=7", 20},
              {"memset", "512 bytes", 10}};
    uint64_t t = rec_now();
    for (int i = 0; i < 4; i++) {
        uint32_t nm = rec_lane_name(w[i].name, strlen(w[i].name));
        rec_lane_begin(&s, t, nm);
        rec_lane_instant(&s, t, args, w[i].args);
        rec_lane_end(&s, t + us_ticks(w[i].dur), nm);
        t += us_ticks(500);
    }
    rec_lane_delivered(&s, t);
    rec_lane_lost(&d, 5);
    if (refused) rec_gpu_state_set(REC_GPU_REFUSED);
    printf("pid %d\n", (int)getpid());
    return 0;
}
