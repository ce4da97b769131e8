/*
 * test_gpu_config.c -- RECORDER_CUDA's parser (gpu/config.c): the items,
 * the default, and what a bad item says (the line the program prints is
 * checked end to end by test_inject badconfig).
 */
#include <stdio.h>
#include <string.h>

#include "../../gpu/config.h"
#include "../../gpu/convert.h"

static int failures;
#define CHECK(c)                                                                                        \
    do {                                                                                                \
        if (!(c)) {                                                                                     \
            fprintf(stderr, "FAIL %s:%d: %s\n", __FILE__, __LINE__, #c);                                \
            failures++;                                                                                 \
        }                                                                                               \
    } while (0)

static unsigned parse(const char *v, char *err) { return gpu_config_parse(v, err, 160); }

int main(void) {
    char err[160];
    CHECK(parse(NULL, err) == GPU_ITEMS_DEFAULT && !err[0]);
    CHECK(parse("", err) == GPU_ITEMS_DEFAULT);
    CHECK(parse("  ", err) == GPU_ITEMS_DEFAULT);
    CHECK(parse(",", err) == GPU_ITEMS_DEFAULT);
    CHECK(!(GPU_ITEMS_DEFAULT & GPU_ITEM_API));
    CHECK(parse("kernels", err) == GPU_ITEM_KERNELS);
    CHECK(parse("copies", err) == GPU_ITEM_COPIES);
    CHECK(parse("sync", err) == GPU_ITEM_SYNC);
    CHECK(parse("api", err) == GPU_ITEM_API);
    CHECK(parse("nvtx", err) == GPU_ITEM_NVTX);
    CHECK(parse("kernels,copies,sync,api,nvtx", err) == (GPU_ITEMS_DEFAULT | GPU_ITEM_API));
    CHECK(parse(" kernels , sync ", err) == (GPU_ITEM_KERNELS | GPU_ITEM_SYNC));
    CHECK(parse("kernels,,sync,", err) == (GPU_ITEM_KERNELS | GPU_ITEM_SYNC));
    CHECK(parse("kernels,kernels", err) == GPU_ITEM_KERNELS);
    /* Bad items: 0, and a line naming the item and the valid ones. */
    CHECK(parse("kernels,bogus", err) == 0);
    CHECK(!strcmp(err, "RECORDER_CUDA: unknown item \"bogus\" (valid: kernels,copies,sync,api,nvtx)"));
    CHECK(parse("Kernels", err) == 0);
    CHECK(parse("kernel", err) == 0);
    CHECK(parse("kernelsx", err) == 0);
    CHECK(parse("all", err) == 0);
    /* What is shown of the item is bounded and printable. */
    char longv[300];
    memset(longv, 'x', sizeof longv - 1);
    longv[sizeof longv - 1] = '\0';
    CHECK(parse(longv, err) == 0 && strstr(err, "xxx...\"") && strlen(err) < 120);
    CHECK(parse("a\x1b[2Jb", err) == 0 && strstr(err, "\"a?[2Jb\"") && !strchr(err, '\x1b'));
    /* A short err buffer is cut, never overrun. */
    char small[8];
    CHECK(gpu_config_parse("bogus", small, sizeof small) == 0 && strlen(small) == 7);
    CHECK(gpu_config_parse("bogus", NULL, 0) == 0);
    if (failures) return 1;
    printf("ok\n");
    return 0;
}
