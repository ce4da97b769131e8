/*
 * outbuf_thread.c -- an outbuf whose full buffers are written by a second
 * thread, so that formatting the next megabyte overlaps the write(2) of
 * the last one.
 *
 * Why: the JSON and protobuf exporters spend about a seventh of their
 * time in the kernel copying their output into the page cache (perf on
 * `recorder convert x.rec -o y.json`).  On a machine with a core to
 * spare that time leaves the critical path; `python3 -m recorder -o
 * x.json` converts after the program has exited, when the program's core
 * is free.  Nothing else changes: the bytes and their order are those of
 * the plain outbuf, and an error still sticks and is reported by
 * ob_finish.
 *
 * Two buffers: the caller fills one while the thread writes the other.
 * Invariants, all under mu:
 *   - `pend` is the buffer handed over and not yet written (NULL: the
 *     thread is idle, or writing nothing); the caller never touches it;
 *   - the FILE is used only by the thread between ob_init_thread and
 *     ob_finish, except while the thread is idle and the caller holds the
 *     handover (ob_write_big waits for that);
 *   - `err` is set by the thread and read by the caller only after a
 *     handover completes, so a failed write stops the next ones.
 * If the thread cannot be started the outbuf writes in the caller's thread
 * as ob_init's does.
 */
#include "outbuf.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>

#define OB_THREAD_STACK ((size_t)256 << 10)   /* bytes: fwrite's needs, with room for sanitizers */

struct ob_thread {
    pthread_t th;
    pthread_mutex_t mu;
    pthread_cond_t cv;        /* pend changed, or stop asked */
    FILE *f;
    char *pend;               /* handed to the thread; NULL when idle */
    size_t pend_n;
    char *spare;              /* the buffer the caller fills next */
    int err, errnum, stop;     /* errnum: the first failed write's errno */
};

static void *writer(void *arg) {
    struct ob_thread *t = arg;
    pthread_mutex_lock(&t->mu);
    for (;;) {
        while (!t->pend && !t->stop) pthread_cond_wait(&t->cv, &t->mu);
        if (!t->pend) break;
        char *b = t->pend;
        size_t n = t->pend_n;
        int failed = t->err, e = 0;
        pthread_mutex_unlock(&t->mu);
        if (!failed && fwrite(b, 1, n, t->f) != n) {
            failed = 1;
            e = errno;
        }
        pthread_mutex_lock(&t->mu);
        if (failed && !t->err) t->errnum = e ? e : EIO;
        t->err |= failed;
        t->pend = NULL;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    return NULL;
}

/* Waits until the thread has written what it holds; copies its error. */
static void wait_idle(struct outbuf *o) {
    struct ob_thread *t = o->th;
    pthread_mutex_lock(&t->mu);
    while (t->pend) pthread_cond_wait(&t->cv, &t->mu);
    if (t->err) ob_fail(o, t->errnum);
    pthread_mutex_unlock(&t->mu);
}

static void thread_flush(struct outbuf *o) {
    struct ob_thread *t = o->th;
    size_t n = (size_t)(o->p - o->buf);
    if (!n) return;
    pthread_mutex_lock(&t->mu);
    while (t->pend) pthread_cond_wait(&t->cv, &t->mu);
    if (t->err) ob_fail(o, t->errnum);
    if (!o->err) {
        size_t cap = (size_t)(o->end - o->buf);
        t->pend = o->buf;
        t->pend_n = n;
        o->buf = t->spare;
        o->end = o->buf + cap;
        t->spare = t->pend;
        pthread_cond_broadcast(&t->cv);
    }
    pthread_mutex_unlock(&t->mu);
    o->p = o->buf;
}

static void thread_write_big(struct outbuf *o, const void *s, size_t n) {
    thread_flush(o);
    wait_idle(o);
    if (!o->err && fwrite(s, 1, n, o->f) != n) ob_fail(o, errno);
}

static void thread_end(struct outbuf *o) {
    struct ob_thread *t = o->th;
    thread_flush(o);
    pthread_mutex_lock(&t->mu);
    t->stop = 1;
    pthread_cond_broadcast(&t->cv);
    pthread_mutex_unlock(&t->mu);
    pthread_join(t->th, NULL);
    if (t->err) ob_fail(o, t->errnum);
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
    free(t->spare);
    free(t);
    o->th = NULL;
    o->ops = NULL;
}

static const struct ob_thread_ops thread_ops = {thread_flush, thread_write_big, thread_end};

int ob_init_thread(struct outbuf *o, FILE *f, size_t cap) {
    if (ob_init(o, f, cap) != 0) return -1;
    struct ob_thread *t = calloc(1, sizeof *t);
    char *spare = malloc((size_t)(o->end - o->buf));
    if (!t || !spare || pthread_mutex_init(&t->mu, NULL) != 0) goto plain;
    if (pthread_cond_init(&t->cv, NULL) != 0) {
        pthread_mutex_destroy(&t->mu);
        goto plain;
    }
    t->f = f;
    t->spare = spare;
    /* The thread takes no signal: the caller's handlers run in the
     * threads it expects, and the thread's writes never fail with EINTR
     * (stdio does not retry them). */
    sigset_t all, old;
    sigfillset(&all);
    /* A small stack: it only calls fwrite, and the exporters run within
     * a bounded address space (capture_bounds_memory: 36 MiB), where the
     * default 8 MiB stack would not fit beside the export's own memory. */
    pthread_attr_t attr;
    if (pthread_attr_init(&attr) != 0) goto plain_sync;
    pthread_attr_setstacksize(&attr, OB_THREAD_STACK);
    pthread_sigmask(SIG_SETMASK, &all, &old);
    int rc = pthread_create(&t->th, &attr, writer, t);
    pthread_sigmask(SIG_SETMASK, &old, NULL);
    pthread_attr_destroy(&attr);
    if (rc != 0) goto plain_sync;
    o->th = t;
    o->ops = &thread_ops;
    return 0;
plain_sync:
    pthread_cond_destroy(&t->cv);
    pthread_mutex_destroy(&t->mu);
plain:
    free(spare);
    free(t);
    return 0;
}
