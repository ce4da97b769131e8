/*
 * cmd_report.c -- `recorder report`: the summary rocm-timeline-generator's
 * rpt prints, per thread: how busy it was, its top scopes by total time,
 * and its idle gaps (between top-level scopes) in buckets, in one table
 * sorted by total time, as rpt shows kernels and gaps together.
 *
 * The threads' tables come from a model without an event log, the gaps
 * counted as it is fed (recorder/gaps.h): memory follows the names and
 * threads, not the events.
 *
 * Scope and thread names are the traced program's: printed escaped
 * (cli_safe), never raw.
 */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "recorder/gaps.h"
#include "recorder/diff.h"
#include "report_diff.h"
#include "report_gpu.h"
#include "source.h"

static const char usage[] =
    "usage: recorder report PID|NAME|FILE [--top N] [--thread TID] [--fold] [--wait[=SEC]]\n"
    "       recorder report A --diff B [--sort mean|p50|p99|calls|total|name] [--top N] [--fold]\n"
    "\n"
    "Summarize a program (live or dead, by its segment) or a capture file,\n"
    "like rocm-timeline-generator's rpt: for each thread, its busy share of\n"
    "its time span, then one table of its top N scopes by total time and its\n"
    "idle gaps between top-level scopes, bucketed (<10us, 10-20us, 20-50us,\n"
    "50-100us, 100us-1ms, 1-10ms, >=10ms), with Total(%) of the thread's\n"
    "span, Time, Calls, Avg, Min and Max in microseconds.  Nested scopes\n"
    "count inside their parents too, so the percentages may add up past 100.\n"
    "A thread whose entries were lost while being read is marked partial,\n"
    "with the share of its events decoded, and its percentages are of the\n"
    "time its data covers; history the rings no longer held is 'not kept'.\n"
    "A capture of several processes (capture -- CMD of a process tree) is\n"
    "reported process by process, every one of them.\n"
    "A GPU (recorder run --cuda, docs/gpu.md) gets a section per device,\n"
    "Resource=GPU0: its busy share of its span (the union of its streams'\n"
    "work), its top N kernels, copies, memsets and syncs with P50 and P99,\n"
    "and its idle gaps bucketed (<10us, 10-100us, 100us-1ms, 1-10ms, >=10ms).\n"
    "The threads are read in memory that does not grow with the events.\n"
    "\n"
    "With --diff, two runs (each a program or a capture of one process) side\n"
    "by side, as Tracy's compare: one row per scope name over all threads,\n"
    "its calls, mean, P50 and P99 in A and in B and their change (B - A, and\n"
    "in %), the N rows with the largest change first.  P50 and P99 come from\n"
    "log histograms: within 1.6% of the exact value.\n"
    "\n"
    "  -n, --top N       scopes per thread (default 10)\n"
    "  -t, --thread TID  only this thread\n"
    "  -f, --fold        one row per op across layers: fold layer numbers out\n"
    "                    of names (ffn_up-0, ffn_up-1 -> ffn_up-*)\n"
    "  -d, --diff B      compare with B (a program or a capture)\n"
    "  -s, --sort KEY    with --diff: by the change in mean (default), p50,\n"
    "                    p99, calls or total time, largest first; or by name\n" CLI_WAIT_HELP;

#define N_GAPS 7
static const struct {
    const char *label;
    double hi_ns;
} gap_bucket[N_GAPS] = {
    {"gap <10us", 10e3},      {"gap 10us-20us", 20e3}, {"gap 20us-50us", 50e3}, {"gap 50us-100us", 100e3},
    {"gap 100us-1ms", 1e6},   {"gap 1ms-10ms", 10e6},  {"gap >=10ms", INFINITY},
};

struct row {
    const char *name;
    double total, min, max;
    uint64_t calls;
    int wait;                 /* a wait scope: marked in the table */
};

static int by_total(const void *a, const void *b) {
    const struct row *x = a, *y = b;
    return x->total < y->total ? 1 : x->total > y->total ? -1 : strcmp(x->name, y->name);
}

