/*
 * bench_run.h -- what one run of bench_scope measured, shared by the driver
 * (bench_scope.c) and the report (bench_report.c).
 */
#ifndef BENCH_RUN_H
#define BENCH_RUN_H

#include <stddef.h>
#include <stdint.h>

#include "variants.h"

#define BENCH_MAX_THREADS 2u

struct bench_run {
    size_t nv;
    const struct bench_variant *const *v;
    int *avail;               /* [nv]: ran on every thread */
    const char **why;         /* [nv]: reason when not */
    unsigned reps;
    uint64_t scopes;          /* per thread per trial */
    double *ns;               /* [nv][BENCH_MAX_THREADS][reps]: ns per scope per thread */
    double *bytes;            /* [nv]: most ring bytes per scope seen, NaN if not counted */
    double *instr;            /* [nv]: instructions per scope, NaN if not counted */
};

static inline double *bench_ns(const struct bench_run *r, size_t v, unsigned threads, unsigned rep) {
    return &r->ns[(v * BENCH_MAX_THREADS + (threads - 1)) * r->reps + rep];
}

/* Index of the variant with this key, or -1. */
int bench_find(const struct bench_run *r, const char *key);

/* Prints the table and the targets; returns the number of targets missed. */
int bench_report(const struct bench_run *r);

#endif
