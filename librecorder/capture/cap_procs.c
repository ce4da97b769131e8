/*
 * cap_procs.c -- a capture of several processes (docs/capture-format.md,
 * "Several processes"), read one process at a time.
 *
 * The rec_cap holds the info, strings and first-chunk flags of the
 * process in hand (the selected one, or the one a record being scanned
 * belongs to); the others wait in procs[], and cap_switch_to swaps them.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cap_format.h"
#include "cap_read.h"

static void swap_proc(rec_cap *c, struct cproc *p) {
    struct cproc t = {c->info, c->str, c->n_str, c->cap_str, c->blob, c->blob_len, c->blob_cap, c->chunk_seen};
    c->info = p->info;
    c->str = p->str;
    c->n_str = p->n_str;
    c->cap_str = p->cap_str;
    c->blob = p->blob;
    c->blob_len = p->blob_len;
    c->blob_cap = p->blob_cap;
    c->chunk_seen = p->chunk_seen;
    *p = t;
}

/* Make process k (< nproc) the one in hand. */
void cap_switch_to(rec_cap *c, size_t k) {
    if (k == c->cur) return;
    swap_proc(c, &c->procs[c->cur]);   /* the one in hand goes back */
    swap_proc(c, &c->procs[k]);
    c->cur = k;
}

/* A PROCESS record (in c->rec): a new process (the next index) or one
 * named before (the same pid and start).  Its index, -1 if invalid, -2
 * out of memory. */
int cap_add_process(rec_cap *c, uint32_t size) {
    struct rec_cap_process pr;
    if (size < sizeof pr) return -1;
    memcpy(&pr, c->rec, sizeof pr);
    if (pr.index == 0 || pr.index >= REC_CAP_MAX_PROCESSES || pr.index > c->nproc) return -1;
    if (pr.index < c->nproc) {
        const struct rec_cap_info *o = &c->procs[pr.index].info;
        return o->pid == pr.src.pid && o->proc_start == pr.src.proc_start ? (int)pr.index : -1;
    }
    struct cproc *p = realloc(c->procs, (c->nproc + 1) * sizeof *p);
    if (!p) return -2;
    c->procs = p;
    memset(&p[c->nproc], 0, sizeof *p);
    c->nproc++;
    cap_switch_to(c, pr.index);
    int bad = cap_check_source(c, c->rec + offsetof(struct rec_cap_process, src), sizeof pr.src) != 0;
    int oom = !bad && !c->chunk_seen;
    cap_switch_to(c, 0);
    if (bad || oom) {   /* not a process after all */
        free(c->procs[pr.index].chunk_seen);
        c->nproc--;
        return oom ? -2 : -1;
    }
    return (int)pr.index;
}

void cap_procs_finish(rec_cap *c) {
    /* What the file says of itself goes for every process. */
    for (size_t k = c->nproc; k-- > 0;) {
        cap_switch_to(c, k);
        cap_index_strings(c);
        if (k == 0) break;
        const struct rec_cap_info *f = &c->procs[0].info;
        c->info.file_size = f->file_size;
        c->info.valid_size = f->valid_size;
        c->info.truncated = f->truncated;
        memcpy(c->info.warning, f->warning, sizeof c->info.warning);
        if (!f->complete) c->info.complete = 0;
    }
    cap_switch_to(c, 0);
}

void cap_procs_share(rec_cap *c) {
    const struct rec_cap_info *f = &c->info;
    for (size_t k = 0; k < c->nproc; k++) {
        if (k == c->cur) continue;
        struct rec_cap_info *in = &c->procs[k].info;
        in->file_size = f->file_size;
        in->valid_size = f->valid_size;
        in->truncated = f->truncated;
        memcpy(in->warning, f->warning, sizeof in->warning);
        if (!f->complete) in->complete = 0;
    }
}

size_t rec_cap_processes(const rec_cap *c) { return c->nproc; }

int rec_cap_select(rec_cap *c, size_t i) {
    if (i >= c->nproc) return REC_ERR_USAGE;
    cap_switch_to(c, i);
    c->sel = i;
    return rec_cap_rewind(c);
}
