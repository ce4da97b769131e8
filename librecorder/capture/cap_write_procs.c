/*
 * cap_write_procs.c -- the other processes of a tree in the same capture
 * file (docs/capture-format.md, "Several processes").
 *
 * A process followed live (rec_capture_add_live) is drained at every pass
 * of the capture, as its own process is: each pass that finds something
 * writes a PROCESS record naming it (the format's switch back to it),
 * then its records, tagged.  Its END is written when it ends
 * (rec_capture_end_process), or before the file's END.  A process added
 * once (rec_capture_add_process) is read in one pass, as it is then.
 *
 * While a process's records are written, its state (segment, slots,
 * string position, statistics) is swapped into the capture's place.
 */
#include <stdlib.h>
#include <string.h>

#include "cap_write.h"
#include "internal.h"

static void swap_in(rec_capture *c, struct capw_proc *p) {
    struct capw_proc t = {c->seg, c->slots, c->max_threads, c->str_pos, c->st, c->unrec};
    c->seg = p->seg;
    c->slots = p->slots;
    c->max_threads = p->max_threads;
    c->str_pos = p->str_pos;
    c->st = p->st;
    c->unrec = p->unrec;
    *p = t;
}

/* Runs f on process p (swapped in, its records tagged), then swaps back.
 * The file's byte count stays the capture's own. */
static int with_proc(rec_capture *c, struct capw_proc *p, int (*f)(rec_capture *, void *, char *, size_t), void *arg,
                     char *err, size_t errlen) {
    uint64_t bytes0 = c->st.bytes;
    swap_in(c, p);
    uint64_t bytes1 = c->st.bytes;
    c->type_bits = REC_CAP_REC_OF_PROCESS;
    int rc = f(c, arg, err, errlen);
    c->type_bits = 0;
    uint64_t grown = c->st.bytes - bytes1;
    c->st.bytes = bytes1;
    swap_in(c, p);
    c->st.bytes = bytes0 + grown;
    return rc;
}

static int new_proc(struct capw_proc *p, rec_seg *s) {
    memset(p, 0, sizeof *p);
    p->seg = s;
    p->max_threads = s->hcopy.max_threads;
    p->str_pos = 8u * REC_ID_OVERFLOW;
    p->slots = calloc(p->max_threads, sizeof *p->slots);
    return p->slots ? 0 : -1;
}

/* ---- added once --------------------------------------------------------- */

struct once {
    const struct rec_cap_process *rec;
};

static int write_once(rec_capture *c, void *arg, char *err, size_t errlen) {
    struct once *o = arg;
    size_t m = 0;
    int rc = capw_put_record(c, REC_CAP_REC_PROCESS, o->rec, sizeof *o->rec, err, errlen);
    if (rc == REC_OK) rc = capw_pass(c, &m, err, errlen);
    if (rc == REC_OK) rc = capw_sweep_strings(c, err, errlen);
    struct rec_seg_info info;
    rec_seg_get_info(c->seg, &info);
    if (rc == REC_OK) rc = capw_put_end(c, info.alive ? REC_CAPTURE_END_STOPPED : REC_CAPTURE_END_EXITED, err, errlen);
    return rc;
}

static int check_room(rec_capture *c, char *err, size_t errlen) {
    int rc = capw_failed(c, err, errlen);
    if (rc != REC_OK) return rc;
    if (c->processes >= REC_CAP_MAX_PROCESSES)
        return rec__fail(err, errlen, REC_ERR_NOMEM, "a capture holds at most %u processes", REC_CAP_MAX_PROCESSES);
    return REC_OK;
}

int rec_capture_add_process(rec_capture *c, rec_seg *s, struct rec_capture_stats *st, char *err, size_t errlen) {
    if (st) memset(st, 0, sizeof *st);
    int rc = check_room(c, err, errlen);
    if (rc != REC_OK) return rc;
    struct rec_cap_process pr;
    memset(&pr, 0, sizeof pr);
    pr.index = c->processes;
    capw_fill_source(s, &pr.src);
    struct capw_proc p;
    if (new_proc(&p, s) != 0) return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    struct once o = {&pr};
    rc = with_proc(c, &p, write_once, &o, err, errlen);
    if (st) *st = p.st;
    free(p.slots);
    if (rc == REC_OK) c->processes++;
    return rc;
}

/* ---- followed live ------------------------------------------------------ */

