/*
 * pool.h -- ggml's scheme for running a graph on n threads: the calling
 * (scheduler) thread is thread 0 and n - 1 pool threads are 1 .. n - 1;
 * every op runs on all n, each on its own share of the rows, and the next
 * op starts only when all n are done with this one (the barrier).
 */
#ifndef INFERENCE_POOL_H
#define INFERENCE_POOL_H

#include <pthread.h>
#include <stdint.h>

typedef void (*pool_fn)(void *task, int thread, int n_threads);

struct pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;       /* a new task (or quit) */
    pthread_cond_t done;       /* the last pool thread finished the task */
    pool_fn fn;
    void *task;
    uint64_t gen;              /* bumped for every task */
    int pending;               /* pool threads still on the current task */
    int quit;
    int n;                     /* threads in all, the caller included */
    int started;               /* pool threads running */
    pthread_t *threads;
};

/* Starts n - 1 pool threads (n >= 1); 0 on success. */
int pool_start(struct pool *p, int n, pool_fn fn);
/* Runs fn(task, i, n) on every thread i, 0 being the caller, and returns
 * when all are done. */
void pool_run(struct pool *p, void *task);
void pool_stop(struct pool *p);

/* Thread i's share [*r0, *r1) of rows split over n threads. */
static inline void pool_split(int rows, int i, int n, int *r0, int *r1) {
    *r0 = (int)((long)rows * i / n);
    *r1 = (int)((long)rows * (i + 1) / n);
}

#endif
