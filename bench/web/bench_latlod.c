/*
 * bench_latlod.c -- what the whole-run latency history (viewer-web/latlod.c)
 * costs recorder-web's reader thread, against what the LOD summary it
 * sits beside already costs (docs/performance/web.md, "Latency history").
 *
 * One run: N calls spread over S scopes and a run of T seconds (so the
 * grid coarsens as a real run's does), fed once to lod_slice alone and
 * once to lod_slice + latlod_call; prints ns per call of each and their
 * ratio, then the size and encode time of every scope's LATENCY answer.
 *
 *   bench_latlod [--calls N] [--scopes S] [--seconds T]
 */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <urcu.h>

#include "latlod.h"
#include "lod.h"
#include "shared.h"

#include "../bench_args.h"

#ifdef WEB_TSAN
char web_grace_period;   /* main.c's, for frame.c's RCU callbacks under TSan */
#endif

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* xorshift: the same calls in both passes. */
static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

static double pass(long calls, unsigned scopes, double seconds, int with_lat, struct lat_pub *pub, struct lod *l,
                   struct latlod *t) {
    static struct frame *slot;
    lod_init(l, 2, &slot);
    latlod_init(t, pub);
    uint64_t s = 88172645463325252ull;
    double step = seconds * 1e9 / (double)calls, t0 = now_s();
    for (long i = 0; i < calls; i++) {
        uint64_t r = rnd(&s);
        int64_t e = (int64_t)((double)i * step) + 1000, d = (int64_t)(r % 5000000u) + 100;
        uint32_t name = 1 + (uint32_t)((r >> 32) % scopes);
        lod_slice(l, 1, 1, e - d, e, name);
        if (with_lat) latlod_call(t, l, name, e - d, e);
    }
    double took = now_s() - t0;
    frame_publish(&slot, NULL);
    return took;
}

#define USAGE "usage: bench_latlod [--calls N] [--scopes S] [--seconds T]\n"

static void usage(FILE *f) {
    fprintf(f, USAGE
               "  --calls N    calls fed, at least 1 (default 20000000)\n"
               "  --scopes S   scopes they are spread over, at least 1 (default 64)\n"
               "  --seconds T  the run they are spread over, seconds (default 1800)\n"
               "  -h, --help   this text\n");
}

/* A bad command line: why, the usage line, exit status 2 (bench_args.h). */
static int bad(const char *why, const char *arg) { return bench_bad("bench_latlod", USAGE, why, arg); }

int main(int argc, char **argv) {
    long calls = 20000000;
    unsigned scopes = 64;
    double seconds = 1800;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (bench_is_help(a)) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--calls") && strcmp(a, "--scopes") && strcmp(a, "--seconds")) return bad("unknown option", a);
        if (i + 1 == argc) return bad("missing value after", a);
        const char *v = argv[++i];
        if (!strcmp(a, "--seconds")) {
            if (bench_parse_d(v, 1e-9, 1e9, &seconds)) return bad("--seconds wants a number above 0", v);
            continue;
        }
        int is_scopes = !strcmp(a, "--scopes");
        long long x;
        if (bench_parse_ll(v, 1, is_scopes ? INT_MAX : LONG_MAX, &x))
            return bad(is_scopes ? "--scopes wants a positive integer" : "--calls wants a positive integer", v);
        if (is_scopes) scopes = (unsigned)x;
        else calls = (long)x;
    }
    rcu_register_thread();
    static struct lat_pub pub;
    struct lod l;
    struct latlod t;
    double base = pass(calls, scopes, seconds, 0, &pub, &l, &t);
    latlod_destroy(&t);
    lod_destroy(&l);
    double both = pass(calls, scopes, seconds, 1, &pub, &l, &t);
    printf("%ld calls, %u scopes, %.0f s run (bucket %.3f s)\n", calls, scopes, seconds, (double)l.width / 1e9);
    printf("lod_slice alone:          %.1f ns/call\n", base * 1e9 / (double)calls);
    printf("lod_slice + latlod_call:  %.1f ns/call (x%.2f)\n", both * 1e9 / (double)calls, both / base);
    /* Every scope asked for at once: the reader encodes all answers. */
    for (unsigned i = 0; i < t.n; i++) pub.want[i] = 1;
    double e0 = now_s();
    latlod_publish(&t, &l, 0);
    double enc = now_s() - e0;
    size_t bytes = 0;
    for (unsigned i = 0; i < t.n; i++) bytes += pub.ans[i] ? pub.ans[i]->len : 0;
    printf("answers of all %u scopes: %.1f KB each, %.0f us each to encode\n", t.n, (double)bytes / t.n / 1e3,
           enc * 1e6 / t.n);
    for (unsigned i = 0; i < t.n; i++) frame_publish(&pub.ans[i], NULL);
    latlod_destroy(&t);
    lod_destroy(&l);
    rcu_barrier();
    rcu_unregister_thread();
    return 0;
}
