/*
 * bench_scope.c -- the hot-path benchmark: ns per scope (begin + end) of
 * recorder.h against a hand-written floor and other designs, on 1 and 2
 * threads, all in one run.
 *
 * The machine is shared and noisy, so no figure is taken alone: a round
 * runs every variant once (in an order that rotates from round to round),
 * on 1 thread and on 2; each ratio is taken between trials of the same
 * round, and the report gives the median (and min) over rounds.
 *
 *   bench_scope [--rounds R] [--scopes N] [--instr-file F] [--raw]
 *   bench_scope --instr          (under callgrind: see run.sh)
 *   bench_scope --list
 *
 * Exit status: 0 all targets met, 1 a target missed, 2 bad usage or setup.
 */
#include <errno.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "../bench_args.h"
#include "bench_run.h"
#include "variants.h"

#if defined(BENCH_HAVE_CALLGRIND)
#include <valgrind/callgrind.h>
#endif

static const struct bench_variant *const variants[] = {
    &bench_empty,        &bench_copy,         &bench_floor,        &bench_rec_static,
    &bench_rec_dyn,      &bench_rec_dyn_buf,  &bench_rec_dyn_rand, &bench_rec_filtered,
    &bench_rec_dyn_filtered, &bench_rec_arg, &bench_mutex,    &bench_lttng_static, &bench_lttng_dyn,
};
#define NV (sizeof variants / sizeof variants[0])

static char dyn_buf[BENCH_DYN_NAMES][32], dyn_filt_buf[BENCH_DYN_NAMES][48];
const char *bench_dyn_names[BENCH_DYN_NAMES];
const char *bench_dyn_filtered[BENCH_DYN_NAMES];
unsigned char bench_dyn_order[BENCH_DYN_ORDER];

/* Built at run time so the compiler cannot know their text or length. */
static void make_names(void) {
    uint32_t x = 2463534242u;  /* xorshift32: the same order every run */
    for (unsigned i = 0; i < BENCH_DYN_ORDER; i++) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        bench_dyn_order[i] = (unsigned char)(x % BENCH_DYN_NAMES);
    }
    for (unsigned i = 0; i < BENCH_DYN_NAMES; i++) {
        snprintf(dyn_buf[i], sizeof dyn_buf[i], "matmul_blk.%u.attn_q", i);
        snprintf(dyn_filt_buf[i], sizeof dyn_filt_buf[i], "matmul_blk.%u." BENCH_FILTER_OUT, i);
        bench_dyn_names[i] = dyn_buf[i];
        bench_dyn_filtered[i] = dyn_filt_buf[i];
    }
}

static uint64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- trials on 1 or 2 threads ------------------------------------------ */

enum { CMD_INIT, CMD_TRIAL, CMD_FINI, CMD_QUIT };

static struct {
    int cmd;
    size_t v;
    unsigned threads;
    uint64_t scopes;
    unsigned arrived;          /* spin rendezvous so threads start together */
    pthread_barrier_t start, done;
    uint64_t elapsed[BENCH_MAX_THREADS], entries[BENCH_MAX_THREADS];
    int init_ok[BENCH_MAX_THREADS][NV];
} sh;

static void trial_body(unsigned id) {
    const struct bench_variant *b = variants[sh.v];
    __atomic_add_fetch(&sh.arrived, 1, __ATOMIC_ACQ_REL);
    while (__atomic_load_n(&sh.arrived, __ATOMIC_ACQUIRE) < sh.threads) {
    }
    uint64_t e0 = b->entries ? b->entries() : 0;
    uint64_t t0 = now_ns();
    b->run(sh.scopes);
    uint64_t t1 = now_ns();
    uint64_t e1 = b->entries ? b->entries() : 0;
    sh.elapsed[id] = t1 - t0;
    sh.entries[id] = e1 - e0;
}

static void init_body(unsigned id) {
    for (size_t v = 0; v < NV; v++) {
        const struct bench_variant *b = variants[v];
        sh.init_ok[id][v] = b->run && (!b->thread_init || b->thread_init() == 0);
    }
}

static void fini_body(void) {
    for (size_t v = 0; v < NV; v++)
        if (variants[v]->thread_fini) variants[v]->thread_fini();
}

