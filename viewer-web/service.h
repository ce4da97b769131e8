/*
 * service.h -- the lws service thread's side: one protocol callback for
 * HTTP and WebSocket, whose halves live in http.c and ws.c.
 */
#ifndef WEB_SERVICE_H
#define WEB_SERVICE_H

#include <libwebsockets.h>

#include "web.h"
#include "wire.h"

/* An HTTP response's progress. */
enum { HTTP_IDLE = 0, HTTP_WAIT_SNAPSHOT, HTTP_HEADERS, HTTP_BODY, HTTP_FAILED };

/* Per-connection state (lws allocates it with the connection). */
struct pss {
    struct lws *wsi;
    /* WebSocket */
    struct client *client;
    /* HTTP response in progress */
    int state;                /* HTTP_IDLE, ... */
    const unsigned char *body;
    size_t len, off;
    /* A snapshot download (downloads.c) */
    int downloading;          /* counted in w->dl.active */
    enum snap_fmt dl_fmt;     /* what it downloads */
    struct snapshot *snap;    /* holds the body */
    double snap_ms;           /* when the snapshot was made */
    double deadline_ms;       /* cut it if still sending then */
    struct pss *next_waiter;  /* waiting for a snapshot */
    char msg[192];            /* a short plain-text body (503) */
};

/* The page (generated from page/ by gen_page.py). */
extern const unsigned char web_page[];
extern const size_t web_page_len;
extern const char web_page_csp[];   /* script-src and style-src hashes */

int web_http(struct lws *wsi, enum lws_callback_reasons reason, struct pss *p, void *in, size_t len);
int web_ws(struct lws *wsi, enum lws_callback_reasons reason, struct pss *p, void *in, size_t len);
/* Cross-thread wake-up: snapshots ready, frames queued, statistics new. */
void web_http_wakeup(struct web *w);
void web_ws_wakeup(struct web *w);
/* Timer: status for every page. */
void web_ws_tick(struct web *w);

static inline struct web *web_of(struct lws *wsi) {
    return (struct web *)lws_context_user(lws_get_context(wsi));
}

#endif
