/*
 * config.c -- RECORDER_CUDA (config.h): the items the GPU library
 * records.  A bad item never stops the program: one line on stderr names
 * the valid items, and recording goes on with the default (everything
 * but the costly `api`).
 */
#include "config.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "convert.h"

static const struct {
    const char *name;
    unsigned bit;
} items[] = {
    {"kernels", GPU_ITEM_KERNELS}, {"copies", GPU_ITEM_COPIES}, {"sync", GPU_ITEM_SYNC},
    {"api", GPU_ITEM_API},         {"nvtx", GPU_ITEM_NVTX},
};
#define VALID_ITEMS "kernels,copies,sync,api,nvtx"

static int is_space(char c) { return c == ' ' || c == '\t'; }

unsigned gpu_config_parse(const char *value, char *err, size_t errlen) {
    if (errlen) err[0] = '\0';
    if (!value) return GPU_ITEMS_DEFAULT;
    const char *p = value;
    while (is_space(*p)) p++;
    if (!*p) return GPU_ITEMS_DEFAULT;
    unsigned bits = 0;
    for (;;) {
        const char *e = p;
        while (*e && *e != ',') e++;
        const char *a = p, *b = e;
        while (a < b && is_space(*a)) a++;
        while (b > a && is_space(b[-1])) b--;
        size_t n = (size_t)(b - a);
        unsigned bit = n ? 0 : ~0u;  /* an empty item ("kernels,") is skipped */
        for (size_t i = 0; i < sizeof items / sizeof items[0]; i++)
            if (strlen(items[i].name) == n && !memcmp(items[i].name, a, n)) bit = items[i].bit;
        if (!bit) {
            /* The item as given, cut short and printable: it comes from the environment. */
            char shown[33];
            size_t k = 0;
            for (size_t i = 0; i < n && k < sizeof shown - 1; i++)
                shown[k++] = (a[i] >= 0x20 && a[i] < 0x7f) ? a[i] : '?';
            shown[k] = '\0';
            if (errlen)
                snprintf(err, errlen, "RECORDER_CUDA: unknown item \"%s%s\" (valid: " VALID_ITEMS ")", shown,
                         n > k ? "..." : "");
            return 0;
        }
        if (n) bits |= bit;
        if (!*e) break;
        p = e + 1;
    }
    return bits ? bits : GPU_ITEMS_DEFAULT;
}

static pthread_once_t once = PTHREAD_ONCE_INIT;
static unsigned config_items;

static void read_config(void) {
    char err[160];
    unsigned bits = gpu_config_parse(getenv("RECORDER_CUDA"), err, sizeof err);
    if (!bits) {
        fprintf(stderr, "recorder: %s; recording the default (kernels,copies,sync,nvtx)\n", err);
        bits = GPU_ITEMS_DEFAULT;
    }
    config_items = bits;
}

unsigned gpu_config_items(void) {
    pthread_once(&once, read_config);
    return config_items;
}
