/*
 * bench_cycle.c -- instructions per dynamic scope when a program names
 * its operations per layer and they come round in the same order, as a
 * model's graph nodes do every token.  Counted by callgrind, run by
 * cycle.sh, for N from 64 to 4096, two ways:
 *   kept     REC_SCOPE_DYN(t->name): each name in place in its own
 *            tensor-sized struct (tensor->name, as docs/llama.cpp.md's
 *            node scopes are);
 *   buffer   REC_SCOPE_DYN(buf): buf rewritten by snprintf with the N
 *            names in turn (blk.L.ffn_K.w).
 * The buffer's loop is also run without the scope (the baseline): its
 * snprintf is left out of the figure.  Every name is interned and seen
 * three times first, so what is counted is the steady state.
 *
 *   bench_cycle N
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "collect.h"

#include "../bench_args.h"

#define ROUNDS 4u

struct tensor {   /* the size of ggml's (336 bytes on x86-64), the name inside */
    char pad[256];
    char name[64];
    char more[16];
};

static void name(char *buf, size_t cap, unsigned i) { snprintf(buf, cap, "blk.%u.ffn_%u.w", i % 61, i); }

int main(int argc, char **argv) {
    if (argc > 1 && bench_is_help(argv[1])) {
        printf("usage: bench_cycle N (1..1000000)\n"
               "  N           names that come round in order (no default; cycle.sh runs 64 .. 4096)\n"
               "  -h, --help  this text\n");
        return 0;
    }
    unsigned n = argc > 1 ? (unsigned)strtoul(argv[1], NULL, 10) : 0;
    if (n == 0 || n > 1000000 || rec_init() != 0) {
        fprintf(stderr, "usage: bench_cycle N (1..1000000)\n");
        return 2;
    }
    struct tensor *t = calloc(n, sizeof *t);
    if (!t) return 1;
    for (unsigned i = 0; i < n; i++) name(t[i].name, sizeof t[i].name, i);
    char buf[64];
    for (unsigned r = 0; r < 3; r++)
        for (unsigned i = 0; i < n; i++) {
            REC_SCOPE_DYN(t[i].name);
            name(buf, sizeof buf, i);
            REC_SCOPE_DYN(buf);
        }
    COLLECT();
    for (unsigned r = 0; r < ROUNDS; r++)
        for (unsigned i = 0; i < n; i++) {
            REC_SCOPE_DYN(t[i].name);
        }
    COLLECT();
    DUMP("cycle kept");
    COLLECT();
    for (unsigned r = 0; r < ROUNDS; r++)
        for (unsigned i = 0; i < n; i++) {
            name(buf, sizeof buf, i);
            REC_SCOPE_DYN(buf);
        }
    COLLECT();
    DUMP("cycle buffer");
    COLLECT();
    for (unsigned r = 0; r < ROUNDS; r++)
        for (unsigned i = 0; i < n; i++) {
            name(buf, sizeof buf, i);
            __asm__ volatile("" : : "r"(buf) : "memory");   /* the name made, not recorded */
        }
    COLLECT();
    DUMP("cycle baseline");
    free(t);
    return 0;
}
