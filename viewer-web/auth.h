/*
 * auth.h -- who may talk to recorder-web.
 *
 * Every request carries the token printed with the URL (?t=...); without
 * it the answer is 403.  A WebSocket upgrade from a page on another
 * origin is refused even with the token, and a request whose Host is not
 * one of ours is refused (DNS rebinding).  docs/web.md, "Security".
 */
#ifndef WEB_AUTH_H
#define WEB_AUTH_H

#include <stddef.h>

#define TOKEN_HEX 32          /* 128 random bits */

struct lws;
struct web;

/* A fresh token from getrandom (or /dev/urandom); 0 or -1. */
int token_new(char out[TOKEN_HEX + 1]);
/* The request's ?t= equals the token (constant-time comparison). */
int auth_token_ok(struct lws *wsi, const char *token);
/* The Host header names us. */
int auth_host_ok(struct lws *wsi, const struct web *w);
/* No Origin header (not a browser), or our own origin. */
int auth_origin_ok(struct lws *wsi, const struct web *w);
/* Sec-WebSocket-Protocol offers name (WEB_PROTOCOL: ours, this version). */
int auth_protocol_ok(struct lws *wsi, const char *name);
/* Fill w->origin_host with the hosts a page may use to reach us. */
void auth_set_hosts(struct web *w, const char *bind, int port);

#endif
