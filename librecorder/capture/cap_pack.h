/*
 * cap_pack.h -- the PACKED chunk encoding of ring entries (cap_format.h
 * describes the bytes).
 */
#ifndef RECORDER_CAP_PACK_H
#define RECORDER_CAP_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "recorder.h"

/* The most bytes one entry can take packed: a tag, a 64-bit zigzag
 * varint (10 bytes) and a 56-bit varint (8 bytes).  (RAW takes 17, CONT
 * 16.)  Buffers are sized n * this: the segment's author chooses every
 * byte, so the worst case is the case. */
#define REC_CAP_PACK_MAX 19u

/* Pack n entries into out (room for n * REC_CAP_PACK_MAX bytes); returns
 * the bytes written.  *conts gets the number of CONT entries. */
size_t rec_cap_pack(const struct rec_entry *in, size_t n, unsigned char *out, uint64_t *conts);
/* Unpack exactly n entries from exactly len bytes; 0, or -1 if the bytes
 * are not a valid packing of n entries. */
int rec_cap_unpack(const unsigned char *in, size_t len, struct rec_entry *out, size_t n);

#endif
