/*
 * outbuf.h -- buffered output and fast number formatting for exporters.
 *
 * The exporters write hundreds of megabytes: stdio per number (printf) is
 * the bottleneck, so numbers are formatted by hand into a large buffer
 * that is flushed with one fwrite when it fills.  A write error sticks
 * (err, with its errno) and later writes are dropped; ob_finish reports
 * it, with errno set to the first failure's.
 */
#ifndef REC_ANALYSIS_OUTBUF_H
#define REC_ANALYSIS_OUTBUF_H

#include <stdint.h>
#include <stdio.h>
#include <string.h>

/* Internal to librecorder: not exported from the shared library. */
#pragma GCC visibility push(hidden)

#define OB_MIN_RESERVE 256        /* any single fixed-size write fits */

struct outbuf {
    FILE *f;
    char *buf, *p, *end;
    int err;
    int errnum;               /* errno of the first failed write (ob_finish sets errno to it) */
    int owned;                /* buf is ours to free */
    struct ob_thread *th;     /* the writing thread (outbuf_thread.c), or NULL */
    const struct ob_thread_ops *ops;   /* its side of flush, big writes, finish */
};

/* How outbuf.c reaches outbuf_thread.c, which is built on it (a table,
 * not calls: the layers point one way). */
struct ob_thread_ops {
    void (*flush)(struct outbuf *o);
    void (*write_big)(struct outbuf *o, const void *s, size_t n);
    void (*end)(struct outbuf *o);    /* everything written, the thread joined */
};

int ob_init(struct outbuf *o, FILE *f, size_t cap);         /* cap >= 4096; -1 if no memory */
void ob_init_buf(struct outbuf *o, FILE *f, char *buf, size_t cap);
/* As ob_init, but full buffers are written by a second thread while the
 * caller fills the next (outbuf_thread.c): for the exporters' large
 * outputs.  f is the thread's until ob_finish.  Falls back to ob_init's
 * behaviour if no thread can be started. */
int ob_init_thread(struct outbuf *o, FILE *f, size_t cap);
void ob_flush(struct outbuf *o);
int ob_finish(struct outbuf *o);                             /* flush, free; 0, or -1 with errno set */
/* Marks o failed with the errno of a failed call (EIO if it set none). */
void ob_fail(struct outbuf *o, int e);

/* Room for n more bytes (n <= the buffer's size). */
static inline char *ob_room(struct outbuf *o, size_t n) {
    if ((size_t)(o->end - o->p) < n) ob_flush(o);
    return o->p;
}

void ob_write_big(struct outbuf *o, const void *s, size_t n);

static inline void ob_write(struct outbuf *o, const void *s, size_t n) {
    if (n > 4096) {
        ob_write_big(o, s, n);
        return;
    }
    char *p = ob_room(o, n);
    memcpy(p, s, n);
    o->p = p + n;
}

#define OB_LIT(o, lit) ob_write((o), (lit), sizeof(lit) - 1)

/* Writes v in decimal at p; returns the end. */
char *fmt_u64(char *p, uint64_t v);
char *fmt_i64(char *p, int64_t v);
/* ns as microseconds with at most 3 decimals ("12", "12.5", "12.345"). */
char *fmt_us(char *p, int64_t ns);
/* A finite double as a JSON number (shortest round-trip form); non-finite
 * values are written as 0 (callers never pass them). */
char *fmt_double(char *p, double v);   /* needs 32 bytes */

/* JSON string body escaping (no quotes): ", \ and control characters
 * escaped, invalid UTF-8 replaced by U+FFFD (one per maximal invalid
 * subpart, as Unicode recommends and Python's decoder does).  dst needs
 * 6 * len bytes.  Returns the bytes written. */
size_t json_escape(char *dst, const char *s, size_t len);
/* The same with the quotes, into the buffer, any length. */
void ob_json_str(struct outbuf *o, const char *s, size_t len);

/* UTF-8 sanitizing for text formats (CSV, folded stacks): invalid UTF-8 as
 * U+FFFD, control characters as '?', and each byte in `bad` as `repl`.
 * dst needs 3 * len bytes.  Returns the bytes written. */
size_t text_sanitize(char *dst, const char *s, size_t len, const char *bad, char repl);
/* Only invalid UTF-8 replaced (as json_escape does), for protobuf strings,
 * which must be UTF-8 and take any character.  dst needs 3 * len bytes. */
size_t utf8_sanitize(char *dst, const char *s, size_t len);

#pragma GCC visibility pop

#endif