static void print_thread(rec_model *m, const struct rec_model_thread *t, const rec_gaps *gaps, size_t top) {
    /* Shares are of the time the data covers: the thread's span minus the
     * gaps where entries were lost (docs/analysis.md, "partial data").  A
     * thread busy all the time we saw it is 100% busy, whatever we lost. */
    double span = t->end_ns - t->first_ns - t->gap_ns;   /* busy_ns counts open scopes to end_ns */
    if (span < 0) span = 0;
    size_t n_total = 0;
    struct rec_stat *st = calloc(top ? top : 1, sizeof *st);
    struct row *rows = calloc(top + N_GAPS, sizeof *rows);
    if (!st || !rows) {
        free(st);
        free(rows);
        cli_error(REC_ERR_NOMEM, "out of memory");
        return;
    }
    size_t ns = rec_model_stats(m, REC_WIN_ALL, t->tid, st, top, &n_total);
    size_t nr = 0;
    for (size_t i = 0; i < ns; i++)
        rows[nr++] = (struct row){st[i].name ? st[i].name : "?", st[i].total_ns, st[i].min_ns, st[i].max_ns,
                                  st[i].calls, st[i].wait};
    struct row g[N_GAPS];
    struct rec_gap_row gr[N_GAPS];
    rec_gaps_thread(gaps, t->slot, t->gen, gr);
    for (int b = 0; b < N_GAPS; b++)
        g[b] = (struct row){gap_bucket[b].label, gr[b].total_ns, gr[b].min_ns, gr[b].max_ns, gr[b].calls, 0};
    size_t ngaps = 0;
    for (int b = 0; b < N_GAPS; b++)
        if (g[b].calls) {
            rows[nr++] = g[b];
            ngaps++;
        }
    qsort(rows, nr, sizeof *rows, by_total);

    char name[sizeof t->name * 4], who[sizeof name + 32];
    cli_safe(name, sizeof name, t->name);
    snprintf(who, sizeof who, "%s%s(tid %d)", name, name[0] ? " " : "", t->tid);
    printf("\nThread %s Showing %zu/%zu records %7.2f%% busy", who, nr, n_total + ngaps,
           span > 0 ? 100.0 * t->busy_ns / span : 0.0);
    if (t->wait_ns > 0) printf(", %.2f%% in wait scopes", span > 0 ? 100.0 * t->wait_ns / span : 0.0);
    putchar('\n');
    uint64_t lost = rec_sat_add(rec_sat_add(t->overwritten, t->dropped), t->bad);
    if (lost)   /* events / (events + lost) in doubles: never past 100% */
        printf("  partial: %.1f%% of its events decoded; lost %llu entries (%llu overwritten, %llu dropped, "
               "%llu bad); shares are of the %.6f s its data covers\n",
               100.0 * (double)t->events / ((double)t->events + (double)lost), (unsigned long long)lost,
               (unsigned long long)t->overwritten, (unsigned long long)t->dropped, (unsigned long long)t->bad,
               span / 1e9);
    if (t->history)
        printf("  not kept: %llu older entries (the ring had overwritten them before they were read)\n",
               (unsigned long long)t->history);
    printf("  %12s %11s %8s %10s %10s %10s  %s\n", "Total(%)", "Time(us)", "Calls", "Avg(us)", "Min(us)", "Max(us)",
           "Name");
    for (size_t i = 0; i < nr; i++) {
        const struct row *r = &rows[i];
        printf("  %11.2f%% %11.1f %8llu %10.1f %10.1f %10.1f  ", span > 0 ? 100.0 * r->total / span : 0.0,
               r->total / 1e3, (unsigned long long)r->calls, r->calls ? r->total / 1e3 / (double)r->calls : 0.0,
               r->min / 1e3, r->max / 1e3);
        cli_fputs_safe(r->name, stdout);
        if (r->wait) fputs(" [wait]", stdout);
        putchar('\n');
    }
    if (!nr) printf("  (no scopes)\n");
    free(st);
    free(rows);
}

/* A GPU's stream or device lane: in its device's section, not a thread's. */
static int is_gpu_lane(const struct rec_model_thread *t) {
    return t->lane_kind == REC_LANE_GPU_STREAM || t->lane_kind == REC_LANE_GPU_DEVICE;
}

