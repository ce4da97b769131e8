/*
 * diff_run.c -- rec_diff_run_read (recorder/diff.h): one run of a
 * comparison read whole from a capture file, as recorder-top A.rec B.rec
 * and recorder-web A.rec B.rec read it (`recorder report A --diff B`
 * reads the same way through the CLI's source, which also takes live
 * segments): every record fed to a model without an event log (memory
 * follows the names, not the events), open scopes ended at the capture's
 * end, and the whole run's per-scope figures of all threads, the rows
 * rec_stats_diff joins.  One reading, so the viewers' numbers cannot
 * drift apart.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/capture.h"
#include "recorder/diff.h"

int rec_diff_run_read(const char *path, struct rec_diff_run *r, char *err, size_t errlen) {
    memset(r, 0, sizeof *r);
    int rc = rec_cap_open(path, &r->cap, err, errlen);
    if (rc != REC_OK) return rc;
    const struct rec_cap_info *in = rec_cap_get_info(r->cap);
    if (rec_cap_processes(r->cap) > 1) {
        snprintf(err, errlen, "%s holds %zu processes: two runs are compared one process each", path,
                 rec_cap_processes(r->cap));
        return REC_ERR_USAGE;
    }
    struct rec_model_opts mo = {0, 0, NULL};
    r->m = rec_model_new_cap(r->cap, &mo);
    if (!r->m) return snprintf(err, errlen, "out of memory"), REC_ERR_NOMEM;
    struct rec_cap_item it;
    int k;
    while ((k = rec_cap_next(r->cap, &it)) == 1) {
        if (it.kind == REC_CAP_ITEM_THREAD) rec_model_thread(r->m, &it.thread);
        else r->events += rec_model_feed_entries(r->m, it.slot, it.entries, it.n, it.first, &it.loss);
    }
    if (k < 0) return snprintf(err, errlen, "%s: %s while reading", path, rec_status_str(-k)), -k;
    if (in->end_ticks > in->ticks0)
        rec_model_set_now(r->m, (double)(in->end_ticks - in->ticks0) * 1e9 / in->ticks_per_sec);
    const struct rec_model_thread *t;
    size_t nt = rec_model_threads(r->m, &t);
    for (size_t i = 0; i < nt; i++)
        r->lost = rec_sat_add(r->lost, rec_sat_add(rec_sat_add(t[i].overwritten, t[i].dropped), t[i].bad));
    size_t total = 0;
    rec_model_stats(r->m, REC_WIN_ALL, -1, NULL, 0, &total);
    r->st = calloc(total ? total : 1, sizeof *r->st);
    if (!r->st) return snprintf(err, errlen, "out of memory"), REC_ERR_NOMEM;
    r->n = rec_model_stats(r->m, REC_WIN_ALL, -1, r->st, total, &total);
    for (size_t i = 0; i < r->n; i++)
        if (!r->st[i].name) r->st[i].name = "?";
    return REC_OK;
}

void rec_diff_run_free(struct rec_diff_run *r) {
    free(r->st);
    if (r->m) rec_model_free(r->m);
    if (r->cap) rec_cap_close(r->cap);
    memset(r, 0, sizeof *r);
}
