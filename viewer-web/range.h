/*
 * range.h -- a window of a capture file read on demand (docs/web.md,
 * "Saved traces"): the page asks for [t0, t1] where it has no detail,
 * and the reader thread reads that part of the file through the time
 * index (fileidx.h), encodes it as EVENTS chunks with each lane's open
 * scopes, and answers with one RANGE message.
 *
 * The lanes' slots and stacks are the index point's while it reads and
 * are put back after, so the lane table (THREADS) is the file's, and the
 * summary (LOD, latency) is not touched: this batch has none.
 *
 * Bounds: an answer carries at most `budget` bytes of chunks (half the
 * page's queue bound, as the detail a page gets at join); past that it
 * stops at a chunk and says how far it covers (RANGE_CUT), and the page
 * shows the summary beyond.  It reads at most the file's valid part.
 */
#ifndef WEB_RANGE_H
#define WEB_RANGE_H

#include <stddef.h>
#include <stdint.h>

#include "batch.h"
#include "fileidx.h"
#include "frame.h"
#include "lanes.h"
#include "source.h"
#include "strtab.h"

#define RANGE_CUT 1u          /* the answer stops short of t1: at `to` */

struct range {
    struct fidx idx;
    struct batch b;
    uint32_t *cur_save;       /* the lanes' slots as the whole file left them */
    size_t budget;
};

int range_init(struct range *g, uint32_t max_slots, size_t budget);
void range_destroy(struct range *g);

/* The RANGE message for [t0, t1] (ns) of src's capture, asked as id, now
 * being the source's clock; NULL if out of memory.  evs holds evcap
 * decoded events (a buffer of the caller's). */
struct frame *range_read(struct range *g, const struct wsrc *src, struct lanes *l, struct strtab *names,
                         struct rec_event *evs, size_t evcap, uint32_t id, double t0, double t1, double now);

#endif
