/*
 * report_diff.c -- `recorder report A --diff B`: two runs side by side, as
 * Tracy's compare shows them: one row per scope name (all threads, whole
 * run, completed slices), with calls, mean, P50 and P99 in each run and
 * their change, sorted by the change the user picks (--sort).
 *
 * Each run is read into a model without an event log, one after the
 * other, and only its per-name figures are kept: memory follows the
 * names, not the events.  P50 and P99 come from the model's log-bucketed
 * histograms (librecorder/analysis/histogram.h), so they are approximate,
 * and the output says to what.  Names are the traced program's: printed
 * escaped (cli_fputs_safe).
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "report_diff.h"
#include "source.h"

struct fig {                  /* one name's figures in one run */
    char *name;
    uint64_t calls;
    double total, mean, p50, p99;
    int wait;
};

struct run {
    struct fig *f;
    size_t n;
    char desc[512];
    uint64_t events, lost;
};

struct drow {
    const struct fig *a, *b;  /* NULL: not in that run */
    double key;               /* the sort key: |change| */
};

static const char *const sort_names[] = {"mean", "p50", "p99", "calls", "total", "name"};

int report_diff_sort(const char *s) {
    for (int i = 0; i < (int)(sizeof sort_names / sizeof *sort_names); i++)
        if (!strcmp(s, sort_names[i])) return i;
    return -1;
}

static int by_name(const void *x, const void *y) {
    return strcmp(((const struct fig *)x)->name, ((const struct fig *)y)->name);
}

static void run_free(struct run *r) {
    for (size_t i = 0; i < r->n; i++) free(r->f[i].name);
    free(r->f);
    memset(r, 0, sizeof *r);
}

/* Reads target's per-name figures into r, sorted by name. */
static int read_run(const char *target, int fold, struct run *r) {
    struct cli_source src;
    memset(r, 0, sizeof *r);
    int rc = cli_source_open(target, &src);
    if (rc != REC_OK) return rc;
    size_t procs = src.cap ? rec_cap_processes(src.cap) : 1;
    if (procs > 1) {
        char where[1024];
        cli_source_close(&src);
        return cli_error(REC_ERR_USAGE, "%s holds %zu processes: --diff compares runs of one process",
                         cli_safe(where, sizeof where, target), procs);
    }
    struct cli_load how = {NULL, NULL};
    rc = cli_source_load_stats(&src, &how);
    if (rc != REC_OK) {
        cli_source_close(&src);
        return rc;
    }
    rec_model_set_fold(src.model, fold);
    cli_source_desc(&src, r->desc, sizeof r->desc);
    r->events = src.events;
    r->lost = rec_sat_add(src.overwritten, src.dropped);
    size_t total = 0;
    rec_model_stats(src.model, REC_WIN_ALL, -1, NULL, 0, &total);
    struct rec_stat *st = calloc(total ? total : 1, sizeof *st);
    r->f = calloc(total ? total : 1, sizeof *r->f);
    if (!st || !r->f) rc = cli_error(REC_ERR_NOMEM, "out of memory");
    size_t n = rc == REC_OK ? rec_model_stats(src.model, REC_WIN_ALL, -1, st, total, &total) : 0;
    for (size_t i = 0; i < n && rc == REC_OK; i++) {
        struct fig *f = &r->f[r->n];
        f->name = strdup(st[i].name ? st[i].name : "?");
        if (!f->name) {
            rc = cli_error(REC_ERR_NOMEM, "out of memory");
            break;
        }
        f->calls = st[i].calls;
        f->total = st[i].total_ns;
        f->mean = st[i].calls ? st[i].total_ns / (double)st[i].calls : 0;
        f->p50 = st[i].p50_ns;
        f->p99 = st[i].p99_ns;
        f->wait = st[i].wait;
        r->n++;
    }
    free(st);
    cli_source_close(&src);
    if (rc != REC_OK) run_free(r);
    else qsort(r->f, r->n, sizeof *r->f, by_name);
    return rc;
}

