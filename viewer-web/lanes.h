/*
 * lanes.h -- one lane per thread generation, as the page draws them.
 *
 * A slot of the segment is reused when its thread exits and another one
 * starts, so the page's lanes are (slot, generation) pairs numbered 1, 2,
 * 3, ... in order of discovery.  Each lane tracks the stack of scopes open
 * in it, so that every EVENTS chunk can start with the stack as it stands:
 * a page that joins late or misses frames (thinning) rebuilds its open
 * slices from that, instead of guessing.
 *
 * The reader thread owns the lanes; the THREADS message describing them is
 * published with RCU whenever something a page shows changes.
 */
#ifndef WEB_LANES_H
#define WEB_LANES_H

#include <stdint.h>

#include "frame.h"
#include "recorder/reader.h"

#define LANE_STACK 128        /* deeper scopes are counted, not named */

struct lane {
    uint32_t slot, gen;
    int tid;
    unsigned state;           /* REC_SLOT_LIVE or REC_SLOT_EXITED */
    char name[64];
    int depth;                /* open scopes; may exceed LANE_STACK */
    uint32_t stk_name[LANE_STACK];   /* dense name ids, outermost first */
    int64_t stk_ts[LANE_STACK];      /* their begin times, ns */
};

struct lanes {
    struct lane *v;           /* v[0] unused: lane ids start at 1 */
    uint32_t n, cap;
    uint32_t *cur;            /* by slot: lane of the newest generation seen, 0 = none */
    uint32_t max_slots;
    int dirty;                /* metadata changed since the last publish */
    uint64_t version;
    struct frame **slot;      /* where THREADS is published */
};

int lanes_init(struct lanes *l, uint32_t max_slots, struct frame **slot);
void lanes_destroy(struct lanes *l);
/* The lane of (slot, gen), created if new; 0 if out of memory. */
uint32_t lanes_get(struct lanes *l, uint32_t slot, uint32_t gen);
/* Take a thread's current metadata from the slot table. */
void lanes_update(struct lanes *l, const struct rec_thread_info *t);
/* A lane's thread started (THREAD_START) or was named (THREAD_NAME). */
void lanes_set_tid(struct lanes *l, uint32_t lane, int tid);
void lanes_set_name(struct lanes *l, uint32_t lane, const char *name);
/* Publish THREADS if something changed. */
void lanes_publish(struct lanes *l);

/* Scope tracking; the rules are the page's too (docs/web.md, "Pairing"). */
void lane_begin(struct lane *ln, uint32_t name, int64_t ts);
void lane_end(struct lane *ln, uint32_t name);
void lane_reset(struct lane *ln);

#endif
