/*
 * gpu_rows.c -- GPU lanes in recorder-top (see gpu_rows.h).
 *
 * The model knows a lane only as a thread with a negative tid; what it
 * records (kind, device, stream, delivered-up-to) is in the segment's
 * slot, read here for each row of the snapshot (rec_seg_thread: one slot,
 * no ring); for a capture file, from its latest thread record (kind and
 * device: a capture keeps no stream and no delivered-up-to mark).
 *
 * A device's busy share is the sum of its stream lanes' busy shares (the
 * model's util: time inside top-level slices over the part of each second
 * its data covers), at most 100%: streams that overlap are not told
 * apart, so a device whose streams run at once reads as busier than it
 * was, never less busy.  The "GPU<d> busy %" counter the GPU library
 * writes is in Counters.
 */
#include "gpu_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app.h"
#include "processes.h"
#include "source.h"

int gpu_rows_any(const struct app *a) {
    for (size_t i = 0; i < a->snap.n_threads; i++)
        if (a->snap.lanes[i].kind != REC_LANE_THREAD) return 1;
    return 0;
}

const char *gpu_rows_kind(const struct lane_meta *l) {
    switch (l->kind) {
    case REC_LANE_GPU_STREAM: return "gpu";
    case REC_LANE_GPU_DEVICE: return "gpu dev";
    case REC_LANE_RANGES: return "ranges";
    default: return "cpu";
    }
}

/* The slot's lane as the segment says it; a thread when not known. */
static void lane_of(struct source *src, const struct rec_model_thread *t, struct lane_meta *out) {
    memset(out, 0, sizeof *out);
    out->kind = REC_LANE_THREAD;
    rec_seg *seg = src->seg;
    uint32_t slot = t->slot;
    double offset = 0;
    if (src->procs) {
        int k = procs_of_slot(src, t->slot);
        if (k < 0) return;
        const struct proc *p = &src->procs->p[k];
        seg = p->seg;
        slot = t->slot - p->map.slot_base;
        if (p->map.from) offset = p->map.offset_ns;
    } else if (src->file) {   /* a capture keeps kind and device, not the stream or the mark */
        const struct rec_thread_info *ti = t->slot < src->file->info->max_threads ? &src->file->lane[t->slot] : NULL;
        if (!ti || ti->gen != t->gen) return;
        out->kind = ti->lane_kind;
        out->device = ti->lane_device;
        out->stream = ti->lane_stream;
        return;
    }
    struct rec_thread_info ti;
    if (!seg || rec_seg_thread(seg, slot, &ti) != 0 || ti.gen != t->gen) return;
    out->kind = ti.lane_kind;   /* the reader reads an unknown kind as a thread */
    out->device = ti.lane_device;
    out->stream = ti.lane_stream;
    if (ti.delivered_ticks) out->delivered_ns = rec_seg_ticks_to_ns(seg, ti.delivered_ticks) + offset;
}

struct key {
    int proc;
    unsigned grp, sub;
    uint32_t dev, slot, gen;
    uint64_t stream;
    size_t i;
};

static int key_cmp(const void *pa, const void *pb) {
    const struct key *a = pa, *b = pb;
#define CMP(f) if (a->f != b->f) return a->f < b->f ? -1 : 1
    CMP(proc);
    CMP(grp);
    CMP(dev);
    CMP(sub);
    CMP(stream);
    CMP(slot);
    CMP(gen);
#undef CMP
    return 0;
}

/* Each program's CPU threads in slot order, then its range lanes, then
 * each of its devices' lanes. */
static void order_rows(struct app *a) {
    struct snap *s = &a->snap;
    size_t n = s->n_threads;
    struct key *k = malloc((n ? n : 1) * sizeof *k);
    struct rec_model_thread *th = malloc((n ? n : 1) * sizeof *th);
    struct rec_window_cover *cv = malloc((n ? n : 1) * sizeof *cv);
    struct lane_meta *lm = malloc((n ? n : 1) * sizeof *lm);
    if (k && th && cv && lm) {
        for (size_t i = 0; i < n; i++) {
            const struct lane_meta *l = &s->lanes[i];
            int gpu = l->kind == REC_LANE_GPU_STREAM || l->kind == REC_LANE_GPU_DEVICE;
            k[i] = (struct key){a->src->procs ? procs_of_slot(a->src, s->threads[i].slot) : 0, gpu ? 2u : l->kind == REC_LANE_RANGES ? 1u : 0u, l->kind == REC_LANE_GPU_STREAM,
                                gpu ? l->device : 0, s->threads[i].slot, s->threads[i].gen,
                                l->kind == REC_LANE_GPU_STREAM ? l->stream : 0, i};
        }
        qsort(k, n, sizeof *k, key_cmp);
        for (size_t j = 0; j < n; j++) {
            th[j] = s->threads[k[j].i];
            cv[j] = s->thr_cover[k[j].i];
            lm[j] = s->lanes[k[j].i];
        }
        if (n) {
            memcpy(s->threads, th, n * sizeof *th);
            memcpy(s->thr_cover, cv, n * sizeof *cv);
            memcpy(s->lanes, lm, n * sizeof *lm);
        }
    }
    free(k);
    free(th);
    free(cv);
    free(lm);
}

