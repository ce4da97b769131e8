/*
 * http.c -- the HTTP side: the page, the snapshot downloads (Perfetto
 * JSON, Perfetto's protobuf) and two runs' comparison (/diff.json,
 * diff.h), nothing else.  Every request needs the token; paths are
 * matched exactly against the names we serve, so there is nothing to
 * traverse.  What bounds the downloads is downloads.c's.
 */
#include <stdio.h>
#include <string.h>
#include "auth.h"
#include "diff.h"
#include "downloads.h"
#include "service.h"
#include "shared.h"

#define DL_WAIT_S 300         /* for the reader to make a snapshot */
#define RETRY_AFTER "10"      /* seconds, in a 503 */

#define BODY_CHUNK (256 * 1024)

#define NO_TOKEN_TEXT                                                                                  \
    "<p>This page needs its token. The URL with the token is printed by recorder-web on start "       \
    "(on its standard output: <code>http://&hellip;/?t=&hellip;</code>); open that URL.</p>"            \
    "<p>A URL without the token, or with a wrong one, gets this answer (403 Forbidden).</p>"

static int done(struct lws *wsi) { return lws_http_transaction_completed(wsi) ? -1 : 0; }

static int status(struct lws *wsi, unsigned code, const char *text) {
    lws_return_http_status(wsi, code, text);
    return done(wsi);
}

static int add(struct lws *wsi, const char *name, const char *value, unsigned char **p, unsigned char *end) {
    return lws_add_http_header_by_name(wsi, (const unsigned char *)name, (const unsigned char *)value,
                                       (int)strlen(value), p, end);
}

/* Headers for a response whose body follows in HTTP_WRITEABLE: the page
 * (no disposition), a download (disposition, the snapshot's age, and the
 * events the server had read when it was made: two downloads with the
 * same count hold the same events), or a refusal (a status other than
 * 200, Retry-After). */
static int headers(struct lws *wsi, unsigned code, const char *type, size_t len, const char *disposition,
                   const char *age_ms, const char *events) {
    unsigned char buf[LWS_PRE + 2048], *start = buf + LWS_PRE, *p = start, *end = buf + sizeof buf - 1;
    char csp[1024];
    if (lws_add_http_common_headers(wsi, code, type, len, &p, end)) return -1;
    if (add(wsi, "cache-control:", "no-store", &p, end) || add(wsi, "x-content-type-options:", "nosniff", &p, end) ||
        add(wsi, "referrer-policy:", "no-referrer", &p, end) || add(wsi, "x-frame-options:", "DENY", &p, end))
        return -1;
    if (code != HTTP_STATUS_OK) {
        if (add(wsi, "retry-after:", RETRY_AFTER, &p, end)) return -1;
    } else if (!disposition) {
        /* The page may open a WebSocket to the host it came from, and
         * run only the script and style it was built with. */
        char host[128] = "";
        lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST);
        snprintf(csp, sizeof csp, "%s; connect-src 'self' ws://%s", web_page_csp, host);
        if (add(wsi, "content-security-policy:", csp, &p, end)) return -1;
    } else if (add(wsi, "content-disposition:", disposition, &p, end) ||
               add(wsi, "x-recorder-snapshot-age-ms:", age_ms, &p, end) ||
               add(wsi, "x-recorder-snapshot-events:", events, &p, end)) {
        return -1;
    }
    if (lws_finalize_write_http_header(wsi, start, &p, end)) return -1;
    lws_callback_on_writable(wsi);
    return 0;
}

static int request(struct lws *wsi, struct web *w, struct pss *p, const char *path) {
    if (lws_hdr_total_length(wsi, WSI_TOKEN_GET_URI) <= 0) return status(wsi, 405, "only GET");
    if (!auth_host_ok(wsi, w)) return status(wsi, HTTP_STATUS_FORBIDDEN, "unknown host");
    /* Still 403; the body says where the token is, never what it is. */
    if (!auth_token_ok(wsi, w->token)) return status(wsi, HTTP_STATUS_FORBIDDEN, NO_TOKEN_TEXT);
    p->wsi = wsi;
    if (!strcmp(path, "/") || !strcmp(path, "/index.html")) {
        p->body = web_page;
        p->len = web_page_len;
        p->off = 0;
        p->state = HTTP_BODY;
        return headers(wsi, HTTP_STATUS_OK, "text/html; charset=utf-8", p->len, NULL, NULL, NULL);
    }
    if (!strcmp(path, "/diff.json")) {   /* two runs compared (diff.h); else a plain "no" */
        p->body = w->diff_json ? (const unsigned char *)w->diff_json : (const unsigned char *)web_diff_none;
        p->len = w->diff_json ? w->diff_len : strlen(web_diff_none);
        p->off = 0;
        p->state = HTTP_BODY;
        return headers(wsi, HTTP_STATUS_OK, "application/json", p->len, NULL, NULL, NULL);
    }
    int json = !strcmp(path, "/trace.json");
    if (json || !strcmp(path, "/trace.pftrace")) {
        if (dl_begin(w, p, json ? SNAP_JSON : SNAP_PERFETTO) == 0) {
            if (p->state == HTTP_WAIT_SNAPSHOT) lws_set_timeout(wsi, PENDING_TIMEOUT_HTTP_CONTENT, DL_WAIT_S);
            return 0;
        }
        snprintf(p->msg, sizeof p->msg,
                 "recorder-web: too many downloads at once (%u, --max-downloads); try again when one finishes\n",
                 w->opts.max_downloads);
        p->body = (const unsigned char *)p->msg;
        p->len = strlen(p->msg);
        p->off = 0;
        p->state = HTTP_BODY;
        return headers(wsi, HTTP_STATUS_SERVICE_UNAVAILABLE, "text/plain; charset=utf-8", p->len, NULL, NULL, NULL);
    }
    return status(wsi, HTTP_STATUS_NOT_FOUND, "not found");
}

static int write_body(struct lws *wsi, struct web *w, struct pss *p) {
    if (p->state == HTTP_FAILED) {
        p->state = HTTP_IDLE;
        dl_end(w, p);
        return status(wsi, HTTP_STATUS_INTERNAL_SERVER_ERROR, "snapshot failed");
    }
    if (p->state == HTTP_WAIT_SNAPSHOT) return 0;   /* not ours to send yet */
    if (p->downloading && dl_progress(w, p) != 0) return -1;   /* too slow: cut */
    if (p->state == HTTP_HEADERS) {
        char disp[160], age[32], events[24];
        int pf = p->dl_fmt == SNAP_PERFETTO;
        snprintf(disp, sizeof disp, "attachment; filename=\"recorder-%d.%s\"", w->info.pid, pf ? "pftrace" : "json");
        snprintf(age, sizeof age, "%.0f", dl_now_ms() - p->snap_ms);
        snprintf(events, sizeof events, "%llu", (unsigned long long)p->snap->events);
        p->state = HTTP_BODY;
        return headers(wsi, HTTP_STATUS_OK, pf ? "application/octet-stream" : "application/json", p->len, disp, age,
                       events);
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
    dl_end(w, p);
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
            dl_end(w, p);
            p->state = HTTP_IDLE;
        }
        return 0;
    default: return 0;
    }
}

/* A snapshot is ready (or failed): hand it to every download waiting. */
void web_http_wakeup(struct web *w) { dl_wakeup(w); }