/* One process's report (the header, its totals, each thread's table):
 * the threads shown (only: just tid's). */
static size_t report_one(struct cli_source *src, const rec_gaps *gaps, int fold, int only, int tid, size_t top,
                         size_t *lanes_out) {
    rec_model_set_fold(src->model, fold);
    const struct rec_model_thread *th;
    size_t nt = rec_model_threads(src->model, &th);
    double t0 = INFINITY, t1 = -INFINITY;
    size_t shown = 0, lanes = 0;
    for (size_t i = 0; i < nt; i++) {
        if (is_gpu_lane(&th[i])) lanes++;
        if (!th[i].events) continue;
        if (th[i].first_ns < t0) t0 = th[i].first_ns;
        if (th[i].last_ns > t1) t1 = th[i].last_ns;
    }
    char d[400];
    printf("recorder report: %s: %zu threads", cli_source_desc(src, d, sizeof d), nt - lanes);
    if (lanes) printf(", %zu GPU lanes", lanes);
    printf(", %llu events\n", (unsigned long long)src->events);
    if (t1 >= t0)
        printf("ROI_START: %12.6f ms\nROI_STOP : %12.6f ms\nROI_TIME = %.6f secs\n", t0 / 1e6, t1 / 1e6,
               (t1 - t0) / 1e9);
    uint64_t hist = 0, lost = 0;
    for (size_t i = 0; i < nt; i++) {
        hist = rec_sat_add(hist, th[i].history);
        lost = rec_sat_add(lost, rec_sat_add(rec_sat_add(th[i].overwritten, th[i].dropped), th[i].bad));
    }
    if (lost)
        printf("partial: %llu entries lost while reading (overwritten, dropped or bad): the figures below are "
               "computed from what was decoded, shares over the time it covers\n",
               (unsigned long long)lost);
    if (hist)
        printf("not kept: %llu older entries (overwritten in the rings before they were read)\n",
               (unsigned long long)hist);
    char over[96];
    if (rec_model_stats_past_limit(src->model, REC_WIN_ALL))
        printf("%s (docs/analysis.md, \"Bounds\")\n",
               rec_past_limit_str(rec_model_stats_past_limit(src->model, REC_WIN_ALL), over, sizeof over));
    for (size_t i = 0; i < nt; i++) {
        if (is_gpu_lane(&th[i]) || (only && th[i].tid != tid)) continue;
        print_thread(src->model, &th[i], gaps, top);
        shown++;
    }
    if (!nt) printf("\n(no threads recorded anything)\n");
    *lanes_out = lanes;
    return shown;
}

/* The gap buckets, computed as the model is fed (recorder/gaps.h). */
static int attach_gaps(void *ctx, rec_model *m) {
    double hi[N_GAPS];
    for (int b = 0; b < N_GAPS; b++) hi[b] = gap_bucket[b].hi_ns;
    *(rec_gaps **)ctx = rec_gaps_new(m, hi, N_GAPS);
    return *(rec_gaps **)ctx ? 0 : -1;
}

/* Process k of src: its threads from a model without a log (memory that
 * does not grow with the events), then, if it has GPU lanes and every
 * thread is asked for, its devices from a second reading that keeps the
 * event log (their exact percentiles and busy unions need it: bounded by
 * the log's 8 Mi events, and said when cut). */
