/*
 * source_file.c -- a capture file read up to a time cursor (see
 * source_file.h).
 *
 * Records come in file order: the capture wrote each pass's chunks one
 * slot after another, so a chunk of one thread can end past the cursor
 * while a later chunk of another still holds events before it.  A chunk
 * is therefore split at the first event at or past the target: what is
 * before goes to the model, the rest is held (with everything that
 * follows of the same slot, to keep each thread's order).
 *
 * How far to read: the capture writes a pass as the chunks of each slot
 * in increasing slot order, at most two rings of a slot per pass
 * (cap_write.c).  A chunk past the target was read when the clock was
 * past it, so two passes later every ring had been read after the target:
 * nothing before it can follow.  A pass starts where the slot goes down,
 * or where one slot has had more than two rings in a row.  Reading also
 * stops at a chunk that starts FILE_SLACK_NS past the target (a file
 * written another way), and when the hold is full: then the window shown
 * may lack a late chunk, and the title says so (incomplete).  Everything
 * read comes from rec_cap_next, which checks each record again; only
 * timestamps are looked at here.
 */
#define _GNU_SOURCE
#include "source_file.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define FILE_SLACK_NS 250e6                /* read on this far past the target */
#define FILE_PASS_ENTRIES ((uint64_t)1 << 18)   /* per pass: a few ms */

struct file_piece {
    int is_thread;
    uint32_t slot;
    uint64_t first;
    struct rec_loss loss;
    size_t off, n;                /* entries in pool */
    struct rec_thread_info th;
};

/* Nanoseconds since the calibration point, as the model computes them. */
static double entry_ns(const struct file_src *f, uint64_t ticks) {
    uint64_t t0 = f->info->ticks0;
    return ticks >= t0 ? (double)(ticks - t0) * f->ns_per_tick : -(double)(t0 - ticks) * f->ns_per_tick;
}

double file_src_grid_after(double t_ns) { return (floor(t_ns / FILE_GRID_NS) + 1) * FILE_GRID_NS; }

static rec_model *new_model(struct file_src *f) {
    struct rec_model_opts o = {0, 0, NULL};   /* statistics only: no event log */
    return rec_model_new_cap(f->cap, &o);
}

int file_src_open(struct file_src *f, const char *path, char *err, size_t errlen) {
    memset(f, 0, sizeof *f);
    /* Lazily: the first frame needs the first second of the file, not a
     * check of all of it; a chunk that fails its check when it is reached
     * ends the file there, and its warning shows in the banner then. */
    int rc = rec_cap_open_lazy(path, &f->cap, err, errlen);
    if (rc != REC_OK) return rc;
    f->info = rec_cap_get_info(f->cap);
    f->ns_per_tick = 1e9 / f->info->ticks_per_sec;   /* checked by the reader: 1e3..1e12 */
    const char *base = strrchr(path, '/');
    snprintf(f->name, sizeof f->name, "%s", base && base[1] ? base + 1 : path);
    f->model = new_model(f);
    f->blocked = calloc(f->info->max_threads, 1);
    f->lane = calloc(f->info->max_threads, sizeof *f->lane);
    if (!f->model || !f->blocked || !f->lane) {
        file_src_close(f);
        snprintf(err, errlen, "out of memory");
        return REC_ERR_NOMEM;
    }
    f->first_ns = INFINITY;
    f->last_ns = -INFINITY;
    f->target_ns = NAN;   /* the first window: chosen by the first event */
    f->cursor_ns = NAN;
    f->reading = 1;
    return REC_OK;
}

void file_src_close(struct file_src *f) {
    if (f->model) rec_model_free(f->model);
    if (f->cap) rec_cap_close(f->cap);
    free(f->pc);
    free(f->pool);
    free(f->blocked);
    free(f->lane);
    memset(f, 0, sizeof *f);
}

double file_src_progress(const struct file_src *f) {
    if (!f->reading) return 1;
    /* The entries are counted once the file has been read to the end;
     * until then, bytes. */
    if (f->info->counted) {
        uint64_t all = f->info->entries;
        return all ? (double)f->read_entries / (double)all : 1;
    }
    uint64_t size = f->info->valid_size;
    double at = (double)rec_cap_offset(f->cap);
    return size ? (at < (double)size ? at / (double)size : 1) : 1;
}

/* Back to the start: a model of nothing. */
static int rewind_file(struct file_src *f) {
    rec_model *m = new_model(f);
    if (!m) return -1;
    rec_model_set_fold(m, rec_model_fold(f->model));
    rec_model_free(f->model);
    f->model = m;
    rec_cap_rewind(f->cap);
    f->npc = f->npool = 0;
    f->read_entries = 0;
    f->last_slot = 0;
    f->run = 0;
    f->at_end = 0;
    f->rewinds++;
    return 0;
}

