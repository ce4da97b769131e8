/*
 * outbuf.c -- the output buffer and number formatting of outbuf.h.
 */
#include "outbuf.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>

int ob_init(struct outbuf *o, FILE *f, size_t cap) {
    if (cap < 4096) cap = 4096;
    char *b = malloc(cap);
    if (!b) return -1;
    ob_init_buf(o, f, b, cap);
    o->owned = 1;
    return 0;
}

void ob_init_buf(struct outbuf *o, FILE *f, char *buf, size_t cap) {
    o->f = f;
    o->buf = o->p = buf;
    o->end = buf + cap;
    o->err = 0;
    o->errnum = 0;
    o->owned = 0;
    o->th = NULL;
    o->ops = NULL;
}

void ob_flush(struct outbuf *o) {
    if (o->th) {
        o->ops->flush(o);
        return;
    }
    size_t n = (size_t)(o->p - o->buf);
    if (n && !o->err && fwrite(o->buf, 1, n, o->f) != n) ob_fail(o, errno);
    o->p = o->buf;
}

void ob_write_big(struct outbuf *o, const void *s, size_t n) {
    if (o->th) {
        o->ops->write_big(o, s, n);
        return;
    }
    ob_flush(o);
    if (!o->err && fwrite(s, 1, n, o->f) != n) ob_fail(o, errno);
}

void ob_fail(struct outbuf *o, int e) {
    if (!o->err) o->errnum = e ? e : EIO;
    o->err = 1;
}

int ob_finish(struct outbuf *o) {
    if (!o->buf) return -1;         /* never set up (a start that ran out of memory) */
    if (o->th) o->ops->end(o);
    ob_flush(o);
    errno = 0;
    if (!o->err && fflush(o->f) != 0) ob_fail(o, errno);
    if (ferror(o->f)) ob_fail(o, 0);
    if (o->owned) free(o->buf);
    o->buf = o->p = o->end = NULL;
    if (!o->err) return 0;
    errno = o->errnum;
    return -1;
}

/* ---- numbers ------------------------------------------------------------ */

static const char digits2[201] =
    "00010203040506070809101112131415161718192021222324252627282930313233343536373839"
    "40414243444546474849505152535455565758596061626364656667686970717273747576777879"
    "8081828384858687888990919293949596979899";

/* Digits of v (1 for 0): the bit length's estimate of log10, corrected
 * by one comparison. */
static const uint64_t pow10_u64[20] = {
    UINT64_C(1), UINT64_C(10), UINT64_C(100), UINT64_C(1000), UINT64_C(10000), UINT64_C(100000),
    UINT64_C(1000000), UINT64_C(10000000), UINT64_C(100000000), UINT64_C(1000000000),
    UINT64_C(10000000000), UINT64_C(100000000000), UINT64_C(1000000000000), UINT64_C(10000000000000),
    UINT64_C(100000000000000), UINT64_C(1000000000000000), UINT64_C(10000000000000000),
    UINT64_C(100000000000000000), UINT64_C(1000000000000000000), UINT64_C(10000000000000000000)};

static inline unsigned dec_digits(uint64_t v) {
    unsigned bits = 64u - (unsigned)__builtin_clzll(v | 1);
    unsigned t = (bits * 1233u) >> 12;   /* 1233 / 4096 ~ log10(2): t <= digits <= t + 1 */
    t += v >= pow10_u64[t];
    return t ? t : 1;
}

/* Written in place from its last digit, two at a time: no copy (the
 * exporters format a time stamp per event, and this was 5% of a JSON
 * export's instructions with a copy through a scratch buffer). */
char *fmt_u64(char *p, uint64_t v) {
    char *end = p + dec_digits(v), *t = end;
    while (v >= 100) {
        unsigned d = (unsigned)(v % 100) * 2;
        v /= 100;
        *--t = digits2[d + 1];
        *--t = digits2[d];
    }
    if (v >= 10) {
        unsigned d = (unsigned)v * 2;
        *--t = digits2[d + 1];
        *--t = digits2[d];
    } else {
        *--t = (char)('0' + v);
    }
    return end;
}

char *fmt_i64(char *p, int64_t v) {
    if (v < 0) {
        *p++ = '-';
        return fmt_u64(p, (uint64_t)0 - (uint64_t)v);
    }
    return fmt_u64(p, (uint64_t)v);
}

char *fmt_us(char *p, int64_t ns) {
    uint64_t u;
    if (ns < 0) {
        *p++ = '-';
        u = (uint64_t)0 - (uint64_t)ns;
    } else {
        u = (uint64_t)ns;
    }
    p = fmt_u64(p, u / 1000);
    unsigned frac = (unsigned)(u % 1000);
    if (frac) {
        *p++ = '.';
        *p++ = (char)('0' + frac / 100);
        frac %= 100;
        if (frac) {
            *p++ = (char)('0' + frac / 10);
            if (frac % 10) *p++ = (char)('0' + frac % 10);
        }
    }
    return p;
}

