/*
 * text.c -- UTF-8 decoding, display width and fitting (see text.h).
 */
#ifndef _XOPEN_SOURCE
#define _XOPEN_SOURCE 700   /* wcwidth */
#endif
#include "text.h"

#include <ctype.h>
#include <string.h>
#include <wchar.h>

size_t utf8_next(const char *s, size_t n, uint32_t *cp) {
    const unsigned char *u = (const unsigned char *)s;
    if (n == 0) {
        *cp = 0xfffd;
        return 1;
    }
    unsigned c = u[0];
    size_t len;
    uint32_t v, min;
    if (c < 0x80) {
        *cp = c;
        return 1;
    } else if ((c & 0xe0) == 0xc0) {
        len = 2, v = c & 0x1f, min = 0x80;
    } else if ((c & 0xf0) == 0xe0) {
        len = 3, v = c & 0x0f, min = 0x800;
    } else if ((c & 0xf8) == 0xf0) {
        len = 4, v = c & 0x07, min = 0x10000;
    } else {
        *cp = 0xfffd;
        return 1;
    }
    if (len > n) {
        *cp = 0xfffd;
        return 1;
    }
    for (size_t i = 1; i < len; i++) {
        if ((u[i] & 0xc0) != 0x80) {
            *cp = 0xfffd;
            return 1;
        }
        v = (v << 6) | (u[i] & 0x3f);
    }
    /* Overlong forms, surrogates and values past Unicode are not text. */
    if (v < min || v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff)) {
        *cp = 0xfffd;
        return 1;
    }
    *cp = v;
    return len;
}

size_t utf8_put(char *out, size_t cap, uint32_t cp) {
    unsigned char b[4];
    size_t n;
    if (cp < 0x80) b[0] = (unsigned char)cp, n = 1;
    else if (cp < 0x800) b[0] = (unsigned char)(0xc0 | (cp >> 6)), b[1] = (unsigned char)(0x80 | (cp & 0x3f)), n = 2;
    else if (cp < 0x10000) {
        b[0] = (unsigned char)(0xe0 | (cp >> 12));
        b[1] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[2] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 3;
    } else {
        b[0] = (unsigned char)(0xf0 | (cp >> 18));
        b[1] = (unsigned char)(0x80 | ((cp >> 12) & 0x3f));
        b[2] = (unsigned char)(0x80 | ((cp >> 6) & 0x3f));
        b[3] = (unsigned char)(0x80 | (cp & 0x3f));
        n = 4;
    }
    if (n > cap) return 0;
    memcpy(out, b, n);
    return n;
}

/* The character as drawn, and its width: anything the terminal could
 * misread (controls, bad bytes, unprintables) becomes '?'. */
static int shown(uint32_t *cp, int utf8) {
    uint32_t c = *cp;
    if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0) || c == 0xfffd || (!utf8 && c >= 0x80)) {
        *cp = '?';
        return 1;
    }
    if (c < 0x80) return 1;
    int w = wcwidth((wchar_t)c);
    if (w < 0) {
        *cp = '?';
        return 1;
    }
    return w;
}

int text_width(const char *s, int utf8) {
    int w = 0;
    size_t n = strlen(s);
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += utf8_next(s + i, n - i, &cp);
        w += shown(&cp, utf8);
    }
    return w;
}

/* Appends one character if it fits in the buffer (keeping room for NUL). */
static void put(char *out, size_t cap, size_t *len, uint32_t cp) {
    if (*len + 1 >= cap) return;
    *len += utf8_put(out + *len, cap - 1 - *len, cp);
}

/* A string too long for width, as its start, an ellipsis and its end: the
 * end gets the odd column, since names mostly differ there. */
static int fit_middle(char *out, size_t cap, const char *s, int width, int total, unsigned flags, int utf8) {
    size_t n = strlen(s), len = 0, i = 0;
    int room = width - 1, head = room / 2, tail = room - head, used = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_next(s + i, n - i, &cp);
        int w = shown(&cp, utf8);
        if (used + w > head) break;
        put(out, cap, &len, cp);
        used += w;
        i += k;
    }
    put(out, cap, &len, utf8 ? 0x2026 : '~');
    used++;
    /* Skip on until what is left fits in the tail's columns. */
    int left = total - (used - 1);
    while (i < n && left > tail) {
        uint32_t cp;
        i += utf8_next(s + i, n - i, &cp);
        left -= shown(&cp, utf8);
    }
    while (i < n) {
        uint32_t cp;
        i += utf8_next(s + i, n - i, &cp);
        used += shown(&cp, utf8);   /* first: it turns controls into '?' */
        put(out, cap, &len, cp);
    }
    if (!(flags & FIT_NO_PAD))
        for (; used < width; used++) put(out, cap, &len, ' ');
    out[len] = 0;
    return used;
}

