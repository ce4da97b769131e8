/*
 * cupti_api.c -- binds the CUPTI functions at run time (cupti_api.h).
 * Which libcupti: the one the program already loaded (a PyTorch wheel
 * loads its own), else the one beside the CUDA runtime the program uses,
 * else the loader's search.  Any failure is one line on stderr and
 * tracing stays off; the program is never stopped.
 */
#include "cupti_api.h"

#include <dlfcn.h>
#include <link.h>
#include <stdio.h>
#include <string.h>

#include "recorder.h"
#include "recorder/writer/lanes.h"

/* A loaded object whose file name starts with prefix: its path. */
struct find_loaded {
    const char *prefix;
    char path[512];
};

static int find_cb(struct dl_phdr_info *info, size_t size, void *arg) {
    (void)size;
    struct find_loaded *f = arg;
    const char *name = info->dlpi_name;
    if (!name || !*name) return 0;
    const char *base = strrchr(name, '/');
    base = base ? base + 1 : name;
    if (strncmp(base, f->prefix, strlen(f->prefix)) != 0) return 0;
    if (strlen(name) >= sizeof f->path) return 0;
    strcpy(f->path, name);
    return 1;
}

static int find_loaded(const char *prefix, char *path, size_t len) {
    struct find_loaded f = {prefix, {0}};
    if (!dl_iterate_phdr(find_cb, &f)) return -1;
    snprintf(path, len, "%s", f.path);
    return 0;
}

static const char *const sonames[] = {"libcupti.so.13", "libcupti.so.12", "libcupti.so"};

/* Beside the runtime: the same folder (a toolkit's lib64), a toolkit's
 * extras/CUPTI/lib64, and a CUDA 12 wheel's nvidia/cuda_cupti/lib (CUDA
 * 13 wheels keep both in nvidia/cu13/lib). */
static void *open_near_cudart(char *path, size_t len) {
    char rt[512];
    if (find_loaded("libcudart.so", rt, sizeof rt) != 0) return NULL;
    char *slash = strrchr(rt, '/');
    if (!slash) return NULL;
    *slash = '\0';
    static const char *const subdirs[] = {"", "/../extras/CUPTI/lib64", "/../../cuda_cupti/lib"};
    for (size_t d = 0; d < sizeof subdirs / sizeof subdirs[0]; d++)
        for (size_t i = 0; i < sizeof sonames / sizeof sonames[0]; i++) {
            int n = snprintf(path, len, "%s%s/%s", rt, subdirs[d], sonames[i]);
            if (n < 0 || (size_t)n >= len) continue;
            void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
            if (h) return h;
        }
    return NULL;
}

static void *open_cupti(char *path, size_t len, char *why, size_t whylen) {
    if (find_loaded("libcupti.so", path, len) == 0) {
        void *h = dlopen(path, RTLD_NOW | RTLD_NOLOAD);
        if (h) return h;
    }
    void *h = open_near_cudart(path, len);
    if (h) return h;
    const char *first_err = NULL;
    for (size_t i = 0; i < sizeof sonames / sizeof sonames[0]; i++) {
        h = dlopen(sonames[i], RTLD_NOW | RTLD_LOCAL);
        if (h) {
            snprintf(path, len, "%s", sonames[i]);
            return h;
        }
        const char *e = dlerror();
        if (!first_err && e) first_err = e;
    }
    snprintf(why, whylen, "no libcupti found (loaded, beside libcudart, or %s/.12/.so: %s)", sonames[0],
             first_err ? first_err : "not found");
    return NULL;
}

#define BIND(field, sym)                                                                                \
    do {                                                                                                \
        *(void **)&api->field = dlsym(api->handle, sym);                                                \
        if (!api->field) {                                                                              \
            snprintf(why, whylen, "%s has no %s", api->path, sym);                                      \
            return -1;                                                                                  \
        }                                                                                               \
    } while (0)

int gpu_cupti_bind(struct gpu_cupti *api, char *why, size_t whylen) {
    memset(api, 0, sizeof *api);
    api->handle = open_cupti(api->path, sizeof api->path, why, whylen);
    if (!api->handle) return -1;
    BIND(Subscribe, "cuptiSubscribe");
    BIND(Unsubscribe, "cuptiUnsubscribe");
    BIND(EnableCallback, "cuptiEnableCallback");
    BIND(EnableDomain, "cuptiEnableDomain");
    BIND(ActivityEnable, "cuptiActivityEnable");
    BIND(ActivityDisable, "cuptiActivityDisable");
    BIND(ActivityRegisterCallbacks, "cuptiActivityRegisterCallbacks");
    BIND(ActivityFlushAll, "cuptiActivityFlushAll");
    BIND(ActivityGetNumDroppedRecords, "cuptiActivityGetNumDroppedRecords");
    BIND(GetTimestamp, "cuptiGetTimestamp");
    BIND(GetResultString, "cuptiGetResultString");
    BIND(GetVersion, "cuptiGetVersion");
    BIND(GetDeviceId, "cuptiGetDeviceId");
    CUptiResult r = api->GetVersion(&api->version);
    if (r != CUPTI_SUCCESS) {
        snprintf(why, whylen, "cuptiGetVersion failed in %s: %s", api->path, gpu_cupti_error(api, r));
        return -1;
    }
    if (api->version < GPU_CUPTI_VERSION_MIN || api->version >= GPU_CUPTI_VERSION_END) {
        snprintf(why, whylen, "%s is CUPTI version %u; this library reads CUDA 13's records (13xxxx, built with %u)",
                 api->path, api->version, (unsigned)CUPTI_API_VERSION);
        return -1;
    }
    return 0;
}

const char *gpu_cupti_error(const struct gpu_cupti *api, CUptiResult r) {
    const char *s = NULL;
    if (api->GetResultString && api->GetResultString(r, &s) == CUPTI_SUCCESS && s) return s;
    return "an unknown CUPTI error";
}

void gpu_cupti_refuse(const char *why) {
    fprintf(stderr, "recorder: CUDA tracing off: %s\n", why);
    rec_gpu_state_set(REC_GPU_REFUSED);
}
