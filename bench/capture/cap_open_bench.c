/*
 * cap_open_bench.c -- how long does opening a capture take before a viewer
 * can serve anything?  (docs/performance/web.md, "A 100 M-event capture")
 *
 *   cap_open_bench FILE.rec [RUNS]
 *
 * For each run: rec_cap_open (every record checked and counted before it
 * returns: what the CLI uses) and rec_cap_open_lazy (the header, the
 * small records and every record's header checked; chunks checked as
 * they are read: what recorder-web and recorder-top use), then, lazily
 * opened, the time to the first chunk and to reading the whole file.
 * Prints wall and CPU seconds of each, and the lazy/full ratio of the
 * open (the machine is shared: compare within one run).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/capture.h"

#include "../bench_args.h"

static double now(clockid_t id) {
    struct timespec ts;
    clock_gettime(id, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

struct lap {
    double wall, cpu;
};

static struct lap start(void) { return (struct lap){now(CLOCK_MONOTONIC), now(CLOCK_PROCESS_CPUTIME_ID)}; }

static struct lap since(struct lap a) {
    return (struct lap){now(CLOCK_MONOTONIC) - a.wall, now(CLOCK_PROCESS_CPUTIME_ID) - a.cpu};
}

static int die(const char *what, const char *err) {
    fprintf(stderr, "cap_open_bench: %s: %s\n", what, err);
    return 1;
}

#define USAGE "usage: cap_open_bench [--] FILE.rec [RUNS]\n"

static void usage(FILE *f) {
    fprintf(f, USAGE
               "  FILE.rec    the capture to open\n"
               "  RUNS        how many times, at least 1 (default 3)\n"
               "  -h, --help  this text\n");
}

/* A bad command line: why, the usage line, exit status 2 (bench_args.h). */
static int bad(const char *why, const char *arg) { return bench_bad("cap_open_bench", USAGE, why, arg); }

int main(int argc, char **argv) {
    const char *pos[2];
    int npos = 0, opts = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (opts && bench_is_help(a)) {
            usage(stdout);
            return 0;
        } else if (opts && !strcmp(a, "--")) {
            opts = 0;
        } else if (opts && a[0] == '-' && a[1]) {
            return bad("unknown option", a);
        } else if (npos == 2) {
            return bad("too many arguments", a);
        } else {
            pos[npos++] = a;
        }
    }
    if (npos == 0) return bad("no FILE.rec given", NULL);
    const char *file = pos[0];
    int runs = 3;
    if (npos == 2) {
        long long r;
        if (bench_parse_ll(pos[1], 1, INT_MAX, &r)) return bad("RUNS wants a positive integer", pos[1]);
        runs = (int)r;
    }
    char err[512];
    for (int i = 0; i < runs; i++) {
        rec_cap *c;
        struct lap t = start();
        if (rec_cap_open(file, &c, err, sizeof err) != REC_OK) return die("rec_cap_open", err);
        struct lap full = since(t);
        unsigned long long entries = (unsigned long long)rec_cap_get_info(c)->entries;
        rec_cap_close(c);

        t = start();
        if (rec_cap_open_lazy(file, &c, err, sizeof err) != REC_OK) return die("rec_cap_open_lazy", err);
        struct lap lazy = since(t);
        struct rec_cap_item it;
        int r;
        while ((r = rec_cap_next(c, &it)) == 1 && it.kind != REC_CAP_ITEM_CHUNK) {
        }
        struct lap first = since(t);
        unsigned long long n = r == 1 ? it.n : 0;
        while ((r = rec_cap_next(c, &it)) == 1)
            if (it.kind == REC_CAP_ITEM_CHUNK) n += it.n;
        struct lap all = since(t);
        const struct rec_cap_info *in = rec_cap_get_info(c);
        printf("run %d: %llu entries; rec_cap_open %.3f s wall %.3f s cpu; rec_cap_open_lazy %.4f s wall %.4f s cpu "
               "(%.1f%% of the full open's cpu); first chunk %.4f s cpu; whole file read lazily %.3f s cpu, %llu "
               "entries, counted %d%s%s\n",
               i, entries, full.wall, full.cpu, lazy.wall, lazy.cpu, 100 * lazy.cpu / full.cpu, first.cpu, all.cpu, n,
               in->counted, in->warning[0] ? ", warning: " : "", in->warning);
        rec_cap_close(c);
        if (r < 0) return die("rec_cap_next", "read error");
    }
    return 0;
}
