/*
 * replay_layout.c -- `cupti_replay --layout`: the sizes and offsets of the
 * CUPTI structs and fields this build reads, as CUDA's headers give them,
 * printed as JSON so that a test can hold them against the layout the
 * fixtures were recorded with (tests/gpu/fixtures/cupti-h100/layout.json).
 */
#include <stddef.h>
#include <stdio.h>

#include <cupti_activity.h>

#include "convert_int.h"

#define F(T, f) {#f, offsetof(T, f), sizeof(((T *)0)->f)}

struct field { const char *name; size_t off, size; };

static void one(const char *name, size_t size, const struct field *f, size_t n, int last) {
    printf("  {\"struct\": \"%s\", \"sizeof\": %zu, \"fields\": [", name, size);
    for (size_t i = 0; i < n; i++)
        printf("%s{\"field\": \"%s\", \"offset\": %zu, \"size\": %zu}", i ? ", " : "", f[i].name, f[i].off, f[i].size);
    printf("]}%s\n", last ? "" : ",");
}

#define ONE(T, last, ...)                                                          \
    do {                                                                           \
        static const struct field fs[] = {__VA_ARGS__};                            \
        one(#T, sizeof(T), fs, sizeof fs / sizeof fs[0], last);                    \
    } while (0)

int replay_print_layout(void) {
    printf("{\"structs\": [\n");
    ONE(CUpti_ActivityKernel10, 0, F(CUpti_ActivityKernel10, kind), F(CUpti_ActivityKernel10, start),
        F(CUpti_ActivityKernel10, end), F(CUpti_ActivityKernel10, deviceId), F(CUpti_ActivityKernel10, contextId),
        F(CUpti_ActivityKernel10, streamId), F(CUpti_ActivityKernel10, gridX), F(CUpti_ActivityKernel10, gridY),
        F(CUpti_ActivityKernel10, gridZ), F(CUpti_ActivityKernel10, blockX), F(CUpti_ActivityKernel10, blockY),
        F(CUpti_ActivityKernel10, blockZ), F(CUpti_ActivityKernel10, correlationId), F(CUpti_ActivityKernel10, name));
    ONE(CUpti_ActivityMemcpy6, 0, F(CUpti_ActivityMemcpy6, kind), F(CUpti_ActivityMemcpy6, copyKind),
        F(CUpti_ActivityMemcpy6, bytes), F(CUpti_ActivityMemcpy6, start), F(CUpti_ActivityMemcpy6, end),
        F(CUpti_ActivityMemcpy6, deviceId), F(CUpti_ActivityMemcpy6, contextId), F(CUpti_ActivityMemcpy6, streamId),
        F(CUpti_ActivityMemcpy6, correlationId));
    ONE(CUpti_ActivityMemset4, 0, F(CUpti_ActivityMemset4, kind), F(CUpti_ActivityMemset4, bytes),
        F(CUpti_ActivityMemset4, start), F(CUpti_ActivityMemset4, end), F(CUpti_ActivityMemset4, deviceId),
        F(CUpti_ActivityMemset4, contextId), F(CUpti_ActivityMemset4, streamId),
        F(CUpti_ActivityMemset4, correlationId));
    ONE(CUpti_ActivityAPI, 0, F(CUpti_ActivityAPI, kind), F(CUpti_ActivityAPI, cbid), F(CUpti_ActivityAPI, start),
        F(CUpti_ActivityAPI, end), F(CUpti_ActivityAPI, threadId), F(CUpti_ActivityAPI, correlationId));
    ONE(CUpti_ActivitySynchronization2, 0, F(CUpti_ActivitySynchronization2, kind),
        F(CUpti_ActivitySynchronization2, type), F(CUpti_ActivitySynchronization2, start),
        F(CUpti_ActivitySynchronization2, end), F(CUpti_ActivitySynchronization2, correlationId),
        F(CUpti_ActivitySynchronization2, contextId), F(CUpti_ActivitySynchronization2, streamId));
    ONE(CUpti_ActivityMarker2, 0, F(CUpti_ActivityMarker2, kind), F(CUpti_ActivityMarker2, flags),
        F(CUpti_ActivityMarker2, timestamp), F(CUpti_ActivityMarker2, id), F(CUpti_ActivityMarker2, objectId),
        F(CUpti_ActivityMarker2, name), F(CUpti_ActivityMarker2, domain));
    ONE(CUpti_ActivityContext3, 0, F(CUpti_ActivityContext3, kind), F(CUpti_ActivityContext3, contextId),
        F(CUpti_ActivityContext3, deviceId));
    /* The kinds only skipped: their sizes are how the walk steps over them. */
    printf("  {\"struct\": \"CUpti_ActivityOverhead3\", \"sizeof\": %zu, \"fields\": []},\n",
           gpu_rec_size(CUPTI_ACTIVITY_KIND_OVERHEAD));
    printf("  {\"struct\": \"CUpti_ActivityDevice5\", \"sizeof\": %zu, \"fields\": []},\n",
           gpu_rec_size(CUPTI_ACTIVITY_KIND_DEVICE));
    printf("  {\"struct\": \"CUpti_ActivityStream\", \"sizeof\": %zu, \"fields\": []},\n",
           gpu_rec_size(CUPTI_ACTIVITY_KIND_STREAM));
    printf("  {\"struct\": \"CUpti_ActivityName\", \"sizeof\": %zu, \"fields\": []},\n",
           gpu_rec_size(CUPTI_ACTIVITY_KIND_NAME));
    printf("  {\"struct\": \"CUpti_ActivityMarkerData2\", \"sizeof\": %zu, \"fields\": []}\n",
           gpu_rec_size(CUPTI_ACTIVITY_KIND_MARKER_DATA));
    printf("]}\n");
    return 0;
}
