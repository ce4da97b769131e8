/*
 * reader_int.h -- the reader thread's state, shared by its two files:
 * reader.c drains the rings (or reads a capture file) and feeds the model
 * and the pages; reader_pub.c publishes what the model adds up (the
 * statistics of the windows pages show, snapshots), handing the rings to
 * the spill thread (spill.h) while it does.  Everything here belongs to
 * the reader thread alone.
 */
#ifndef WEB_READER_INT_H
#define WEB_READER_INT_H

#include <stdint.h>
#include <time.h>

#include "aggregate.h"
#include "batch.h"
#include "lanes.h"
#include "latlod.h"
#include "lod.h"
#include "range.h"
#include "spill.h"
#include "strtab.h"
#include "web.h"
#include "recorder/pace.h"

#define READ_CAP 65536u        /* entries per read */

struct reader {
    struct web *w;
    pthread_t thread;
    int started;
    rec_model *model;
    struct strtab names;
    struct strtab *src_names; /* several programs: each one's names into the same table */
    struct lanes lanes;
    struct batch batch;
    struct aggregate agg;
    struct history hist;
    struct lod lod;
    struct latlod lat;
    struct rec_entry *ents;
    struct rec_event *evs;
    struct rec_thread_info *ti, *known;  /* this round's threads; last reported to the model */
    uint8_t *known_ok;
    /* By slot: its writer is lapping us -- its last read could not
     * return everything (lost entries, or, the first time, history) -- so
     * what it writes after the newest event we have will probably be lost
     * too (publish_stats). */
    uint8_t *lapping;
    uint32_t n_lapping;
    uint64_t pass_entries;    /* read or lost this pass: the writers' pace */
    uint64_t seq;
    double max_ts;
    int alive;
    int truncated;            /* the segment shrank: nothing more is read */
    int loading;              /* a capture file is being read: frames go to the history only */
    size_t file_flush;        /* then, the size at which a batch becomes a frame */
    struct range range;       /* a capture file: its time index, and windows read on demand */
    unsigned stats_mask;      /* the windows whose statistics are published (publish_windows) */
    int range_ok;
    /* Long work on the model (busy_begin): the rings meanwhile. */
    struct spill spill;
    uint32_t n_ti;            /* threads in ti, as this pass found them */
    struct rec_pace pace;     /* the rest between passes (recorder/pace.h) */
    double publish_ms;        /* the last publication of statistics took */
    double replay_ms;         /* taking the spill thread's reads, since reset */
};

static inline double mono_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* CLOCK_MONOTONIC as the segment's ns (time 0 = its calibration point). */
static inline double clock_ns(const struct web *w) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - (double)w->info.mono_ns0;
}

/* reader.c: one read of a ring, counted, decoded, fed and encoded;
 * 0 if it found the ring empty with nothing lost. */
int reader_take_read(struct reader *r, uint32_t slot, const struct rec_entry *ents, size_t got, uint64_t first,
                     const struct rec_loss *loss);

/* reader_pub.c */
/* The windows (bit 1 << enum rec_window) some page shows. */
unsigned reader_windows_viewed(struct web *w);
/* The statistics of the windows in mask (a file: its own end as now). */
void reader_publish_stats(struct reader *r, double now, unsigned mask);
/* The snapshots asked for (bits 1 << fmt of req). */
void reader_answer_export(struct reader *r, int req);

#endif
