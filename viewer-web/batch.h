/*
 * batch.h -- EVENTS messages: the events read in one flush period, per
 * lane, in the compact encoding of docs/web.md.
 */
#ifndef WEB_BATCH_H
#define WEB_BATCH_H

#include <stdint.h>

#include "frame.h"
#include "lanes.h"
#include "latlod.h"
#include "lod.h"
#include "source.h"
#include "strtab.h"

struct batch {
    struct wbuf body;         /* chunks so far */
    struct wbuf chunk;        /* the open chunk's events */
    uint32_t n_chunks;
    uint64_t events;          /* in the whole batch */
    uint64_t nolane;          /* events not encoded: their thread has no lane (ever) */
    uint32_t lane;            /* open chunk's lane handle, 0 = none */
    uint32_t chunk_events;
    int64_t base;             /* ns; every time in the batch is relative to it */
    int64_t prev;             /* previous event's time in the open chunk */
                              /* (both, and the lanes' stack times, are web_ns values) */
    int started;
    struct lod *lod;          /* every encoded event is summarised here too (may be NULL) */
    struct latlod *lat;       /* and every paired call (with lod; may be NULL) */
    int replay;               /* a window of a file read again (range.h): lanes are found, never made or renamed */
    int64_t from;             /* replay: events before it only pair (their scopes open and close), unsent */
};

int batch_init(struct batch *b);
void batch_destroy(struct batch *b);

/* Encode decoded events of one slot; loss is what the read that returned
 * them lost (may be NULL).  After a loss a lane's stack is unknown and
 * starts again empty, and its next chunk says what was lost where.
 * Updates the lanes (THREAD_START, THREAD_NAME) and their stacks. */
void batch_add(struct batch *b, struct lanes *l, struct strtab *names, const struct wsrc *src, uint32_t slot,
               const struct rec_event *ev, size_t n, const struct rec_loss *loss);

/* Replay: an empty chunk for every lane with open scopes, so that the
 * answer says what is open on a lane with no event in the window. */
void batch_stacks(struct batch *b, struct lanes *l);

static inline size_t batch_bytes(const struct batch *b) { return b->body.len + b->chunk.len; }

/* The EVENTS message so far as a frame (NULL if empty or out of memory),
 * and a fresh batch.  now_ns is the source's clock. */
struct frame *batch_flush(struct batch *b, uint64_t seq, double now_ns);

#endif
