/*
 * http.c -- the HTTP side: the page and the snapshot download, nothing
 * else.  Every request needs the token; paths are matched exactly against
 * the two names we serve, so there is nothing to traverse.
 */
#include <stdio.h>
#include <string.h>
#include "auth.h"
#include "service.h"
#include "shared.h"

enum { HTTP_IDLE = 0, HTTP_WAIT_SNAPSHOT, HTTP_HEADERS, HTTP_BODY, HTTP_FAILED };

#define BODY_CHUNK (256 * 1024)

static int done(struct lws *wsi) { return lws_http_transaction_completed(wsi) ? -1 : 0; }

static int status(struct lws *wsi, unsigned code, const char *text) {
    lws_return_http_status(wsi, code, text);
    return done(wsi);
}

static int add(struct lws *wsi, const char *name, const char *value, unsigned char **p, unsigned char *end) {
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value,
                                       (int)strlen(value), p, end);
}

/* Headers for a 200 whose body follows in HTTP_WRITEABLE. */
static int headers(struct lws *wsi, const char *type, size_t len, const char *disposition) {
    unsigned char buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    char csp[1024];
    if (lws_add_http_common_headers(wsi, HTTP_STATUS_OK, type, len, &p, end)) return -1;
    if (add(wsi, "cache-control:", "no-store", &p, end) || add(wsi, "x-content-type-options:", "nosniff", &p, end) ||
        add(wsi, "referrer-policy:", "no-referrer", &p, end) || add(wsi, "x-frame-options:", "DENY", &p, end))
        return -1;
    if (!disposition) {
        /* The page may open a WebSocket to the host it came from, and
         * run only the script and style it was built with. */
        char host[128] = "";
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
        snprintf(csp, sizeof csp, "%s; connect-src 'self' ws://%s", web_page_csp, host);
        if (add(wsi, "content-security-policy:", csp, &p, end)) return -1;
    } else if (add(wsi, "content-disposition:", disposition, &p, end)) {
        return -1;
    }
    if (lws_finalize_write_http_header(wsi, start, &p, end)) return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

static void unwait(struct web *w, struct pss *p) {
    for (struct pss **q = &w->waiters; *q; q = &(*q)->next_waiter)
        if (*q == p) {
            *q = p->next_waiter;
            break;
        }
    p->next_waiter = NULL;
}

static int request(struct lws *wsi, struct web *w, struct pss *p, const char *path) {
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0) return status(wsi, 405, "only GET");
    if (!auth_host_ok(wsi, w)) return status(wsi, HTTP_STATUS_FORBIDDEN, "unknown host");
    if (!auth_token_ok(wsi, w->token)) return status(wsi, HTTP_STATUS_FORBIDDEN, "token required");
    p->wsi = wsi;
    if (!strcmp(path, "/") || !strcmp(path, "/index.html")) {
        p->body = web_page;
        p->len = web_page_len;
        p->off = 0;
        p->state = HTTP_BODY;
        return headers(wsi, "text/html; charset=utf-8", p->len, NULL);
    }
    if (!strcmp(path, "/trace.json")) {
        /* The reader thread owns the model: ask it, and wait. */
        p->state = HTTP_WAIT_SNAPSHOT;
        p->next_waiter = w->waiters;
        w->waiters = p;
        lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, 300);
        web_store(&w->export_req, 1);
        return 0;
    }
    return status(wsi, HTTP_STATUS_NOT_FOUND, "not found");
}

static int write_body(struct lws *wsi, struct web *w, struct pss *p) {
    if (p->state == HTTP_FAILED) {
        p->state = HTTP_IDLE;
        return status(wsi, HTTP_STATUS_INTERNAL_SERVER_ERROR, "snapshot failed");
    }
    if (p->state == HTTP_HEADERS) {
        char disp[160];
        snprintf(disp, sizeof disp, "attachment; filename=\"recorder-%d.json\"", w->info.pid);
        p->state = HTTP_BODY;
        return headers(wsi, "application/json", p->len, disp);
    }
    if (p->state != HTTP_BODY) return 0;
    static unsigned char buf[LWS_PRE + BODY_CHUNK];   /* one service thread */
    size_t n = p->len - p->off < BODY_CHUNK ? p->len - p->off : BODY_CHUNK;
    int final = p->off + n == p->len;
    memcpy(buf + LWS_PRE, p->body + p->off, n);
    if (lws_write(wsi, buf + LWS_PRE, n, final ? LWS_WRITE_HTTP_FINAL : LWS_WRITE_HTTP) != (int)n) return -1;
    p->off += n;
    if (!final) {
        lws_callback_on_writable(wsi);
        return 0;
    }
    p->state = HTTP_IDLE;
    snapshot_unref(p->snap);
    p->snap = NULL;
    p->body = NULL;
    return done(wsi);
}

int web_http(struct lws *wsi, enum lws_callback_reasons reason, struct pss *p, void *in, size_t len) {
    struct web *w = web_of(wsi);
    (void)len;
    switch (reason) {
    case LWS_CALLBACK_HTTP: return request(wsi, w, p, in ? (const char *)in : "");
    case LWS_CALLBACK_HTTP_WRITEABLE: return write_body(wsi, w, p);
    case LWS_CALLBACK_CLOSED_HTTP:
        if (p) {
            unwait(w, p);
            snapshot_unref(p->snap);
            p->snap = NULL;
            p->state = HTTP_IDLE;
        }
        return 0;
    default: return 0;
    }
}

/* A snapshot is ready (or failed): hand it to every download waiting. */
void web_http_wakeup(struct web *w) {
    void *d = web_xchg(&w->export_done, NULL);
    if (!d) return;
    struct snapshot *s = d == (void *)1 ? NULL : d;
    while (w->waiters) {
        struct pss *p = w->waiters;
        w->waiters = p->next_waiter;
        p->next_waiter = NULL;
        if (!s) {
            p->state = HTTP_FAILED;
            lws_callback_on_writable(p->wsi);
            continue;
        }
        snapshot_ref(s);
        p->snap = s;
        p->body = (const unsigned char *)s->json;
        p->len = s->len;
        p->off = 0;
        p->state = HTTP_HEADERS;
        lws_callback_on_writable(p->wsi);
    }
    snapshot_unref(s);
}