int rec_capture_add_live(rec_capture *c, rec_seg *s, uint32_t *index, char *err, size_t errlen) {
    int rc = check_room(c, err, errlen);
    if (rc != REC_OK) return rc;
    struct capw_live *l = realloc(c->live, (c->n_live + 1) * sizeof *l);
    if (!l) return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    c->live = l;
    l = &c->live[c->n_live];
    memset(l, 0, sizeof *l);
    if (new_proc(&l->p, s) != 0) return rec__fail(err, errlen, REC_ERR_NOMEM, "out of memory");
    l->rec.index = c->processes;
    capw_fill_source(s, &l->rec.src);
    /* Introduced now, so the indexes follow the order processes came in. */
    rc = capw_put_record(c, REC_CAP_REC_PROCESS, &l->rec, sizeof l->rec, err, errlen);
    if (rc != REC_OK) {
        free(l->p.slots);
        return rc;
    }
    c->n_live++;
    c->processes++;
    *index = l->rec.index;
    return REC_OK;
}

struct live_pass {
    struct capw_live *l;
    size_t moved;
};

/* One pass of a live process: its PROCESS record, then what is new; the
 * record is taken back when nothing followed it. */
static int pass_live(rec_capture *c, void *arg, char *err, size_t errlen) {
    struct live_pass *lp = arg;
    rec_seg_heartbeat(c->seg);
    int rc = capw_reserve(c, sizeof lp->l->rec, err, errlen);
    if (rc != REC_OK) return rc;
    size_t at = c->len;
    uint32_t seq = c->seq;
    uint64_t flushes = c->flushes;
    rc = capw_put_record(c, REC_CAP_REC_PROCESS, &lp->l->rec, sizeof lp->l->rec, err, errlen);
    size_t after = c->len;
    if (rc == REC_OK) rc = capw_pass(c, &lp->moved, err, errlen);
    if (rc == REC_OK && c->len == after && c->flushes == flushes) {
        c->len = at;   /* nothing of its own this pass */
        c->seq = seq;
    }
    return rc;
}

/* Its last pass, the strings no pass could reach, and its END. */
static int end_live(rec_capture *c, void *arg, char *err, size_t errlen) {
    struct live_pass *lp = arg;
    int rc = capw_put_record(c, REC_CAP_REC_PROCESS, &lp->l->rec, sizeof lp->l->rec, err, errlen);
    if (rc == REC_OK) rc = capw_pass(c, &lp->moved, err, errlen);
    if (rc == REC_OK) rc = capw_sweep_strings(c, err, errlen);
    struct rec_seg_info info;
    rec_seg_get_info(c->seg, &info);
    if (rc == REC_OK) rc = capw_put_end(c, info.alive ? REC_CAPTURE_END_STOPPED : REC_CAPTURE_END_EXITED, err, errlen);
    return rc;
}

int capw_poll_live(rec_capture *c, size_t *moved, char *err, size_t errlen) {
    int rc = REC_OK;
    for (uint32_t i = 0; i < c->n_live && rc == REC_OK; i++) {
        if (c->live[i].ended) continue;
        struct live_pass lp = {&c->live[i], 0};
        rc = with_proc(c, &c->live[i].p, pass_live, &lp, err, errlen);
        *moved += lp.moved;
    }
    return rc;
}

static struct capw_live *find_live(rec_capture *c, uint32_t index) {
    for (uint32_t i = 0; i < c->n_live; i++)
        if (c->live[i].rec.index == index) return &c->live[i];
    return NULL;
}

int rec_capture_end_process(rec_capture *c, uint32_t index, struct rec_capture_stats *st, char *err, size_t errlen) {
    if (st) memset(st, 0, sizeof *st);
    struct capw_live *l = find_live(c, index);
    if (!l) return rec__fail(err, errlen, REC_ERR_USAGE, "no process %u is followed", index);
    if (l->ended) {
        if (st) *st = l->p.st;
        return REC_OK;
    }
    int rc = capw_failed(c, err, errlen);
    if (rc != REC_OK) return rc;
    struct live_pass lp = {l, 0};
    rc = with_proc(c, &l->p, end_live, &lp, err, errlen);
    l->ended = 1;   /* whatever happened: its segment is the caller's to close now */
    if (st) *st = l->p.st;
    return rc;
}

int rec_capture_process_stats(const rec_capture *c, uint32_t index, struct rec_capture_stats *st) {
    for (uint32_t i = 0; i < c->n_live; i++)
        if (c->live[i].rec.index == index) {
            *st = c->live[i].p.st;
            return REC_OK;
        }
    return REC_ERR_NOTFOUND;
}

int capw_end_live(rec_capture *c, char *err, size_t errlen) {
    int rc = REC_OK;
    for (uint32_t i = 0; i < c->n_live && rc == REC_OK; i++)
        if (!c->live[i].ended) rc = rec_capture_end_process(c, c->live[i].rec.index, NULL, err, errlen);
    return rc;
}

void capw_free_live(rec_capture *c) {
    for (uint32_t i = 0; i < c->n_live; i++) free(c->live[i].p.slots);
    free(c->live);
    c->live = NULL;
    c->n_live = 0;
}
