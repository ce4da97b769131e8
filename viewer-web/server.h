/*
 * server.h -- the lws context: listening socket, protocol, timers, and
 * the service loop on the calling thread.
 */
#ifndef WEB_SERVER_H
#define WEB_SERVER_H

#include "web.h"

/* Listen on opts.bind (default 127.0.0.1) and opts.port; sets w->ctx and
 * w->port.  On failure returns an exit status and writes a message. */
int server_create(struct web *w, char *err, size_t errlen);
/* Serve until w->stop is set (by a signal). */
void server_run(struct web *w);
void server_destroy(struct web *w);

#endif
