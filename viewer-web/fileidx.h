/*
 * fileidx.h -- a capture file's time index: where in the file each
 * stretch of time is, so that a page's window is read on demand
 * (docs/web.md, "Saved traces").
 *
 * Built while the file is read once at open (reader.c, read_file): a
 * point every FIDX_STEP bytes of records, at a chunk, with the reader's
 * position there (rec_cap_tell), the earliest and latest event time of
 * the records from it to the next point, and the open scopes of every
 * slot's lane there (so a window read from that point pairs the ENDs of
 * scopes begun before it).  A window [t0, t1] is read from the first
 * point whose records reach t0 to the last whose records start by t1.
 *
 * Bounds: at most FIDX_POINTS points and FIDX_STACK_BYTES of stacks,
 * whatever the file's size: past either, every other point goes and the
 * step doubles (as the summary's grid coarsens, lod.h).  A hostile file's
 * times (backwards, bogus) only make a window read more of the file, never
 * more than the file holds.
 */
#ifndef WEB_FILEIDX_H
#define WEB_FILEIDX_H

#include <stddef.h>
#include <stdint.h>

#include "lanes.h"
#include "recorder/capture.h"

#define FIDX_STEP0 (256u << 10)      /* bytes of records per point at first, at most */
#define FIDX_STEP_MIN (4u << 10)     /* and at least (range.c: an eighth of an answer's bytes) */
#define FIDX_POINTS 4096u
#define FIDX_STACK_BYTES (32u << 20)

struct fidx_point {
    struct rec_cap_pos pos;
    int64_t tmin, tmax;       /* event times (web_ns) from here to the next point; tmin > tmax: none */
    size_t stk, nstk;         /* its lanes' stacks: words in fidx.words */
};

struct fidx {
    struct fidx_point *p;
    size_t n;
    uint64_t step, next_at;   /* a point every step bytes; the next one at or after next_at */
    int64_t *words;           /* stacks: per slot with a lane, slot, handle, id, depth, k, k x (name, ts) */
    size_t nwords, capwords;
    int failed;               /* out of memory: no index (a window is then read from the start) */
};

int fidx_init(struct fidx *x);
void fidx_destroy(struct fidx *x);
/* Before the chunk at pos: a point here if the step is reached. */
void fidx_mark(struct fidx *x, const struct rec_cap_pos *pos, const struct lanes *l);
/* Events of the current stretch spanned [a, b]. */
void fidx_note(struct fidx *x, int64_t a, int64_t b);
/* The points to read for [t0, t1]: *from, and *to (exclusive: read up to
 * point *to's position, or to the end if *to == n).  0, or -1 if there is
 * no index (read the whole file). */
int fidx_find(const struct fidx *x, int64_t t0, int64_t t1, size_t *from, size_t *to);
/* Set the lanes' slots and open scopes to point i's (every other lane's
 * stack emptied, losses forgotten). */
void fidx_restore(const struct fidx *x, size_t i, struct lanes *l);

#endif