double file_src_end_ns(const struct file_src *f) {
    const struct rec_cap_info *in = f->info;
    double end = f->at_end && f->last_ns > -INFINITY ? f->last_ns : NAN;
    if (in->complete && in->end_ticks >= in->ticks0) {
        double e = (double)(in->end_ticks - in->ticks0) * f->ns_per_tick;
        if (isnan(end) || e > end) end = e;
    }
    return end;
}

/* The furthest the cursor goes: past every event of the file (the model
 * takes the events before the cursor), and not past its END record, known
 * from the open for a capture that was finished; INFINITY while the end
 * is not known. */
static double cursor_limit(const struct file_src *f) {
    double end = file_src_end_ns(f);
    if (isnan(end)) return INFINITY;
    return f->at_end && f->last_ns >= end ? f->last_ns + 1 : end;   /* the model's now: the last event */
}

void file_src_seek(struct file_src *f, double t_ns) {
    if (isnan(t_ns)) return;
    if (t_ns != INFINITY) t_ns = file_src_grid_after(t_ns - 1);   /* onto the grid */
    if (f->first_ns < INFINITY) {
        double start = file_src_grid_after(f->first_ns);
        if (t_ns < start) t_ns = start;
    }
    double lim = cursor_limit(f);
    if (t_ns > lim) t_ns = lim;
    if (t_ns == f->target_ns && !f->reading) return;
    /* What the model holds before the old target cannot be taken out. */
    if (!isnan(f->target_ns) && t_ns < f->target_ns && rewind_file(f) != 0) return;
    f->target_ns = t_ns;
    f->reading = 1;
    f->pieces_done = 0;
    f->incomplete = f->crossed = f->passes = 0;
    memset(f->blocked, 0, f->info->max_threads);
}

/* Keeps a piece for a later target; 0, or -1 if the hold is full. */
static int hold(struct file_src *f, int is_thread, uint32_t slot, const struct rec_thread_info *th,
                const struct rec_entry *e, size_t n, uint64_t first, const struct rec_loss *loss) {
    if (f->npool + n > FILE_HOLD_MAX) return -1;
    if (f->npc == f->cap_pc) {
        size_t c = f->cap_pc ? f->cap_pc * 2 : 64;
        struct file_piece *p = realloc(f->pc, c * sizeof *p);
        if (!p) return -1;
        f->pc = p;
        f->cap_pc = c;
    }
    if (f->npool + n > f->cap_pool) {
        size_t c = f->cap_pool ? f->cap_pool : 4096;
        while (c < f->npool + n) c *= 2;
        if (c > FILE_HOLD_MAX) c = FILE_HOLD_MAX;
        struct rec_entry *p = realloc(f->pool, c * sizeof *p);
        if (!p) return -1;
        f->pool = p;
        f->cap_pool = c;
    }
    struct file_piece *p = &f->pc[f->npc++];
    memset(p, 0, sizeof *p);
    p->is_thread = is_thread;
    p->slot = slot;
    if (th) p->th = *th;
    p->first = first;
    if (loss) p->loss = *loss;
    p->off = f->npool;
    p->n = n;
    if (n) memcpy(f->pool + f->npool, e, n * sizeof *e);
    f->npool += n;
    return 0;
}

/* The entries before the first event at or past the target. */
static size_t split_at(const struct file_src *f, const struct rec_entry *e, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (REC_EV_TYPE(e[i].w1) != REC_EV_CONT && entry_ns(f, e[i].w0) >= f->target_ns) return i;
    return n;
}

/* A chunk's events before the target into the model; the rest held.
 * Returns the events fed; *full when the hold had no room. */
static size_t feed_chunk(struct file_src *f, uint32_t slot, const struct rec_entry *e, size_t n, uint64_t first,
                         const struct rec_loss *loss, int *full) {
    size_t k = f->blocked[slot] ? 0 : split_at(f, e, n), got = 0;
    const struct rec_loss none = {0, 0, 0, 0};
    if (!f->blocked[slot] && (k || loss->overwritten || loss->dropped || loss->history || loss->bad)) {
        got = rec_model_feed_entries(f->model, slot, e, k, first, loss);
        loss = &none;   /* counted once */
    }
    if (k < n || f->blocked[slot]) {
        f->blocked[slot] = 1;
        if (hold(f, 0, slot, NULL, e + k, n - k, first + k, loss) != 0) {
            /* No room: fed now rather than lost; the window may show a
             * little past the cursor, and the title says so. */
            got += rec_model_feed_entries(f->model, slot, e + k, n - k, first + k, loss);
            *full = 1;
        }
    }
    return got;
}