static double metric(const struct fig *f, int sort) {
    if (!f) return 0;
    switch (sort) {
    case 0: return f->mean;
    case 1: return f->p50;
    case 2: return f->p99;
    case 3: return (double)f->calls;
    default: return f->total;
    }
}

static int sort_key;
static int by_change(const void *x, const void *y) {
    const struct drow *p = x, *q = y;
    if (sort_key != 5 && p->key != q->key) return p->key < q->key ? 1 : -1;
    return strcmp(p->a ? p->a->name : p->b->name, q->a ? q->a->name : q->b->name);
}

/* "+12.5%", "new", "gone", or "-" when both are 0. */
static const char *pct(char *buf, size_t cap, const struct fig *a, const struct fig *b, double va, double vb) {
    if (!a) return "new";
    if (!b) return "gone";
    if (va == 0) return vb == 0 ? "0.0%" : "-";
    snprintf(buf, cap, "%+.1f%%", 100.0 * (vb - va) / va);
    return buf;
}

static void print_row(const struct drow *d) {
    const struct fig *a = d->a, *b = d->b;
    char ca[24], cb[24], cd[24], p1[24], p2[24], p3[24], p4[24];
    snprintf(ca, sizeof ca, a ? "%llu" : "-", a ? (unsigned long long)a->calls : 0ULL);
    snprintf(cb, sizeof cb, b ? "%llu" : "-", b ? (unsigned long long)b->calls : 0ULL);
    snprintf(cd, sizeof cd, "%+lld", (long long)(b ? b->calls : 0) - (long long)(a ? a->calls : 0));
    printf("  %9s %9s %9s %7s", ca, cb, cd, pct(p1, sizeof p1, a, b, a ? (double)a->calls : 0, b ? (double)b->calls : 0));
    double v[3][2] = {{metric(a, 0), metric(b, 0)}, {metric(a, 1), metric(b, 1)}, {metric(a, 2), metric(b, 2)}};
    char *ps[3] = {p2, p3, p4};
    for (int k = 0; k < 3; k++) {
        char xa[32], xb[32], xd[32];
        snprintf(xa, sizeof xa, a ? "%.3f" : "-", v[k][0] / 1e3);
        snprintf(xb, sizeof xb, b ? "%.3f" : "-", v[k][1] / 1e3);
        snprintf(xd, sizeof xd, a && b ? "%+.3f" : "-", (v[k][1] - v[k][0]) / 1e3);
        printf(" | %11s %11s %11s %7s", xa, xb, xd, pct(ps[k], 24, a, b, v[k][0], v[k][1]));
    }
    fputs(" | ", stdout);
    const struct fig *n = a ? a : b;
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
    struct drow *d = calloc(ra.n + rb.n + 1, sizeof *d);
    if (!d) {
        run_free(&ra);
        run_free(&rb);
        return cli_error(REC_ERR_NOMEM, "out of memory");
    }
    size_t nd = 0, i = 0, j = 0;
    while (i < ra.n || j < rb.n) {   /* both sorted by name: merge */
        int c = i == ra.n ? 1 : j == rb.n ? -1 : strcmp(ra.f[i].name, rb.f[j].name);
        d[nd].a = c <= 0 ? &ra.f[i++] : NULL;
        d[nd].b = c >= 0 ? &rb.f[j++] : NULL;
        d[nd].key = fabs(metric(d[nd].b, sort) - metric(d[nd].a, sort));
        nd++;
    }
    sort_key = sort;
    qsort(d, nd, sizeof *d, by_change);
    size_t shown = top < nd ? top : nd;
    printf("recorder report --diff: A = %s, %llu events\n", ra.desc, (unsigned long long)ra.events);
    printf("                        B = %s, %llu events\n", rb.desc, (unsigned long long)rb.events);
    if (ra.lost || rb.lost)
        printf("partial: entries were lost while reading (A %llu, B %llu): the figures are of what was decoded\n",
               (unsigned long long)ra.lost, (unsigned long long)rb.lost);
    printf("Scopes of all threads, completed slices, whole run; change = B - A.  Showing %zu/%zu, sorted by %s%s.\n",
           shown, nd, sort == 5 ? "name" : "the change in ", sort == 5 ? "" : sort_names[sort]);
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
