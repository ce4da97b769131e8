/*
 * server.c -- the lws context and the service loop (see server.h).
 */
#define _GNU_SOURCE
#include <arpa/inet.h>
#include <errno.h>
#include <netinet/in.h>
#include <stdio.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "auth.h"
#include "server.h"
#include "service.h"
#include "shared.h"

#define STATUS_PERIOD_MS 250
#define EXIT_LISTEN 14   /* past the recorder command's codes (11 starting, 12 exited, 13 wait timed out) */

static int callback(struct lws *wsi, enum lws_callback_reasons reason, void *user, void *in, size_t len) {
    struct pss *p = user;
    switch (reason) {
    case LWS_CALLBACK_EVENT_WAIT_CANCELLED: {
        struct web *w = web_of(wsi);
        web_http_wakeup(w);
        web_ws_wakeup(w);
        return 0;
    }
    case LWS_CALLBACK_HTTP:
    case LWS_CALLBACK_HTTP_WRITEABLE:
    case LWS_CALLBACK_CLOSED_HTTP: return web_http(wsi, reason, p, in, len);
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
    case LWS_CALLBACK_ESTABLISHED:
    case LWS_CALLBACK_CLOSED:
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
    case LWS_CALLBACK_SERVER_WRITEABLE:
    case LWS_CALLBACK_RECEIVE: return web_ws(wsi, reason, p, in, len);
    default: return lws_callback_http_dummy(wsi, reason, user, in, len);
    }
}

/* rx_buffer_size: a page's commands are tiny.  tx_packet_size must be
 * set: left 0, lws cuts every send() to rx_buffer_size bytes. */
static const struct lws_protocols protocols[] = {
    {WEB_PROTOCOL, callback, sizeof(struct pss), WIRE_CMSG_MAX, 0, NULL, 1u << 20},
    {NULL, NULL, 0, 0, 0, NULL, 0},
};

/* lws_sul timers need a home that outlives the callback. */
static struct {
    lws_sorted_usec_list_t sul;
    struct web *w;
} ticker;

static void tick(lws_sorted_usec_list_t *sul) {
    web_ws_tick(ticker.w);
    lws_sul_schedule(ticker.w->ctx, 0, sul, tick, STATUS_PERIOD_MS * LWS_US_PER_MS);
}

static void log_line(int level, const char *line) {
    (void)level;
    fprintf(stderr, "recorder-web: lws: %s", line);
}

/* Try to bind addr:port ourselves first: lws would only say that it
 * failed (and leaks a little when it does); this says why.  Returns 0 if
 * the address can be listened on. */
static int probe_listen(const char *addr, int port, char *err, size_t errlen) {
    int v6 = strchr(addr, ':') != NULL;
    int fd = socket(v6 ? AF_INET6 : AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    int e = 0;
    if (fd < 0) {
        e = errno;
    } else {
        int one = 1;
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        int rc;
        if (v6) {
            struct sockaddr_in6 a = {.sin6_family = AF_INET6, .sin6_port = htons((uint16_t)port)};
            rc = inet_pton(AF_INET6, addr, &a.sin6_addr) == 1 ? bind(fd, (struct sockaddr *)&a, sizeof a) : -2;
        } else {
            struct sockaddr_in a = {.sin_family = AF_INET, .sin_port = htons((uint16_t)port)};
            rc = inet_pton(AF_INET, addr, &a.sin_addr) == 1 ? bind(fd, (struct sockaddr *)&a, sizeof a) : -2;
        }
        e = rc == -2 ? EINVAL : rc < 0 ? errno : 0;
        close(fd);
    }
    if (e == EADDRINUSE)
        snprintf(err, errlen, "port %d on %s is in use (try --port N, or --port 0 for any free port)", port, addr);
    else if (e == EINVAL)
        snprintf(err, errlen, "cannot listen on %s: not an IPv4 or IPv6 address", addr);
    else if (e)
        snprintf(err, errlen, "cannot listen on %s port %d: %s", addr, port, strerror(e));
    return e ? -1 : 0;
}

int server_create(struct web *w, char *err, size_t errlen) {
    const char *addr = w->opts.bind ? w->opts.bind : "127.0.0.1";
    lws_set_log_level(w->opts.verbose ? LLL_ERR | LLL_WARN | LLL_NOTICE : 0, log_line);
    struct lws_context_creation_info info;
    memset(&info, 0, sizeof info);
    info.port = w->opts.port;
    info.iface = addr;
    info.protocols = protocols;
    info.user = w;
    info.server_string = "recorder-web";
    info.options = LWS_SERVER_OPTION_FAIL_UPON_UNABLE_TO_BIND;
    if (!strchr(addr, ':')) info.options |= LWS_SERVER_OPTION_DISABLE_IPV6;
    info.timeout_secs = 30;
    info.count_threads = 1;
    if (probe_listen(addr, w->opts.port, err, errlen) != 0) return EXIT_LISTEN;
    w->ctx = lws_create_context(&info);
    if (!w->ctx) {
        snprintf(err, errlen, "cannot listen on %s port %d", addr, w->opts.port);
        return EXIT_LISTEN;
    }
    struct lws_vhost *vh = lws_get_vhost_by_name(w->ctx, "default");
    w->port = vh ? lws_get_vhost_listen_port(vh) : w->opts.port;
    auth_set_hosts(w, w->opts.bind, w->port);
    ticker.w = w;
    lws_sul_schedule(w->ctx, 0, &ticker.sul, tick, STATUS_PERIOD_MS * LWS_US_PER_MS);
    return 0;
}

void server_run(struct web *w) {
    while (!web_load(&w->stop))
        if (lws_service(w->ctx, 0) < 0) break;
}

void server_destroy(struct web *w) {
    if (w->ctx) lws_context_destroy(w->ctx);
    w->ctx = NULL;
}
