/*
 * clients.h -- the pages connected over WebSocket, and their queues.
 *
 * The reader thread offers each EVENTS frame to every client; the service
 * thread sends them.  The set of clients is an immutable array that the
 * service thread replaces (it alone adds and removes) and the reader reads
 * in an RCU read-side section; a removed client and the old array are
 * freed with call_rcu.  Each client's queue is a liburcu wait-free queue
 * (cds_wfcq) bounded in bytes: a frame that would overflow a slow
 * client's queue is not queued for it, and what it carried is counted,
 * so the page is told exactly what it missed.  The reader never waits
 * for a client, and memory stays bounded.
 */
#ifndef WEB_CLIENTS_H
#define WEB_CLIENTS_H

#include <stdint.h>
#include <urcu.h>
#include <urcu/wfcqueue.h>

#include "frame.h"
#include "wire.h"

struct lws;

/* A page's questions for one scope's latency (ws.c): the answer goes
 * once the reader published one newer than the question. */
#define LAT_ASKS 8
struct lat_ask {
    uint32_t name;
    int slot;                         /* its scope slot (latlod.h), -1: not summarised */
    int due;
    uint64_t after;                   /* the answer's version when it asked */
};

struct client {
    struct rcu_head rcu;
    struct cds_wfcq_head qhead;
    struct cds_wfcq_tail qtail;
    /* Shared with the reader thread (atomics, shared.h). */
    unsigned long queued_bytes;
    unsigned long offered_events;     /* in frames offered since it joined */
    unsigned long thinned_events, thinned_frames;
    unsigned long hidden_events;      /* in frames not offered while it was hidden, less those replayed */
    unsigned long acct_seq;           /* odd while the reader changes the four above (client_accounts) */
    int closing;
    int wants_history;                /* just joined, or shown again: replay recent frames first */
    int hidden;                       /* the page is hidden: no EVENTS (the service thread sets it) */
    /* The reader's own. */
    uint64_t last_seq;                /* of the newest EVENTS frame offered to it */
    uint64_t hid_first;               /* of the first frame not offered while hidden, 0 = none */
    /* The service thread's own. */
    struct lws *wsi;
    struct frame *pending;            /* dequeued, waiting for names or lanes */
    uint32_t strings_sent;
    uint64_t threads_ver, stats_ver, lod_ver;
    double lod_ms;                    /* when the last LOD went (lws_now_usecs, ms) */
    unsigned window;                  /* enum rec_window the page shows (the reader reads it) */
    int hello_sent, status_due, pong_due;
    uint32_t pong_nonce;
    uint64_t events_sent, frames_sent, bytes_sent;
    unsigned char rx[WIRE_CMSG_MAX];
    size_t rx_len;
    int close_code;                   /* set: close with it at the next writable */
    const char *close_why;
    int peer_closed;                  /* the page sent a close frame */
    int rx_swallow;                   /* the refused message is still arriving */
    struct wbuf tx;                   /* per-client messages being built */
    struct lat_ask lat[LAT_ASKS];     /* latency questions, the oldest replaced */
    unsigned lat_next;
    double lat_tokens, lat_ms;        /* the rate bound of questions (ws.c) */
    uint64_t lat_ignored;             /* questions past it, not answered */
    /* The window of a capture file it asks for (range.h): the service
     * thread writes t0, t1 and id, then bumps range_ver (release); the
     * reader answers the newest, and range_done is its own. */
    uint64_t range_ver, range_t0, range_t1;   /* t0, t1: f64 bits */
    uint32_t range_id;
    uint64_t range_done;
};

/* What the reader sees: the clients, as of some moment. */
struct client_set {
    struct rcu_head rcu;
    size_t n;
    struct client *c[];
};

struct clients {
    struct client_set *set;           /* published by the service thread */
    unsigned long count;              /* atomic */
    size_t limit;                     /* queue bound per client, bytes */
};

/* Recent EVENTS frames, replayed to a page when it joins so that it opens
 * on the last few seconds rather than on nothing.  Reader thread only. */
struct history {
    struct frame **v;
    size_t cap, first, n;
    size_t bytes, limit;
};

int history_init(struct history *h, size_t limit);
void history_push(struct history *h, struct frame *f);
void history_destroy(struct history *h);

int clients_init(struct clients *cs, size_t limit);
void clients_destroy(struct clients *cs);   /* after every client is gone */
/* Service thread. */
struct client *client_add(struct clients *cs, struct lws *wsi);
void client_remove(struct clients *cs, struct client *c);
/* The next queued frame (the caller owns a reference), or NULL. */
struct frame *client_dequeue(struct client *c);
int client_has_queued(struct client *c);
/* Reader thread: offer a frame to every client (a client that just joined,
 * or was shown again, first gets what of the history fits its queue and
 * is newer than what it had); returns how many were offered it (took it
 * or were thinned): 0 when no page has anything new to send.  A hidden
 * page is offered nothing: the frame's events count in its hidden_events. */
unsigned clients_offer(struct clients *cs, struct frame *f, const struct history *h);
/* Reader thread: give pages that just joined the history now, even if
 * no new frame comes (an idle or exited program); returns how many. */
unsigned clients_catch_up(struct clients *cs, const struct history *h);
/* Reader thread: queue f for c alone (a RANGE answer); 1 if queued. */
int client_offer_one(struct clients *cs, struct client *c, struct frame *f);

/* What STATUS tells a page, read as one: offered = sent + thinned +
 * what is queued, at every STATUS (docs/web.md, "Slow pages"). */
struct client_acct {
    uint64_t offered, thinned_events, thinned_frames, queued_bytes, hidden_events;
};
/* Service thread: its queued bytes count the frame it took off the queue
 * and has not sent yet (c->pending). */
void client_accounts(struct client *c, struct client_acct *a);

#endif
