/*
 * lanes.h -- one lane per thread generation, as the page draws them, in a
 * table of bounded size.
 *
 * A slot of the segment is reused when its thread exits and another one
 * starts, so the page's lanes are (slot, generation) pairs, given ids 1,
 * 2, 3, ... in order of discovery and never reused.  Each lane tracks the
 * stack of scopes open in it, so that every EVENTS chunk can start with
 * the stack as it stands: a page that joins late or misses frames
 * (thinning) rebuilds its open slices from that, instead of guessing.
 *
 * Bounds (a program may start a thousand threads a second): after each
 * publish the table holds at most LANES_MAX lanes -- the analysis model's
 * own listing bound, LIST_MAX_THREADS -- and at any time at most
 * LANES_CAP.  Past LANES_MAX the oldest exited lanes are *retired*: the
 * page is told to forget them, and their slot's older generations get no
 * lane again.  A thread that finds the table at LANES_CAP (more than
 * LANES_MAX threads alive at once) is *folded*: it gets no lane.  Events
 * without a lane are not sent and are counted (lanes_nolane), retired
 * lanes and folded threads too; the page shows all three.
 *
 * The reader thread owns the table; threads_pub.c publishes what changed.
 */
#ifndef WEB_LANES_H
#define WEB_LANES_H

#include <stdint.h>

#include "frame.h"
#include "recorder/reader.h"

#define LANE_STACK 128        /* deeper scopes are counted, not named */
#define LANES_MAX 4096u       /* kept after each publish (LIST_MAX_THREADS) */
#define LANES_CAP (LANES_MAX + 1024u)   /* at any time */
#define LANE_GEN_MASK 0xffffffu         /* THREAD_START carries 24 bits of generation */

struct lane {
    uint32_t id;              /* the page's lane id; 0 = this handle is free */
    uint32_t slot, gen;
    int tid;
    unsigned state;           /* REC_SLOT_LIVE or REC_SLOT_EXITED */
    char name[64];
    /* What the slot records (docs/format.md, "Lanes"): a thread, a GPU
     * stream or device, NVTX ranges; the page groups GPU lanes under
     * their device. */
    unsigned kind;            /* enum rec_lane_kind; an unknown kind is a thread */
    uint32_t device;
    uint64_t stream;
    int changed;              /* the page has not been told its metadata yet */
    /* Where it lost entries (docs/web.md, "Gaps"): from its last event
     * before a loss to its first after it, nothing is known. */
    int seen;                 /* last_ts is set */
    int64_t last_ts;          /* its last event's time (a web_ns value) */
    uint64_t lost_over, lost_drop;   /* lost since then, for the next chunk to say */
    int depth;                /* open scopes; may exceed LANE_STACK */
    uint32_t stk_name[LANE_STACK];   /* dense name ids, outermost first */
    int64_t stk_ts[LANE_STACK];      /* their begin times, ns (web_ns values) */
};

struct threads_pub;

struct lanes {
    /* Lanes are reached by handle, an index into v (0 = no lane); a
     * handle freed by retiring is reused, but only between two batches
     * (lanes_publish), so a handle held while encoding stays valid. */
    struct lane *v;
    uint32_t cap;             /* handles allocated, at most LANES_CAP + 1 */
    uint32_t top;             /* handles ever used: 1 .. top-1 */
    uint32_t *free_h, n_free; /* retired handles */
    uint32_t *order, n;       /* the n lanes in the table, oldest first */
    uint32_t *cur;            /* by slot: handle of the newest generation seen, 0 = none */
    uint32_t *gone;           /* by slot: generations below this are retired */
    uint32_t *folded_gen;     /* by slot: generation + 1 last folded (counted once) */
    uint32_t max_slots;
    uint32_t next_id;
    uint64_t retired, folded; /* lanes retired, threads folded, so far */
    uint32_t *retired_ids, n_retired;   /* retired since the last publish */
    int dirty;                /* something the page shows changed since the last publish */
    uint64_t version;         /* of the last THREADS published */
    struct threads_pub **slot;
};

int lanes_init(struct lanes *l, uint32_t max_slots, struct threads_pub **slot);
void lanes_destroy(struct lanes *l);
/* The handle of (slot, gen)'s lane, made if new; 0 if it has none (retired,
 * folded, out of memory). */
uint32_t lanes_get(struct lanes *l, uint32_t slot, uint32_t gen);
/* The handle of (slot, gen)'s lane if it has one, never made (0: none). */
uint32_t lanes_find(const struct lanes *l, uint32_t slot, uint32_t gen);
/* Take a thread's current metadata from the slot table. */
void lanes_update(struct lanes *l, const struct rec_thread_info *t);
/* A lane's thread started (THREAD_START) or was named (THREAD_NAME). */
void lanes_set_tid(struct lanes *l, uint32_t h, int tid);
void lanes_set_name(struct lanes *l, uint32_t h, const char *name);
/* Retire what is over LANES_MAX, then publish THREADS if anything changed
 * (threads_pub.c).  Only between batches: handles change here. */
void lanes_publish(struct lanes *l);
/* The retiring half of lanes_publish (lanes.c). */
void lanes_retire(struct lanes *l);

/* Scope tracking; the rules are the page's too (docs/web.md, "Pairing"). */
void lane_begin(struct lane *ln, uint32_t name, int64_t ts);
void lane_end(struct lane *ln, uint32_t name);
/* Entries were lost: the stack is unknown (it starts again empty), and
 * the lane's next chunk tells the page how many, and since when. */
void lane_lost(struct lane *ln, uint64_t overwritten, uint64_t dropped);

#endif
