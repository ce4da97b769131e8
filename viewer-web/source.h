/*
 * source.h -- what recorder-web reads: a live segment or a capture file
 * (docs/web.md, "Saved traces"), behind the three questions the encoders
 * ask of either: a time in ns, a name by id, a slot's thread.
 *
 * A capture is read only through include/recorder/capture.h; its thread
 * records are kept here by slot, as the segment's slot table would say.
 */
#ifndef WEB_SOURCE_H
#define WEB_SOURCE_H

#include <stdint.h>

#include "recorder/capture.h"
#include "recorder/reader.h"

struct wsrc {
    rec_seg *seg;             /* a live (or kept) segment, or NULL */
    rec_cap *cap;             /* a capture file, or NULL */
    uint32_t max_threads;
    struct rec_thread_info *thr;   /* capture: the latest THREAD record by slot */
    uint8_t *thr_ok;
};

/* Open arg as a capture file if it names one (a path that exists and is
 * not a pid): returns 1 and fills src and info, 0 if arg is not a file
 * (then it is a segment to find), or a negative rec_status with err.  A
 * FIFO, a device or a directory is refused, never opened for reading. */
int wsrc_open_file(const char *arg, struct wsrc *src, struct rec_seg_info *info, char *err, size_t errlen);
/* src for a segment already open. */
int wsrc_init_seg(struct wsrc *src, rec_seg *seg, uint32_t max_threads);
void wsrc_close(struct wsrc *src);

double wsrc_ns(const struct wsrc *src, uint64_t ticks);
const char *wsrc_string(const struct wsrc *src, uint32_t id);
/* 0 and *t, or -1 if the slot has no thread known. */
int wsrc_thread(const struct wsrc *src, uint32_t slot, struct rec_thread_info *t);
/* A capture's THREAD record. */
void wsrc_note_thread(struct wsrc *src, const struct rec_thread_info *t);

#endif