char *fmt_double(char *p, double v) {
    if (!isfinite(v)) {
        *p++ = '0';
        return p;
    }
    if (v == floor(v) && fabs(v) < 9007199254740992.0) {
        if (v == 0) {             /* -0 too: JSON's "-0" is legal but surprises */
            *p++ = '0';
            return p;
        }
        return fmt_i64(p, (int64_t)v);
    }
    /* The shortest of %.15g..%.17g that reads back the same. */
    char buf[32];
    for (int prec = 15; prec <= 17; prec++) {
        int n = snprintf(buf, sizeof buf, "%.*g", prec, v);
        if (prec == 17 || strtod(buf, NULL) == v) {
            memcpy(p, buf, (size_t)n);
            return p + n;
        }
    }
    return p;
}

/* ---- UTF-8 -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at s (n bytes left), or 0 if invalid;
 * *sub gets the length of the maximal invalid subpart when invalid. */
static inline unsigned utf8_len(const unsigned char *s, size_t n, unsigned *sub) {
    unsigned c = s[0], need;
    unsigned char lo = 0x80, hi = 0xbf;
    if (c >= 0xc2 && c <= 0xdf) need = 1;
    else if (c >= 0xe0 && c <= 0xef) {
        need = 2;
        if (c == 0xe0) lo = 0xa0;
        if (c == 0xed) hi = 0x9f;
    } else if (c >= 0xf0 && c <= 0xf4) {
        need = 3;
        if (c == 0xf0) lo = 0x90;
        if (c == 0xf4) hi = 0x8f;
    } else {
        *sub = 1;
        return 0;
    }
    unsigned i = 1;
    for (; i <= need; i++) {
        if (i >= n) break;
        unsigned char b = s[i];
        unsigned char l = i == 1 ? lo : 0x80, h = i == 1 ? hi : 0xbf;
        if (b < l || b > h) break;
    }
    if (i > need) return need + 1;
    *sub = i;
    return 0;
}

static const char hexd[] = "0123456789abcdef";

/* A sequence starting with a byte >= 0x80 at s[*i]: copy it if it is
 * valid UTF-8, else write U+FFFD for its bad prefix; advances *i. */
static inline char *utf8_copy(char *d, const unsigned char *s, size_t len, size_t *i) {
    unsigned sub, n = utf8_len(s + *i, len - *i, &sub);
    if (n) {
        memcpy(d, s + *i, n);
        *i += n;
        return d + n;
    }
    *d++ = (char)0xef;
    *d++ = (char)0xbf;
    *d++ = (char)0xbd;
    *i += sub;
    return d;
}

size_t json_escape(char *dst, const char *src, size_t len) {
    const unsigned char *s = (const unsigned char *)src;
    char *d = dst;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        if (c >= 0x20 && c < 0x7f && c != '"' && c != '\\') {
            *d++ = (char)c;
            i++;
            continue;
        }
        if (c < 0x80) {
            *d++ = '\\';
            if (c == '"' || c == '\\') {
                *d++ = (char)c;
            } else {
                *d++ = 'u';
                *d++ = '0';
                *d++ = '0';
                *d++ = hexd[c >> 4];
                *d++ = hexd[c & 15];
            }
            i++;
            continue;
        }
        d = utf8_copy(d, s, len, &i);
    }
    return (size_t)(d - dst);
}

void ob_json_str(struct outbuf *o, const char *s, size_t len) {
    size_t cap = (size_t)(o->end - o->buf);
    size_t chunk = (cap - 8) / 6;
    char *p = ob_room(o, 1);
    *p++ = '"';
    o->p = p;
    while (len) {
        size_t n = len;
        if (n > chunk) {
            /* Split where no UTF-8 sequence is cut. */
            n = chunk;
            for (int k = 0; k < 3 && n > 1 && ((unsigned char)s[n] & 0xc0) == 0x80; k++) n--;
        }
        p = ob_room(o, 6 * n);
        o->p = p + json_escape(p, s, n);
        s += n;
        len -= n;
    }
    p = ob_room(o, 1);
    *p++ = '"';
    o->p = p;
}

size_t text_sanitize(char *dst, const char *src, size_t len, const char *bad, char repl) {
    const unsigned char *s = (const unsigned char *)src;
    char *d = dst;
    size_t i = 0;
    while (i < len) {
        unsigned c = s[i];
        if (c < 0x80) {
            if (c < 0x20 || c == 0x7f) *d++ = '?';
            else if (bad && strchr(bad, (int)c)) *d++ = repl;
            else *d++ = (char)c;
            i++;
            continue;
        }
        d = utf8_copy(d, s, len, &i);
    }
    return (size_t)(d - dst);
}

size_t utf8_sanitize(char *dst, const char *src, size_t len) {
    const unsigned char *s = (const unsigned char *)src;
    char *d = dst;
    size_t i = 0;
    while (i < len) {
        if (s[i] < 0x80) {
            *d++ = (char)s[i++];
            continue;
        }
        d = utf8_copy(d, s, len, &i);
    }
    return (size_t)(d - dst);
}

/* ---- the public escaper --------------------------------------------------- */

#include "recorder/analysis.h"

void rec_json_string(FILE *out, const char *s, size_t len) {
    char buf[4096];
    struct outbuf o;
    ob_init_buf(&o, out, buf, sizeof buf);
    ob_json_str(&o, s ? s : "", s ? len : 0);
    ob_flush(&o);
}
