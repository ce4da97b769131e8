/*
 * spill.h -- a second thread that drains the rings while the reader is
 * busy with the model.
 *
 * The model cannot be fed while it is queried, and with a million names
 * one publication of a window's statistics takes the reader tenths of a
 * second (the whole run's: about 0.4 s here), an export longer.  A 1 MiB
 * ring holds about 130 ms of a writer at a million events a second, so
 * the rings overflowed meanwhile: recorder-web lost 9-10% of the events
 * with a page on the whole run (docs/performance/names.md).  During such
 * work this thread copies what the rings hold, undecoded, into a bounded
 * buffer; afterwards the reader takes those reads, in the order they were
 * made, as if it had made them itself (reader.c, reader_take_read).  It
 * goes on reading until the reader has caught up: at a million names
 * feeding the model takes about half the time the events took to come, so
 * a backlog of 0.4 s takes 0.2 s to feed, longer than a ring holds.  A
 * reader that has not caught up after as long again as its work took
 * takes the rings back (reader_pub.c, busy_end).
 *
 * Invariants:
 * - one thread reads the rings at a time: the reader hands them over in
 *   spill_begin and takes them back in spill_end, which returns once this
 *   thread has made a pass over every ring after the ask (a mutex orders
 *   the two);
 * - the reads of one ring are kept in the order they were made, each
 *   with the loss librecorder counted for it;
 * - what does not fit the buffer stays in its ring: if it is overwritten
 *   before the reader comes back, the next read counts it lost, as any.
 */
#ifndef WEB_SPILL_H
#define WEB_SPILL_H

#include <pthread.h>
#include <stdint.h>

#include "source.h"

/* The rules every read of a ring by recorder-web follows, the reader's
 * (reader.c, read_slot) and this thread's alike.  A slot is read at most
 * RING_READS_PER_TURN times in a row, so that one busy thread cannot
 * starve the others. */
#define RING_READS_PER_TURN 4

/* A read that found the ring empty, with nothing lost: nothing to take. */
static inline int ring_read_empty(size_t got, const struct rec_loss *l) {
    return !got && !l->overwritten && !l->dropped && !l->bad && !l->history;
}

/* Whether the ring may hold more after a read of got entries asked for
 * cap.  A writer that lapped us (entries overwritten) has more: the read
 * was cut short by what it overwrote meanwhile. */
static inline int ring_read_more(size_t got, size_t cap, const struct rec_loss *l) {
    return got == cap || l->overwritten;
}

/* One read of a ring, as rec_seg_read returned it. */
struct spill_read {
    uint32_t slot;            /* the reader's slot number (wsrc's, over every program) */
    uint32_t n;               /* entries, at spill->ents + off */
    uint64_t first;           /* sequence number of the first */
    size_t off;
    struct rec_loss loss;
};

struct spill {
    const struct wsrc *src;
    pthread_t thread;
    int started;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int state;                /* enum in spill.c; under mu */
    int stop;                 /* spill_end asks for the rings back; under mu */
    uint32_t *slots, n_slots, max_slots;
    double rest_ms;           /* between passes over the rings */
    /* One anonymous mapping, made at the first spill: a server whose work
     * stays short never pays for it, and its pages are touched only as
     * reads fill them. */
    struct rec_entry *ents;
    size_t used;
    struct spill_read *reads;
    size_t n_reads;           /* atomic: appended by the thread, read by spill_avail */
    uint64_t spills;          /* how many times the rings were handed over */
    uint64_t full;            /* of which the buffer filled up */
};

int spill_init(struct spill *sp, const struct wsrc *src, uint32_t max_slots);
/* Hand over the rings of these threads (their slots); the thread reads
 * them every rest_ms until spill_end.  -1 (nothing handed over) if out of
 * memory. */
int spill_begin(struct spill *sp, const struct rec_thread_info *threads, uint32_t n, double rest_ms);
/* The reads made so far: sp->reads[0, spill_avail) may be taken while
 * the thread goes on (it only appends). */
size_t spill_avail(struct spill *sp);
/* Take the rings back; sp->reads[0, n_reads) hold what was read, until
 * the next spill_begin. */
void spill_end(struct spill *sp);
void spill_destroy(struct spill *sp);

#endif
