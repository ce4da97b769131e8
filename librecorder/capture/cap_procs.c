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
#include "grow.h"
#include "internal.h"

int cap_seen_first(struct slotset *s, uint32_t slot) {
    size_t lo = 0, hi = s->n;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->v[mid] < slot) lo = mid + 1;
        else hi = mid;
    }
    if (lo < s->n && s->v[lo] == slot) return 0;
    uint32_t *p = grow_to(s->v, &s->cap, s->n + 1, sizeof *p, 8, 0);
    if (!p) return 0;
    s->v = p;
    memmove(s->v + lo + 1, s->v + lo, (s->n - lo) * sizeof *s->v);
    s->v[lo] = slot;
    s->n++;
    return 1;
}

static void swap_proc(rec_cap *c, struct cproc *p) {
    struct cproc t = {c->info,     c->str,      c->n_str,      c->cap_str, c->blob,
                      c->blob_len, c->blob_cap, c->chunk_seen, c->srec};
    c->srec = p->srec;
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

int cap_add_run(rec_cap *c, uint64_t at, uint32_t seq, uint32_t k) {
    struct cap_run *p = grow_to(c->runs, &c->runs_cap, c->nruns + 1, sizeof *p, 16, 0);
    if (!p) return -2;
    c->runs = p;
    c->runs[c->nruns++] = (struct cap_run){at, seq, k};
    return 0;
}

int cap_next_run(rec_cap *c, uint64_t at) {
    while (c->run_i < c->nruns && (c->runs[c->run_i].at <= at || c->runs[c->run_i].index != c->sel)) c->run_i++;
    uint64_t to = c->run_i < c->nruns ? c->runs[c->run_i].at : c->info.valid_size;
    if (c->lazy && to > c->checked) return 0;
    c->pos = to;
    if (c->run_i < c->nruns) c->seq = c->runs[c->run_i].seq;
    return 1;
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
    /* Every process of the file is on its SOURCE's machine. */
    c->info.machine_id = c->procs[0].info.machine_id;
    c->info.machine_from = c->procs[0].info.machine_from;
    c->info.machine_hash = c->procs[0].info.machine_hash;
    cap_switch_to(c, 0);
    if (bad) {   /* not a process after all */
        c->nproc--;
        return -1;
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

size_t rec_cap_processes(const rec_cap *c) { return c->nfile; }

int rec_cap_select(rec_cap *c, size_t i) {
    if (i >= c->nfile || (c->one && i != c->sel)) return REC_ERR_USAGE;
    cap_switch_to(c, i);
    c->sel = i;
    return rec_cap_rewind(c);
}

/* A handle of process k alone: its own position and its own copy of that
 * process's info and strings, and the file shared with c (each handle
 * seeks before it reads).  What it costs is that process's strings and a
 * few KiB, so that a reader of every process of a file (convert --split,
 * dump of a tree) needs memory in proportion to the file, not to its
 * processes squared, and one descriptor. */
int rec_cap_open_process(rec_cap *c, size_t k, rec_cap **out, char *err, size_t errlen) {
    *out = NULL;
    if (c->lazy || c->one || k >= c->nfile)
        return rec__fail(err, errlen, REC_ERR_USAGE, "%s: no process %zu to open on its own", c->path, k);
    const struct cproc p = k == c->cur ? (struct cproc){c->info, c->str, c->n_str, c->cap_str, c->blob,
                                                        c->blob_len, c->blob_cap, {NULL, 0, 0}, c->srec}
                                       : c->procs[k];
    rec_cap *d = calloc(1, sizeof *d);
    struct str_ent *str = p.n_str ? malloc(p.n_str * sizeof *str) : NULL;
    char *blob = p.blob_len ? malloc(p.blob_len) : NULL;
    struct str_rec *srec = p.srec.n ? malloc(p.srec.n * sizeof *srec) : NULL;
    size_t nruns = 0;
    for (size_t i = 0; i < c->nruns; i++) nruns += c->runs[i].index == k;
    struct cap_run *runs = nruns ? malloc(nruns * sizeof *runs) : NULL;
    if (!d || (p.n_str && !str) || (p.blob_len && !blob) || (p.srec.n && !srec) || (nruns && !runs)) {
        free(runs);
        free(d);
        free(str);
        free(blob);
        free(srec);
        return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    }
    if (p.n_str) memcpy(str, p.str, p.n_str * sizeof *str);
    if (p.blob_len) memcpy(blob, p.blob, p.blob_len);
    if (p.srec.n) memcpy(srec, p.srec.v, p.srec.n * sizeof *srec);
    d->f = c->f;
    d->f_refs = c->f_refs;
    ++*d->f_refs;
    memcpy(d->path, c->path, sizeof d->path);
    d->info = p.info;
    d->first_record = c->first_record;
    d->str = str;
    d->n_str = d->cap_str = p.n_str;
    d->blob = blob;
    d->blob_len = d->blob_cap = p.blob_len;
    d->srec = (struct str_recs){srec, p.srec.n, p.srec.n};
    for (size_t i = 0, j = 0; i < c->nruns; i++)
        if (c->runs[i].index == k) runs[j++] = c->runs[i];
    d->runs = runs;
    d->nruns = d->runs_cap = nruns;
    d->procs = NULL;   /* never switched: cur is sel */
    d->nproc = 0;
    d->nfile = c->nfile;
    d->cur = d->sel = k;
    d->one = 1;
    d->checked = c->checked;
    rec_cap_rewind(d);
    *out = d;
    return REC_OK;
}
