/*
 * wire.h -- the binary protocol between recorder-web and its page
 * (docs/web.md, "Protocol"): message types, event kinds, and a growable
 * byte buffer that writes the protocol's encodings.
 *
 * Everything is little-endian.  A varint is unsigned LEB128, an svarint is
 * a zigzag-encoded signed LEB128, an f64 an IEEE double.  The page's
 * decoder is page/js/protocol.js; the two change together.
 */
#ifndef WEB_WIRE_H
#define WEB_WIRE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The protocol's version: HELLO's first byte, and the WebSocket
 * subprotocol a page must offer (WEB_PROTOCOL), made from the same number
 * so that the two cannot disagree; page/js/protocol.js has its own copy,
 * which tests/web/protocol.test.js checks against HELLO. */
#define WIRE_V 9
#define WIRE_VERSION ((unsigned)WIRE_V)
#define WIRE_STR_(x) #x
#define WIRE_STR(x) WIRE_STR_(x)
#define WEB_PROTOCOL "recorder-web.v" WIRE_STR(WIRE_V)

/* Server to page. */
enum wire_msg {
    MSG_HELLO = 0x01,
    MSG_STRINGS = 0x02,
    MSG_THREADS = 0x03,
    MSG_EVENTS = 0x04,
    MSG_STATS = 0x05,
    MSG_STATUS = 0x06,
    MSG_PONG = 0x07,
    MSG_LOD = 0x08,           /* the run's summary per lane (lod.h) */
    MSG_LATENCY = 0x09,       /* one scope's latency over the run (latlod.h) */
    MSG_RANGE = 0x0a,         /* a window of a capture file, read on demand (range.h) */
};

/* Page to server.  Anything else closes the connection (1008). */
enum wire_cmsg {
    CMSG_SET_WINDOW = 0x81,   /* u8 window: 0 = 1 s, 1 = 10 s, 2 = all */
    CMSG_PING = 0x82,         /* u32 nonce, echoed in a PONG */
    CMSG_LATENCY = 0x83,      /* u32 name id: answered with a LATENCY */
    CMSG_RANGE = 0x84,        /* u32 id, f64 t0, f64 t1: a capture file's window, answered with a RANGE */
    CMSG_HIDDEN = 0x85,       /* u8: 1 = the page is hidden (a background tab): no EVENTS until 0 */
};
#define WIRE_CMSG_MAX 64u     /* longer client messages close the connection (1009) */

/* Event kinds inside an EVENTS chunk (the ring's types, minus metadata). */
enum wire_kind {
    KIND_BEGIN = 1,
    KIND_END = 2,
    KIND_INSTANT = 3,
    KIND_COUNTER = 4,
    KIND_FLOW_BEGIN = 5,
    KIND_FLOW_STEP = 6,
    KIND_FLOW_END = 7,
};

/* EVENTS chunk flags. */
#define CHUNK_LOSS 1u         /* entries were lost just before this chunk; the
                                 chunk says how many and over which stretch */

/* HELLO flags. */
#define HELLO_FOREIGN 1u      /* the segment's owner is not the uid recorder-web runs as */
#define HELLO_FILE 2u         /* the source is a capture file, not a live program */

/* STATUS flags. */
#define STATUS_ALIVE 1u
#define STATUS_CLOSED 2u      /* the program called rec_shutdown or exited cleanly */
#define STATUS_TRUNCATED 4u   /* the segment file shrank: nothing more can be read */
#define STATUS_LOADING 8u     /* a capture file is still being read */

/* LOD bucket flags. */
#define LOD_FLAG_LOST 1u      /* entries of the lane were lost in this bucket */
#define LOD_FLAG_VALUES 1u    /* a counter's bucket holds values (min, max, last follow) */

/* LATENCY flags. */
#define LAT_FLAG_KNOWN 1u     /* the scope is summarised (else: no calls yet, or past the cap) */

/* Room left in front of every message for the WebSocket header, so a frame
 * goes to lws_write without a copy.  ws.c checks it against LWS_PRE. */
#define WIRE_PRE 16u

/* A growable buffer with WIRE_PRE bytes of headroom.  An allocation
 * failure sets oom and turns every later write into a no-op, so encoders
 * check once at the end. */
struct wbuf {
    unsigned char *mem;       /* WIRE_PRE + cap bytes */
    size_t len, cap;
    int oom;
};

void wb_init(struct wbuf *b, size_t cap);
void wb_free(struct wbuf *b);
void wb_reset(struct wbuf *b);
int wb_grow(struct wbuf *b, size_t need);

static inline unsigned char *wb_data(struct wbuf *b) { return b->mem + WIRE_PRE; }

static inline int wb_room(struct wbuf *b, size_t n) {
    return b->len + n <= b->cap || wb_grow(b, n) == 0;
}

static inline void wb_u8(struct wbuf *b, unsigned v) {
    if (wb_room(b, 1)) wb_data(b)[b->len++] = (unsigned char)v;
}

static inline void wb_bytes(struct wbuf *b, const void *p, size_t n) {
    if (n && wb_room(b, n)) {
        memcpy(wb_data(b) + b->len, p, n);
        b->len += n;
    }
}

static inline void wb_varint(struct wbuf *b, uint64_t v) {
    if (!wb_room(b, 10)) return;
    unsigned char *p = wb_data(b) + b->len;
    size_t n = 0;
    while (v >= 0x80) {
        p[n++] = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    p[n++] = (unsigned char)v;
    b->len += n;
}

static inline void wb_svarint(struct wbuf *b, int64_t v) {
    wb_varint(b, ((uint64_t)v << 1) ^ (uint64_t)(v >> 63));
}

static inline void wb_u32(struct wbuf *b, uint32_t v) {
    unsigned char p[4] = {(unsigned char)v, (unsigned char)(v >> 8), (unsigned char)(v >> 16),
                          (unsigned char)(v >> 24)};
    wb_bytes(b, p, 4);
}

static inline void wb_f64(struct wbuf *b, double d) {
    uint64_t v;
    memcpy(&v, &d, 8);
    unsigned char p[8];
    for (int i = 0; i < 8; i++) p[i] = (unsigned char)(v >> (8 * i));
    wb_bytes(b, p, 8);
}

/* A length-prefixed string, cut at max bytes. */
static inline void wb_str(struct wbuf *b, const char *s, size_t max) {
    size_t n = s ? strnlen(s, max) : 0;
    wb_varint(b, n);
    wb_bytes(b, s, n);
}

#endif
