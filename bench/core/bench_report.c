/*
 * bench_report.c -- the table and the targets of issue 2.  Every ratio is
 * computed within one round (trials a few milliseconds apart) and only then
 * summarized over rounds, so slow phases of the shared machine cancel out
 * instead of landing on whichever variant happened to run then.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "bench_run.h"
#include "bench_stats.h"

static struct bench_summary ns_of(const struct bench_run *r, size_t v, unsigned t) {
    return bench_summarize(bench_ns(r, v, t, 0), r->reps);
}

/* Per round: a / b (or a - b) of variants a and b at the given thread
 * counts, summarized over rounds.  Its min is replaced by the same
 * function of the two variants' best trials: the least disturbed figures
 * (the min of per-round ratios only shows the worst disturbed round). */
static struct bench_summary per_round(const struct bench_run *r, int a, unsigned ta, int b, unsigned tb,
                                      int diff) {
    double *x = (double *)malloc(r->reps * sizeof *x);
    struct bench_summary s = {NAN, NAN, NAN, NAN, 0};
    if (!x) return s;
    for (unsigned k = 0; k < r->reps; k++) {
        double va = *bench_ns(r, (size_t)a, ta, k), vb = *bench_ns(r, (size_t)b, tb, k);
        x[k] = diff ? va - vb : va / vb;
    }
    s = bench_summarize(x, r->reps);
    free(x);
    double ba = ns_of(r, (size_t)a, ta).min, bb = ns_of(r, (size_t)b, tb).min;
    s.min = diff ? ba - bb : ba / bb;
    return s;
}

static int missed;

/* One target line: "<what>  median [min; q1-q3]  <= limit  ok|MISSED". */
static void target(const char *what, struct bench_summary s, double limit, const char *unit) {
    if (isnan(s.median)) {
        printf("  %-44s not measured\n", what);
        missed++;
        return;
    }
    int ok = s.median <= limit;
    missed += !ok;
    printf("  %-44s %6.2f%s [best %.2f; q1-q3 %.2f-%.2f]  <= %.2f%s  %s\n", what, s.median, unit, s.min, s.q1,
           s.q3, limit, unit, ok ? "ok" : "MISSED");
}