int text_fit(char *out, size_t cap, const char *s, int width, unsigned flags, int utf8) {
    if (!cap) return 0;
    out[0] = 0;
    if (width <= 0) return 0;
    size_t n = strlen(s), len = 0;
    int total = text_width(s, utf8), used = 0;
    uint32_t ell = utf8 ? 0x2026 : '~';
    int cut = total > width;
    int room = cut ? width - 1 : width;     /* columns for the text itself */
    size_t i = 0;
    if (cut && (flags & FIT_KEEP_END)) {
        put(out, cap, &len, ell);
        used = 1;
        /* Skip from the start until what is left fits. */
        int left = total;
        while (i < n && left > room) {
            uint32_t cp;
            i += utf8_next(s + i, n - i, &cp);
            left -= shown(&cp, utf8);
        }
    }
    if (cut && (flags & FIT_MIDDLE) && !(flags & FIT_KEEP_END)) return fit_middle(out, cap, s, width, total, flags, utf8);
    int pad_before = 0;
    if (!cut && (flags & FIT_RIGHT) && !(flags & FIT_NO_PAD)) pad_before = width - total;
    for (int k = 0; k < pad_before; k++) put(out, cap, &len, ' ');
    used += pad_before;
    int text_used = 0;
    while (i < n) {
        uint32_t cp;
        i += utf8_next(s + i, n - i, &cp);
        int w = shown(&cp, utf8);
        if (text_used + w > room) break;
        put(out, cap, &len, cp);
        text_used += w;
    }
    used += text_used;
    if (cut && !(flags & FIT_KEEP_END)) {
        put(out, cap, &len, ell);
        used++;
    }
    if (!(flags & FIT_NO_PAD))
        for (; used < width; used++) put(out, cap, &len, ' ');
    out[len] = 0;
    return used;
}

/* What of s the other names shown (peers; equal ones left out: nothing
 * tells them apart) leave it: *shared, the longest start it shares with
 * one of them, and the return value, where s's end must start so that it
 * differs from each (a byte before the end they share), backed up to the
 * start of a character and of a run of letters and digits, so that
 * "blk.13" against "blk.11" keeps "13", not "3". */
static size_t keep_from(const char *s, const char *const *peers, size_t n_peers, size_t *shared) {
    size_t n = strlen(s), need = n, best = 0;
    for (size_t k = 0; k < n_peers; k++) {
        const char *p = peers[k];
        if (!p || p == s || !strcmp(p, s)) continue;
        size_t c = 0, d = 0, m = strlen(p);
        while (s[c] && s[c] == p[c]) c++;
        while (d < n && d < m && s[n - 1 - d] == p[m - 1 - d]) d++;
        if (c > best) best = c;
        size_t at = d < n ? n - 1 - d : 0;
        if (at < need) need = at;
    }
    *shared = best;
    if (need == n) return n;   /* alone */
    while (need > 0 && ((unsigned char)s[need] & 0xc0) == 0x80) need--;
    while (need > 0 && isalnum((unsigned char)s[need - 1])) need--;
    return need;
}

/* Display width of the first n bytes of s. */
static int width_n(const char *s, size_t n, int utf8) {
    int w = 0;
    for (size_t i = 0; i < n;) {
        uint32_t cp;
        i += utf8_next(s + i, n - i, &cp);
        w += shown(&cp, utf8);
    }
    return w;
}

/* Where the end of s that fits in room columns starts. */
static size_t tail_start(const char *s, int room, int utf8) {
    size_t n = strlen(s), i = 0;
    int left = text_width(s, utf8);
    while (i < n && left > room) {
        uint32_t cp;
        i += utf8_next(s + i, n - i, &cp);
        left -= shown(&cp, utf8);
    }
    return i;
}

int text_elide(char *out, size_t cap, const char *s, const char *const *peers, size_t n_peers, int width,
               unsigned flags, int utf8) {
    unsigned pad = flags & FIT_NO_PAD;
    if (!cap) return 0;
    out[0] = 0;
    if (width <= 0) return 0;
    int total = text_width(s, utf8);
    size_t shared = 0, p = total > width ? keep_from(s, peers, n_peers, &shared) : 0;
    /* Fits; or its start is what tells it apart: cut in the middle. */
    if (!shared || !p || !s[p]) return text_fit(out, cap, s, width, (total > width ? FIT_MIDDLE : 0) | pad, utf8);
    size_t len = 0;
    int rest = text_width(s + p, utf8), used = 0;
    /* A head that says what kind of name it is ("matmul_"): up to the
     * first separator in the shared part, in half the width, when what
     * differs still fits after it. */
    size_t h = 0;
    for (size_t i = 0; i < shared && i < p && !h; i++)
        if (strchr("_.:/ -", s[i])) h = i + 1;
    int hw = h ? width_n(s, h, utf8) : 0;
    if (!h || hw > width / 2 || hw + 1 + rest > width) h = 0, hw = 0;
    for (size_t i = 0; i < h;) {   /* the head, each character as text_fit draws it */
        uint32_t cp;
        i += utf8_next(s + i, h - i, &cp);
        shown(&cp, utf8);
        put(out, cap, &len, cp);
    }
    put(out, cap, &len, utf8 ? 0x2026 : '~');
    used = hw + 1;
    out[len] = 0;
    if (used + rest <= width) {   /* all that differs, and what comes before it as room allows */
        size_t t = tail_start(s, width - used, utf8);   /* at p or before: s + p fits */
        used += text_fit(out + len, cap - len, s + t, width - used, pad, utf8);
    } else {   /* even that is too long: where it starts to differ, and its end */
        used += text_fit(out + len, cap - len, s + p, width - used, FIT_MIDDLE | pad, utf8);
    }
    return used;
}

size_t text_take(const char *s, int width, int utf8) {
    size_t n = strlen(s), i = 0;
    int used = 0;
    while (i < n) {
        uint32_t cp;
        size_t k = utf8_next(s + i, n - i, &cp);
        int w = shown(&cp, utf8);
        if (used + w > width) break;
        used += w;
        i += k;
    }
    return i;
}

int text_contains(const char *hay, const char *needle) {
    size_t nl = strlen(needle);
    if (!nl) return 1;
    for (; *hay; hay++) {
        size_t k = 0;
        while (k < nl && hay[k] && tolower((unsigned char)hay[k]) == tolower((unsigned char)needle[k])) k++;
        if (k == nl) return 1;
    }
    return 0;
}
