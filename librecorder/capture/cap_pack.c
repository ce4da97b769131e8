/*
 * cap_pack.c -- packing ring entries for capture files.
 *
 * The capture consumer has to keep up with a writer that produces an entry
 * every few nanoseconds, and the disk is slower than memory: packing
 * trades a few cycles per entry for 3-6 times fewer bytes to write.
 * Timestamps become varint deltas (a few hundred ticks fit in 1-2 bytes);
 * a name id that repeats the previous entry of its type (the end of the
 * scope just begun, a loop's next iteration) costs a flag bit.
 */
#include <string.h>

#include "cap_format.h"
#include "cap_pack.h"

#define PAYLOAD_MASK UINT64_C(0x00ffffffffffffff)

static inline unsigned char *put_varint(unsigned char *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (unsigned char)(v | 0x80);
        v >>= 7;
    }
    *p++ = (unsigned char)v;
    return p;
}

size_t rec_cap_pack(const struct rec_entry *in, size_t n, unsigned char *out, uint64_t *conts) {
    unsigned char *p = out;
    uint64_t prev_ts = 0, prev[16] = {0}, nc = 0;
    for (size_t i = 0; i < n; i++) {
        uint64_t w0 = in[i].w0, w1 = in[i].w1;
        unsigned t = (unsigned)(w1 >> 56);
        if (t == REC_EV_CONT) {
            *p++ = (unsigned char)(REC_EV_CONT << 4);
            memcpy(p, &w0, 8);
            memcpy(p + 8, &w1, 7);  /* little-endian: the low 7 bytes */
            p += 15;
            nc++;
            continue;
        }
        if (t == REC_EV_NONE || t > REC_EV_ARG) {
            /* Not a type the writer makes (a hostile or torn ring): kept
             * verbatim, RAW, for the decoders to count as bad.  The type
             * indexes prev[] below, so it must never get there. */
            *p++ = (unsigned char)REC_CAP_PK_RAW;
            memcpy(p, &w0, 8);
            memcpy(p + 8, &w1, 8);
            p += 16;
            continue;
        }
        int64_t d = (int64_t)(w0 - prev_ts);
        uint64_t zz = ((uint64_t)d << 1) ^ (uint64_t)(d >> 63);
        uint64_t pay = w1 & PAYLOAD_MASK;
        prev_ts = w0;
        if (pay == prev[t]) {
            *p++ = (unsigned char)(t << 4 | REC_CAP_PK_SAME);
            p = put_varint(p, zz);
        } else {
            *p++ = (unsigned char)(t << 4);
            p = put_varint(p, zz);
            p = put_varint(p, pay);
            prev[t] = pay;
        }
    }
    *conts = nc;
    return (size_t)(p - out);
}

/* A varint of at most max_bits bits; NULL if it is longer or cut. */
static const unsigned char *get_varint(const unsigned char *p, const unsigned char *end, uint64_t *v,
                                       unsigned max_bits) {
    uint64_t x = 0;
    for (unsigned shift = 0; p < end; shift += 7) {
        unsigned char b = *p++;
        if (shift >= max_bits || (shift + 7 > max_bits && (b & 0x7f) >> (max_bits - shift))) return NULL;
        x |= (uint64_t)(b & 0x7f) << shift;
        if (!(b & 0x80)) {
            *v = x;
            return p;
        }
    }
    return NULL;
}

/* get_varint for the common case first: a capture's deltas and names
 * mostly fit in one or two bytes (the point of packing), and this read
 * runs for every entry of every export.  Both lengths are valid for any
 * max_bits >= 14, which every caller asks for. */
static inline const unsigned char *get_varint_fast(const unsigned char *p, const unsigned char *end, uint64_t *v,
                                                   unsigned max_bits) {
    if (end - p >= 2) {
        if (p[0] < 0x80) {
            *v = p[0];
            return p + 1;
        }
        if (p[1] < 0x80) {
            *v = (uint64_t)(p[0] & 0x7f) | (uint64_t)p[1] << 7;
            return p + 2;
        }
    }
    return get_varint(p, end, v, max_bits);
}

int rec_cap_unpack(const unsigned char *in, size_t len, struct rec_entry *out, size_t n) {
    const unsigned char *p = in, *end = in + len;
    uint64_t prev_ts = 0, prev[16] = {0};
    for (size_t i = 0; i < n; i++) {
        if (p >= end) return -1;
        unsigned tag = *p++, t = tag >> 4, fl = tag & 15;
        if (t == REC_EV_CONT || (fl & REC_CAP_PK_RAW)) {
            size_t k = t == REC_EV_CONT ? 15 : 16;
            if (fl & ~(unsigned)(t == REC_EV_CONT ? 0 : REC_CAP_PK_RAW)) return -1;
            if ((size_t)(end - p) < k) return -1;
            uint64_t w1 = 0;
            memcpy(&out[i].w0, p, 8);
            memcpy(&w1, p + 8, k - 8);
            if (t == REC_EV_CONT) w1 = (w1 & PAYLOAD_MASK) | (uint64_t)REC_EV_CONT << 56;
            out[i].w1 = w1;
            p += k;
            continue;
        }
        if (fl & ~(unsigned)REC_CAP_PK_SAME) return -1;
        uint64_t zz, pay;
        if (!(p = get_varint_fast(p, end, &zz, 64))) return -1;
        int64_t d = (int64_t)(zz >> 1) ^ -(int64_t)(zz & 1);
        prev_ts += (uint64_t)d;
        if (fl & REC_CAP_PK_SAME) pay = prev[t];
        else {
            if (!(p = get_varint_fast(p, end, &pay, 56))) return -1;
            prev[t] = pay;
        }
        out[i].w0 = prev_ts;
        out[i].w1 = (uint64_t)t << 56 | pay;
    }
    return p == end ? 0 : -1;
}
