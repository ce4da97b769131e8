/*
 * pool.c -- the pool threads.  A mutex and two condition variables: the
 * waits are the barriers between ops, and they let the demo run quietly on
 * a loaded two-core machine (spinning threads would not).
 */
#include "pool.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>

#include "recorder.h"

struct thread_arg {
    struct pool *p;
    int id;
};

static void *thread_main(void *arg) {
    struct pool *p = ((struct thread_arg *)arg)->p;
    int id = ((struct thread_arg *)arg)->id;
    free(arg);
    char name[32];
    snprintf(name, sizeof name, "worker-%d", id);
    REC_THREAD_NAME(name);
    uint64_t seen = 0;
    pthread_mutex_lock(&p->mu);
    for (;;) {
        while (p->gen == seen && !p->quit) pthread_cond_wait(&p->wake, &p->mu);
        if (p->quit) break;
        seen = p->gen;
        void *task = p->task;
        int n = p->n;
        pthread_mutex_unlock(&p->mu);
        p->fn(task, id, n);
        pthread_mutex_lock(&p->mu);
        if (--p->pending == 0) pthread_cond_signal(&p->done);
    }
    pthread_mutex_unlock(&p->mu);
    return NULL;
}

int pool_start(struct pool *p, int n, pool_fn fn) {
    p->fn = fn;
    p->task = NULL;
    p->gen = 0;
    p->pending = 0;
    p->quit = 0;
    p->n = n;
    p->started = 0;
    p->threads = calloc((size_t)n, sizeof *p->threads);
    if (!p->threads) return -1;
    pthread_mutex_init(&p->mu, NULL);
    pthread_cond_init(&p->wake, NULL);
    pthread_cond_init(&p->done, NULL);
    /* Pool threads leave SIGINT and SIGTERM to the scheduler thread. */
    sigset_t block, old;
    sigemptyset(&block);
    sigaddset(&block, SIGINT);
    sigaddset(&block, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &block, &old);
    int rc = 0;
    for (int i = 1; i < n; i++) {
        struct thread_arg *a = malloc(sizeof *a);
        if (!a) {
            rc = -1;
            break;
        }
        a->p = p;
        a->id = i;
        if (pthread_create(&p->threads[i], NULL, thread_main, a) != 0) {
            free(a);
            rc = -1;
            break;
        }
        p->started++;
    }
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    if (rc) pool_stop(p);
    return rc;
}

void pool_run(struct pool *p, void *task) {
    pthread_mutex_lock(&p->mu);
    p->task = task;
    p->pending = p->n - 1;
    p->gen++;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    p->fn(task, 0, p->n);  /* the caller is thread 0 */
    /* Waiting for the stragglers: a wait scope, so that a flame graph
     * shows the imbalance and the busy figures do not count it as work
     * (docs/analysis.md, "Wait scopes").  (The pool threads' wait for the
     * next op is idle.) */
    REC_SCOPE_WAIT("barrier");
    pthread_mutex_lock(&p->mu);
    while (p->pending > 0) pthread_cond_wait(&p->done, &p->mu);
    pthread_mutex_unlock(&p->mu);
}

void pool_stop(struct pool *p) {
    pthread_mutex_lock(&p->mu);
    p->quit = 1;
    pthread_cond_broadcast(&p->wake);
    pthread_mutex_unlock(&p->mu);
    for (int i = 1; i <= p->started; i++) pthread_join(p->threads[i], NULL);
    free(p->threads);
    p->threads = NULL;
    pthread_cond_destroy(&p->done);
    pthread_cond_destroy(&p->wake);
    pthread_mutex_destroy(&p->mu);
}