static void *worker(void *arg) {
    unsigned id = (unsigned)(uintptr_t)arg;
    for (;;) {
        pthread_barrier_wait(&sh.start);
        if (sh.cmd == CMD_QUIT) return NULL;
        if (sh.cmd == CMD_INIT) init_body(id);
        else if (sh.cmd == CMD_FINI) fini_body();
        else if (id < sh.threads) trial_body(id);
        pthread_barrier_wait(&sh.done);
    }
}

/* Runs one command on every thread (the caller is thread 0). */
static void command(int cmd, size_t v, unsigned threads, uint64_t scopes) {
    sh.cmd = cmd;
    sh.v = v;
    sh.threads = threads;
    sh.scopes = scopes;
    sh.arrived = 0;
    pthread_barrier_wait(&sh.start);
    if (cmd == CMD_QUIT) return;
    if (cmd == CMD_INIT) init_body(0);
    else if (cmd == CMD_FINI) fini_body();
    else trial_body(0);
    pthread_barrier_wait(&sh.done);
}

/* ---- instruction counts (under callgrind) ------------------------------- */

/* Each variant runs N then 2N scopes with collection on only around the
 * call; run.sh takes (I(2N) - I(N)) / N from the two dumps, which leaves
 * out the call and everything else that does not repeat per scope. */
static int count_instructions(uint64_t n) {
#if defined(BENCH_HAVE_CALLGRIND)
    if (!RUNNING_ON_VALGRIND) {
        fprintf(stderr, "bench_scope: --instr must run under valgrind --tool=callgrind --collect-atstart=no\n");
        return 2;
    }
    command(CMD_INIT, 0, 1, 0);
    for (size_t v = 0; v < NV; v++) {
        if (!sh.init_ok[0][v]) continue;
        for (uint64_t k = 1; k <= 2; k++) {
            char label[64];
            variants[v]->run(n * k);  /* warm: the name caches, the ring */
            CALLGRIND_TOGGLE_COLLECT;
            variants[v]->run(n * k);
            CALLGRIND_TOGGLE_COLLECT;
            snprintf(label, sizeof label, "bench %s %llu", variants[v]->key, (unsigned long long)(n * k));
            CALLGRIND_DUMP_STATS_AT(label);
        }
    }
    return 0;
#else
    (void)n;
    fprintf(stderr, "bench_scope: built without valgrind/callgrind.h; --instr is unavailable\n");
    return 2;
#endif
}

/* ---- main ---------------------------------------------------------------- */

int bench_find(const struct bench_run *r, const char *key) {
    for (size_t v = 0; v < r->nv; v++)
        if (!strcmp(r->v[v]->key, key)) return (int)v;
    return -1;
}

/* "key value" lines written by run.sh from the callgrind dumps. */
static int read_instr(const char *path, struct bench_run *r) {
    FILE *f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "bench_scope: cannot open %s: %s\n", path, strerror(errno));
        return -1;
    }
    char key[64];
    double x;
    while (fscanf(f, "%63s %lf", key, &x) == 2) {
        int v = bench_find(r, key);
        if (v >= 0) r->instr[v] = x;
    }
    fclose(f);
    return 0;
}

static void usage(FILE *f) {
    fprintf(f,
            "usage: bench_scope [--rounds R] [--scopes N] [--instr-file F] [--raw]\n"
            "       bench_scope --instr [--scopes N]   (under valgrind --tool=callgrind)\n"
            "       bench_scope --list\n");
}

