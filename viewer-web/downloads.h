/*
 * downloads.h -- snapshot downloads (/trace.json), bounded in memory
 * whatever the clients do.
 *
 * A snapshot is the model's event log as Perfetto JSON, about 120 bytes
 * an event (120 MB at the default --log-events); a client that never
 * reads would otherwise pin one each.  The bounds (docs/web.md, "Bounds"):
 *   - at most --max-downloads downloads at once, waiting for a snapshot
 *     or sending one; the next get 503 with Retry-After and a message;
 *   - at most DL_SNAPSHOTS snapshots in memory: a download gets the
 *     newest one if it is younger than DL_FRESH_MS, or if DL_SNAPSHOTS are
 *     already held (then it may be older, and the response says how old);
 *     otherwise a new one is made and every download waiting shares it;
 *   - a download whose client takes nothing for --download-timeout
 *     seconds is cut, and so is one still sending after DL_BASE_S seconds
 *     plus one second per DL_RATE bytes.
 * A snapshot is always whole: a download sends all of it (its otherData
 * says what the log itself left out) or is cut short of its
 * Content-Length, which the client sees.
 *
 * Service thread only; the reader makes snapshots on request (web.h,
 * export_req / export_done).
 */
#ifndef WEB_DOWNLOADS_H
#define WEB_DOWNLOADS_H

#include <stddef.h>

#define DL_SNAPSHOTS 2u
#define DL_FRESH_MS 2000.0
#define DL_BASE_S 60.0
#define DL_RATE (1u << 20)

struct web;
struct pss;
struct snapshot;

struct downloads {
    unsigned active;          /* downloads waiting or sending */
    unsigned held;            /* snapshots some download holds (<= DL_SNAPSHOTS) */
    struct snapshot *newest;  /* held, or NULL; no reference of its own */
    double newest_ms;         /* when it arrived (CLOCK_MONOTONIC ms) */
    int requested;            /* the reader is making one */
    struct pss *waiters;      /* downloads waiting for it */
};

/* A GET /trace.json: 0 if it started (it waits, or has its snapshot and
 * wants a writable callback), -1 if too many run already (answer 503). */
int dl_begin(struct web *w, struct pss *p);
/* The download is over (sent, failed or closed): let go of its snapshot. */
void dl_end(struct web *w, struct pss *p);
/* A snapshot is ready (or failed): give it to every download waiting. */
void dl_wakeup(struct web *w);
/* Before each write of a body: 0 to go on, -1 if it took too long. */
int dl_progress(struct web *w, struct pss *p);
double dl_now_ms(void);

#endif