static int report_process(struct cli_source *src, size_t k, int fold, int only, int tid, size_t top, size_t *shown) {
    rec_gaps *gaps = NULL;
    struct cli_load how = {attach_gaps, &gaps};
    size_t lanes = 0;
    int rc = cli_source_load_stats(src, &how);
    if (rc == REC_OK && rec_gaps_finish(gaps) != 0) rc = cli_error(REC_ERR_NOMEM, "out of memory");
    if (rc == REC_OK) *shown += report_one(src, gaps, fold, only, tid, top, &lanes);
    rec_gaps_free(gaps);
    rec_model_free(src->model);
    src->model = NULL;
    src->events = src->overwritten = src->dropped = 0;
    if (rc != REC_OK || !lanes || only) return rc;
    /* A capture rewinds; a segment's reader has moved past what it read:
     * a reader of its own reads it again. */
    struct cli_source again, *g = src;
    if (src->cap && cli_source_select(src, k) != REC_OK)
        return cli_error(REC_ERR_FORMAT, "%s changed while it was read", src->path);
    if (!src->cap && (rc = cli_source_open(src->path, &again)) != REC_OK) return rc;
    if (!src->cap) g = &again;
    rc = cli_source_load_opened(g);
    if (rc == REC_OK) {
        rec_model_set_fold(g->model, fold);
        report_gpus(g->model, top);   /* its GPU lanes, by device */
    }
    rec_model_free(g->model);
    g->model = NULL;
    g->events = g->overwritten = g->dropped = 0;
    if (g == &again) cli_source_close(&again);
    return rc;
}

int cmd_report(int argc, char **argv) {
    static const struct option opts[] = {{"top", required_argument, 0, 'n'},
                                         {"thread", required_argument, 0, 't'},
                                         {"fold", no_argument, 0, 'f'},
                                         {"wait", optional_argument, 0, 'w'},
                                         {"diff", required_argument, 0, 'd'},
                                         {"sort", required_argument, 0, 's'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    unsigned long top = 10, tid = 0;
    double wait_s = 0;
    int only = 0, fold = 0, c, wait = 0, sort = -1;
    const char *diff = NULL;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":n:t:fwd:s:h", opts, NULL)) != -1) {
        switch (c) {
        case 'n':
            if (cli_parse_uint(optarg, &top) != 0 || top > 100000)
                return cli_usage("report", "--top wants a count, not '%s'", optarg);
            break;
        case 't':
            if (cli_parse_uint(optarg, &tid) != 0 || tid > 0x7fffffff)
                return cli_usage("report", "--thread wants a thread id, not '%s'", optarg);
            only = 1;
            break;
        case 'f': fold = 1; break;
        case 'd': diff = optarg; break;
        case 's':
            if ((sort = rec_diff_key_parse(optarg)) < 0)
                return cli_usage("report", "--sort wants mean, p50, p99, calls, total or name, not '%s'", optarg);
            break;
        case 'w':
            if (cli_parse_wait("report", optarg, &wait_s) != 0) return REC_ERR_USAGE;
            wait = 1;
            break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("report", c, argv);
        }
    }
    if (optind >= argc) return cli_usage("report", "which program or file?");
    if (optind + 1 < argc) return cli_usage("report", "unexpected argument '%s'", argv[optind + 1]);
    if (sort >= 0 && !diff) return cli_usage("report", "--sort goes with --diff");
    if (diff && only) return cli_usage("report", "--diff compares whole runs: not with --thread");
    struct cli_source src;
    int rc = wait ? cli_wait(argv[optind], wait_s, NULL) : REC_OK;
    if (rc != REC_OK) return rc;
    if (diff) return report_diff(argv[optind], diff, sort < 0 ? 0 : sort, fold, (size_t)top);
    /* A capture of a process tree: every process, one after another, each
     * read into a model of its own (memory of one at a time). */
    rc = cli_source_open(argv[optind], &src);
    if (rc != REC_OK) return rc;
    size_t procs = src.cap ? rec_cap_processes(src.cap) : 1, shown = 0;
    if (procs > 1) {
        char where[2048];
        cli_safe(where, sizeof where, src.path);
        printf("recorder report: %s holds %zu processes\n", where, procs);
    }
    for (size_t k = 0; k < procs && rc == REC_OK; k++) {
        if (k > 0 && cli_source_select(&src, k) != REC_OK)
            rc = cli_error(REC_ERR_FORMAT, "%s changed while it was read", src.path);
        if (rc == REC_OK && procs > 1) putchar('\n');
        if (rc == REC_OK) rc = report_process(&src, k, fold, only, (int)tid, (size_t)top, &shown);
    }
    cli_source_close(&src);
    if (rc == REC_OK && only && !shown) rc = cli_error(REC_ERR_NOTFOUND, "no thread with tid %lu", tid);
    return rc;
}

