/*
 * variant_mutex.c -- the design of llama.cpp's simple-perf (the seed
 * 000_*: begin_trace/end_trace), made thread-safe the obvious way: one
 * global buffer behind one pthread mutex, a CLOCK_MONOTONIC timestamp and
 * a copy of the name per event.  simple-perf itself also builds
 * std::strings and looks the thread up in a hash map per event; this
 * version leaves that out, so it is a lower bound for the design.
 */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "variants.h"

#define MUTEX_NAME_MAX 23u

struct mutex_event {
    uint64_t ns;
    char name[MUTEX_NAME_MAX + 1];  /* 32-byte records */
};

static pthread_mutex_t mutex_lock = PTHREAD_MUTEX_INITIALIZER;
static struct mutex_event *mutex_buf;
static uint64_t mutex_count;

static void mutex_trace(const char *name) {
    pthread_mutex_lock(&mutex_lock);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    struct mutex_event *e = &mutex_buf[mutex_count++ & (BENCH_RING_ENTRIES - 1)];
    e->ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
    size_t len = strnlen(name, MUTEX_NAME_MAX);
    memcpy(e->name, name, len);
    e->name[len] = 0;
    pthread_mutex_unlock(&mutex_lock);
}

__attribute__((noinline)) static void mutex_run(uint64_t n) {
    for (uint64_t i = 0; i < n; i++) {
        mutex_trace("bench.static");
        BENCH_WORK();
        mutex_trace("end_bench.static");
        BENCH_WORK();
    }
}

static int mutex_init(void) {
    pthread_mutex_lock(&mutex_lock);
    if (!mutex_buf) {
        mutex_buf = (struct mutex_event *)calloc(BENCH_RING_ENTRIES, sizeof *mutex_buf);
    }
    int ok = mutex_buf != NULL;
    pthread_mutex_unlock(&mutex_lock);
    return ok ? 0 : -1;
}

static void mutex_fini(void) {
    pthread_mutex_lock(&mutex_lock);
    free(mutex_buf);  /* every thread calls this; the first frees */
    mutex_buf = NULL;
    pthread_mutex_unlock(&mutex_lock);
}

const struct bench_variant bench_mutex = {
    .key = "mutex",
    .what = "simple-perf design: global buffer + pthread mutex + clock_gettime + name copy",
    .run = mutex_run,
    .thread_init = mutex_init,
    .thread_fini = mutex_fini,
};
