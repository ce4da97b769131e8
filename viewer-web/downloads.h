/*
 * downloads.h -- snapshot downloads (/trace.json, /trace.pftrace), bounded
 * in memory whatever the clients do.
 *
 * A snapshot is the model's event log as Perfetto JSON, about 120 bytes
 * an event (120 MB at the default --log-events), or as Perfetto's
 * protobuf, about a sixth of that; a client that never reads would
 * otherwise pin one each.  The bounds (docs/web.md, "Bounds"):
 *   - at most --max-downloads downloads at once (both formats together),
 *     waiting for a snapshot or sending one; the next get 503 with
 *     Retry-After and a message;
 *   - at most DL_SNAPSHOTS snapshots of each format in memory: a download
 *     gets the newest one of its format if it is younger than DL_FRESH_MS,
 *     or if DL_SNAPSHOTS of that format are already held (then it may be
 *     older, and the response says how old); otherwise a new one is made
 *     and every download of that format waiting shares it;
 *   - a download whose client takes nothing for --download-timeout
 *     seconds is cut, and so is one still sending after DL_BASE_S seconds
 *     plus one second per DL_RATE bytes.
 * A snapshot is always whole: a download sends all of it (its statistics
 * say what the log itself left out) or is cut short of its
 * Content-Length, which the client sees.
 *
 * Service thread only; the reader makes snapshots on request (web.h,
 * export_req / export_done).
 */
#ifndef WEB_DOWNLOADS_H
#define WEB_DOWNLOADS_H

#include <stddef.h>

#include "aggregate.h"

#define DL_SNAPSHOTS 2u
#define DL_FRESH_MS 2000.0
#define DL_BASE_S 60.0
#define DL_RATE (1u << 20)

struct web;
struct pss;
struct snapshot;

/* One format's snapshots. */
struct dl_format {
    unsigned held;            /* snapshots some download holds (<= DL_SNAPSHOTS) */
    struct snapshot *newest;  /* held, or NULL; no reference of its own */
    double newest_ms;         /* when it arrived (CLOCK_MONOTONIC ms) */
    int requested;            /* the reader is making one */
    struct pss *waiters;      /* downloads waiting for it */
};

struct downloads {
    unsigned active;          /* downloads waiting or sending, all formats */
    struct dl_format f[SNAP_FORMATS];
};

/* A GET /trace.json or /trace.pftrace: 0 if it started (it waits, or has
 * its snapshot and wants a writable callback), -1 if too many run already
 * (answer 503). */
int dl_begin(struct web *w, struct pss *p, enum snap_fmt fmt);
/* The download is over (sent, failed or closed): let go of its snapshot. */
void dl_end(struct web *w, struct pss *p);
/* Snapshots are ready (or failed): give each to every download waiting
 * for its format. */
void dl_wakeup(struct web *w);
/* Before each write of a body: 0 to go on, -1 if it took too long. */
int dl_progress(struct web *w, struct pss *p);
double dl_now_ms(void);

#endif