int main(int argc, char **argv) {
    long long rounds = 101, scopes = 20000;
    const char *instr_file = NULL;
    int instr = 0, raw = 0, scopes_set = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (bench_is_help(a)) {
            usage(stdout);
            printf("  --rounds R      rounds, 3-100000 (default 101)\n"
                   "  --scopes N      scopes per trial, 100-1000000000 (default 20000)\n"
                   "  --instr-file F  instruction counts from --instr, for the report (default none)\n"
                   "  --raw           also print every round's figures\n"
                   "  --instr         count instructions per variant, under callgrind\n"
                   "  --list          the variants\n"
                   "  -h, --help      this text\n");
            return 0;
        } else if (!strcmp(a, "--list")) {
            for (size_t v = 0; v < NV; v++) printf("%-12s %s\n", variants[v]->key, variants[v]->what);
            return 0;
        } else if (!strcmp(a, "--instr")) {
            instr = 1;
        } else if (!strcmp(a, "--raw")) {
            raw = 1;
        } else if (!strcmp(a, "--rounds") && i + 1 < argc) {
            if (bench_parse_ll(argv[++i], 3, 100000, &rounds)) {
                fprintf(stderr, "bench_scope: --rounds wants an integer from 3 to 100000\n");
                return 2;
            }
        } else if (!strcmp(a, "--scopes") && i + 1 < argc) {
            scopes_set = 1;
            if (bench_parse_ll(argv[++i], 100, 1000000000, &scopes)) {
                fprintf(stderr, "bench_scope: --scopes wants an integer from 100 to 1000000000\n");
                return 2;
            }
        } else if (!strcmp(a, "--instr-file") && i + 1 < argc) {
            instr_file = argv[++i];
        } else {
            usage(stderr);
            return 2;
        }
    }
    if (instr && !scopes_set) scopes = 20000;

    /* The recorder's configuration for this run (read at its init). */
    setenv("RECORDER_FILTER_OUT", BENCH_FILTER_OUT, 1);
    unsetenv("RECORDER_FILTER");
    setenv("RECORDER_RING_KB", "1024", 1);  /* = BENCH_RING_KB: the floor's ring */
    setenv("RECORDER_MODE", "flight", 1);
    make_names();

    pthread_barrier_init(&sh.start, NULL, BENCH_MAX_THREADS);
    pthread_barrier_init(&sh.done, NULL, BENCH_MAX_THREADS);
    pthread_t th;
    if (pthread_create(&th, NULL, worker, (void *)(uintptr_t)1) != 0) {
        fprintf(stderr, "bench_scope: cannot start a thread\n");
        return 2;
    }
    if (instr) {
        int rc = count_instructions(scopes);
        command(CMD_FINI, 0, 1, 0);
        command(CMD_QUIT, 0, 1, 0);
        pthread_join(th, NULL);
        return rc;
    }

    int avail[NV];
    const char *why[NV];
    double bytes[NV], instr_v[NV];
    struct bench_run r = {NV, variants, avail, why, (unsigned)rounds, scopes, NULL, bytes, instr_v};
    r.ns = (double *)calloc(NV * BENCH_MAX_THREADS * rounds, sizeof *r.ns);
    if (!r.ns) return 2;
    for (size_t v = 0; v < NV; v++) {
        bytes[v] = instr_v[v] = NAN;
        why[v] = NULL;
    }
    if (instr_file && read_instr(instr_file, &r) != 0) return 2;

    command(CMD_INIT, 0, 1, 0);
    for (size_t v = 0; v < NV; v++) {
        avail[v] = sh.init_ok[0][v] && sh.init_ok[1][v];
        if (!avail[v]) why[v] = variants[v]->unavailable ? variants[v]->unavailable() : "failed to start";
    }
    /* Warm-up: every ring written over once, every name cache filled. */
    for (size_t v = 0; v < NV; v++)
        if (avail[v]) command(CMD_TRIAL, v, BENCH_MAX_THREADS, scopes);

    for (unsigned rep = 0; rep < rounds; rep++) {
        for (unsigned k = 0; k < BENCH_MAX_THREADS; k++) {
            unsigned threads = rep % 2 ? BENCH_MAX_THREADS - k : k + 1;
            for (size_t j = 0; j < NV; j++) {
                size_t v = (j + rep) % NV;
                if (!avail[v]) continue;
                command(CMD_TRIAL, v, threads, scopes);
                double sum = 0;
                for (unsigned t = 0; t < threads; t++) {
                    sum += (double)sh.elapsed[t] / (double)scopes;
                    if (variants[v]->entries) {
                        double b = (double)sh.entries[t] * sizeof(uint64_t) * 2 / (double)scopes;
                        if (isnan(bytes[v]) || b > bytes[v]) bytes[v] = b;
                    }
                }
                *bench_ns(&r, v, threads, rep) = sum / threads;
                if (raw)
                    printf("raw round %u threads %u %s %.3f\n", rep, threads, variants[v]->key, sum / threads);
            }
        }
    }
    command(CMD_FINI, 0, 1, 0);
    command(CMD_QUIT, 0, 1, 0);
    pthread_join(th, NULL);
    int missed = bench_report(&r);
    free(r.ns);
    return missed ? 1 : 0;
}
