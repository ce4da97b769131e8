/*
 * source.h -- what recorder-web reads: a live segment or a capture file
 * (docs/web.md, "Saved traces"), behind the three questions the encoders
 * ask of either: a time in ns, a name by id, a slot's thread.
 *
 * A capture is read only through librecorder/include/recorder/capture.h; its thread
 * records are kept here by slot, as the segment's slot table would say.
 *
 * Several live programs (recorder-web PID1 PID2 ...) are one source: their
 * slots follow each other (segment k's slot s is slot base[k] + s), and
 * their events are rewritten as they are read (wsrc_rebase) onto the
 * first segment's clock -- CLOCK_MONOTONIC is every process's, so their
 * times align -- with names as the page's dense ids.
 */
#ifndef WEB_SOURCE_H
#define WEB_SOURCE_H

#include <stdint.h>

#include "recorder/capture.h"
#include "recorder/reader.h"

#define WSRC_MAX 16           /* programs at once */

struct strtab;
struct strtab_pub;

struct wsrc {
    rec_seg *seg;             /* a live (or kept) segment (the first of several), or NULL */
    rec_cap *cap;             /* a capture file, or NULL */
    uint32_t max_threads;
    struct rec_thread_info *thr;   /* capture: the latest THREAD record by slot */
    uint8_t *thr_ok;
    /* several programs */
    uint32_t n;               /* segments: 1, or up to WSRC_MAX */
    rec_seg *segs[WSRC_MAX];
    uint32_t base[WSRC_MAX];  /* the first slot of each */
    double off_ns[WSRC_MAX];  /* segment k's time 0 on the first's clock */
    double ns_per_tick0;
    uint64_t ticks0;
    struct strtab_pub **names;   /* n > 1: names are dense ids, read here */
};

/* Open arg as a capture file if it names one (a path that exists and is
 * not a pid): returns 1 and fills src and info, 0 if arg is not a file
 * (then it is a segment to find), or a negative rec_status with err.  A
 * FIFO, a device or a directory is refused, never opened for reading. */
int wsrc_open_file(const char *arg, struct wsrc *src, struct rec_seg_info *info, char *err, size_t errlen);
/* src for segments already open (n >= 1; they stay the caller's). */
int wsrc_init_segs(struct wsrc *src, rec_seg **segs, uint32_t n);
/* Several: the segment a slot belongs to. */
uint32_t wsrc_which(const struct wsrc *src, uint32_t slot);
/* Several: events of segment k onto the first's clock, their names
 * interned in names_k (the segment's own map into the dense table). */
void wsrc_rebase(const struct wsrc *src, uint32_t k, struct strtab *names_k, struct rec_event *ev, size_t n);
void wsrc_close(struct wsrc *src);

double wsrc_ns(const struct wsrc *src, uint64_t ticks);
const char *wsrc_string(const struct wsrc *src, uint32_t id);
/* 0 and *t, or -1 if the slot has no thread known. */
int wsrc_thread(const struct wsrc *src, uint32_t slot, struct rec_thread_info *t);
/* A capture's THREAD record. */
void wsrc_note_thread(struct wsrc *src, const struct rec_thread_info *t);

#endif
