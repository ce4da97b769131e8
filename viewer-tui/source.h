/*
 * source.h -- the program being watched: its segment, mapped read-only,
 * and the analysis model fed from it.
 *
 * Draining (copying new ring entries into the model) and ticking (reading
 * the clock, the process's state and the rates) are separate calls, so the
 * app can drain every few milliseconds while it draws ten times a second.
 *
 * The words are librecorder's (reader.h, struct rec_loss), the same in
 * every tool: "lost" is what the writers overwrote or dropped while we
 * were reading, or what could not be right (bad); "not kept" is the
 * history their rings had already overwritten when we first looked --
 * a flight recorder's normal forgetting, not a loss of ours.
 */
#ifndef TUI_SOURCE_H
#define TUI_SOURCE_H

#include <stdint.h>

#include "drain.h"
#include "recorder/analysis.h"
#include "source_file.h"

#define RATE_SAMPLES 16

struct source {
    rec_seg *seg;
    rec_model *model;
    struct rec_seg_info info;       /* refreshed at each tick */
    struct drain drain;
    int exited;                     /* the process is gone (or closed its segment) */
    int dead_at_attach;             /* it was already gone: a post-mortem view */
    int settled;                    /* exited, and everything it wrote is read */
    int truncated;                  /* the segment file shrank: nothing more can be read */
    double now_ns;                  /* the model's "now" */
    double exit_ns;                 /* when we noticed the exit, in the model's time */
    uint64_t decoded;               /* events decoded since attach */
    uint64_t lost;                  /* entries lost, every thread, since attach */
    uint64_t overwritten, dropped, bad;   /* lost, by cause */
    uint64_t not_kept;              /* history the rings no longer held when first read */
    double fill;                    /* worst unread share of a ring at the last drain */
    double fill_peak;               /* worst since the last tick */
    double fill_shown;              /* fill_peak of the last tick, for the header */
    uint64_t drains, ticks;
    /* Rates over the last second, from samples taken at each tick. */
    struct { double t; uint64_t decoded, lost; } samples[RATE_SAMPLES];
    int nsamples;
    double ev_rate, loss_rate;
    /* A capture file instead of a live segment (source_file.h): seg is
     * NULL, model is the file's, and the cursor says what it holds. */
    struct file_src *file;
    /* Several programs (processes.h): seg is the first one's. */
    struct procs *procs;
};

/* Attaches; on error returns a rec_status and writes a one-line message. */
int source_open(struct source *s, const char *target, char *err, size_t errlen);
void source_close(struct source *s);
/* The same for a capture file (recorder-top run.rec). */
int source_open_file(struct source *s, const char *path, char *err, size_t errlen);
/* A capture's cursor moved (source_file.h): the model may be a new one. */
void source_seek(struct source *s, double t_ns);

/* Copies what the writers published since the last drain into the model.
 * Returns the number of events decoded. */
size_t source_drain(struct source *s);

/* Updates the clock, the process's state and the rates; mono_ns is
 * CLOCK_MONOTONIC.  Returns 1 when this tick noticed that the program
 * exited (after a last drain) or that its segment was truncated: either
 * way nothing more will be read, and the clock stops where the data ends
 * so that the windows keep what was shown. */
int source_tick(struct source *s, double mono_ns);

/* A thread's lost entries (overwritten + dropped + bad): since attach,
 * since the model counts what the ring no longer held at our first read
 * as history (not kept), not as overwritten. */
uint64_t source_thread_lost(const struct rec_model_thread *t);

/* A name by string id, "?" if unknown. */
const char *source_name(struct source *s, uint32_t id);

#endif
