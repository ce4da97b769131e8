/*
 * report_diff.c -- `recorder report A --diff B`: two runs side by side, as
 * Tracy's compare shows them: one row per scope name (all threads, whole
 * run, completed slices), with calls, mean, P50 and P99 in each run and
 * their change, ordered by the change the user picks (--sort).  The join
 * and the order are rec_stats_diff's (recorder/diff.h), as in
 * recorder-top's diff view.
 *
 * Each run is read into a model without an event log: memory follows the
 * names, not the events.  P50 and P99 come from the model's log-bucketed
 * histograms (librecorder/analysis/histogram.h), so they are approximate,
 * and the output says to what.  Names are the traced program's: printed
 * escaped (cli_fputs_safe).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "recorder/diff.h"
#include "report_diff.h"
#include "source.h"

struct run {
    struct cli_source src;
    struct rec_stat *st;
    size_t n;
    char desc[512];
};

static void run_free(struct run *r) {
    free(r->st);
    cli_source_close(&r->src);
}

/* Reads target into r: its model and its per-name figures. */
static int read_run(const char *target, int fold, struct run *r) {
    memset(r, 0, sizeof *r);
    int rc = cli_source_open(target, &r->src);
    if (rc != REC_OK) return rc;
    size_t procs = r->src.cap ? rec_cap_processes(r->src.cap) : 1;
    struct cli_load how = {NULL, NULL};
    if (procs > 1) {
        char where[1024];
        rc = cli_error(REC_ERR_USAGE, "%s holds %zu processes: --diff compares runs of one process",
                       cli_safe(where, sizeof where, target), procs);
    }
    if (rc == REC_OK) rc = cli_source_load_stats(&r->src, &how);
    if (rc != REC_OK) {
        cli_source_close(&r->src);
        return rc;
    }
    rec_model_set_fold(r->src.model, fold);
    cli_source_desc(&r->src, r->desc, sizeof r->desc);
    size_t total = 0;
    rec_model_stats(r->src.model, REC_WIN_ALL, -1, NULL, 0, &total);
    r->st = calloc(total ? total : 1, sizeof *r->st);
    if (!r->st) {
        run_free(r);
        return cli_error(REC_ERR_NOMEM, "out of memory");
    }
    r->n = rec_model_stats(r->src.model, REC_WIN_ALL, -1, r->st, total, &total);
    for (size_t i = 0; i < r->n; i++)
        if (!r->st[i].name) r->st[i].name = "?";
    return REC_OK;
}

/* "+12.5%", "new", "gone", or "-" when A's is 0 and B's is not. */
static const char *pct(char *buf, size_t cap, const struct rec_diff_row *d, double va, double vb) {
    if (!d->a) return "new";
    if (!d->b) return "gone";
    if (va == 0) return vb == 0 ? "0.0%" : "-";
    snprintf(buf, cap, "%+.1f%%", 100.0 * (vb - va) / va);
    return buf;
}

static void print_row(const struct rec_diff_row *d) {
    const struct rec_stat *a = d->a, *b = d->b;
    char ca[24], cb[24], cd[24], p[24];
    snprintf(ca, sizeof ca, a ? "%llu" : "-", a ? (unsigned long long)a->calls : 0ULL);
    snprintf(cb, sizeof cb, b ? "%llu" : "-", b ? (unsigned long long)b->calls : 0ULL);
    snprintf(cd, sizeof cd, "%+lld", (long long)(b ? b->calls : 0) - (long long)(a ? a->calls : 0));
    printf("  %9s %9s %9s %7s", ca, cb, cd,
           pct(p, sizeof p, d, rec_diff_value(a, REC_DIFF_CALLS), rec_diff_value(b, REC_DIFF_CALLS)));
    static const enum rec_diff_key keys[3] = {REC_DIFF_MEAN, REC_DIFF_P50, REC_DIFF_P99};
    for (int k = 0; k < 3; k++) {
        double va = rec_diff_value(a, keys[k]), vb = rec_diff_value(b, keys[k]);
        char xa[32], xb[32], xd[32];
        snprintf(xa, sizeof xa, a ? "%.3f" : "-", va / 1e3);
        snprintf(xb, sizeof xb, b ? "%.3f" : "-", vb / 1e3);
        snprintf(xd, sizeof xd, a && b ? "%+.3f" : "-", (vb - va) / 1e3);
        printf(" | %11s %11s %11s %7s", xa, xb, xd, pct(p, sizeof p, d, va, vb));
    }
    fputs(" | ", stdout);
    const struct rec_stat *n = a ? a : b;
    cli_fputs_safe(n->name, stdout);
    if (n->wait) fputs(" [wait]", stdout);
    putchar('\n');
}

int report_diff(const char *ta, const char *tb, int sort, int fold, size_t top) {
    struct run ra, rb;
    int rc = read_run(ta, fold, &ra);
    if (rc != REC_OK) return rc;
    rc = read_run(tb, fold, &rb);
    if (rc != REC_OK) {
        run_free(&ra);
        return rc;
    }
    struct rec_diff_row *d;
    size_t nd;
    if (rec_stats_diff(ra.st, ra.n, rb.st, rb.n, (enum rec_diff_key)sort, &d, &nd) != 0) {
        run_free(&ra);
        run_free(&rb);
        return cli_error(REC_ERR_NOMEM, "out of memory");
    }
    size_t shown = top < nd ? top : nd;
    printf("recorder report --diff: A = %s, %llu events\n", ra.desc, (unsigned long long)ra.src.events);
    printf("                        B = %s, %llu events\n", rb.desc, (unsigned long long)rb.src.events);
    uint64_t la = rec_sat_add(ra.src.overwritten, ra.src.dropped), lb = rec_sat_add(rb.src.overwritten, rb.src.dropped);
    if (la || lb)
        printf("partial: entries were lost while reading (A %llu, B %llu): the figures are of what was decoded\n",
               (unsigned long long)la, (unsigned long long)lb);
    char over[96];
    uint64_t oa = rec_model_stats_past_limit(ra.src.model, REC_WIN_ALL);
    uint64_t ob = rec_model_stats_past_limit(rb.src.model, REC_WIN_ALL);
    if (oa) printf("A: %s\n", rec_past_limit_str(oa, over, sizeof over));
    if (ob) printf("B: %s\n", rec_past_limit_str(ob, over, sizeof over));
    printf("Scopes of all threads, completed slices, whole run; change = B - A.  Showing %zu/%zu, sorted by %s%s.\n",
           shown, nd, sort == REC_DIFF_NAME ? "name" : "the change in ", sort == REC_DIFF_NAME ? "" : rec_diff_key_name[sort]);
    printf("Mean is exact; P50 and P99 are approximate: the midpoint of their log-histogram bucket (32 per octave),\n"
           "within 1.6%% of the exact value.  Times in microseconds.\n");
    printf("  %9s %9s %9s %7s | %11s %11s %11s %7s | %11s %11s %11s %7s | %11s %11s %11s %7s | %s\n", "Calls(A)",
           "Calls(B)", "Change", "%", "Mean(A)", "Mean(B)", "Change", "%", "P50(A)", "P50(B)", "Change", "%", "P99(A)",
           "P99(B)", "Change", "%", "Name");
    for (size_t k = 0; k < shown; k++) print_row(&d[k]);
    if (!nd) printf("  (no scopes in either run)\n");
    free(d);
    run_free(&ra);
    run_free(&rb);
    return REC_OK;
}
