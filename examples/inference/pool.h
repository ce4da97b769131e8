/*
 * pool.h -- a fixed pool of worker threads that run one task at a time,
 * each worker on its own share of the rows, with a barrier after each task
 * (ggml's scheme: the graph is walked in order, every op split by rows).
 */
#ifndef INFERENCE_POOL_H
#define INFERENCE_POOL_H

#include <pthread.h>
#include <stdint.h>

typedef void (*pool_fn)(void *task, int worker, int n_workers);

struct pool {
    pthread_mutex_t mu;
    pthread_cond_t wake;       /* a new task (or quit) */
    pthread_cond_t done;       /* the last worker finished the task */
    pool_fn fn;
    void *task;
    uint64_t gen;              /* bumped for every task */
    int pending;               /* workers still on the current task */
    int quit;
    int n;
    pthread_t *threads;
};

/* Starts n worker threads; 0 on success. */
int pool_start(struct pool *p, int n, pool_fn fn);
/* Runs fn(task, w, n) on every worker w and returns when all are done. */
void pool_run(struct pool *p, void *task);
void pool_stop(struct pool *p);

/* Worker w's share [*r0, *r1) of rows split over n workers. */
static inline void pool_split(int rows, int w, int n, int *r0, int *r1) {
    *r0 = (int)((long)rows * w / n);
    *r1 = (int)((long)rows * (w + 1) / n);
}

#endif
