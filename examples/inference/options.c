/*
 * options.c -- parsing and checking the command line.  Bad input gets one
 * line on stderr and exit status 2.
 */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static const char usage[] =
    "usage: inference [options]\n"
    "A toy multi-threaded transformer inference, instrumented with recorder.\n"
    "It decodes tokens until SIGINT/SIGTERM (Ctrl-C) or --tokens N, then exits cleanly.\n"
    "\n"
    "  --tokens N    stop after N tokens (default: run until stopped)\n"
    "  --threads N   threads computing each op, 1..64, the scheduler included\n"
    "                (default: the number of CPUs, at most 4)\n"
    "  --layers N    transformer layers, 1..64 (default 4)\n"
    "  --dim N       model width, a multiple of 32 in 32..4096 (default 512)\n"
    "  --ctx N       KV-cache length in tokens, 1..8192 (default 256); a full cache\n"
    "                starts a new sequence\n"
    "  --rate R      at most R tokens per second, 0 for no limit (default 20)\n"
    "  --seed N      seed of the random weights (default 1)\n"
    "  --quiet       print nothing but errors\n"
    "  --help        this text\n"
    "\n"
    "While it runs:  recorder-top PID   recorder-web PID   recorder dump PID -o trace.json\n";

static int bad(const char *opt, const char *val, const char *why) {
    if (val) fprintf(stderr, "inference: %s %s: %s (try --help)\n", opt, val, why);
    else fprintf(stderr, "inference: %s: %s (try --help)\n", opt, why);
    return OPT_EXIT_USAGE;
}

/* A whole decimal number in [lo, hi]. */
static int parse_long(const char *opt, const char *s, long lo, long hi, long *out) {
    char *end = NULL;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end) return bad(opt, s, "not a number");
    if (v < lo || v > hi) {
        char why[64];
        snprintf(why, sizeof why, "must be between %ld and %ld", lo, hi);
        return bad(opt, s, why);
    }
    *out = v;
    return -1;
}

int options_parse(struct options *o, int argc, char **argv) {
    memset(o, 0, sizeof *o);
    o->model = (struct model_config){.layers = 4, .dim = 512, .ctx = 256, .vocab = 2048, .seed = 1};
    long cpus = sysconf(_SC_NPROCESSORS_ONLN);
    o->threads = cpus < 1 ? 1 : cpus > 4 ? 4 : (int)cpus;  /* more threads than CPUs: all barrier */
    o->rate = 20;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *val = NULL;
        char opt[32];
        const char *eq = strchr(a, '=');
        size_t len = eq ? (size_t)(eq - a) : strlen(a);
        if (len >= sizeof opt) len = sizeof opt - 1;
        memcpy(opt, a, len);
        opt[len] = 0;
        if (!strcmp(opt, "--help") || !strcmp(opt, "-h")) {
            fputs(usage, stdout);
            return 0;
        }
        if (!strcmp(opt, "--quiet")) {
            o->quiet = 1;
            continue;
        }
        static const char *const with_value[] = {"--tokens", "--threads", "--layers", "--dim",
                                                 "--ctx",    "--rate",    "--seed"};
        int known = 0;
        for (size_t k = 0; k < sizeof with_value / sizeof *with_value; k++) known |= !strcmp(opt, with_value[k]);
        if (!known) {
            fprintf(stderr, "inference: unknown option '%s' (try --help)\n", a);
            return OPT_EXIT_USAGE;
        }
        if (eq) val = eq + 1;
        else if (i + 1 < argc) val = argv[++i];
        else return bad(opt, NULL, "needs a value");
        long v = 0;
        int rc = -1;
        if (!strcmp(opt, "--tokens")) rc = parse_long(opt, val, 1, 1000000000L, &o->tokens);
        else if (!strcmp(opt, "--threads")) rc = parse_long(opt, val, 1, 64, &v), o->threads = (int)v;
        else if (!strcmp(opt, "--layers")) rc = parse_long(opt, val, 1, 64, &v), o->model.layers = (int)v;
        else if (!strcmp(opt, "--dim")) {
            rc = parse_long(opt, val, 32, 4096, &v);
            if (rc < 0 && v % 32) rc = bad(opt, val, "must be a multiple of 32");
            o->model.dim = (int)v;
        } else if (!strcmp(opt, "--ctx")) rc = parse_long(opt, val, 1, 8192, &v), o->model.ctx = (int)v;
        else if (!strcmp(opt, "--seed")) rc = parse_long(opt, val, 0, 2147483647L, &v), o->model.seed = (uint64_t)v;
        else if (!strcmp(opt, "--rate")) {
            char *end = NULL;
            errno = 0;
            double r = strtod(val, &end);
            if (errno || end == val || *end || !(r >= 0 && r <= 1e6)) rc = bad(opt, val, "must be a number in 0..1000000");
            o->rate = r;
        }
        if (rc >= 0) return rc;
    }
    double mib = model_bytes(&o->model) / (1024.0 * 1024.0);
    if (mib > 2048) {
        fprintf(stderr, "inference: a model of %d layers of width %d needs %.0f MiB (more than 2048): "
                        "use fewer --layers or a smaller --dim\n",
                o->model.layers, o->model.dim, mib);
        return OPT_EXIT_USAGE;
    }
    return -1;
}