/* The held pieces, in order, for the current target. */
static size_t feed_held(struct file_src *f) {
    struct file_piece *pc = f->pc;
    size_t n = f->npc, keep = 0, got = 0;
    f->npc = 0;
    size_t npool = f->npool, at = 0;
    f->npool = 0;
    /* Pieces kept are moved down in place: offsets only decrease. */
    for (size_t i = 0; i < n; i++) {
        struct file_piece p = pc[i];
        const struct rec_entry *e = f->pool + p.off;
        size_t k = 0;
        if (!f->blocked[p.slot]) {
            if (p.is_thread) {
                rec_model_thread(f->model, &p.th);
                continue;
            }
            k = split_at(f, e, p.n);
            if (k || p.loss.overwritten || p.loss.dropped || p.loss.history || p.loss.bad)
                got += rec_model_feed_entries(f->model, p.slot, e, k, p.first, &p.loss);
            memset(&p.loss, 0, sizeof p.loss);
            if (k == p.n) continue;
            f->blocked[p.slot] = 1;
        }
        size_t m = p.n - k;
        if (m) memmove(f->pool + at, e + k, m * sizeof *e);
        p.first += k;
        p.off = at;
        p.n = m;
        at += m;
        pc[keep++] = p;
    }
    (void)npool;
    f->npc = keep;
    f->npool = at;
    return got;
}

/* The target is reached: the windows end at it. */
static void reached(struct file_src *f) {
    f->reading = 0;
    double lim = cursor_limit(f);
    if (f->target_ns > lim) f->target_ns = lim;   /* never past the file's end */
    if (f->target_ns == INFINITY) {
        f->target_ns = f->last_ns > -INFINITY ? file_src_grid_after(f->last_ns) : FILE_GRID_NS;
    }
    f->cursor_ns = f->target_ns;
    rec_model_set_now(f->model, f->cursor_ns - 1);
}

size_t file_src_pass(struct file_src *f, int *more) {
    size_t got = 0;
    *more = 0;
    if (!f->reading || f->status != REC_OK) return 0;
    if (!f->pieces_done && !isnan(f->target_ns)) {
        got += feed_held(f);
        f->pieces_done = 1;
    }
    uint64_t budget = FILE_PASS_ENTRIES;
    struct rec_cap_item it;
    int full = 0, r = 0;
    while (budget > 0 && !full) {
        if (f->at_end) break;
        r = rec_cap_next(f->cap, &it);
        if (r <= 0) {
            if (r < 0) f->status = -r;   /* the file changed since it was checked */
            f->at_end = 1;
            break;
        }
        if (it.kind == REC_CAP_ITEM_THREAD) {
            if (it.thread.slot >= f->info->max_threads) continue;
            f->lane[it.thread.slot] = it.thread;   /* its kind, device (gpu_rows.c) */
            if (!f->blocked[it.thread.slot]) rec_model_thread(f->model, &it.thread);
            else if (hold(f, 1, it.thread.slot, &it.thread, NULL, 0, 0, NULL) != 0) {
                rec_model_thread(f->model, &it.thread);
                full = 1;
            }
            continue;
        }
        if (it.slot >= f->info->max_threads) continue;
        /* The capture's passes (see "How far to read"). */
        if (it.slot != f->last_slot) f->run = 0;
        if (f->crossed && (it.slot < f->last_slot || f->run + it.n > 2 * f->info->ring_entries)) {
            f->passes++;
            f->run = 0;
        }
        f->run += it.n;
        f->last_slot = it.slot;
        f->read_entries += it.n;
        budget -= it.n < budget ? it.n : budget;
        /* The chunk's first and last events: where the file has got to. */
        double lo = INFINITY, hi = -INFINITY;
        for (size_t i = 0; i < it.n; i++) {
            if (REC_EV_TYPE(it.entries[i].w1) == REC_EV_CONT) continue;
            double t = entry_ns(f, it.entries[i].w0);
            if (lo == INFINITY) lo = t;
            hi = t;
        }
        if (lo < f->first_ns) f->first_ns = lo;
        if (hi > f->last_ns) f->last_ns = hi;
        if (isnan(f->target_ns)) {
            if (lo == INFINITY) {   /* nothing timed yet: no first window */
                got += rec_model_feed_entries(f->model, it.slot, it.entries, it.n, it.first, &it.loss);
                continue;
            }
            f->target_ns = file_src_grid_after(lo);   /* a whole first window */
            if (f->first_window_ns > FILE_GRID_NS) f->target_ns += f->first_window_ns - FILE_GRID_NS;
            f->pieces_done = 1;
        }
        got += feed_chunk(f, it.slot, it.entries, it.n, it.first, &it.loss, &full);
        if (!f->crossed && f->blocked[it.slot]) f->crossed = 1;   /* this pass reached the target */
        if (f->passes >= 2 || (lo != INFINITY && lo >= f->target_ns + FILE_SLACK_NS)) break;   /* far enough */
        if (f->npool >= FILE_HOLD_MAX) full = 1;
    }
    if (full) f->incomplete = 1;
    int done = f->at_end || full || budget > 0;
    if (done) {
        if (isnan(f->target_ns)) f->target_ns = INFINITY;   /* no timed event at all */
        reached(f);
    } else {
        *more = 1;
    }
    return got;
}
