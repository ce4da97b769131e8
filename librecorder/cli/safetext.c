/*
 * safetext.c -- text from a segment, a capture or the command line, made
 * safe to print on a terminal.
 *
 * A traced program names its scopes, threads and itself, and a user's path
 * may hold any byte: printed raw, an ESC, CR, BEL or C1 CSI could move the
 * cursor, retitle the window or hide a line.  Control bytes (< 0x20, 0x7f)
 * and C1 controls (0x80-0x9f, raw or UTF-8-encoded as U+0080-U+009F) are
 * shown as \xNN; valid UTF-8 text and other bytes pass unchanged.
 */
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

/* Length of the valid UTF-8 sequence at s (n bytes left) and its code
 * point, or 0 if s does not start one. */
static size_t utf8_len(const unsigned char *s, size_t n, uint32_t *cp) {
    unsigned c = s[0];
    size_t len;
    uint32_t v, min;
    if (c >= 0xc0 && c < 0xe0) len = 2, v = c & 0x1f, min = 0x80;
    else if (c >= 0xe0 && c < 0xf0) len = 3, v = c & 0x0f, min = 0x800;
    else if (c >= 0xf0 && c < 0xf8) len = 4, v = c & 0x07, min = 0x10000;
    else return 0;
    if (len > n) return 0;
    for (size_t i = 1; i < len; i++) {
        if ((s[i] & 0xc0) != 0x80) return 0;
        v = (v << 6) | (s[i] & 0x3f);
    }
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) return 0;
    *cp = v;
    return len;
}

/* Calls put for each piece of s as shown: runs of safe bytes as they are,
 * each unsafe byte as "\xNN". */
static void shown(const char *str, void (*put)(void *, const char *, size_t), void *ctx) {
    const unsigned char *s = (const unsigned char *)str;
    size_t n = strlen(str), run = 0, i = 0;
    while (i < n) {
        unsigned c = s[i];
        size_t len = 1;
        int bad = c < 0x20 || c == 0x7f;
        if (c >= 0x80) {
            uint32_t cp = 0;
            size_t u = utf8_len(s + i, n - i, &cp);
            if (u) {
                len = u;
                bad = cp >= 0x80 && cp < 0xa0;   /* C1, UTF-8-encoded */
            } else {
                bad = c < 0xa0;                  /* a raw C1 byte */
            }
        }
        if (!bad) {
            i += len;
            continue;
        }
        if (i > run) put(ctx, str + run, i - run);
        for (size_t k = 0; k < len; k++) {
            char esc[5];
            snprintf(esc, sizeof esc, "\\x%02x", s[i + k]);
            put(ctx, esc, 4);
        }
        i += len;
        run = i;
    }
    if (n > run) put(ctx, str + run, n - run);
}

struct buf {
    char *p;
    size_t cap, len;
    int full;
};

/* Whole pieces only, so an escape is never cut into a stray backslash. */
static void put_buf(void *ctx, const char *s, size_t n) {
    struct buf *b = ctx;
    if (b->full) return;
    if (b->len + n >= b->cap) {
        if (n != 4 || s[0] != '\\') {   /* a run of text: keep what fits */
            size_t room = b->cap - 1 - b->len;
            memcpy(b->p + b->len, s, room);
            b->len += room;
        }
        b->full = 1;
        return;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

const char *cli_safe(char *buf, size_t cap, const char *s) {
    if (!cap) return buf;
    struct buf b = {buf, cap, 0, 0};
    shown(s ? s : "", put_buf, &b);
    buf[b.len] = 0;
    return buf;
}

static void put_file(void *ctx, const char *s, size_t n) { fwrite(s, 1, n, (FILE *)ctx); }

void cli_fputs_safe(const char *s, FILE *f) { shown(s ? s : "", put_file, f); }