/* Each device row's busy share from its streams. */
static void device_busy(struct snap *s) {
    for (size_t i = 0; i < s->n_threads; i++) {
        struct lane_meta *d = &s->lanes[i];
        if (d->kind != REC_LANE_GPU_DEVICE) continue;
        for (size_t j = 0; j < s->n_threads; j++) {
            const struct lane_meta *l = &s->lanes[j];
            if (l->kind != REC_LANE_GPU_STREAM || l->device != d->device) continue;
            d->n_streams++;
            for (int k = 0; k < 60; k++) {
                d->busy[k] += s->threads[j].util[k];
                if (d->busy[k] > 1) d->busy[k] = 1;
            }
        }
    }
}

struct seen {
    uint32_t name_id;
    uint32_t row;
};

static int seen_cmp(const void *pa, const void *pb) {
    const struct seen *a = pa, *b = pb;
    if (a->name_id != b->name_id) return a->name_id < b->name_id ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

/* The names each stream lane completed in the window, and where. */
static void gpu_names(struct app *a) {
    struct snap *s = &a->snap;
    s->n_gpu_names = 0;
    struct seen *seen = NULL;
    size_t n_seen = 0, cap_seen = 0, asked = 0;
    struct rec_stat *st = NULL;
    size_t cap_st = 0;
    for (size_t i = 0; i < s->n_threads && asked < GPU_NAME_LANES; i++) {
        if (s->lanes[i].kind != REC_LANE_GPU_STREAM) continue;
        asked++;
        size_t total = 0, got = rec_model_stats(a->src->model, a->win, s->threads[i].tid, st, cap_st, &total);
        if (total > cap_st) {
            struct rec_stat *g = realloc(st, total * sizeof *st);
            if (!g) break;
            st = g;
            cap_st = total;
            got = rec_model_stats(a->src->model, a->win, s->threads[i].tid, st, cap_st, &total);
        }
        if (n_seen + got > cap_seen) {
            size_t c = (n_seen + got) * 2;
            struct seen *g = realloc(seen, c * sizeof *seen);
            if (!g) break;
            seen = g;
            cap_seen = c;
        }
        for (size_t j = 0; j < got; j++) seen[n_seen++] = (struct seen){st[j].name_id, (uint32_t)i};
    }
    free(st);
    if (n_seen) qsort(seen, n_seen, sizeof *seen, seen_cmp);
    size_t names = 0;
    for (size_t j = 0; j < n_seen; j++) names += !j || seen[j].name_id != seen[j - 1].name_id;
    if (names > s->cap_gpu_names) {
        struct gpu_name *g = realloc(s->gpu_names, names * sizeof *g);
        if (!g) names = 0;
        else {
            s->gpu_names = g;
            s->cap_gpu_names = names;
        }
    }
    for (size_t j = 0; j < n_seen && s->n_gpu_names < names;) {
        size_t e = j;
        int devices = 1, same_dev = 1;
        while (e < n_seen && seen[e].name_id == seen[j].name_id) {
            if (s->lanes[seen[e].row].device != s->lanes[seen[j].row].device) same_dev = 0;
            e++;
        }
        if (!same_dev) {   /* distinct devices, counted on the rows in order */
            devices = 0;
            for (size_t q = j; q < e; q++) {
                int dup = 0;
                for (size_t r = j; r < q; r++) dup |= s->lanes[seen[r].row].device == s->lanes[seen[q].row].device;
                devices += !dup;
            }
        }
        struct gpu_name *g = &s->gpu_names[s->n_gpu_names++];
        g->name_id = seen[j].name_id;
        const struct rec_model_thread *t = &s->threads[seen[j].row];
        if (e - j == 1) snprintf(g->where, sizeof g->where, "%s", t->name[0] ? t->name : "GPU stream");
        else if (same_dev) snprintf(g->where, sizeof g->where, "GPU%u, %zu streams", s->lanes[seen[j].row].device, e - j);
        else snprintf(g->where, sizeof g->where, "GPU, %d devices", devices);
        j = e;
    }
    free(seen);
}

void gpu_rows_snapshot(struct app *a) {
    struct snap *s = &a->snap;
    size_t n = s->n_threads;
    if (n > s->cap_lanes) {
        struct lane_meta *g = realloc(s->lanes, n * sizeof *g);
        if (!g) {
            s->n_threads = 0;   /* rows without their kind would be read as threads */
            return;
        }
        s->lanes = g;
        s->cap_lanes = n;
    }
    for (size_t i = 0; i < n; i++) lane_of(a->src, &s->threads[i], &s->lanes[i]);
    order_rows(a);
    device_busy(s);
    gpu_names(a);
}

const char *gpu_rows_where(const struct app *a, uint32_t name_id) {
    const struct snap *s = &a->snap;
    size_t lo = 0, hi = s->n_gpu_names;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (s->gpu_names[mid].name_id == name_id) return s->gpu_names[mid].where;
        if (s->gpu_names[mid].name_id < name_id) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

int gpu_rows_hidden_message(const struct app *a, const struct rec_message *m) {
    if (!m->name || strcmp(m->name, "args") != 0 || m->tid >= 0) return 0;
    const struct snap *s = &a->snap;
    for (size_t i = 0; i < s->n_threads; i++)
        if (s->threads[i].tid == m->tid) return s->lanes[i].kind == REC_LANE_GPU_STREAM;
    return 0;
}
