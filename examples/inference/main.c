/*
 * main.c -- the demo inference: a scheduler thread (this one) decodes
 * tokens by handing each op of the model to a pool of worker threads and
 * doing its own share, as ggml's main thread does.  It runs
 * until SIGINT/SIGTERM or --tokens N, and exits cleanly either way.
 *
 *   ./inference --threads 4 &  recorder-top $!
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "model.h"
#include "options.h"
#include "pool.h"
#include "recorder.h"

static volatile sig_atomic_t stop_requested;

static void on_signal(int sig) {
    (void)sig;
    stop_requested = 1;
}

static double now_sec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Sleeps until the monotonic time t, unless a signal arrives. */
static void sleep_until(double t) {
    struct timespec ts;
    ts.tv_sec = (time_t)t;
    ts.tv_nsec = (long)((t - (double)ts.tv_sec) * 1e9);
    if (ts.tv_nsec >= 1000000000L) ts.tv_nsec = 999999999L;
    while (!stop_requested && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR) {
    }
}

/* Tokens per second over the last (up to) 16 tokens. */
struct rate_meter {
    double t[16];
    long n;
};

static double rate_add(struct rate_meter *r, double t) {
    r->t[r->n % 16] = t;
    r->n++;
    if (r->n < 2) return 0;
    long k = r->n < 16 ? r->n : 16;
    double oldest = r->t[(r->n - k) % 16];
    return t > oldest ? (double)(k - 1) / (t - oldest) : 0;
}

/* The name viewers take: the pid, or RECORDER_NAME's value. */
static const char *segment_target(const char *path) {
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    return strncmp(base, "recorder.", 9) == 0 ? base + 9 : base;
}

static void print_banner(const struct options *o, const struct model *m) {
    printf("inference: %d layers, dim %d, %d heads, %d threads, context %d, vocab %d, ",
           o->model.layers, o->model.dim, m->heads, o->threads, o->model.ctx, o->model.vocab);
    if (o->rate > 0) printf("at most %g tokens/s\n", o->rate);
    else printf("no rate limit\n");
    const char *path = rec_segment_path();
    if (path) {
        const char *t = segment_target(path);
        printf("recording to %s\n", path);
        printf("watch it live:  recorder-top %s   (or: recorder-web %s)\n", t, t);
        printf("save a trace:   recorder dump %s -o trace.json\n", t);
    } else {
        printf("recording is off (RECORDER=0, or the segment could not be created)\n");
    }
    if (!o->tokens) printf("stop with Ctrl-C (SIGINT) or SIGTERM\n");
    fflush(stdout);
}

int main(int argc, char **argv) {
    struct options o;
    int rc = options_parse(&o, argc, argv);
    if (rc >= 0) return rc;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;  /* no SA_RESTART: the rate limiter's sleep ends at once */
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);

    rec_init();  /* now, so that the banner can name the segment */
    REC_THREAD_NAME("scheduler");

    struct pool pool;
    struct model m;
    if (pool_start(&pool, o.threads, model_op_slice) != 0) {
        fprintf(stderr, "inference: cannot start %d threads\n", o.threads);
        return 1;
    }
    if (model_init(&m, &o.model, &pool) != 0) {
        fprintf(stderr, "inference: out of memory for the model\n");
        pool_stop(&pool);
        model_free(&m);
        return 1;
    }
    if (!o.quiet) print_banner(&o, &m);

    struct rate_meter meter = {{0}, 0};
    double start = now_sec(), next = start;
    long produced = 0;
    while (!stop_requested && (o.tokens == 0 || produced < o.tokens)) {
        int tok;
        {
            REC_SCOPE("token");
            tok = model_step(&m);
        }
        produced++;
        char msg[48];
        snprintf(msg, sizeof msg, "#%ld seq %d pos %d id %d", produced, m.seq, m.pos - 1, tok);
        REC_INSTANT("token", msg);
        REC_COUNTER("tokens_per_s", rate_add(&meter, now_sec()));
        REC_COUNTER("kv_cache_KiB", model_kv_kib(&m));
        if (o.rate > 0) {
            next += 1.0 / o.rate;
            double now = now_sec();
            if (next < now - 1.0 / o.rate) next = now;  /* fell behind: do not burst */
            else sleep_until(next);
        }
    }
    double secs = now_sec() - start;

    pool_stop(&pool);
    model_free(&m);
    if (!o.quiet)
        printf("inference: %ld tokens in %.2f s (%.1f tokens/s)%s\n", produced, secs,
               secs > 0 ? (double)produced / secs : 0.0, stop_requested ? ", stopped by a signal" : "");
    rec_shutdown();
    return 0;
}
