/*
 * pb_write.h -- the few protobuf encodings the Perfetto exporter needs:
 * varints, tags, fixed64 / double, length-delimited bytes and nested
 * messages, written straight into an output buffer.
 *
 * Our own rather than libprotobuf or protozero: the exporter writes tens
 * of millions of small packets and must stay at tens of ns per event, with
 * no allocation per message and no dependency in librecorder; and the
 * subset is small (docs/perfetto.md lists every field written).
 *
 * A nested message reserves one length byte (most are under 128 bytes)
 * and pb_close moves the body when it turns out longer: callers reserve
 * room for 9 more bytes per open nesting.
 */
#ifndef REC_ANALYSIS_PB_WRITE_H
#define REC_ANALYSIS_PB_WRITE_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#pragma GCC visibility push(hidden)

enum { PB_VARINT = 0, PB_I64 = 1, PB_LEN = 2 };

static inline uint8_t *pb_varint(uint8_t *p, uint64_t v) {
    while (v >= 0x80) {
        *p++ = (uint8_t)(v | 0x80);
        v >>= 7;
    }
    *p++ = (uint8_t)v;
    return p;
}

static inline uint8_t *pb_tag(uint8_t *p, unsigned field, unsigned wire) {
    return pb_varint(p, (uint64_t)field << 3 | wire);
}

static inline uint8_t *pb_uint(uint8_t *p, unsigned field, uint64_t v) {
    return pb_varint(pb_tag(p, field, PB_VARINT), v);
}

/* int64 fields: two's complement, as protobuf does for negative values. */
static inline uint8_t *pb_int(uint8_t *p, unsigned field, int64_t v) { return pb_uint(p, field, (uint64_t)v); }

static inline uint8_t *pb_fixed64(uint8_t *p, unsigned field, uint64_t v) {
    p = pb_tag(p, field, PB_I64);
    for (int i = 0; i < 8; i++) *p++ = (uint8_t)(v >> (8 * i));   /* little-endian whatever the host */
    return p;
}

static inline uint8_t *pb_double(uint8_t *p, unsigned field, double d) {
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return pb_fixed64(p, field, v);
}

static inline uint8_t *pb_bytes(uint8_t *p, unsigned field, const void *s, size_t n) {
    p = pb_varint(pb_tag(p, field, PB_LEN), n);
    memcpy(p, s, n);
    return p + n;
}

/* Opens a nested message: *mark is its length byte. */
static inline uint8_t *pb_open(uint8_t *p, unsigned field, uint8_t **mark) {
    p = pb_tag(p, field, PB_LEN);
    *mark = p;
    return p + 1;
}

/* Closes it at p: returns the new end (the body moved if its length needs
 * more than one byte). */
static inline uint8_t *pb_close(uint8_t *p, uint8_t *mark) {
    size_t n = (size_t)(p - mark - 1);
    if (n < 128) {
        *mark = (uint8_t)n;
        return p;
    }
    uint8_t len[10];
    size_t k = (size_t)(pb_varint(len, n) - len);
    memmove(mark + k, mark + 1, n);
    memcpy(mark, len, k);
    return p + k - 1;
}

#pragma GCC visibility pop

#endif
