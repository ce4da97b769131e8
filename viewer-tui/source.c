/*
 * source.c -- attach to a segment and keep an analysis model fed (see
 * source.h).
 *
 * Reading never touches the program: the segment is mapped read-only
 * (rec_seg_open without REC_OPEN_STREAM), the writers never wait for us,
 * and what they overwrite before we copy it is counted as lost.  What
 * their rings had already overwritten when we attached is the model's
 * history (not kept), apart from the start: no baseline to subtract.
 */
#define _GNU_SOURCE
#include "source.h"

#include <stdlib.h>
#include <string.h>

#include "processes.h"


int source_open(struct source *s, const char *target, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    int rc = rec_seg_open(target, 0, &s->seg, err, errlen);
    if (rc != REC_OK) return rc;
    rec_seg_get_info(s->seg, &s->info);
    struct rec_model_opts o = {0, 0, NULL};   /* statistics only: no event log */
    s->model = rec_model_new_seg(s->seg, &o);
    /* Per pass: up to a quarter ring of each thread, two rings in all. */
    uint64_t ring = s->info.ring_entries;
    int drc = drain_init(&s->drain, s->info.max_threads, ring, ring / 4 < 4096 ? 4096 : ring / 4, 2 * ring);
    if (!s->model || drc != 0) {
        source_close(s);
        snprintf(err, errlen, "out of memory");
        return REC_ERR_NOMEM;
    }
    s->dead_at_attach = s->exited = !s->info.alive;
    return REC_OK;
}

int source_open_file(struct source *s, const char *path, char *err, size_t errlen) {
    memset(s, 0, sizeof *s);
    s->file = calloc(1, sizeof *s->file);
    if (!s->file) {
        snprintf(err, errlen, "out of memory");
        return REC_ERR_NOMEM;
    }
    int rc = file_src_open(s->file, path, err, errlen);
    if (rc != REC_OK) {
        free(s->file);
        s->file = NULL;
        return rc;
    }
    const struct rec_cap_info *in = s->file->info;
    s->info.pid = in->pid;
    memcpy(s->info.process_name, in->process_name, sizeof s->info.process_name);
    s->info.max_threads = in->max_threads;
    s->info.ring_entries = in->ring_entries;
    /* What the segment could not record, as the file carries it (0 in
     * files older than its UNRECORDED record): shown as for a live one. */
    s->info.strings_dropped = in->strings_dropped;
    s->info.threads_no_slot = in->threads_no_slot;
    s->model = s->file->model;
    return REC_OK;
}

void source_seek(struct source *s, double t_ns) {
    if (!s->file) return;
    file_src_seek(s->file, t_ns);
    s->model = s->file->model;
    s->drain.more = s->file->reading;
}

void source_close(struct source *s) {
    if (s->file) {
        file_src_close(s->file);   /* the model is the file's */
        free(s->file);
        s->model = NULL;
    }
    if (s->model) rec_model_free(s->model);
    s->model = NULL;
    procs_close(s);   /* several programs: their segments (and the first is s->seg) */
    if (s->seg) rec_seg_close(s->seg);
    drain_free(&s->drain);
    memset(s, 0, sizeof *s);
}

uint64_t source_thread_lost(const struct rec_model_thread *t) {
    return rec_sat_add(rec_sat_add(t->overwritten, t->dropped), t->bad);
}

size_t source_drain(struct source *s) {
    if (s->procs) return procs_drain(s);
    if (s->file) {
        int more = 0;
        size_t got = file_src_pass(s->file, &more);
        s->model = s->file->model;
        s->drain.more = more;
        s->decoded += got;
        s->drains++;
        return got;
    }
    if (s->truncated) {           /* the segment reads as empty from now on */
        s->drain.more = 0;
        return 0;
    }
    double fill;
    size_t got = drain_pass(&s->drain, s->seg, s->model, &fill);
    s->fill = fill;
    if (fill > s->fill_peak) s->fill_peak = fill;
    s->decoded += got;
    s->drains++;
    return got;
}

/* Losses and history over the model's threads. */
static void tally(struct source *s) {
    const struct rec_model_thread *t;
    size_t n = rec_model_threads(s->model, &t);
    s->overwritten = s->dropped = s->bad = s->not_kept = 0;
    for (size_t i = 0; i < n; i++) {
        s->overwritten = rec_sat_add(s->overwritten, t[i].overwritten);
        s->dropped = rec_sat_add(s->dropped, t[i].dropped);
        s->bad = rec_sat_add(s->bad, t[i].bad);
        s->not_kept = rec_sat_add(s->not_kept, t[i].history);
    }
    s->lost = rec_sat_add(rec_sat_add(s->overwritten, s->dropped), s->bad);
}

int source_tick(struct source *s, double mono_ns) {
    int noticed = 0;
    if (s->file) {   /* no clock and no rates: the cursor is the time */
        s->model = s->file->model;
        s->now_ns = rec_model_now(s->model);
        tally(s);
        s->ticks++;
        return 0;
    }
    if (s->procs) noticed = procs_tick(s);   /* several programs: each one's state */
    else rec_seg_get_info(s->seg, &s->info);
    /* A segment that shrank (its owner truncated the file) cannot be read
     * any more; librecorder's guard turned the faults into this status.
     * What was read stays, and is shown as it was. */
    if (!s->procs && !s->truncated && rec_seg_status(s->seg) == REC_ERR_TRUNCATED) {
        s->truncated = 1;
        s->fill = s->fill_peak = 0;
        noticed = 1;
    }
    if (!s->procs && !s->exited && !s->info.alive) {
        source_drain(s);   /* what it wrote last */
        s->exited = 1;
        s->exit_ns = s->now_ns;
        noticed = 1;
    }
    if (!s->exited && !s->truncated && (!s->procs || !s->procs->p[0].truncated)) {
        /* The writers' clock read now, so windows keep sliding while the
         * program's threads are quiet. */
        rec_model_set_now_live(s->model, s->seg);
    }
    /* Once nothing more comes, the model's now stays where the last
     * clock reading or event left it (a dead program's: its last event). */
    s->now_ns = rec_model_now(s->model);
    /* Losses since attach, and the history that was not kept. */
    tally(s);
    /* Rates over the samples of the last second or so. */
    if (s->nsamples == RATE_SAMPLES) {
        memmove(s->samples, s->samples + 1, (RATE_SAMPLES - 1) * sizeof s->samples[0]);
        s->nsamples--;
    }
    s->samples[s->nsamples].t = mono_ns;
    s->samples[s->nsamples].decoded = s->decoded;
    s->samples[s->nsamples].lost = s->lost;
    s->nsamples++;
    int o = 0;
    while (o + 1 < s->nsamples && mono_ns - s->samples[o + 1].t >= 1e9) o++;
    double dt = (mono_ns - s->samples[o].t) / 1e9;
    if (dt > 0) {
        s->ev_rate = (double)(s->decoded - s->samples[o].decoded) / dt;
        s->loss_rate = (double)(s->lost - s->samples[o].lost) / dt;
    }
    s->fill_shown = s->fill_peak;
    s->fill_peak = s->fill;
    s->ticks++;
    return noticed;
}

const char *source_name(struct source *s, uint32_t id) {
    const char *n = !id         ? NULL
                    : s->procs  ? procs_string(s, id)
                    : s->file   ? rec_cap_string(s->file->cap, id)
                                : rec_seg_string(s->seg, id);
    return n ? n : "?";
}
