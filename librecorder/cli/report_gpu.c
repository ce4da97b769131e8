/*
 * report_gpu.c -- `recorder report`'s "Resource=GPU0" sections, one per
 * device that has lanes (docs/gpu.md), in rocm-timeline-generator's rpt
 * shape (seed 004): the device's busy share of its span, then one table of
 * its top kernels, copies, memsets and syncs and its idle gaps bucketed,
 * sorted by total time, with exact P50 and P99.  The figures come from
 * rec_model_gpus; names are the program's, printed escaped.
 */
#include <stdio.h>

#include "cli.h"
#include "report_gpu.h"

static void print_device(const struct rec_gpu_device *g, size_t top, int log_cut) {
    double span = g->last_ns - g->first_ns;
    size_t shown = 0, names = 0, gaps = 0;
    for (size_t i = 0; i < g->n_rows; i++) {
        if (g->rows[i].gap) gaps++;
        else names++;
    }
    for (size_t i = 0, nm = 0; i < g->n_rows; i++)
        if (g->rows[i].gap || nm++ < top) shown++;
    printf("\nResource=GPU%u Showing %zu/%zu records %7.2f%% busy (%u stream%s, span %.6f s)\n", g->device, shown,
           names + gaps, span > 0 ? 100.0 * g->busy_ns / span : 0.0, g->streams, g->streams == 1 ? "" : "s",
           span > 0 ? span / 1e9 : 0.0);
    uint64_t lost = rec_sat_add(rec_sat_add(g->overwritten, g->dropped), g->bad);
    if (lost)
        printf("  partial: %.1f%% of its lanes' events decoded; lost %llu entries (%llu overwritten, %llu dropped "
               "-- CUPTI's dropped records among them --, %llu bad): busy and gaps are of the work decoded\n",
               100.0 * (double)g->events / ((double)g->events + (double)lost), (unsigned long long)lost,
               (unsigned long long)g->overwritten, (unsigned long long)g->dropped, (unsigned long long)g->bad);
    if (g->history)
        printf("  not kept: %llu older entries (the rings had overwritten them before they were read)\n",
               (unsigned long long)g->history);
    if (log_cut) printf("  partial: the event log kept only the newest events\n");
    printf("  %12s %11s %8s %10s %10s %10s %10s %10s  %s\n", "Total(%)", "Time(us)", "Calls", "Avg(us)", "P50(us)",
           "P99(us)", "Min(us)", "Max(us)", "Name");
    for (size_t i = 0, nm = 0; i < g->n_rows; i++) {
        const struct rec_gpu_row *r = &g->rows[i];
        if (!r->gap && nm++ >= top) continue;
        printf("  %11.2f%% %11.1f %8llu %10.1f %10.1f %10.1f %10.1f %10.1f  ",
               span > 0 ? 100.0 * r->total_ns / span : 0.0, r->total_ns / 1e3, (unsigned long long)r->calls,
               r->calls ? r->total_ns / 1e3 / (double)r->calls : 0.0, r->p50_ns / 1e3, r->p99_ns / 1e3,
               r->min_ns / 1e3, r->max_ns / 1e3);
        cli_fputs_safe(r->name, stdout);
        if (r->sync) fputs(" [sync: not busy]", stdout);
        putchar('\n');
    }
    if (!g->n_rows) printf("  (no work recorded)\n");
}

size_t report_gpus(rec_model *m, size_t top) {
    struct rec_gpu_device *g;
    size_t n;
    if (rec_model_gpus(m, &g, &n) != 0) {
        cli_error(REC_ERR_NOMEM, "out of memory");
        return 0;
    }
    int log_cut = rec_model_items_dropped(m) > 0;
    for (size_t i = 0; i < n; i++) print_device(&g[i], top, log_cut);
    rec_gpu_devices_free(g, n);
    return n;
}
