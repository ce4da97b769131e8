/*
 * bench_names.c -- instructions per dynamic scope with a million distinct
 * names (issue 22, item 2), counted by callgrind: run by names.sh.
 *
 * The program interns 1,000,000 - N distinct names (REC_SCOPE_DYN, each
 * in its own buffer, as tensor names are), then, with collection on only
 * around each loop:
 *   static    N scopes of one static name (the floor, for reference);
 *   new       N scopes of names never seen, the table past 10^6 - N names;
 *   seen      N scopes of 16 names the thread saw just before (its cache);
 *   seen_far  N scopes of names it saw long ago, in an order that defeats
 *             its caches (4,096 entries): the shared index finds them.
 * Each loop's instructions over N, the loop included, are the figure.
 *
 *   bench_names          (no options: names.sh runs it under callgrind)
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../bench_args.h"
#include "collect.h"

#define TOTAL 1000000u
#define N 20000u

static char (*names)[32];

#define USAGE "usage: bench_names   (no options; bench/core/names.sh BUILD runs it under callgrind)\n"

int main(int argc, char **argv) {
    if (argc > 1) {
        if (bench_is_help(argv[1])) {
            fputs(USAGE "  1,000,000 names, 20,000 scopes a case (static, new, seen, seen_far)\n"
                        "  -h, --help  this text\n", stdout);
            return 0;
        }
        return bench_bad("bench_names", USAGE, argv[1][0] == '-' ? "unknown option" : "no arguments taken", argv[1]);
    }
    names = malloc((size_t)TOTAL * sizeof *names);
    if (!names || rec_init() != 0) return 1;
    for (unsigned i = 0; i < TOTAL; i++) snprintf(names[i], sizeof names[i], "blk.%u.ffn_%u.w", i % 61, i);
    for (unsigned i = 0; i < TOTAL - N; i++) {
        REC_SCOPE_DYN(names[i]);
    }
    COLLECT();
    for (unsigned i = 0; i < N; i++) {
        REC_SCOPE("bench.static");
    }
    COLLECT();
    DUMP("names static");
    COLLECT();
    for (unsigned i = TOTAL - N; i < TOTAL; i++) {
        REC_SCOPE_DYN(names[i]);
    }
    COLLECT();
    DUMP("names new");
    COLLECT();
    for (unsigned i = 0; i < N; i++) {
        REC_SCOPE_DYN(names[TOTAL - 16 + (i & 15)]);
    }
    COLLECT();
    DUMP("names seen");
    COLLECT();
    for (unsigned i = 0; i < N; i++) {
        REC_SCOPE_DYN(names[(i * 7919u) % (TOTAL - N)]);
    }
    COLLECT();
    DUMP("names seen_far");
    free(names);
    return 0;
}
