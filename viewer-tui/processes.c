/*
 * processes.c -- several programs in one model (see processes.h).
 *
 * Each program is attached as one is alone (rec_seg_open, read-only, the
 * same bounded drain passes); only its drain carries a map.  A program
 * that exits is drained to the end and then left, while the others go
 * on: the view is "exited" once all of them are.
 */
#define _GNU_SOURCE
#include "processes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "source.h"

const char *procs_string(void *ctx, uint32_t id) {
    const struct source *s = ctx;
    uint32_t k = id >> DRAIN_TAG_SHIFT;
    if (!s->procs || k >= (uint32_t)s->procs->n) return NULL;
    return rec_seg_string(s->procs->p[k].seg, id & DRAIN_ID_MASK);
}

int procs_of_name(const struct source *s, uint32_t name_id) {
    uint32_t k = name_id >> DRAIN_TAG_SHIFT;
    return s->procs && k < (uint32_t)s->procs->n ? (int)k : -1;
}

int procs_of_slot(const struct source *s, uint32_t slot) {
    if (!s->procs) return -1;
    for (int k = 0; k < s->procs->n; k++) {
        const struct proc *p = &s->procs->p[k];
        if (slot >= p->map.slot_base && slot - p->map.slot_base < p->info.max_threads) return k;
    }
    return -1;
}

const char *procs_label(const struct source *s, int k) {
    return s->procs && k >= 0 && k < s->procs->n ? s->procs->p[k].label : "?";
}

void procs_close(struct source *s) {
    struct procs *ps = s->procs;
    if (!ps) return;
    for (int k = 0; k < ps->n; k++) {
        if (ps->p[k].seg) rec_seg_close(ps->p[k].seg);
        drain_free(&ps->p[k].drain);
    }
    free(ps);
    s->procs = NULL;
    s->seg = NULL;   /* it was the first program's */
}

static int fail(struct source *s, int rc) {
    if (s->model) rec_model_free(s->model);
    s->model = NULL;
    procs_close(s);
    return rc;
}

int procs_open(struct source *s, char **paths, int n, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    if (n < 1 || n > PROCS_MAX) {
        snprintf(err, errlen, "at most %d programs at once (got %d)", PROCS_MAX, n);
        return REC_ERR_USAGE;
    }
    struct procs *ps = s->procs = calloc(1, sizeof *ps);
    if (!ps) {
        snprintf(err, errlen, "out of memory");
        return REC_ERR_NOMEM;
    }
    uint64_t base = 0;
    int alive = 0;
    for (int k = 0; k < n; k++) {
        struct proc *p = &ps->p[k];
        int rc = rec_seg_open(paths[k], 0, &p->seg, err, errlen);
        if (rc != REC_OK) return fail(s, rc);
        ps->n = k + 1;
        rec_seg_get_info(p->seg, &p->info);
        for (int j = 0; j < k; j++)
            if (!strcmp(ps->p[j].info.path, p->info.path)) {
                snprintf(err, errlen, "%s is given twice (pid %d)", paths[k], p->info.pid);
                return fail(s, REC_ERR_USAGE);
            }
        /* The name is the program's: drawn through text_fit like every name. */
        snprintf(p->label, sizeof p->label, "%.24s:%d", p->info.process_name[0] ? p->info.process_name : "?",
                 p->info.pid);
        const struct rec_seg_info *first = &ps->p[0].info;
        p->map.slot_base = (uint32_t)base;
        p->map.tag = (uint32_t)k << DRAIN_TAG_SHIFT;
        p->map.from = k ? p->seg : NULL;
        p->map.offset_ns = (double)p->info.mono_ns0 - (double)first->mono_ns0;
        p->map.ticks0 = first->ticks0;
        p->map.ticks_per_ns = first->ticks_per_sec / 1e9;
        base += p->info.max_threads;
        if (base > (1u << 20)) {   /* the model's slots */
            snprintf(err, errlen, "too many thread slots in all (%llu)", (unsigned long long)base);
            return fail(s, REC_ERR_USAGE);
        }
        uint64_t ring = p->info.ring_entries;
        if (drain_init(&p->drain, p->info.max_threads, ring, ring / 4 < 4096 ? 4096 : ring / 4, 2 * ring) != 0) {
            snprintf(err, errlen, "out of memory");
            return fail(s, REC_ERR_NOMEM);
        }
        p->drain.map = &p->map;
        p->exited = !p->info.alive;
        alive += p->info.alive;
    }
    const struct rec_seg_info *in = &ps->p[0].info;
    /* statistics only: no export, so no machine (0: unknown) */
    struct rec_source_info si = {in->pid, "", in->ticks_per_sec, in->ticks0, in->real_ns0, in->mono_ns0, 0};
    memcpy(si.process_name, in->process_name, sizeof si.process_name);
    struct rec_model_opts o = {0, 0, NULL};   /* statistics only */
    s->model = rec_model_new(&si, procs_string, s, &o);
    if (!s->model) {
        snprintf(err, errlen, "out of memory");
        return fail(s, REC_ERR_NOMEM);
    }
    s->seg = ps->p[0].seg;
    s->info = *in;
    s->dead_at_attach = s->exited = alive == 0;
    return REC_OK;
}

size_t procs_drain(struct source *s) {
    struct procs *ps = s->procs;
    size_t total = 0;
    int more = 0;
    double worst = 0;
    for (int k = 0; k < ps->n; k++) {
        struct proc *p = &ps->p[k];
        if (p->truncated || p->settled) continue;
        double fill = 0;
        size_t got = drain_pass(&p->drain, p->seg, s->model, &fill);
        if (p->exited && got == 0 && !p->drain.more) p->settled = 1;
        more |= p->drain.more;
        if (fill > worst) worst = fill;
        total += got;
    }
    s->drain.more = more;
    s->fill = worst;
    if (worst > s->fill_peak) s->fill_peak = worst;
    s->decoded += total;
    s->drains++;
    return total;
}

int procs_tick(struct source *s) {
    struct procs *ps = s->procs;
    int noticed = 0, gone = 0;
    uint64_t no_ring = 0;   /* every program's threads not recorded, for the title */
    uint64_t full = 0;      /* and names recorded as <strings full> */
    for (int k = 0; k < ps->n; k++) {
        struct proc *p = &ps->p[k];
        rec_seg_get_info(p->seg, &p->info);
        no_ring = rec_count_sat(no_ring, p->info.threads_no_slot);
        full = rec_count_sat(full, p->info.strings_dropped);
        if (!p->truncated && rec_seg_status(p->seg) == REC_ERR_TRUNCATED) {
            p->truncated = 1;
            noticed = 1;
        }
        if (!p->exited && !p->info.alive) {
            double fill;
            if (!p->truncated) s->decoded += drain_pass(&p->drain, p->seg, s->model, &fill);   /* its last words */
            p->exited = 1;
            noticed = 1;
        }
        gone += p->exited || p->truncated;
    }
    s->info.alive = ps->p[0].info.alive;
    s->info.threads_no_slot = no_ring;
    s->info.strings_dropped = full;
    if (!s->exited && gone == ps->n) {
        s->exited = 1;
        s->exit_ns = s->now_ns;
    }
    return noticed;
}
