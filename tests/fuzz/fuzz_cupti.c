/*
 * fuzz_cupti.c -- libFuzzer target: any bytes as a CUPTI activity buffer
 * through the conversion (gpu/convert.h), as cupti_replay feeds it from a
 * file.  A fresh conversion per input, with thread lanes and every item
 * (API calls and NVTX ranges too), names for even offsets (a mangled
 * name, a domain) and none for odd ones; the buffer is fed whole, then
 * cut at a point the input's last byte picks, then delivered.  Seeds: the
 * H100 fixtures' buffers (fuzz_cupti_seeds).  The C++ demangler is not in
 * this C build: gpu_demangle copies the name here.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "recorder/writer/lanes.h"

#include <stdio.h>
#include <time.h>

#include "../../gpu/convert.h"

void gpu_demangle(const char *mangled, char *out, size_t cap);
void gpu_demangle(const char *mangled, char *out, size_t cap) {
    snprintf(out, cap, "%s", mangled ? mangled : "");
}

static const char *names(void *ctx, size_t off, int field, uint64_t ptr) {
    (void)ctx, (void)ptr;
    if (off & 8) return NULL;
    return field == 1 ? "fuzz domain" : field == 0 ? "_Z6squarePfi" : "cudaLaunchKernel_v7000";
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    struct gpu_conv_opts o = {GPU_ITEMS_DEFAULT | GPU_ITEM_API, 1};
    struct gpu_names n = {names, NULL};
    struct gpu_conv *c = gpu_conv_new(&o, &n);
    if (!c) return 0;
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    uint64_t now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    /* The fixtures' CUPTI time, near now: their records land in range. */
    gpu_conv_clock_pair(c, UINT64_C(1795794403757404828), now);
    gpu_conv_clock_pair(c, UINT64_C(1795794404757404828), now + 1000000100);
    gpu_conv_buffer(c, data, size);
    if (size) gpu_conv_buffer(c, data, (size * data[size - 1]) / 256);
    gpu_conv_dropped(c, size ? data[0] : 0, 3);
    gpu_conv_delivered(c, UINT64_C(1795794404757404828));
    struct gpu_conv_stats st;
    gpu_conv_get_stats(c, &st);
    gpu_conv_free(c);
    return 0;
}
