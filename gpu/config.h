/*
 * config.h -- RECORDER_CUDA: which GPU items the library records
 * (GPU_ITEM_* in convert.h).  One parser for the injection library
 * (inject.c) and the NVTX door (nvtx.c), so the variable means the same
 * to both and a bad value is reported once.
 */
#ifndef RECORDER_GPU_CONFIG_H
#define RECORDER_GPU_CONFIG_H

#include <stddef.h>

/* Parses a RECORDER_CUDA value: comma-separated items among
 * "kernels,copies,sync,api,nvtx" (spaces around items and empty items
 * ignored).  NULL, or a value with no item, gives GPU_ITEMS_DEFAULT.
 * Returns the GPU_ITEM_* bits, or 0 when an item is unknown (err then
 * holds a line naming it and the valid items, without "recorder:" or a
 * newline). */
unsigned gpu_config_parse(const char *value, char *err, size_t errlen);

/* RECORDER_CUDA of this process, read once: a bad value prints one line
 * on stderr and gives the default. */
unsigned gpu_config_items(void);

#endif