int bench_report(const struct bench_run *r) {
    int fl = bench_find(r, "floor"), rec = bench_find(r, "rec"), dyn = bench_find(r, "rec_dyn");
    int dynbuf = bench_find(r, "rec_dynbuf");
    int filt = bench_find(r, "rec_filt"), dynfilt = bench_find(r, "rec_dynfilt");
    int empty = bench_find(r, "empty");
    missed = 0;
    printf("recorder hot path: ns per scope (begin + end) per thread, %u rounds of %llu scopes per thread\n",
           r->reps, (unsigned long long)r->scopes);
    printf("ns: median over rounds.  x floor: ratio to the floor within each round, median over rounds\n");
    printf("[best]: the same ratio of the two variants' fastest trials (the least disturbed)\n\n");
    printf("%-12s %8s %14s   %8s %14s   %8s %6s\n", "", "1 thread", "", "2 threads", "", "instr/", "bytes/");
    printf("%-12s %8s %14s   %8s %14s   %8s %6s\n", "variant", "ns", "x floor", "ns", "x floor", "scope",
           "scope");
    for (size_t v = 0; v < r->nv; v++) {
        if (!r->avail[v]) continue;
        printf("%-12s", r->v[v]->key);
        for (unsigned t = 1; t <= BENCH_MAX_THREADS; t++) {
            struct bench_summary n = ns_of(r, v, t), q = per_round(r, (int)v, t, fl, t, 0);
            char ratio[32];
            snprintf(ratio, sizeof ratio, "%.2f [%.2f]", q.median, q.min);
            printf(" %8.2f %14s  ", n.median, ratio);
        }
        if (isnan(r->instr[v])) printf(" %8s", "-");
        else printf(" %8.1f", r->instr[v]);
        if (isnan(r->bytes[v])) printf(" %6s\n", "-");
        else printf(" %6.1f\n", r->bytes[v]);
    }
    for (size_t v = 0; v < r->nv; v++)
        if (!r->avail[v]) printf("%-12s not run: %s\n", r->v[v]->key, r->why[v]);

    printf("\ntargets (median of per-round values [best trials; quartiles]):\n");
    if (fl < 0 || rec < 0 || dyn < 0 || dynbuf < 0 || filt < 0 || !r->avail[fl] || !r->avail[rec] ||
        !r->avail[dyn] || !r->avail[dynbuf] || !r->avail[filt]) {
        printf("  the floor or the recorder did not run: no targets checked\n");
        return 1;
    }
    target("static scope / floor, 1 thread", per_round(r, rec, 1, fl, 1, 0), 1.10, "x");
    target("static scope / floor, 2 threads", per_round(r, rec, 2, fl, 2, 0), 1.10, "x");
    target("dynamic name / static scope, 1 thread", per_round(r, dyn, 1, rec, 1, 0), 1.30, "x");
    target("dynamic name / static scope, 2 threads", per_round(r, dyn, 2, rec, 2, 0), 1.30, "x");
    /* The rewritten buffer's ratio includes the user's copy of the name
     * (see the copy row): it can only make the recorder look worse. */
    target("rewritten buffer / static scope, 1 thread", per_round(r, dynbuf, 1, rec, 1, 0), 1.30, "x");
    target("rewritten buffer / static scope, 2 threads", per_round(r, dynbuf, 2, rec, 2, 0), 1.30, "x");
    int dynrand = bench_find(r, "rec_dynrand");
    if (dynrand >= 0 && r->avail[dynrand]) {
        struct bench_summary d1 = per_round(r, dynrand, 1, rec, 1, 0), d2 = per_round(r, dynrand, 2, rec, 2, 0);
        printf("  %-44s %6.2fx [best %.2f] 1 thread, %.2fx [best %.2f] 2 threads (worst case, see the doc)\n",
               "random-order buffer / static scope", d1.median, d1.min, d2.median, d2.min);
    }
    /* "2 threads cost no more per thread than 1 thread does, within the
     * floor's own change": the floor's own 2-thread/1-thread ratio shows
     * what the machine does to two threads (shared L3, a noisy neighbour);
     * its median, or 1 if lower, plus its interquartile range (how far that
     * ratio wanders from round to round) is the limit. */
    struct bench_summary fs = per_round(r, fl, 2, fl, 1, 0);
    double lim = (isnan(fs.median) || fs.median < 1.0 ? 1.0 : fs.median) + (isnan(fs.q3) ? 0 : fs.q3 - fs.q1);
    char what[96];
    snprintf(what, sizeof what, "static 2t/1t (floor's %.2f, q1-q3 %.2f-%.2f)", fs.median, fs.q1, fs.q3);
    target(what, per_round(r, rec, 2, rec, 1, 0), lim, "x");
    snprintf(what, sizeof what, "dynamic 2t/1t");
    target(what, per_round(r, dyn, 2, dyn, 1, 0), lim, "x");
    snprintf(what, sizeof what, "rewritten 2t/1t");
    target(what, per_round(r, dynbuf, 2, dynbuf, 1, 0), lim, "x");
    double b = fmax(r->bytes[rec], fmax(r->bytes[dyn], r->bytes[dynbuf]));
    struct bench_summary bs = {b, b, b, b, 1};
    target("ring bytes per scope (most seen)", bs, 32.0, "B");
    if (empty >= 0 && r->avail[empty]) {
        target("filtered static name, ns over the empty loop", per_round(r, filt, 1, empty, 1, 1), 1.0, "ns");
        if (dynfilt >= 0 && r->avail[dynfilt]) {
            struct bench_summary d = per_round(r, dynfilt, 1, empty, 1, 1);
            printf("  %-44s %6.2fns [best %.2f] (no target: it must hash the name)\n",
                   "filtered dynamic name, ns over the empty loop", d.median, d.min);
        }
    }
    printf("%s\n", missed ? "some targets MISSED" : "all targets met");
    return missed;
}
