/*
 * threads_pub.h -- THREADS messages as the service thread finds them: a
 * ring of the last deltas (what changed in the lane table at each
 * publish) and one whole table, published together with RCU.
 *
 * A page is sent the deltas it has not had, one by one; a page that has
 * none yet, or fell behind by more than the ring holds, is sent the whole
 * table and the deltas after it.  So the THREADS bytes a page receives
 * grow with the number of changes, not with lanes x changes, and the
 * whole table is at most LANES_CAP lanes (lanes.h).
 *
 * Invariant: the delta right after the whole table is in the ring
 * (full->version + 1 >= version - n + 1), so a page that got the table
 * can always go on with deltas.  lanes_publish keeps it by rebuilding the
 * table at least every THREADS_FULL_EVERY publishes (< THREADS_DELTAS).
 */
#ifndef WEB_THREADS_PUB_H
#define WEB_THREADS_PUB_H

#include <stdint.h>
#include <urcu.h>

#include "frame.h"

#define THREADS_DELTAS 64u
#define THREADS_FULL_EVERY 16u

/* THREADS flags (docs/web.md, "Protocol"). */
#define THREADS_FULL 1u       /* the whole table: forget every lane not listed */

struct threads_pub {
    struct rcu_head rcu;
    uint64_t version;         /* of the newest delta */
    struct frame *full;       /* the whole table as of full->version */
    uint32_t n;               /* deltas held: versions version-n+1 .. version */
    struct frame *d[THREADS_DELTAS];   /* oldest first */
};

/* Service thread, in a read-side section: the next THREADS message for a
 * page that has had everything up to *have (0 = nothing), or NULL if it
 * is up to date; advances *have. */
static inline struct frame *threads_next(const struct threads_pub *p, uint64_t *have) {
    if (!p || *have == p->version) return NULL;
    uint64_t first = p->version - p->n + 1;
    if (*have + 1 >= first && *have < p->version) return p->d[++*have - first];
    *have = p->full->version;
    return p->full;
}

/* Free the published one at exit (no reader left). */
void threads_pub_free(struct threads_pub *p);

#endif
