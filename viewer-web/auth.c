/*
 * auth.c -- token, Host and Origin checks (see auth.h).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <libwebsockets.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <sys/random.h>
#include <unistd.h>

#include "auth.h"
#include "web.h"

static int random_bytes(unsigned char *p, size_t n) {
    size_t got = 0;
    while (got < n) {
        ssize_t k = getrandom(p + got, n - got, 0);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    if (got == n) return 0;
    int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    got = 0;
    while (got < n) {
        ssize_t k = read(fd, p + got, n - got);
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) break;
        got += (size_t)k;
    }
    close(fd);
    return got == n ? 0 : -1;
}

int token_new(char out[TOKEN_HEX + 1]) {
    unsigned char r[TOKEN_HEX / 2];
    if (random_bytes(r, sizeof r) != 0) return -1;
    for (size_t i = 0; i < sizeof r; i++) snprintf(out + 2 * i, 3, "%02x", r[i]);
    return 0;
}

static int const_time_eq(const char *a, const char *b, size_t n) {
    unsigned char d = 0;
    for (size_t i = 0; i < n; i++) d |= (unsigned char)(a[i] ^ b[i]);
    return d == 0;
}

int auth_token_ok(struct lws *wsi, const char *token) {
    char arg[128];
    /* lws splits the query at '&' and url-decodes each part. */
    for (int i = 0; i < 32; i++) {
        int n = lws_hdr_copy_fragment(wsi, arg, sizeof arg, WSI_TOKEN_HTTP_URI_ARGS, i);
        if (n < 0) break;
        if (n == 2 + TOKEN_HEX && !strncmp(arg, "t=", 2) && const_time_eq(arg + 2, token, TOKEN_HEX)) return 1;
    }
    return 0;
}

void auth_set_hosts(struct web *w, const char *bind, int port) {
    memset(w->origin_host, 0, sizeof w->origin_host);
    snprintf(w->origin_host[0], sizeof w->origin_host[0], "127.0.0.1:%d", port);
    snprintf(w->origin_host[1], sizeof w->origin_host[1], "localhost:%d", port);
    if (bind && strchr(bind, ':'))
        snprintf(w->origin_host[2], sizeof w->origin_host[2], "[%s]:%d", bind, port);
    else if (bind)
        snprintf(w->origin_host[2], sizeof w->origin_host[2], "%s:%d", bind, port);
    else
        snprintf(w->origin_host[2], sizeof w->origin_host[2], "[::1]:%d", port);
}

/* Listening on every address: the page may use any name for us, so only
 * same-origin is checked (the token still guards everything). */
static int wildcard(const struct web *w) {
    const char *b = w->opts.bind;
    return b && (!strcmp(b, "0.0.0.0") || !strcmp(b, "::") || !strcmp(b, "[::]"));
}

static int host_known(const struct web *w, const char *host) {
    if (wildcard(w)) return 1;
    for (int i = 0; i < 3; i++)
        if (w->origin_host[i][0] && !strcasecmp(host, w->origin_host[i])) return 1;
    return 0;
}

int auth_host_ok(struct lws *wsi, const struct web *w) {
    char host[128];
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HOST) >= (int)sizeof host) return 0;
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0) return 0;
    return host_known(w, host);
}

int auth_origin_ok(struct lws *wsi, const struct web *w) {
    char origin[160], host[128];
    int olen = lws_hdr_total_length(wsi, WSI_TOKEN_ORIGIN);
    if (olen <= 0) return 1;
    if (olen >= (int)sizeof origin) return 0;
    if (lws_hdr_copy(wsi, origin, sizeof origin, WSI_TOKEN_ORIGIN) <= 0) return 0;
    if (lws_hdr_total_length(wsi, WSI_TOKEN_HOST) >= (int)sizeof host) return 0;
    if (lws_hdr_copy(wsi, host, sizeof host, WSI_TOKEN_HOST) <= 0) return 0;
    if (strncasecmp(origin, "http://", 7) || strcasecmp(origin + 7, host)) return 0;
    return host_known(w, host);
}

/* The upgrade names our sub-protocol (and version) among those it offers.
 * lws would take the first protocol for an upgrade that names none: an
 * upgrade that does not speak ours is refused, like a wrong version. */
int auth_protocol_ok(struct lws *wsi, const char *name) {
    char list[256];
    int n = lws_hdr_total_length(wsi, WSI_TOKEN_PROTOCOL);
    if (n <= 0 || n >= (int)sizeof list) return 0;
    if (lws_hdr_copy(wsi, list, sizeof list, WSI_TOKEN_PROTOCOL) <= 0) return 0;
    size_t want = strlen(name);
    for (char *p = list; *p;) {
        while (*p == ' ' || *p == '\t' || *p == ',') p++;
        char *end = p;
        while (*end && *end != ',') end++;
        char *last = end;
        while (last > p && (last[-1] == ' ' || last[-1] == '\t')) last--;
        if ((size_t)(last - p) == want && !memcmp(p, name, want)) return 1;
        p = end;
    }
    return 0;
}
